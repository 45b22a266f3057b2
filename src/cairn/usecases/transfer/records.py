"""The records of an export file: the schema of each type, and each record checked as a whole
(a memory by every rule `remember` applies, a progress record by `log_mission_progress`'s, an
event only on a memory of the file or of the store) into what the store takes."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from cairn.core.errors import RefusedError
from cairn.io.store import EVENTS, Event, Progress, SessionRow
from cairn.io.store.acts import ACTS, SOURCES, Act
from cairn.io.store.protocol import Store
from cairn.usecases.progress import check_progress
from cairn.usecases.remember import MEMORY_STATUSES, check_gate, check_memory
from cairn.usecases.transfer.fields import (
    Spec,
    as_fingerprint,
    as_flag,
    as_ident,
    as_label,
    as_labels,
    as_object,
    as_path,
    as_path_or_empty,
    as_ref,
    as_revision,
    as_stamp,
    as_stamp_or_empty,
    as_text,
    as_texts,
    as_version,
    checked_fields,
    nullable,
    one_of,
    shown,
)

HEADER = {"version": Spec(as_version, required=True)}


_MEMORY = {
    "ref": Spec(as_ref, required=True),
    "project": Spec(as_path, required=True),
    "scope": Spec(as_text, default="project"),
    "kind": Spec(as_text, required=True),
    "text": Spec(as_text, required=True),
    "folded": Spec(as_text),  # derived from the text: computed again
    "tags": Spec(as_texts, default=()),
    "reason": Spec(as_text, default=""),
    "source_ref": Spec(as_text, default=""),
    "cite_fp": Spec(nullable(as_fingerprint), default=""),
    "when": Spec(nullable(as_object)),
    "branch": Spec(as_label, default=""),
    "pinned": Spec(as_flag, default=False),
    "gate": Spec(as_flag, default=False),
    "tool": Spec(as_label, default=""),
    "session": Spec(as_label, default=""),
    "written": Spec(as_stamp, required=True),
    "until": Spec(nullable(as_stamp)),
    "replaces": Spec(nullable(as_ref)),
    "replaced_by": Spec(nullable(as_ref)),
    "status": Spec(one_of(*MEMORY_STATUSES), default="active"),
    "revision": Spec(as_revision, default=1),
    "last_touched": Spec(nullable(as_stamp_or_empty)),
}


_ACT = {
    "aid": Spec(as_ident, required=True),
    "project": Spec(as_path, required=True),
    "branch": Spec(as_label, required=True),
    "act": Spec(one_of(*ACTS), required=True),
    "at": Spec(as_stamp, required=True),
    "source": Spec(one_of(*SOURCES), required=True),
    "key": Spec(as_ident, required=True),
    "detail": Spec(as_object, default={}),
    "undone_at": Spec(nullable(as_stamp)),
    "sessions": Spec(as_labels, default=()),
}


_EVIDENCE = {
    "eid": Spec(as_ident, required=True),
    "ref": Spec(as_ref, required=True),
    "event": Spec(one_of(*EVENTS), required=True),
    "tool": Spec(as_label, required=True),
    "session": Spec(as_label, required=True),
    "at": Spec(as_stamp, required=True),
    "act": Spec(nullable(as_ident)),
    "detail": Spec(as_object, default={}),
}


_SESSION = {
    "id": Spec(as_ident, required=True),
    "tool": Spec(as_label, required=True),
    "project": Spec(as_path_or_empty, required=True),
    "branch": Spec(as_label, required=True),
    "cwd": Spec(as_label, required=True),
    "started": Spec(as_stamp, required=True),
    "ended": Spec(nullable(as_stamp)),
}


_PROGRESS = {
    "pid": Spec(as_ident, required=True),
    "project": Spec(as_path, required=True),
    "branch": Spec(as_label, required=True),
    "goal": Spec(as_text, required=True),
    "step": Spec(as_text, required=True),
    "status": Spec(as_text, required=True),
    "tool": Spec(as_label, required=True),
    "session": Spec(as_label, required=True),
    "at": Spec(as_stamp, required=True),
}


# -- records: checked as a whole, then written ---------------------------------------------


def _memory(record: dict[str, Any], store: Store, refs: set[str]) -> dict[str, Any]:
    """A memory version as `SqliteStore.load_memory` takes it, normalised as remember does."""
    fields = checked_fields("memory", record, _MEMORY)
    checked = check_memory(
        fields["text"],
        kind=fields["kind"],
        tags=fields["tags"],
        reason=fields["reason"],
        when=fields["when"],
        scope=fields["scope"],
        source_ref=fields["source_ref"],
        project=_folder(fields["project"]),
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
            f"{status} with until {shown(fields['until'])} and "
            f"replaced_by {shown(fields['replaced_by'])}"
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
    fields = checked_fields("act", record, _ACT)
    return Act(**{**fields, "sessions": tuple(fields["sessions"])})


def _evidence(record: dict[str, Any], store: Store, refs: set[str]) -> Event:
    fields = checked_fields("evidence", record, _EVIDENCE)
    ref = fields["ref"]
    if ref not in refs and not store.get_memories([ref]):
        raise RefusedError(
            f"refused: the event is on {ref}, a memory neither in the store nor on an "
            "earlier line of the file"
        )
    return Event(**fields)


def _session(record: dict[str, Any], store: Store, refs: set[str]) -> SessionRow:
    return SessionRow(**checked_fields("session", record, _SESSION))


def _progress(record: dict[str, Any], store: Store, refs: set[str]) -> Progress:
    fields = checked_fields("progress", record, _PROGRESS)
    goal, step, status = check_progress(fields["goal"], fields["step"], fields["status"])
    return Progress(**{**fields, "goal": goal, "step": step, "status": status})


@lru_cache(maxsize=256)
def _folder(project: str) -> Path:
    """A memory's project as a Path (an export names a few projects, 100k times)."""
    return Path(project)


CHECKS: dict[str, Callable[[dict[str, Any], Store, set[str]], Any]] = {
    "memory": _memory,
    "act": _act,
    "evidence": _evidence,
    "session": _session,
    "progress": _progress,
}


COUNTED = {
    "memory": "memories",
    "act": "acts",
    "evidence": "events",
    "session": "sessions",
    "progress": "progress",
}


ID_KEY = {"memory": "ref", "act": "aid", "evidence": "eid", "session": "id", "progress": "pid"}
