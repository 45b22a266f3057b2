"""The records of an import: each checked as a whole, then written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cairn.errors import RefusedError
from cairn.progress import check_progress
from cairn.remember import (
    check_gate,
    check_memory,
    folded_sentence,
    index_text,
)
from cairn.store import Event, Progress, SessionRow
from cairn.store.acts import Act
from cairn.store.protocol import Store
from cairn.transfer.fields import _ACT, _EVIDENCE, _MEMORY, _PROGRESS, _SESSION, _fields, _shown

# -- records: checked as a whole, then written ---------------------------------------------


def _memory(record: dict[str, Any], store: Store, refs: set[str]) -> dict[str, Any]:
    """A memory version as `SqliteStore.load_memory` takes it, normalised as remember does."""
    fields = _fields("memory", record, _MEMORY)
    checked = check_memory(
        fields["text"],
        kind=fields["kind"],
        tags=fields["tags"],
        reason=fields["reason"],
        when=fields["when"],
        scope=fields["scope"],
        source_ref=fields["source_ref"],
        project=Path(fields["project"]),
    )
    check_gate(fields["gate"], checked.when, checked.tags)
    # A belief ends (`until`) when it is corrected (superseded, with `replaced_by`) or
    # forgotten (retired; an older export may have no `until`); an active one has not ended.
    status = fields["status"]
    ended_ok = {"superseded": True, "retired": None, "active": False}[status]
    if (ended_ok is not None and ended_ok != (fields["until"] is not None)) or (
        (status == "superseded") != bool(fields["replaced_by"])
    ):
        raise RefusedError(
            "refused: a superseded memory has `until` and `replaced_by`, a retired one may have "
            "`until`, an active one neither; this one is "
            f"{status} with until {_shown(fields['until'])} and "
            f"replaced_by {_shown(fields['replaced_by'])}"
        )
    del fields["folded"]
    refs.add(fields["ref"])
    return {
        **fields,
        "text": checked.text,
        "kind": checked.kind,
        "tags": list(checked.tags),
        "reason": checked.reason,
        "when": checked.when.to_dict() if checked.when else None,
        "scope": checked.scope,
        "source_ref": checked.source_ref,
    }


def _act(record: dict[str, Any], store: Store, refs: set[str]) -> Act:
    fields = _fields("act", record, _ACT)
    return Act(**{**fields, "sessions": tuple(fields["sessions"])})


def _evidence(record: dict[str, Any], store: Store, refs: set[str]) -> Event:
    fields = _fields("evidence", record, _EVIDENCE)
    ref = fields["ref"]
    if ref not in refs and not store.get_memories([ref]):
        raise RefusedError(
            f"refused: the event is on {ref}, a memory neither in the store nor on an "
            "earlier line of the file"
        )
    return Event(**fields)


def _session(record: dict[str, Any], store: Store, refs: set[str]) -> SessionRow:
    return SessionRow(**_fields("session", record, _SESSION))


def _progress(record: dict[str, Any], store: Store, refs: set[str]) -> Progress:
    fields = _fields("progress", record, _PROGRESS)
    goal, step, status = check_progress(fields["goal"], fields["step"], fields["status"])
    return Progress(**{**fields, "goal": goal, "step": step, "status": status})


_CHECKS: dict[str, Callable[[dict[str, Any], Store, set[str]], Any]] = {
    "memory": _memory,
    "act": _act,
    "evidence": _evidence,
    "session": _session,
    "progress": _progress,
}
_COUNTED = {
    "memory": "memories",
    "act": "acts",
    "evidence": "events",
    "session": "sessions",
    "progress": "progress",
}
_ID_KEY = {"memory": "ref", "act": "aid", "evidence": "eid", "session": "id", "progress": "pid"}


def _write(store: Store, kind: str, checked: Any) -> int:
    """Store one checked record; 1 when it was new."""
    if kind == "memory":
        if store.has_memory(checked["ref"]):
            return 0  # already here: skipped before analysing its words, the costly part
        index = index_text(
            checked["text"], checked["tags"], checked["source_ref"], checked["reason"]
        )
        return int(store.load_memory(checked, folded_sentence(checked["text"]), index))
    if kind == "act":
        return int(store.add_act(checked))
    if kind == "evidence":
        return store.add_events([checked])
    if kind == "session":
        new = store.get_session(checked.id) is None
        store.upsert_session(checked)
        return int(new)
    return store.add_progress(checked)
