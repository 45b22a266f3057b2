"""get_memory: everything Cairn knows about a few memories, by ref.

Besides the memory's fields: its citation's status, its evidence (counts of confirmations,
citations and contradictions, and the code acts that judged it: merge, revert or discard,
with the branch, when, and the act id that `cairn review undo` takes back), its standing
(`status`, and `why` when it left the index) and its history.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.core.context import Context
from cairn.core.errors import QueryError
from cairn.core.lifecycle import CONFIRMING, CONTRADICTING, state_of
from cairn.core.models import MAX_REF, MAX_REFS, Citation, Memory
from cairn.io.store import Event
from cairn.io.store.protocol import Store
from cairn.io.workspace import checkout_root

if TYPE_CHECKING:
    from cairn.io.store.acts import Act

# `citations` and `store.acts` are imported where they are used: recall imports this module
# for `citation_of`, and most of its hits cite nothing (a new process saves their imports).

# What each count of get_memory's evidence holds. A merge confirms and a revert or discard
# contradicts, as `cairn.core.lifecycle` counts them, so an `out` memory shows two contradictions.
COUNTED: dict[str, tuple[str, ...]] = {
    "confirmed": CONFIRMING,
    "cited": ("cited",),
    "contradicted": CONTRADICTING,
}
CODE_ACTS = ("merge", "revert", "discard")


def citation_of(memory: Memory, ctx: Context) -> Citation:
    """The cited code's status, read in the session's checkout first, then the project."""
    if not memory.source_ref or not memory.fingerprint:
        return Citation()
    from cairn.io.citations import check, parse_source_ref

    roots: list[Path] = []
    if ctx.cwd:
        roots.append(checkout_root(ctx.cwd))
    roots.append(Path(ctx.root if memory.project == ctx.project else memory.project))
    try:
        return check(parse_source_ref(memory.source_ref), json.loads(memory.fingerprint), roots)
    except (OSError, ValueError):
        return Citation(note="could not read the cited file")


def citation_view(citation: Citation) -> dict[str, Any]:
    """The citation as printed: status, plus where the cited lines are now."""
    out: dict[str, Any] = {"status": citation.status}
    if citation.lines:
        out["lines"] = f"{citation.lines[0]}-{citation.lines[1]}"
    if citation.symbol:
        out["symbol"] = citation.symbol
    if citation.note:
        out["note"] = citation.note
    return out


def evidence_view(events: Sequence[Event], acts: Mapping[str, Act] | None = None) -> dict[str, Any]:
    """Counts of confirmed, cited and contradicted events, by which tools, and the code acts.

    Confirmed counts restatements by another tool, confirmations by hand and merges;
    contradicted counts contradictions, reverts and discards. A code act's tool is where it
    was learned: `git`, or `review` for an act recorded by hand. Events of acts taken back
    are not given here (the store leaves them out). Each code act shows its id, kind, branch,
    when it was recorded and its source; `acts` supplies the act's own detail (how, which
    commits).
    """
    out: dict[str, Any] = {}
    for name, kinds in COUNTED.items():
        mine = [e for e in events if e.event in kinds]
        out[name] = {"count": len(mine), "tools": sorted({e.tool for e in mine if e.tool})}
    code = [e for e in events if e.event in CODE_ACTS]
    if code:
        out["acts"] = [act_view(e, (acts or {}).get(e.act or "")) for e in code]
    return out


def act_view(event: Event, act: Act | None = None) -> dict[str, Any]:
    """One code act as a memory's card shows it."""
    return {
        "id": event.act or "",
        "act": event.event,
        "branch": act.branch if act else str(event.detail.get("branch", "")),
        "at": event.at,
        "source": act.source if act else event.tool,
        "detail": act.detail if act else event.detail,
    }


def why_of(why: str, status: str, events: Sequence[Event]) -> str:
    """The standing's reason; for `out`, the contradictions since the last confirmation.

    Rule (as `cairn.core.lifecycle.strikes` counts): contradictions after the latest
    confirmation are the ones that put the memory out.
    """
    if status != "out":
        return why
    strikes: list[Event] = []
    for e in sorted(events, key=lambda e: e.at):
        if e.event in CONFIRMING:
            strikes = []
        elif e.event in CONTRADICTING:
            strikes.append(e)
    named = [
        f"{e.event} of {e.detail['branch']} on {e.at[:10]}"
        if e.detail.get("branch")
        else f"{e.event} on {e.at[:10]}"
        for e in strikes
    ]
    return f"{why}: {'; '.join(named)}" if named else why


def version_view(memory: Memory) -> dict[str, Any]:
    """A past or later version of a claim, as listed in history."""
    return {
        "ref": memory.ref,
        "text": memory.text,
        "written": memory.written,
        "until": memory.until,
    }


def memory_view(
    store: Store,
    ctx: Context,
    memory: Memory,
    events: Sequence[Event],
    acts: Mapping[str, Act] | None = None,
) -> dict[str, Any]:
    """All fields of one memory as get_memory returns them."""
    older, newer = store.history_chain(memory.ref)
    cited = [e for e in events if e.event == "cited"]
    state = state_of(memory, events, ctx.clock())
    return {
        "ref": memory.ref,
        "text": memory.text,
        "kind": memory.kind,
        "tags": list(memory.tags),
        "reason": memory.reason,
        "source_ref": memory.source_ref,
        "citation": citation_view(citation_of(memory, ctx)),
        "when": memory.when.to_dict() if memory.when else None,
        "scope": memory.scope,
        "project": memory.project,
        "branch": memory.branch,
        "status": state.status,
        "why": why_of(state.why, state.status, events),
        "pinned": memory.pinned,
        "gate": memory.gate,
        "written": memory.written,
        "until": memory.until,
        "tool": memory.tool,
        "session": memory.session,
        "revision": memory.revision,
        "cited": {"count": len(cited), "last": cited[-1].at if cited else None},
        "evidence": evidence_view(events, acts),
        "history": {
            "replaced": [version_view(m) for m in older],
            "replaced_by": [version_view(m) for m in newer],
        },
    }


def get_memory(store: Store, ctx: Context, refs: Iterable[str]) -> dict[str, Any]:
    """The memories named by `refs`; refs naming no memory come back under `unknown`."""
    wanted = [r.strip() for r in refs if r and r.strip()]
    if len(wanted) > MAX_REFS or any(len(r) > MAX_REF for r in wanted):
        raise QueryError(
            f"get_memory takes at most {MAX_REFS} refs, each like m-7f3a2c; ask for the ones "
            "you will read"
        )
    found = store.get_memories(wanted)
    events = store.events_for(list(found))
    by_ref: dict[str, list[Event]] = {}
    for e in events:
        by_ref.setdefault(e.ref, []).append(e)
    acts = store.get_acts([e.act for e in events if e.act])
    return {
        "memories": [
            memory_view(store, ctx, found[r], by_ref.get(r, []), acts)
            for r in dict.fromkeys(wanted)
            if r in found
        ],
        "unknown": [r for r in dict.fromkeys(wanted) if r not in found],
    }
