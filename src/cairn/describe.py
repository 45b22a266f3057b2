"""get_memory: everything Cairn knows about a few memories, by ref."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cairn.citations import check, parse_source_ref
from cairn.context import Context
from cairn.lifecycle import state_of
from cairn.models import Citation, Memory
from cairn.store import Event, SqliteStore
from cairn.workspace import checkout_root

COUNTED = ("confirmed", "cited", "contradicted")


def citation_of(memory: Memory, ctx: Context) -> Citation:
    """The cited code's status, read in the session's checkout first, then the project."""
    if not memory.source_ref or not memory.fingerprint:
        return Citation()
    roots: list[Path] = []
    if ctx.cwd:
        roots.append(checkout_root(ctx.cwd))
    roots.append(Path(memory.project))
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


def evidence_view(events: Sequence[Event]) -> dict[str, Any]:
    """Counts of confirmed, cited and contradicted events, and by which tools."""
    out: dict[str, Any] = {}
    for name in COUNTED:
        mine = [e for e in events if e.event == name]
        out[name] = {"count": len(mine), "tools": sorted({e.tool for e in mine if e.tool})}
    acts = [e for e in events if e.event in ("merge", "revert", "discard")]
    if acts:
        out["acts"] = [{"act": e.event, "at": e.at, "detail": e.detail} for e in acts]
    return out


def version_view(memory: Memory) -> dict[str, Any]:
    """A past or later version of a claim, as listed in history."""
    return {"ref": memory.ref, "text": memory.text, "written": memory.written,
            "until": memory.until}


def memory_view(
    store: SqliteStore, ctx: Context, memory: Memory, events: Sequence[Event]
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
        "why": state.why,
        "pinned": memory.pinned,
        "written": memory.written,
        "until": memory.until,
        "tool": memory.tool,
        "session": memory.session,
        "revision": memory.revision,
        "cited": {"count": len(cited), "last": cited[-1].at if cited else None},
        "evidence": evidence_view(events),
        "history": {
            "replaced": [version_view(m) for m in older],
            "replaced_by": [version_view(m) for m in newer],
        },
    }


def get_memory(store: SqliteStore, ctx: Context, refs: Iterable[str]) -> dict[str, Any]:
    """The memories named by `refs`; refs naming no memory come back under `unknown`."""
    wanted = [r.strip() for r in refs if r and r.strip()]
    found = store.get_memories(wanted)
    events = store.events_for(list(found))
    by_ref: dict[str, list[Event]] = {}
    for e in events:
        by_ref.setdefault(e.ref, []).append(e)
    return {
        "memories": [
            memory_view(store, ctx, found[r], by_ref.get(r, [])) for r in dict.fromkeys(wanted)
            if r in found
        ],
        "unknown": [r for r in dict.fromkeys(wanted) if r not in found],
    }
