"""Evidence events (append-only) and session offers: the store's SQL for both.

Events are never deleted. An event produced by a code act that was taken back (`cairn review
undo` sets `acts.undone_at`) stays stored, but `for_refs` no longer returns it, so nothing that
judges a memory (ranking, lifecycle, get_memory) counts it. So does an event taken back by
itself (the app's Undo of a confirmation by hand): its `detail` holds `taken_back`, the moment
it was taken back, and it travels with the event through export and import.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from cairn.core.models import Event
from cairn.io.store.hookread import COUNTS, events_where, offer, offered

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Sequence
    from typing import Any

__all__ = [
    "EVENTS",
    "Event",
    "add",
    "all_events",
    "exists",
    "for_refs",
    "new_eid",
    "offer",
    "offered",
    "take_back",
]

EVENTS = ("cited", "confirmed", "echo", "contradicted", "merge", "revert", "discard")


def new_eid() -> str:
    """A globally unique event id, so export/import stays idempotent across stores."""
    return "e-" + os.urandom(8).hex()


def add(conn: sqlite3.Connection, event: Event) -> None:
    """Append one event; an event already present (same eid) is ignored."""
    if event.event not in EVENTS:
        raise ValueError(f"unknown evidence event {event.event!r}")
    conn.execute(
        "INSERT OR IGNORE INTO evidence (eid, ref, event, tool, session, at, act, detail) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.eid,
            event.ref,
            event.event,
            event.tool,
            event.session,
            event.at,
            event.act,
            json.dumps(event.detail, sort_keys=True),
        ),
    )


def _event(row: Sequence[Any]) -> Event:
    return Event(row[0], row[1], row[2], row[3], row[4], row[5], row[6], json.loads(row[7]))


def for_refs(conn: sqlite3.Connection, refs: Sequence[str]) -> list[Event]:
    """The events on these memories that still count, oldest first.

    Rule: an event whose act was taken back (`acts.undone_at` set) no longer counts.
    """
    out: list[Event] = []
    for i in range(0, len(refs), 500):
        chunk = list(refs[i : i + 500])
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(
            "SELECT eid, ref, event, tool, session, at, act, detail FROM evidence "
            f"WHERE {events_where(marks)}",
            chunk,
        ):
            out.append(_event(row))
    out.sort(key=lambda e: e.at)
    return out


def exists(
    conn: sqlite3.Connection, ref: str, event: str, tool: str, session: str, day: str
) -> bool:
    """Has this tool already produced this event on this memory in this session (or day)?"""
    if session:
        row = conn.execute(
            "SELECT 1 FROM evidence WHERE ref = ? AND event = ? AND tool = ? AND session = ? "
            f"AND {COUNTS}",
            (ref, event, tool, session),
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT 1 FROM evidence WHERE ref = ? AND event = ? AND tool = ? AND session = '' "
            f"AND substr(at, 1, 10) = ? AND {COUNTS}",
            (ref, event, tool, day),
        ).fetchone()
    return row is not None


def take_back(conn: sqlite3.Connection, eids: Sequence[str], at: str) -> int:
    """Mark these events taken back at `at` (kept, no longer counted); returns how many were
    marked (an event already taken back keeps its first moment)."""
    marks = ",".join("?" * len(eids))
    cur = conn.execute(
        "UPDATE evidence SET detail = json_set(detail, '$.taken_back', ?) "
        f"WHERE eid IN ({marks}) AND {COUNTS}",
        (at, *eids),
    )
    return cur.rowcount


def all_events(conn: sqlite3.Connection) -> Iterable[Event]:
    """Every event, oldest first (export), those of acts taken back included."""
    for row in conn.execute(
        "SELECT eid, ref, event, tool, session, at, act, detail FROM evidence ORDER BY id"
    ):
        yield _event(row)
