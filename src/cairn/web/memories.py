"""The search-first list, the memory card, and the actions on memories with their Undo.

Each action is the library call its CLI command makes (`cairn confirm`, `contradict`,
`correct`, `pin`, `unpin`, `forget`, `restore`), run through `Cairn.undoable` so that its
Undo (`Cairn.take_back`) puts the memory back exactly as it was.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from cairn.api import Cairn
from cairn.core.context import Context
from cairn.core.errors import CairnError, RefusedError, UnknownRefError
from cairn.core.lifecycle import state_of
from cairn.core.models import KINDS, MAX_REF, Memory
from cairn.io.regularfile import read_text
from cairn.usecases.undo import JUDGEMENTS
from cairn.web.pages import form_of, go, refused, site_of

PAGE = 50  # memories per page of the list
STATUSES = ("active", "resting", "out", "retired")
BULK = ("forget", "restore", "pin")
CITED_BYTES = 1 << 20  # the cited file read for the card, at most
CITED_LINES = 40  # lines of it shown, at most


def states(cairn: Cairn, memories: Sequence[Memory]) -> dict[str, str]:
    """Each memory's standing now (active, resting, out, superseded, retired)."""
    by_ref: dict[str, list[Any]] = {m.ref: [] for m in memories}
    for e in cairn.store.events_for(list(by_ref)):
        by_ref[e.ref].append(e)
    now = cairn.ctx.clock()
    return {m.ref: state_of(m, by_ref[m.ref], now).status for m in memories}


def _filters(request: Request) -> dict[str, str]:
    q = request.query_params
    return {
        name: q.get(name, "").strip()[:200]
        for name in ("q", "kind", "tag", "status", "project", "cited")
    }


def _page(request: Request) -> int:
    try:
        return max(1, min(int(request.query_params.get("page", "1")), 10_000))
    except ValueError:
        return 1


async def list_page(request: Request) -> Response:
    """GET /: one search box over recall, filters, paging, bulk select."""
    site = site_of(request)
    f = _filters(request)
    page = _page(request)
    cairn = site.cairn
    if f["project"] and f["project"] != cairn.ctx.project and f["project"] != "*":
        cairn = cairn.using(project=f["project"])
    error = ""
    hits: list[Any] = []
    rows: list[Memory] = []
    more = False
    try:
        if f["q"]:
            hits = _search(cairn, f)
        else:
            rows, more = _listed(cairn, f, page)
    except CairnError as exc:
        error = str(exc)
    standing = states(cairn, rows) if rows else {}
    return site.render(
        request,
        "list.html",
        status=400 if error else 200,
        f=f,
        page=page,
        more=more,
        hits=hits,
        rows=rows,
        standing=standing,
        kinds=KINDS,
        statuses=STATUSES,
        projects=cairn.store.projects(),
        error=error,
        bulk=BULK,
    )


def _search(cairn: Cairn, f: dict[str, str]) -> list[dict[str, Any]]:
    """Recall's hits for the query, with each memory's view for the filters recall lacks."""
    kind = f["kind"] or None
    cairn.catch_up()
    recalled = cairn.recall(f["q"], kind=kind, limit=25)
    cairn.note_recalled(recalled)
    refs = [h.ref for h in recalled.hits if h.kind not in ("doc", "brief")]
    views = {v["ref"]: v for v in cairn.get_memory(refs)["memories"]} if refs else {}
    out = []
    for hit in recalled.hits:
        view = views.get(hit.ref)
        if view is not None and not _keeps(view, f):
            continue
        if view is None and (f["tag"] or f["status"] or f["cited"]):
            continue  # a doc page or the brief has no tags, standing or citation
        out.append({"hit": hit, "view": view})
    return out


def _keeps(view: dict[str, Any], f: dict[str, str]) -> bool:
    if f["tag"] and f["tag"] not in view["tags"]:
        return False
    if f["status"] and view["status"] != f["status"]:
        return False
    return not f["cited"] or view["source_ref"].startswith(f["cited"])


def _listed(cairn: Cairn, f: dict[str, str], page: int) -> tuple[list[Memory], bool]:
    """One page of the memories the filters keep, newest first, and whether more follow.

    The store pages the plain list (and kind, tag, retired); a cited-file filter, or a
    standing worked out from evidence (active, resting, out), reads every current memory.
    """
    project = None if f["project"] == "*" else cairn.ctx.project
    kind = f["kind"] if f["kind"] in KINDS else None
    status = f["status"] if f["status"] in STATUSES else ""
    tag = f["tag"] or None
    start = (page - 1) * PAGE
    if not f["cited"] and status in ("", "retired"):
        found = cairn.store.list_memories(
            project=project,
            kind=kind,
            tag=tag,
            status=status or None,
            limit=PAGE + 1,
            offset=start,
        )
        return found[:PAGE], len(found) > PAGE
    found = cairn.store.list_memories(
        project=project, kind=kind, tag=tag, status=status if status == "retired" else None
    )
    if f["cited"]:
        found = [m for m in found if m.source_ref.startswith(f["cited"])]
    if status and status != "retired":
        standing = states(cairn, found)
        found = [m for m in found if standing[m.ref] == status]
    return found[start : start + PAGE], len(found) > start + PAGE


async def card(request: Request) -> Response:
    """GET /m/{ref}: everything about one memory, with its actions."""
    site = site_of(request)
    ref = request.path_params["ref"]
    found = site.cairn.get_memory(ref[:MAX_REF])["memories"] if len(ref) <= MAX_REF else []
    if not found:
        return refused(request, UnknownRefError(f"unknown ref {ref[:MAX_REF]}: no memory has it"))
    view = found[0]
    memory = site.cairn.store.get_memory(ref)
    return site.render(
        request,
        "card.html",
        m=view,
        timeline=timeline(site.cairn, ref),
        lines=cited_lines(memory, view["citation"], site.cairn.ctx),
        versions=versions(site.cairn, memory),
    )


def timeline(cairn: Cairn, ref: str) -> list[dict[str, Any]]:
    """The memory's events that count, newest first, each with its tool, session and branch."""
    out = []
    for e in reversed(cairn.store.events_for([ref])):
        session = cairn.store.get_session(e.session) if e.session else None
        out.append(
            {
                "event": e.event,
                "at": e.at,
                "tool": e.tool,
                "session": e.session,
                "branch": e.detail.get("branch") or (session.branch if session else ""),
                "act": e.act or "",
                "eid": e.eid,
                "judgement": e.event in JUDGEMENTS and not e.act,
            }
        )
    return out


def cited_lines(memory: Memory, citation: dict[str, Any], ctx: Context) -> list[tuple[int, str]]:
    """The cited lines as the file holds them now (read-only, bounded), numbered."""
    from cairn.io.citations import parse_source_ref

    if not memory.source_ref or citation.get("status") == "gone":
        return []
    try:
        src = parse_source_ref(memory.source_ref)
    except CairnError:
        return []
    if not src.path:
        return []
    root = Path(ctx.root if memory.project == ctx.project else memory.project).resolve()
    path = (root / src.path).resolve()
    if not path.is_relative_to(root):
        return []
    try:
        text = read_text(path, CITED_BYTES, partial=True, errors="replace")
    except OSError:
        return []
    lines = text.splitlines()
    where = citation.get("lines") or (f"{src.start}-{src.end}" if src.start else "")
    first, last = (int(x) for x in where.split("-")) if where else (1, CITED_LINES)
    last = min(last, first + CITED_LINES - 1, len(lines))
    return [(n, lines[n - 1]) for n in range(max(first, 1), last + 1)]


def versions(cairn: Cairn, memory: Memory) -> list[dict[str, Any]]:
    """Every version of the claim, oldest first, each with a word diff from the one before."""
    older, newer = cairn.store.history_chain(memory.ref)
    chain = [*reversed(older), memory, *newer]
    out = []
    for before, version in zip([None, *chain], chain, strict=False):
        out.append(
            {
                "ref": version.ref,
                "written": version.written,
                "until": version.until,
                "reason": version.reason,
                "diff": diff(before.text, version.text) if before else escape(version.text),
                "this": version.ref == memory.ref,
            }
        )
    return out


def diff(old: str, new: str) -> Markup:
    """A word diff of two sentences as HTML: removed words in <del>, added in <ins>."""
    a, b = old.split(), new.split()
    parts: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b).get_opcodes():
        if op in ("delete", "replace"):
            parts.append(f"<del>{escape(' '.join(a[i1:i2]))}</del>")
        if op in ("insert", "replace"):
            parts.append(f"<ins>{escape(' '.join(b[j1:j2]))}</ins>")
        if op == "equal":
            parts.append(str(escape(" ".join(a[i1:i2]))))
    return Markup(" ".join(parts))


# -- actions ------------------------------------------------------------------------------
ACTIONS: dict[str, Callable[[Cairn, str], object]] = {
    "confirm": lambda c, ref: c.confirm(ref),
    "contradict": lambda c, ref: c.contradict(ref),
    "pin": lambda c, ref: c.pin(ref),
    "unpin": lambda c, ref: c.unpin(ref),
    "forget": lambda c, ref: c.forget(ref),
    "restore": lambda c, ref: c.restore(ref),
}
SAID = {
    "confirm": "confirmed",
    "contradict": "contradicted",
    "pin": "pinned",
    "unpin": "unpinned",
    "forget": "forgot",
    "restore": "restored",
    "edit": "corrected",
}


async def act(request: Request) -> Response:
    """POST /m/{ref}/{action}: one action, then the card with its Undo in a toast."""
    site = site_of(request)
    ref, name = request.path_params["ref"][:MAX_REF], request.path_params["action"]
    form = await form_of(request)
    user = site.user
    back = f"/m/{ref}"
    try:
        if name == "edit":
            revision = _int(form.get("revision"))
            text = str(form.get("text", ""))
            reason = str(form.get("reason", "")).strip() or None
            done, change = user.undoable(
                [ref], lambda: user.correct(ref, text, revision=revision, reason=reason)
            )
            target = done.ref
        elif name in ACTIONS:
            _, change = user.undoable([ref], lambda: ACTIONS[name](user, ref))
            target = ref
        else:
            raise UnknownRefError(f"unknown action {name[:40]!r}")
    except CairnError as exc:
        return refused(request, exc, back)
    if not change.events and not change.created and change.was == change.now:
        return go(f"/m/{target}", said=f"nothing changed: {ref} was already {SAID[name]}")
    undo = site.undos.add(f"{SAID[name]} {ref}", back, lambda: user.take_back(change))
    return go(f"/m/{target}", undo=undo.id)


async def bulk(request: Request) -> Response:
    """POST /bulk: forget, restore or pin every selected memory at once (one Undo)."""
    site = site_of(request)
    form = await request.form()
    name = str(form.get("action", ""))
    refs = [str(r)[:MAX_REF] for r in form.getlist("ref")][:PAGE]
    back = str(form.get("back", "/"))
    if not back.startswith("/") or back.startswith("//"):
        back = "/"
    user = site.user
    try:
        if name not in BULK:
            raise RefusedError(f"refused: bulk action must be one of {', '.join(BULK)}")
        if not refs:
            raise RefusedError("refused: select at least one memory")
        _, change = user.undoable(refs, lambda: [ACTIONS[name](user, r) for r in refs])
    except CairnError as exc:
        return refused(request, exc, back)
    undo = site.undos.add(
        f"{SAID[name]} {len(refs)} memories", back, lambda: user.take_back(change)
    )
    sep = "&" if "?" in back else "?"
    return RedirectResponse(f"{back}{sep}undo={undo.id}", status_code=303)


async def take_back_event(request: Request) -> Response:
    """POST /m/{ref}/events/{eid}/take-back: a confirmation or contradiction stops counting."""
    site = site_of(request)
    ref, eid = request.path_params["ref"][:MAX_REF], request.path_params["eid"][:64]
    try:
        site.user.take_back_event(ref, eid)
    except CairnError as exc:
        return refused(request, exc, f"/m/{ref}")
    return go(f"/m/{ref}", said="taken back: it no longer counts")


async def undo(request: Request) -> Response:
    """POST /undo/{id}: take an action back; the toast stays until this succeeds."""
    site = site_of(request)
    uid = request.path_params["uid"]
    pending = site.undos.get(uid)
    if pending is None:
        return refused(request, RefusedError("refused: nothing to undo (already undone?)"))
    try:
        pending.run()
    except CairnError as exc:
        return refused(request, exc, pending.back)
    site.undos.done(uid)
    return go(pending.back, said=f"undone: {pending.said}")


async def dismiss(request: Request) -> Response:
    """POST /undo/{id}/dismiss: hide the toast (the action stays done)."""
    site = site_of(request)
    site.undos.dismiss(request.path_params["uid"])
    back = str((await form_of(request)).get("back", "/"))
    return go(back if back.startswith("/") and not back.startswith("//") else "/")


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


ROUTES = [
    Route("/", list_page),
    Route("/m/{ref}", card),
    Route("/m/{ref}/{action}", act, methods=["POST"]),
    Route("/m/{ref}/events/{eid}/take-back", take_back_event, methods=["POST"]),
    Route("/bulk", bulk, methods=["POST"]),
    Route("/undo/{uid}", undo, methods=["POST"]),
    Route("/undo/{uid}/dismiss", dismiss, methods=["POST"]),
]
