"""Export and import: the whole workspace as JSON Lines, lossless and idempotent.

Each line is one record with a `type`: `memory` (every version, so history survives),
`act` (code acts, with whether they were undone, so an undone act stays undone), `evidence`,
`session`, `progress`. Importing the same file twice changes nothing the second time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from cairn.errors import RefusedError
from cairn.remember import folded_sentence, index_text
from cairn.store import Event, Progress, SessionRow, SqliteStore
from cairn.store import acts as store_acts

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Imported:
    """Counts of records read and written by an import."""

    read: int = 0
    memories: int = 0
    acts: int = 0
    events: int = 0
    sessions: int = 0
    progress: int = 0

    def to_dict(self) -> dict[str, int]:
        """Counts as printed by `cairn import --json`."""
        return dict(self.__dict__)


def export_lines(store: SqliteStore) -> Iterator[str]:
    """The workspace as JSON Lines, a header first."""
    yield json.dumps({"type": "cairn-export", "version": FORMAT_VERSION})
    for act in store_acts.all_acts(store.conn):
        record = {**act.__dict__, "sessions": list(act.sessions)}
        yield json.dumps({"type": "act", **record}, ensure_ascii=False, sort_keys=True)
    for record in store.dump():
        for key in ("fts_sentence", "fts_tags", "fts_citation", "fts_reason"):
            record.pop(key, None)  # derived: rebuilt by the analyser on import
        yield json.dumps(record, ensure_ascii=False, sort_keys=True)


def import_lines(store: SqliteStore, lines: Iterable[str]) -> Imported:
    """Load exported records; records already present are skipped (idempotent)."""
    counts = {"read": 0, "memories": 0, "acts": 0, "events": 0, "sessions": 0, "progress": 0}
    with store.transaction():
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record: dict[str, Any] = json.loads(line)
                kind = record.pop("type")
            except (ValueError, KeyError, AttributeError) as exc:
                raise RefusedError(f"line {number} is not a Cairn export record: {exc}") from exc
            counts["read"] += 1
            if kind == "memory":
                index = index_text(
                    record["text"],
                    record.get("tags", ()),
                    record.get("source_ref", ""),
                    record.get("reason", ""),
                )
                if store.load_memory(record, folded_sentence(record["text"]), index):
                    counts["memories"] += 1
            elif kind == "act":
                record["sessions"] = tuple(record.get("sessions", ()))
                counts["acts"] += int(store_acts.add_act(store.conn, store_acts.Act(**record)))
            elif kind == "evidence":
                counts["events"] += store.add_events([Event(**record)])
            elif kind == "session":
                if store.get_session(record["id"]) is None:
                    counts["sessions"] += 1
                store.upsert_session(SessionRow(**record))
            elif kind == "progress":
                counts["progress"] += store.add_progress(Progress(**record))
            elif kind != "cairn-export":
                raise RefusedError(f"line {number}: unknown record type {kind!r}")
    return Imported(**counts)
