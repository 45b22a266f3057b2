"""Rows <-> models for memories, and the memory half of the store's SQL."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from cairn.core.errors import ConflictError, UnknownRefError
from cairn.core.models import Memory, Trigger
from cairn.core.value import Value
from cairn.io.store.hookread import VISIBLE

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Sequence
    from typing import Any

MEMORY_COLUMNS = (
    "ref, project, scope, kind, text, folded, tags, reason, source_ref, cite_fp, when_json, "
    "branch, pinned, tool, session, written, until, replaces, replaced_by, status, revision, "
    "last_touched, gate"
)
_SELECT = f"SELECT id, {MEMORY_COLUMNS} FROM memories"
# ON CONFLICT DO NOTHING: a taken ref inserts no row, and `insert` draws another.
_INSERT = (
    f"INSERT INTO memories ({MEMORY_COLUMNS}, fts_sentence, fts_tags, fts_citation, fts_reason, "
    f"n_tokens) VALUES ({', '.join(['?'] * 28)}) ON CONFLICT (ref) DO NOTHING"
)


class IndexText(Value):
    """The analysed text of a memory's four fields, as stored in the FTS5 index."""

    __slots__ = ("sentence", "tags", "citation", "reason")  # noqa: RUF023
    sentence: str
    tags: str
    citation: str
    reason: str

    def __init__(self, sentence: str, tags: str, citation: str, reason: str) -> None:
        self._assign(sentence, tags, citation, reason)

    @property
    def n_tokens(self) -> int:
        """Total tokens over the four fields (the document length BM25 uses)."""
        return sum(len(f.split()) for f in (self.sentence, self.tags, self.citation, self.reason))


def new_ref() -> str:
    """A short random ref such as `m-7f3a2c`."""
    return "m-" + os.urandom(3).hex()


def row_to_memory(row: Sequence[Any]) -> Memory:
    """Build a Memory from a `_SELECT` row."""
    return Memory(
        ref=row[1],
        project=row[2],
        scope=row[3],
        kind=row[4],
        text=row[5],
        tags=tuple(json.loads(row[7])),
        reason=row[8],
        source_ref=row[9],
        fingerprint=row[10] or "",
        when=_trigger(row[11]) if row[11] else None,
        branch=row[12],
        pinned=bool(row[13]),
        tool=row[14],
        session=row[15],
        written=row[16],
        until=row[17],
        replaces=row[18],
        replaced_by=row[19],
        status=row[20],
        revision=row[21],
        last_touched=row[22],
        gate=bool(row[23]),
    )


def _trigger(when_json: str) -> Trigger:
    """The stored `when`; one that is not a `{tool, match | path}` object (written by an older
    Cairn's import, or by hand) reads as a Trigger whose `problem()` says so, so that reading
    it never raises for the memories around it."""
    try:
        when = json.loads(when_json)
        if isinstance(when, dict):
            return Trigger(**when)
    except (ValueError, TypeError, RecursionError):
        pass
    return Trigger(tool="")


def insert(conn: sqlite3.Connection, memory: Memory, folded: str, index: IndexText) -> Memory:
    """Insert one memory version and its index rows (caller holds the transaction).

    A ref that collides with an existing one is drawn again, so the caller may pass any ref.
    Returns the version as `get` would read it back (built here: no second query).
    """
    values = _row(memory, folded, index)
    last_touched = values[21]
    for _ in range(20):
        cur = conn.execute(_INSERT, values)
        if cur.rowcount == 1:
            break
        values[0] = new_ref()
    else:  # pragma: no cover - 20 collisions in a 16M space means the RNG is broken
        raise ConflictError("could not draw a free ref; try again")
    rowid = cur.lastrowid
    if _current(memory.until, memory.status):
        _count(conn, memory.project, memory.scope, 1)
    if memory.tags:
        conn.executemany(
            "INSERT OR IGNORE INTO memory_tags (memory_id, tag) VALUES (?, ?)",
            [(rowid, tag) for tag in memory.tags],
        )
    # What row_to_memory reads back from the row just written.
    return Memory(
        ref=str(values[0]),
        project=memory.project,
        scope=memory.scope,
        kind=memory.kind,
        text=memory.text,
        tags=tuple(memory.tags),
        reason=memory.reason,
        source_ref=memory.source_ref,
        fingerprint=memory.fingerprint or "",
        when=Trigger(**memory.when.to_dict()) if memory.when else None,
        branch=memory.branch,
        pinned=bool(memory.pinned),
        tool=memory.tool,
        session=memory.session,
        written=memory.written,
        until=memory.until,
        replaces=memory.replaces,
        replaced_by=memory.replaced_by,
        status=memory.status,
        revision=memory.revision,
        last_touched=last_touched,
        gate=bool(memory.gate),
    )


def insert_many(
    conn: sqlite3.Connection, versions: Sequence[tuple[Memory, str, IndexText]]
) -> None:
    """Insert memory versions whose refs are free, as `insert` inserts each, in one statement
    for all (caller holds the transaction and has checked the refs: a taken one is skipped,
    not drawn again). The counts move once per (project, scope), not once per row."""
    insert_rows(
        conn, [(_row(memory, folded, index), memory.tags) for memory, folded, index in versions]
    )


def insert_rows(conn: sqlite3.Connection, rows: Sequence[tuple[list[Any], Sequence[str]]]) -> None:
    """`insert_many` of versions given as the values `_INSERT` takes (`_row`'s), each with its
    tags: an import builds them from its checked records without a Memory each."""
    conn.executemany(_INSERT, [row for row, _ in rows])
    conn.executemany(
        "INSERT OR IGNORE INTO memory_tags (memory_id, tag) SELECT id, ? FROM memories "
        "WHERE ref = ?",
        [(tag, row[_REF]) for row, tags in rows for tag in tags],
    )
    current: dict[tuple[str, str], int] = {}
    for row, _ in rows:
        if _current(row[_UNTIL], row[_STATUS]):
            key = (row[_PROJECT], row[_SCOPE])
            current[key] = current.get(key, 0) + 1
    for (project, scope), n in current.items():
        _count(conn, project, scope, n)


# Positions in `_row`'s values of what `insert_rows` reads.
_REF, _PROJECT, _SCOPE, _UNTIL, _STATUS = 0, 1, 2, 16, 19


def _row(memory: Memory, folded: str, index: IndexText) -> list[Any]:
    """The values `_INSERT` takes for one version (`_REF`, ... name the positions read)."""
    when = json.dumps(memory.when.to_dict()) if memory.when else None
    return [
        memory.ref, memory.project, memory.scope, memory.kind, memory.text, folded,
        json.dumps(list(memory.tags)), memory.reason, memory.source_ref,
        memory.fingerprint or None, when, memory.branch, int(memory.pinned), memory.tool,
        memory.session, memory.written, memory.until, memory.replaces, memory.replaced_by,
        memory.status, memory.revision, memory.last_touched or memory.written, int(memory.gate),
        index.sentence, index.tags, index.citation, index.reason, index.n_tokens,
    ]  # fmt: skip


def get(conn: sqlite3.Connection, ref: str) -> Memory:
    """The memory with this ref, or UnknownRefError."""
    row = conn.execute(f"{_SELECT} WHERE ref = ?", (ref,)).fetchone()
    if row is None:
        raise UnknownRefError(f"no memory {ref!r}; `cairn list` shows the refs")
    return row_to_memory(row)


def get_many(conn: sqlite3.Connection, refs: Iterable[str]) -> dict[str, Memory]:
    """The memories found among `refs`, by ref (missing refs are left out)."""
    refs = list(dict.fromkeys(refs))
    out: dict[str, Memory] = {}
    for i in range(0, len(refs), 500):
        chunk = refs[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"{_SELECT} WHERE ref IN ({marks})", chunk):
            out[row[1]] = row_to_memory(row)
    return out


def by_ids(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, Memory]:
    """Memories by rowid (the FTS5 rowid)."""
    out: dict[int, Memory] = {}
    for i in range(0, len(ids), 500):
        chunk = list(ids[i : i + 500])
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"{_SELECT} WHERE id IN ({marks})", chunk):
            out[row[0]] = row_to_memory(row)
    return out


def update(conn: sqlite3.Connection, memory: Memory, **changes: Any) -> Memory:
    """Change columns of one version in place, checking its revision (optimistic locking)."""
    allowed = {"status", "pinned", "until", "replaced_by", "last_touched", "cite_fp", "gate"}
    unknown = set(changes) - allowed
    if unknown:
        raise ValueError(f"cannot update {sorted(unknown)}")
    values = [int(v) if isinstance(v, bool) else v for v in changes.values()]
    sets = ", ".join(f"{name} = ?" for name in changes)
    cur = conn.execute(
        f"UPDATE memories SET {sets}, revision = revision + 1 WHERE ref = ? AND revision = ?",
        (*values, memory.ref, memory.revision),
    )
    if cur.rowcount != 1:
        raise ConflictError(
            f"{memory.ref} changed while you were editing it (revision {memory.revision}); "
            "read it again and retry"
        )
    # The revision matched, so `memory` holds the row's until and status before the change.
    was = _current(memory.until, memory.status)
    now = _current(changes.get("until", memory.until), changes.get("status", memory.status))
    if was != now:
        _count(conn, memory.project, memory.scope, 1 if now else -1)
    return get(conn, memory.ref)


def touch(conn: sqlite3.Connection, refs: Iterable[str], at: str) -> None:
    """Record that these memories were cited or restated now (wakes a resting memory)."""
    conn.executemany(
        "UPDATE memories SET last_touched = ? WHERE ref = ? AND last_touched < ?",
        [(at, ref, at) for ref in refs],
    )


def find_current(conn: sqlite3.Connection, project: str, folded: str) -> Memory | None:
    """The current version holding this folded sentence in this project (the latest written
    when there are several), if any."""
    # No ORDER BY: there are rarely two such rows, and SQL sorting them costs every remember
    # a sorter (~5 us) even when nothing matches, as nearly always.
    rows = conn.execute(
        f"{_SELECT} WHERE folded = ? AND until IS NULL AND status != 'retired' "
        "AND (project = ? OR scope = 'workspace')",
        (folded, project),
    ).fetchall()
    return row_to_memory(max(rows, key=lambda r: r[16])) if rows else None


def own(conn: sqlite3.Connection, project: str) -> list[Memory]:
    """The current project-scoped versions stored under exactly `project`, oldest first."""
    rows = conn.execute(
        f"{_SELECT} WHERE project = ? AND scope = 'project' AND until IS NULL "
        "AND status != 'retired' ORDER BY id",
        (project,),
    )
    return [row_to_memory(r) for r in rows]


def visible_clause(alias: str = "") -> str:
    """SQL condition: visible from project `?` (its own memories plus workspace-wide ones)."""
    if not alias:
        return VISIBLE
    return f"({alias}.project = ? OR {alias}.scope = 'workspace')"


def select(
    conn: sqlite3.Connection,
    *,
    project: str | None = None,
    kind: str | None = None,
    tag: str | None = None,
    status: str | None = None,
    current: bool = True,
    limit: int | None = None,
    offset: int = 0,
    written_after: str | None = None,
    touched_before: str | None = None,
    cites: bool = False,
    triggered: bool = False,
    gate: bool = False,
    has_when: bool = False,
) -> list[Memory]:
    """List memories, newest first, filtered in SQL (at 100k memories, reading every row to
    keep a few took seconds): `written_after` and `touched_before` are stamps; `offset` skips
    that many of the newest; `cites`: only those citing code; `triggered`: only lessons and
    action rules, those with a `when` or a `trigger:` tag; `gate`: gates only; `has_when`:
    only those with a `when`."""
    where: list[str] = []
    args: list[Any] = []
    if cites:
        where.append("source_ref != ''")
    if triggered:
        where.append(
            "(when_json IS NOT NULL OR id IN (SELECT memory_id FROM memory_tags "
            "WHERE tag >= 'trigger:' AND tag < 'trigger;'))"
        )
    if gate:
        where.append("gate = 1")
    if has_when:
        where.append("when_json IS NOT NULL AND when_json != ''")
    if project is not None:
        where.append(visible_clause())
        args.append(project)
    if written_after is not None:
        where.append("written > ?")
        args.append(written_after)
    if touched_before is not None:
        where.append("last_touched < ?")
        args.append(touched_before)
    if kind:
        where.append("kind = ?")
        args.append(kind)
    if tag:
        where.append("id IN (SELECT memory_id FROM memory_tags WHERE tag = ?)")
        args.append(tag)
    if status:
        where.append("status = ?")
        args.append(status)
    elif current:
        where.append("until IS NULL AND status != 'retired'")
    sql = _SELECT + (" WHERE " + " AND ".join(where) if where else "")
    sql += " ORDER BY written DESC, id DESC"
    if limit:
        sql += f" LIMIT {int(limit)}"
        if offset:
            sql += f" OFFSET {int(offset)}"
    return [row_to_memory(r) for r in conn.execute(sql, args)]


def sentence_words(conn: sqlite3.Connection, project: str) -> dict[str, str]:
    """The analysed words of each current memory's sentence visible from `project`, by ref:
    what `remember` stored for the index (`cairn.core.text.analyse_text` of the sentence), kept
    up to date when the analyser changes (`cairn.io.store.reanalyse`)."""
    rows = conn.execute(
        "SELECT ref, fts_sentence FROM memories "
        f"WHERE until IS NULL AND status != 'retired' AND {visible_clause()}",
        (project,),
    )
    return {str(ref): str(words) for ref, words in rows}


def _briefable() -> str:
    """SQL condition (args: project, branch, fresh_since) for a memory the session brief may
    list: current and active, visible from the project, not a lesson or action rule, not
    progress of another branch, and not resting (pinned, a preference, or touched since
    `fresh_since`). Contradiction strikes need the events: `briefable_count` returns the rows
    that have contradicting ones for the caller to judge."""
    return (
        f"until IS NULL AND status = 'active' AND {visible_clause()} "
        "AND (when_json IS NULL OR when_json = '') "
        "AND id NOT IN (SELECT memory_id FROM memory_tags WHERE substr(tag, 1, 8) = 'trigger:') "
        "AND NOT (kind = 'progress' AND branch != '' AND branch != ?) "
        "AND (pinned = 1 OR kind = 'preference' OR last_touched >= ?)"
    )


def briefable_count(
    conn: sqlite3.Connection,
    project: str,
    branch: str,
    fresh_since: str,
    contradicting: Sequence[str],
) -> tuple[int, list[Memory]]:
    """How many memories the brief may list (`_briefable`), counted in SQL at any size, and
    those of them not pinned with a `contradicting` event (strikes decide if they are out)."""
    where = _briefable()
    args = (project, branch, fresh_since)
    n = int(conn.execute(f"SELECT count(*) FROM memories WHERE {where}", args).fetchone()[0])
    marks = ",".join("?" * len(contradicting))
    rows = conn.execute(
        f"{_SELECT} WHERE {where} AND pinned = 0 AND ref IN "
        f"(SELECT ref FROM evidence WHERE event IN ({marks}))",
        (*args, *contradicting),
    )
    return n, [row_to_memory(r) for r in rows]


def briefable(
    conn: sqlite3.Connection, project: str, branch: str, fresh_since: str, limit: int
) -> list[Memory]:
    """The memories the brief may list (`_briefable`): pinned first, then newest first."""
    rows = conn.execute(
        f"{_SELECT} WHERE {_briefable()} ORDER BY pinned DESC, written DESC, id DESC "
        f"LIMIT {int(limit)}",
        (project, branch, fresh_since),
    )
    return [row_to_memory(r) for r in rows]


def with_tag(conn: sqlite3.Connection, tag: str, project: str) -> list[Memory]:
    """Current memories carrying `tag` visible from `project`, newest first (tag index)."""
    rows = conn.execute(
        f"{_SELECT} WHERE id IN (SELECT memory_id FROM memory_tags WHERE tag = ?) "
        f"AND until IS NULL AND status != 'retired' AND {visible_clause()} "
        "ORDER BY written DESC, id DESC",
        (tag, project),
    )
    return [row_to_memory(r) for r in rows]


def _current(until: str | None, status: str) -> bool:
    """A current version (as `until IS NULL AND status != 'retired'` reads it)."""
    return until is None and status != "retired"


def _count(conn: sqlite3.Connection, project: str, scope: str, delta: int) -> None:
    """Move the count of current memories of (project, scope) by `delta`."""
    cur = conn.execute(
        "UPDATE memory_counts SET n = n + ? WHERE project = ? AND scope = ?",
        (delta, project, scope),
    )
    if cur.rowcount == 0:
        conn.execute(
            "INSERT INTO memory_counts (project, scope, n) VALUES (?, ?, ?)",
            (project, scope, delta),
        )


def count(conn: sqlite3.Connection, project: str | None = None) -> int:
    """Current memories, in one project (with workspace ones) or in the whole workspace.

    Read from `memory_counts` (migration 0005), which `insert` and `update`, the only writes
    that make a version current or not, keep in step in the caller's transaction: a COUNT over
    the table took ~40 ms at 100k memories, on every recall. (Triggers on `memories` would keep
    it too, but measured ~40 us more per insert.)
    """
    if project is None:
        row = conn.execute("SELECT coalesce(sum(n), 0) FROM memory_counts").fetchone()
    else:
        row = conn.execute(
            f"SELECT coalesce(sum(n), 0) FROM memory_counts WHERE {visible_clause()}",
            (project,),
        ).fetchone()
    return int(row[0])


def as_of(conn: sqlite3.Connection, project: str, end: str) -> dict[int, Memory]:
    """The versions believed at instant `end`, by rowid: written by then and not yet ended
    (`until`, set when a correction replaced it or a forget retired it, is later)."""
    # A retired row without `until` is not expected (migration 0007 and `load_memory` date
    # every forget); were one written by other means, it is left out as before.
    rows = conn.execute(
        f"{_SELECT} WHERE written <= ? AND (until IS NULL OR until > ?) "
        f"AND (until IS NOT NULL OR status != 'retired') AND {visible_clause()}",
        (end, end, project),
    )
    return {r[0]: row_to_memory(r) for r in rows}


def index_rows_after(
    conn: sqlite3.Connection, after: int, limit: int | None = None
) -> list[tuple[Any, ...]]:
    """(rowid, ref, project, scope, kind, sentence, tags, citation, reason, n_tokens, written)
    of every version in the memory index with a rowid over `after` (the first `limit` of
    them, when given), ascending: what recall's postings are built from. Every version is
    read (any project, replaced or not), as the FTS5 index holds them all; none of these
    columns changes once written."""
    sql = (
        "SELECT id, ref, project, scope, kind, fts_sentence, fts_tags, fts_citation, "
        "fts_reason, n_tokens, written FROM memories WHERE id > ? ORDER BY id"
    )
    if limit is None:
        return conn.execute(sql, (after,)).fetchall()
    return conn.execute(f"{sql} LIMIT ?", (after, limit)).fetchall()


def refs_at(conn: sqlite3.Connection, ids: Sequence[int]) -> list[str]:
    """The ref of each rowid in `ids`, in order ("" where no row has it)."""
    marks = ",".join("?" * len(ids))
    found = dict(conn.execute(f"SELECT id, ref FROM memories WHERE id IN ({marks})", list(ids)))
    return [str(found.get(i, "")) for i in ids]


def current_among(conn: sqlite3.Connection, ids: Sequence[int]) -> set[int]:
    """The rowids among `ids` of current versions (not replaced, not retired)."""
    out: set[int] = set()
    for i in range(0, len(ids), 500):
        chunk = list(ids[i : i + 500])
        marks = ",".join("?" * len(chunk))
        out.update(
            r[0]
            for r in conn.execute(
                f"SELECT id FROM memories WHERE id IN ({marks}) AND until IS NULL "
                "AND status != 'retired'",
                chunk,
            )
        )
    return out


def current_rowids(conn: sqlite3.Connection, every: int = 1) -> list[int]:
    """The rowid of every current memory in the workspace (of one in `every`, by rowid),
    ascending: the LSA fit's sample."""
    rows = conn.execute(
        "SELECT id FROM memories WHERE until IS NULL AND status != 'retired' AND id % ? = 0 "
        "ORDER BY id",
        (max(1, every),),
    )
    return [r[0] for r in rows]


def index_words(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, str]:
    """The analysed words of these rows, all four fields in one text, by rowid."""
    out: dict[int, str] = {}
    for i in range(0, len(ids), 500):
        chunk = list(ids[i : i + 500])
        marks = ",".join("?" * len(chunk))
        for r in conn.execute(
            "SELECT id, fts_sentence || ' ' || fts_tags || ' ' || fts_citation || ' ' || "
            f"fts_reason FROM memories WHERE id IN ({marks})",
            chunk,
        ):
            out[int(r[0])] = str(r[1])
    return out


def trigger_memories(conn: sqlite3.Connection) -> list[Memory]:
    """Current memories with a trigger, a `trigger:` tag or a source_ref."""
    rows = conn.execute(
        f"{_SELECT} WHERE until IS NULL AND status != 'retired' AND (when_json IS NOT NULL "
        "OR source_ref != '' OR id IN (SELECT memory_id FROM memory_tags "
        "WHERE tag >= 'trigger:' AND tag < 'trigger;')) ORDER BY id"
    )
    return [row_to_memory(r) for r in rows]


def trigger_changes(conn: sqlite3.Connection, after: int) -> list[tuple[int, str, str]] | None:
    """(gen, ref, 'add' | 'drop') of every change after generation `after`, oldest first;
    None when the log no longer reaches back to `after` (older changes are not kept)."""
    rows = conn.execute(
        "SELECT gen, ref, op FROM trigger_changes WHERE gen > ? ORDER BY gen", (after,)
    ).fetchall()
    if rows and rows[0][0] != after + 1:
        return None
    return [(int(g), str(r), str(o)) for g, r, o in rows]
