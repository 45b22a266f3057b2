"""Review: branches with their sessions and what those sessions cited; Merge, Revert and
Discard as review acts (`cairn review ACT BRANCH`), each with Undo (`cairn review undo ID`);
and the inbox of memories that need a look.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cairn.api import Cairn
from cairn.core.context import stamp
from cairn.core.errors import CairnError, RefusedError
from cairn.core.lifecycle import CONTRADICTING, REST_AFTER_DAYS
from cairn.usecases.codeacts import ACTS, list_acts, review, undo
from cairn.usecases.describe import citation_of
from cairn.web.memories import states
from cairn.web.pages import form_of, go, refused, site_of

SESSIONS = 200  # recent sessions of the project shown, at most
INBOX_SCAN = 500  # contradicted memories the inbox looks at, at most
RESTING_SCAN = 100  # newest idle memories looked at for the resting section
INBOX_SHOWN = 30  # memories shown per inbox section
CITED_SCAN = 20  # newest memories citing code whose file is checked
LAST_VISIT = "app:last_visit"


def branches(cairn: Cairn) -> list[dict[str, Any]]:
    """Each branch with a recorded session: its sessions, the memories they cited."""
    by_branch: dict[str, list[Any]] = defaultdict(list)
    for s in cairn.store.sessions(cairn.ctx.project, limit=SESSIONS):
        if s.branch:
            by_branch[s.branch].append(s)
    out = []
    for name, sessions in sorted(by_branch.items()):
        refs = sorted(cairn.store.cited_in_sessions([s.id for s in sessions]))
        cited = cairn.store.get_memories(refs)
        out.append(
            {"name": name, "sessions": sessions, "cited": [cited[r] for r in refs if r in cited]}
        )
    return out


def inbox(cairn: Cairn) -> dict[str, list[Any]]:
    """Memories needing a look: new since the last visit, contradicted, out, resting, and
    those whose cited code changed or is gone (of the newest CITED_SCAN that cite code)."""
    store, project = cairn.store, cairn.ctx.project
    seen = store.learn_state(project, LAST_VISIT) or ""
    new = store.list_memories(project=project, written_after=seen, limit=INBOX_SHOWN)
    idle = stamp(cairn.ctx.clock() - timedelta(days=REST_AFTER_DAYS))
    sleepy = store.list_memories(project=project, touched_before=idle, limit=RESTING_SCAN)
    doubted = store.get_memories(store.refs_with_events(CONTRADICTING, project)[:INBOX_SCAN])
    standing = states(cairn, [*sleepy, *doubted.values()])
    events: dict[str, set[str]] = defaultdict(set)
    for e in store.events_for(list(doubted)):
        events[e.ref].add(e.event)
    judged = sorted(doubted.values(), key=lambda m: m.written, reverse=True)
    cited = store.list_memories(project=project, cites=True, limit=CITED_SCAN)
    moved = []
    for m in cited:
        status = citation_of(m, cairn.ctx).status
        if status in ("changed", "gone"):
            moved.append((m, status))
    return {
        "new": new,
        "contradicted": [
            m for m in judged if "contradicted" in events[m.ref] and standing[m.ref] != "out"
        ][:INBOX_SHOWN],
        "out": [m for m in judged if standing[m.ref] == "out"][:INBOX_SHOWN],
        "citation": moved[:INBOX_SHOWN],
        "resting": [m for m in sleepy if standing[m.ref] == "resting"][:INBOX_SHOWN],
    }


async def review_page(request: Request) -> Response:
    """GET /review: branches, acts, inbox."""
    site = site_of(request)
    cairn = site.cairn
    return site.render(
        request,
        "review.html",
        branches=branches(cairn),
        acts=list_acts(cairn.store, cairn.ctx, 20),
        box=inbox(cairn),
        act_names=ACTS,
    )


async def record(request: Request) -> Response:
    """POST /review/{act}: a merge, revert or discard of a branch by hand, with its Undo."""
    site = site_of(request)
    name = request.path_params["act"]
    form = await form_of(request)
    branch = str(form.get("branch", ""))[:200]
    user = site.user
    try:
        if name not in ACTS:
            raise RefusedError(f"refused: the act must be one of {', '.join(ACTS)}")
        done = review(user.store, user.ctx, name, branch)
    except CairnError as exc:
        return refused(request, exc, "/review")
    aid = done.act.aid
    pending = site.undos.add(
        f"{name} of {branch} ({len(done.refs)} memories)",
        "/review",
        lambda: _undo_act(user, aid),
    )
    return go("/review", undo=pending.id)


def _undo_act(cairn: Cairn, aid: str) -> None:
    undo(cairn.store, cairn.ctx, aid)


async def take_back_act(request: Request) -> Response:
    """POST /review/undo/{aid}: take a recorded act back (`cairn review undo ID`)."""
    site = site_of(request)
    aid = request.path_params["aid"][:64]
    back = str((await form_of(request)).get("back", "/review"))
    if not back.startswith("/") or back.startswith("//"):
        back = "/review"
    try:
        done = undo(site.user.store, site.user.ctx, aid)
    except CairnError as exc:
        return refused(request, exc, back)
    return go(back, said=f"taken back: {done.act} of {done.branch}")


async def seen(request: Request) -> Response:
    """POST /review/seen: mark every memory so far as seen (the inbox's "new" starts over)."""
    site = site_of(request)
    cairn = site.cairn
    cairn.store.set_learn_state(cairn.ctx.project, LAST_VISIT, cairn.ctx.now())
    return go("/review", said="inbox marked seen")


ROUTES = [
    Route("/review", review_page),
    Route("/review/seen", seen, methods=["POST"]),
    Route("/review/undo/{aid}", take_back_act, methods=["POST"]),
    Route("/review/{act}", record, methods=["POST"]),
]
