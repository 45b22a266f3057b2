"""The app: memory cards, review and undo in the browser (`cairn serve`).

A Starlette app over the same library calls the CLI makes, rendered on the server with
Jinja2; htmx is vendored in `static/` (no CDN, no build step). `Guard` (cairn.web.security)
holds every lock: the one-time token, the session cookie, the Host header and CSRF. Every
other module is pages: memories (list, card, actions, Undo), review (acts, inbox), insight
(lessons, stats, progress). `cairn.web.serve` runs it with uvicorn on 127.0.0.1 only.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from cairn.api import Cairn
from cairn.web import insight, memories, review
from cairn.web.pages import HERE, Site
from cairn.web.security import Guard, Keys

__all__ = ["Keys", "create_app"]


def create_app(cairn: Cairn, keys: Keys) -> Guard:
    """The app for this workspace, behind its guard."""
    app = Starlette(
        routes=[
            *memories.ROUTES,
            *review.ROUTES,
            *insight.ROUTES,
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ]
    )
    app.state.site = Site(cairn, keys)
    return Guard(app, keys)
