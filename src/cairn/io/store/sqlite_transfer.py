"""The SQLite store's export and import: every record as plain dicts, the lines of an export
already stored, and an exported memory version loaded back.

`SqliteStore` methods (this class is one of its bases); `cairn.usecases.transfer` checks and writes
through them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from cairn.io.store import evidence as ev
from cairn.io.store import memories as mem

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from typing import Any

    from cairn.core.models import Memory
    from cairn.io.store.connection import Connection
    from cairn.io.store.transaction import Transaction

__all__ = ["COPIED_TABLES", "SqliteTransfer"]

# What `cairn store copy` carries, table by table, in this order (a row's references first):
# everything the store holds but its own identity (`store_id`), the trigger change log (the
# destination logs its own as the memories arrive), the migrations it records and the derived
# word indexes (SQLite's `doc_fts`, PostgreSQL's `doc_terms`), made again from the copied rows.
# The counters (`index_stats`, `memory_counts`) replace the destination's.
COPIED_TABLES = (
    "memories",
    "memory_tags",
    "evidence",
    "sessions",
    "offers",
    "progress",
    "docs",
    "doc_files",
    "acts",
    "act_sessions",
    "session_commits",
    "learn_state",
    "tidy_declines",
    "citation_sightings",
    "gate_denials",
    "index_stats",
    "memory_counts",
)
_COUNTERS = ("index_stats", "memory_counts")


class SqliteTransfer:
    """Export and import."""

    conn: Connection
    if TYPE_CHECKING:

        def transaction(self) -> Transaction: ...  # SqliteStore's

    # -- copying every table to another store ---------------------------------------------
    def table_columns(self, table: str) -> list[str]:
        """The columns of one of `COPIED_TABLES`, in the schema's order."""
        _check_table(table)
        return [str(row[1]) for row in self.conn.execute(f"PRAGMA table_info({table})")]

    def table_count(self, table: str) -> int:
        """How many rows one of `COPIED_TABLES` holds."""
        _check_table(table)
        row = self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()
        return int(row[0]) if row else 0

    def table_rows(self, table: str, columns: Sequence[str]) -> list[tuple[Any, ...]]:
        """Every row of one of `COPIED_TABLES`, those columns (by `id` where it has one)."""
        _check_table(table)
        order = " ORDER BY id" if "id" in columns else ""
        return [
            tuple(row)
            for row in self.conn.execute(f"SELECT {', '.join(columns)} FROM {table}{order}")
        ]

    def load_tables(
        self, tables: Iterable[tuple[str, Sequence[str], Sequence[tuple[Any, ...]]]]
    ) -> None:
        """Insert rows as they are (ids, refs and all) into `COPIED_TABLES`, in one
        transaction, then make the derived word indexes again from them."""
        with self.transaction():
            for table, columns, rows in tables:
                _check_table(table)
                if table in _COUNTERS:
                    self.conn.execute(f"DELETE FROM {table}")
                if not rows:
                    continue
                marks = ", ".join("?" * len(columns))
                self.conn.executemany(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows
                )
            self._rebuild_derived()

    def _rebuild_derived(self) -> None:
        """The doc pages' FTS5 index, from the `docs` rows (external content)."""
        self.conn.execute("INSERT INTO doc_fts (doc_fts) VALUES ('rebuild')")

    # -- export / import ----------------------------------------------------------------
    def dump(self, derived: bool = True) -> Iterator[dict[str, Any]]:
        """Every record of the workspace as plain dicts (memories with history, events, ...);
        `derived`: with each memory's analysed index columns (`fts_*`)."""
        from cairn.io.store.rows import Progress, SessionRow

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

    def memory_lines(self) -> Iterator[str]:
        """Every memory version as export writes its line, oldest first: the JSON object of
        `dump(derived=False)`, keys sorted, no spaces. SQLite writes it (`json_object`), so a
        store of 100k memories is not turned into dicts and encoded again in Python."""
        for (line,) in self.conn.execute(f"SELECT {_EXPORTED} FROM memories AS m ORDER BY id"):
            yield str(line)

    def unchanged_memories(self, lines: Sequence[str]) -> dict[int, str]:
        """Of these export lines, those that are exactly a memory version stored under its ref:
        position -> ref. A line is named when its text is the one `memory_lines` writes for the
        version stored under the ref it names (what importing a store's export back into it
        reads), so an import need not parse a line it would skip anyway; a line that names a
        stored ref but is written otherwise (an older export's spaces) is compared as JSON by
        SQLite; any other line is left for the caller to compare."""
        import re  # here: the hook opens this module and stays off re

        ref_key, memory_type = re.compile(_REF_KEY), re.compile(_MEMORY_TYPE)
        named: dict[int, str] = {}  # lines written as `memory_lines` writes them: text
        spaced: dict[int, str] = {}  # lines written otherwise (an older export's spaces): JSON
        for k, line in enumerate(lines):
            at = line.find('"ref":"m-')
            if at >= 0 and '"type":"memory"' in line:
                named[k] = line[at + 7 : at + 15]
            elif '"memory"' in line:
                found = ref_key.search(line)
                if found and memory_type.search(line):
                    spaced[k] = found.group(1)
        stored = dict(self._by_ref(f"m.ref, {_EXPORTED}", named.values()))
        held = {ref for (ref,) in self._by_ref("m.ref", spaced.values())}
        again = [k for k, ref in spaced.items() if ref in held]
        out: dict[int, str] = {}
        for k, ref in named.items():
            text = stored.get(ref)
            if text is None:
                continue
            if lines[k].rstrip() == text:
                out[k] = ref
            else:
                again.append(k)
        if again:
            import json  # here: the hook opens this module and stays off json

            # ASCII: a lone surrogate in a line stays an escape SQLite can read, not an error.
            blob = json.dumps([lines[k] for k in again])
            for k, ref in self.conn.execute(_UNCHANGED, (blob,)):
                out[again[int(k)]] = str(ref)
        return out

    def _by_ref(self, columns: str, refs: Iterable[str]) -> Iterator[tuple[Any, ...]]:
        """`SELECT columns` of the memory versions (`m`) stored under these refs."""
        unique = list(dict.fromkeys(refs))
        for i in range(0, len(unique), 500):
            chunk = unique[i : i + 500]
            marks = ",".join("?" * len(chunk))
            yield from self.conn.execute(
                f"SELECT {columns} FROM memories AS m WHERE m.ref IN ({marks})", chunk
            )

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
        with self.transaction():
            if self.conn.execute(
                "SELECT 1 FROM memories WHERE ref = ?", (record["ref"],)
            ).fetchone():
                return False
            mem.insert(self.conn, _memory_of(record), folded, index)
            return True

    def load_memories(self, versions: Sequence[tuple[dict[str, Any], str, mem.IndexText]]) -> int:
        """Insert exported memory versions (record, folded sentence, analysed text), those
        whose ref is not stored yet (of a ref given twice, the first), as `load_memory` one at
        a time would, in one statement for all; how many were inserted."""
        with self.transaction():
            taken: set[str] = set()
            refs = list(dict.fromkeys(record["ref"] for record, _, _ in versions))
            for i in range(0, len(refs), 500):
                chunk = refs[i : i + 500]
                marks = ",".join("?" * len(chunk))
                taken.update(
                    r[0]
                    for r in self.conn.execute(
                        f"SELECT ref FROM memories WHERE ref IN ({marks})", chunk
                    )
                )
            new: list[tuple[list[Any], Sequence[str]]] = []
            for record, folded, index in versions:
                if record["ref"] not in taken:
                    taken.add(record["ref"])
                    new.append((_row_of(record, folded, index), record["tags"]))
            mem.insert_rows(self.conn, new)
            return len(new)


def _row_of(record: dict[str, Any], folded: str, index: mem.IndexText) -> list[Any]:
    """The row `memories._row` makes of `_memory_of(record)`, without the Memory (100k of them
    cost an import ~1.7 CPU s): the record is checked (`cairn.usecases.transfer`), every key
    present."""
    from cairn.core.models import Trigger

    when = record["when"]
    status = record["status"]
    until = record["until"]
    last_touched = record["last_touched"] or record["written"]
    if status == "retired" and until is None:
        until = last_touched  # an export from before forgets were dated (`_memory_of`)
    return [
        record["ref"], record["project"], record["scope"], record["kind"], record["text"],
        folded, json.dumps(list(record["tags"])), record["reason"], record["source_ref"],
        record["cite_fp"] or None, json.dumps(Trigger(**when).to_dict()) if when else None,
        record["branch"], int(bool(record["pinned"])), record["tool"], record["session"],
        record["written"], until, record["replaces"], record["replaced_by"], status,
        int(record["revision"]), last_touched, int(bool(record["gate"])),
        index.sentence, index.tags, index.citation, index.reason, index.n_tokens,
    ]  # fmt: skip


def _memory_of(record: dict[str, Any]) -> Memory:
    """An exported memory version (checked by `cairn.usecases.transfer`) as the Memory to insert."""
    from cairn.core.models import Memory, Trigger

    when = record.get("when")
    status = record.get("status", "active")
    until = record.get("until")
    if status == "retired" and until is None:
        # An export from before forgets were dated: as migration 0007 reads it.
        until = record.get("last_touched") or record["written"]
    return Memory(
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


# A memory version (row `m`) as export writes its line: the keys in sorted order, flags as
# true/false, tags and `when` as JSON (null when none).
_EXPORTED = """json_object(
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
  'written', m.written)"""
# A line is unchanged when its JSON, minified, is the stored row as export writes it.
_UNCHANGED = f"""
SELECT line.key, m.ref FROM json_each(?) AS line JOIN memories AS m
  ON m.ref = CASE WHEN json_valid(line.value) THEN json_extract(line.value, '$.ref') END
WHERE json(line.value) = {_EXPORTED}
"""
# Where a line names its ref and type (a key can only be outside a string: inside one, every
# quote is escaped); the line is then compared whole.
_REF_KEY = r'"ref"\s*:\s*"(m-[0-9a-f]{6})"'
_MEMORY_TYPE = r'"type"\s*:\s*"memory"'


def _check_table(table: str) -> None:
    """Table names are put in SQL text: only the copied tables pass."""
    if table not in COPIED_TABLES:
        raise ValueError(f"not a copied table: {table!r}")


_DUMPED = ["type", *(c.strip() for c in mem.MEMORY_COLUMNS.split(","))]


def _memory_record(names: Sequence[str], row: Sequence[Any]) -> dict[str, Any]:
    """A memory row (`'memory', MEMORY_COLUMNS, ...`) as export writes it: tags and `when` read
    from their JSON, flags as true/false. Only what differs from the column is touched (100k
    rows: every step counts)."""
    record = dict(zip(names, row, strict=True))
    tags, when = record["tags"], record.pop("when_json")
    record["tags"] = [] if tags == "[]" else json.loads(tags)
    record["when"] = json.loads(when) if when else None
    record["pinned"] = bool(record["pinned"])
    record["gate"] = bool(record["gate"])
    return record
