"""What every page shares: the templates, the pending undos, and how a page is answered.

A page is rendered whole on the server. htmx (vendored in `static/`, `hx-boost` on the body)
turns links and forms into fetches that swap the page's body, so everything also works with
JavaScript off: a form posts, the server answers 303 to the page to show, the page renders.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from cairn.api import Cairn
from cairn.core.errors import CairnError, ConflictError, UnknownRefError
from cairn.web.security import CSRF_FIELD, Keys

HERE = Path(__file__).parent
MAX_UNDOS = 200  # pending undos kept; the oldest is dropped past this


@dataclass(frozen=True)
class Undo:
    """One action that can still be taken back: what it did, and how to take it back."""

    id: str
    said: str  # "forgot m-1a2b3c", shown in the toast
    back: str  # the page to show after the undo
    run: Callable[[], None]


class Undos:
    """The actions of this server that can still be taken back, newest last (bounded).

    The newest action's toast shows on every page until its undo succeeds or it is dismissed;
    an older one shows on the page its own link names (`?undo=ID`).
    """

    def __init__(self) -> None:
        self._kept: OrderedDict[str, Undo] = OrderedDict()
        self._latest: str | None = None

    def add(self, said: str, back: str, run: Callable[[], None]) -> Undo:
        """Keep an undo and return it (its id goes in the toast's form)."""
        undo = Undo(secrets.token_urlsafe(9), said, back, run)
        self._kept[undo.id] = undo
        self._latest = undo.id
        while len(self._kept) > MAX_UNDOS:
            self._kept.popitem(last=False)
        return undo

    def get(self, uid: str) -> Undo | None:
        """The pending undo with this id, if any."""
        return self._kept.get(uid)

    def toast(self, uid: str) -> Undo | None:
        """The undo a page shows: the one named, else the newest action's."""
        return self._kept.get(uid) or (self._kept.get(self._latest) if self._latest else None)

    def done(self, uid: str) -> None:
        """Forget an undo that succeeded (its toast goes away)."""
        self._kept.pop(uid, None)
        self.dismiss(uid)

    def dismiss(self, uid: str) -> None:
        """Stop showing an undo's toast on every page (it can still be taken from its link)."""
        if self._latest == uid:
            self._latest = None


class Site:
    """The app's state: the workspace, the keys, the templates and the pending undos."""

    def __init__(self, cairn: Cairn, keys: Keys) -> None:
        self.cairn = cairn
        self.user = cairn.using(tool="user", session="")
        self.keys = keys
        self.undos = Undos()
        self.env = Environment(
            loader=FileSystemLoader(HERE / "templates"),
            autoescape=select_autoescape(["html", "svg"]),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.globals["csrf_field"] = CSRF_FIELD

    def render(self, request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        """A whole page from its template."""
        uid = request.query_params.get("undo", "")
        values.setdefault("toast", self.undos.toast(uid))
        values.setdefault("notice", request.query_params.get("said", ""))
        values.setdefault("error", "")
        html = self.env.get_template(name).render(
            csrf=self.keys.csrf,
            path=request.url.path,
            project=self.cairn.ctx.project,
            **values,
        )
        return HTMLResponse(html, status_code=status)


def go(path: str, **query: str) -> RedirectResponse:
    """303 to a page (after a POST): the browser then GETs it, so a reload repeats nothing."""
    kept = {k: v for k, v in query.items() if v}
    return RedirectResponse(path + (f"?{urlencode(kept)}" if kept else ""), status_code=303)


def status_of(error: CairnError) -> int:
    """The HTTP status of a refusal: 404 unknown ref, 409 stale, else 400."""
    if isinstance(error, UnknownRefError):
        return 404
    if isinstance(error, ConflictError):
        return 409
    return 400


def site_of(request: Request) -> Site:
    """The Site this request is served by."""
    site: Site = request.app.state.site
    return site


async def form_of(request: Request) -> Mapping[str, Any]:
    """The posted form (small: the guard refused bodies over its bound)."""
    return await request.form()


def refused(request: Request, error: CairnError, back: str = "/") -> Response:
    """A refused action: the error page, with the status saying why and a way back."""
    return site_of(request).render(
        request, "refused.html", status=status_of(error), error=str(error), back=back
    )
