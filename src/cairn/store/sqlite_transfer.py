"""The SQLite store's export and import: every record as plain dicts, the lines of an export
already stored, and an exported memory version loaded back.

`SqliteStore` methods (this class is one of its bases); `cairn.transfer` checks and writes
through them.
"""

from __future__ import annotations

from cairn.codec import loads
from cairn.store import evidence as ev
from cairn.store import memories as mem

# The hook opens the store (this class is part of it): no json or typing at import time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

    from cairn.store.connection import Connection
    from cairn.store.transaction import Transaction

__all__ = ["SqliteTransfer"]


class SqliteTransfer:
    """Export and import."""

    conn: Connection
    if TYPE_CHECKING:

        def transaction(self) -> Transaction: ...  # SqliteStore's

    # -- export / import ----------------------------------------------------------------
    def dump(self, derived: bool = True) -> Iterator[dict[str, Any]]:
        """Every record of the workspace as plain dicts (memories with history, events, ...);
        `derived`: with each memory's analysed index columns (`fts_*`)."""
        from cairn.store.rows import Progress, SessionRow

        extra = ["fts_sentence", "fts_tags", "fts_citation", "fts_reason"] if derived else []
        selected = ", ".join([mem.MEMORY_COLUMNS, *extra])
        names = [*_DUMPED, *extra]
        for row in self.conn.execute(f"SELECT 'memory', {selected} FROM memories ORDER BY id"):
            yield _memory_record(names, row)
        for e in ev.all_events(self.conn):
            yield {"type": "evidence", **e.as_dict()}
        for s in self.conn.execute(
            "SELECT id, tool, project, branch, cwd, started, ended FROM sessions ORDER BY started"
        ):
            yield {"type": "session", **SessionRow(*s).as_dict()}
        for p in self.conn.execute(
            "SELECT pid, project, branch, goal, step, status, tool, session, at FROM progress "
            "ORDER BY id"
        ):
            yield {"type": "progress", **Progress(*p).as_dict()}

    def unchanged_memories(self, lines: Sequence[str]) -> dict[int, str]:
        """Of these export lines, those that are, as JSON, exactly a memory version stored
        under its ref (keys in export's order): position -> ref. Compared by SQLite's JSON
        functions, so an import need not parse a line it would skip anyway; a line written
        otherwise than export writes it (a lesson's `when` in another key order) is left for
        the caller to compare."""
        import json  # here: the hook opens this module and stays off json

        # ASCII: a lone surrogate in a line stays an escape SQLite can read, not an error.
        blob = json.dumps(list(lines))
        return {int(k): str(ref) for k, ref in self.conn.execute(_UNCHANGED, (blob,))}

    def memory_records(self, refs: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The memories found among refs, by ref, each as `dump(derived=False)` gives it."""
        out: dict[str, dict[str, Any]] = {}
        unique = list(dict.fromkeys(refs))
        for i in range(0, len(unique), 500):
            chunk = unique[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(
                f"SELECT 'memory', {mem.MEMORY_COLUMNS} FROM memories WHERE ref IN ({marks})",
                chunk,
            ):
                record = _memory_record(_DUMPED, row)
                out[record["ref"]] = record
        return out

    def load_memory(self, record: dict[str, Any], folded: str, index: mem.IndexText) -> bool:
        """Insert an exported memory version unless its ref exists; True when inserted."""
        from cairn.models import Memory, Trigger

        with self.transaction():
            if self.conn.execute(
                "SELECT 1 FROM memories WHERE ref = ?", (record["ref"],)
            ).fetchone():
                return False
            when = record.get("when")
            status = record.get("status", "active")
            until = record.get("until")
            if status == "retired" and until is None:
                # An export from before forgets were dated: as migration 0007 reads it.
                until = record.get("last_touched") or record["written"]
            memory = Memory(
                ref=record["ref"],
                text=record["text"],
                kind=record["kind"],
                project=record["project"],
                tags=tuple(record.get("tags", ())),
                reason=record.get("reason", ""),
                source_ref=record.get("source_ref", ""),
                when=Trigger(**when) if when else None,
                scope=record.get("scope", "project"),
                branch=record.get("branch", ""),
                pinned=bool(record.get("pinned")),
                tool=record.get("tool", ""),
                session=record.get("session", ""),
                written=record["written"],
                until=until,
                replaces=record.get("replaces"),
                replaced_by=record.get("replaced_by"),
                status=status,
                revision=int(record.get("revision", 1)),
                last_touched=record.get("last_touched") or record["written"],
                fingerprint=record.get("cite_fp") or "",
                gate=bool(record.get("gate")),
            )
            mem.insert(self.conn, memory, folded, index)
            return True


# A line is unchanged when its JSON, minified, is the stored row as export writes it: the
# keys in sorted order, flags as true/false, tags and `when` as JSON (null when none).
_UNCHANGED = """
SELECT line.key, m.ref FROM json_each(?) AS line JOIN memories AS m
  ON m.ref = CASE WHEN json_valid(line.value) THEN json_extract(line.value, '$.ref') END
WHERE json(line.value) = json_object(
  'branch', m.branch, 'cite_fp', m.cite_fp, 'folded', m.folded,
  'gate', json(CASE WHEN m.gate THEN 'true' ELSE 'false' END),
  'kind', m.kind, 'last_touched', m.last_touched,
  'pinned', json(CASE WHEN m.pinned THEN 'true' ELSE 'false' END),
  'project', m.project, 'reason', m.reason, 'ref', m.ref, 'replaced_by', m.replaced_by,
  'replaces', m.replaces, 'revision', m.revision, 'scope', m.scope, 'session', m.session,
  'source_ref', m.source_ref, 'status', m.status,
  'tags', CASE WHEN json_valid(m.tags) THEN json(m.tags) END,
  'text', m.text, 'tool', m.tool, 'type', 'memory', 'until', m.until,
  'when', CASE WHEN json_valid(m.when_json) THEN json(m.when_json) END,
  'written', m.written)
"""

_DUMPED = ["type", *(c.strip() for c in mem.MEMORY_COLUMNS.split(","))]


def _memory_record(names: Sequence[str], row: Sequence[Any]) -> dict[str, Any]:
    """A memory row (`'memory', MEMORY_COLUMNS, ...`) as export writes it: tags and `when` read
    from their JSON, flags as true/false. Only what differs from the column is touched (100k
    rows: every step counts)."""
    record = dict(zip(names, row, strict=True))
    tags, when = record["tags"], record.pop("when_json")
    record["tags"] = [] if tags == "[]" else loads(tags)
    record["when"] = loads(when) if when else None
    record["pinned"] = bool(record["pinned"])
    record["gate"] = bool(record["gate"])
    return record
