"""The hook's own reader of the store: the few rows a firing tool call reads and writes.

A tool call whose candidates the trigger list gave (the list holds the store's trigger
generation) needs little of the store: the candidates' rows, their events, the rules of an
action, what the session was already given, its gates, and the session row; it writes the
session row, the offers and the gates' claims. `HookStore` does exactly that over `_sqlite3`
(the C module: the `sqlite3` package adds ~3 ms of imports and nothing Cairn uses), returning
`cairn.core.firing`'s plain values, so a firing call imports neither `cairn.core.models`
(dataclasses) nor the rest of the store (`SqliteStore`, json, pathlib, typing). Everything
else opens the full store. The ledger's SQL (offers, gates, sessions) is written here once,
as functions of a connection, and `SqliteStore` runs the same functions.

The hook's process ends without closing its connection (`HookStore.leave_open`, then the
entry's `os._exit`): closing the last connection checkpoints the write-ahead log, fsyncs the
database and deletes the log, a large part of a firing call on a loaded machine. SQLite treats
a process that ends with its connection open exactly like a crash, which WAL mode recovers
from: the next connection reads the log's committed frames back.

Durability is the store's, as everywhere: `synchronous = NORMAL` in WAL mode, so a commit
survives the process or the agent crashing, and a power loss may roll back the last commits
until a checkpoint (SQLite's documented trade-off for that setting). Closing used to add an
fsync of the log and the database when the hook happened to be the last connection; an fsync
after each commit would keep that (it measured within the bench's noise), but it slowed the
commits of other hooks writing the same log at that moment: 24 hooks at once on one store
then lost offers to their 300 ms busy timeout in 3 of 32 runs of a fault test (0 of 11
before, 0 of 15 without the fsync). `synchronous = FULL` (the fsync inside the write lock) was
worse. So the offers and gate claims of the last few calls are as durable as the rest of the
store's writes, and no more.

The log stays small: once it is past `WAL_BYTES`, the hook closes its connection after all,
which checkpoints the log and deletes it (about one firing call in ten). SQLite's automatic
checkpoint at a commit cannot bound it here: a process that starts on a log left behind reads
it back as not yet checkpointed, so the log would never start over.

`HookStore.open` returns None whenever the full store has work to do first, and the hook then
opens that (as it always did): a PostgreSQL store (`$CAIRN_DATABASE_URL`: slower anyway, and
its schema check is the full store's), a missing or empty database, a schema this Cairn has
not migrated to yet, a folder others can read (the full store makes it private), a database
path that is not a regular file, or a database that cannot be opened for writing.
"""

from __future__ import annotations

import _sqlite3
import os

from cairn.core.codec import loads
from cairn.core.firing import FiringEvent, FiringMemory, FiringTrigger
from cairn.core.value import Value

TYPE_CHECKING = False  # the firing path imports this module: no typing
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from types import TracebackType
    from typing import Any

__all__ = [
    "DB_NAME",
    "SCHEMA_VERSION",
    "WAL_BYTES",
    "Connection",
    "HookStore",
    "SessionRow",
    "close_left_open",
]

DB_NAME = "cairn.db"
# How many migrations this Cairn has (tests pin it to len(MIGRATIONS)). Stored in the
# database's `user_version` once they are applied, so that opening an up-to-date store needs
# neither the migrations module nor the migrations table (the hook opens it often).
SCHEMA_VERSION = 12
# SQL: the event was not taken back by itself (`cairn.io.store.evidence.take_back`).
COUNTS = "json_extract(detail, '$.taken_back') IS NULL"
# SQL: visible from project `?` (its own memories plus workspace-wide ones).
VISIBLE = "(project = ? OR scope = 'workspace')"
_CHUNK = 500
# Past this size the hook closes its connection, which checkpoints the write-ahead log and
# deletes it (`HookStore.leave_open`). A firing call adds ~25 KB (six pages) to the log, and
# every hook call's connection reads the whole log back when it opens.
WAL_BYTES = 256 << 10
# The connection a hook process leaves open as it ends (`HookStore.leave_open`): one at most.
_kept: list[Connection] = []
_FIRING_COLUMNS = (
    "SELECT ref, text, kind, project, scope, tags, reason, source_ref, when_json, pinned, "
    "written, until, status, last_touched, cite_fp, gate FROM memories"
)


class Connection(_sqlite3.Connection):
    """A connection on which the environment's faults raise StoreError saying what to do.

    A full disk, a read-only folder, another process's lock or a damaged file comes back from
    `execute` as a StoreError (`cairn.io.store.failures`); a constraint or an SQL mistake stays
    the sqlite3 error it is. `read_only` is set when the store was opened read-only because
    its folder cannot be written.
    """

    path = ""
    busy_ms = 0
    read_only = False

    def execute(self, sql: str, parameters: Any = (), /) -> _sqlite3.Cursor:
        """`sqlite3.Connection.execute`, with faults raised as StoreError."""
        try:
            return super().execute(sql, parameters)
        except _sqlite3.DatabaseError as exc:
            raise self.failure(exc) from exc

    def executemany(self, sql: str, parameters: Any, /) -> _sqlite3.Cursor:
        """`sqlite3.Connection.executemany`, with faults raised as StoreError."""
        try:
            return super().executemany(sql, parameters)
        except _sqlite3.DatabaseError as exc:
            raise self.failure(exc) from exc

    def failure(self, exc: _sqlite3.DatabaseError) -> Exception:
        """The StoreError for a fault, or `exc` itself for anything else."""
        from cairn.io.store.failures import failure, is_fault

        return failure(exc, self.path, self.busy_ms) if is_fault(exc) else exc


class SessionRow(Value):
    """One agent session as the hooks and MCP server saw it."""

    __slots__ = ("id", "tool", "project", "branch", "cwd", "started", "ended")  # noqa: RUF023
    id: str
    tool: str
    project: str
    branch: str
    cwd: str
    started: str
    ended: str | None

    def __init__(
        self,
        id: str,
        tool: str,
        project: str,
        branch: str,
        cwd: str,
        started: str,
        ended: str | None,
    ) -> None:
        _set = object.__setattr__
        _set(self, "id", id)
        _set(self, "tool", tool)
        _set(self, "project", project)
        _set(self, "branch", branch)
        _set(self, "cwd", cwd)
        _set(self, "started", started)
        _set(self, "ended", ended)


class HookStore:
    """The store as a firing tool call uses it (see the module docstring)."""

    def __init__(self, home: str, conn: Connection) -> None:
        self.folder = home
        self.conn = conn
        self._depth = 0

    @classmethod
    def open(cls, home: str, busy_ms: int) -> HookStore | None:
        """The hook's reader of the SQLite store in `home`, or None when the full store must
        open it (see the module docstring). Never raises for a store it cannot use."""
        if os.environ.get("CAIRN_DATABASE_URL"):
            return None
        path = os.path.join(home, DB_NAME)
        try:
            info = os.stat(path)
            if os.stat(home).st_mode & 0o077 or not _regular(info.st_mode) or not info.st_size:
                return None
            conn = _sqlite3.connect(
                path,
                timeout=busy_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
                factory=Connection,
            )
        except (OSError, _sqlite3.Error):
            return None
        try:
            assert isinstance(conn, Connection)
            conn.path, conn.busy_ms = path, busy_ms
            run = _sqlite3.Connection.execute
            run(conn, f"PRAGMA busy_timeout = {int(busy_ms)}")
            run(conn, "PRAGMA synchronous = NORMAL")
            run(conn, "PRAGMA foreign_keys = ON")
            journal = run(conn, "PRAGMA journal_mode").fetchone()[0]
            version = run(conn, "PRAGMA user_version").fetchone()[0]
        except (AssertionError, _sqlite3.Error):
            conn.close()
            return None
        if str(journal).lower() != "wal" or int(version) < SCHEMA_VERSION:
            conn.close()
            return None
        return cls(home, conn)

    def close(self) -> None:
        """Close the connection (the last one to close checkpoints the write-ahead log)."""
        self.conn.close()

    def leave_open(self) -> None:
        """Keep the connection open for the rest of the process, which is about to end; or
        close it, when the write-ahead log is past `WAL_BYTES`.

        The hook's entry ends its process with `os._exit` once the answer is written, so a
        connection left open never checkpoints (see the module docstring). It is held here
        until then, or until `close_left_open`; one at most: a second closes the first.
        """
        close_left_open()
        try:
            small = os.stat(self.conn.path + "-wal").st_size <= WAL_BYTES
        except OSError:
            small = True  # no log left: nothing to checkpoint
        if small:
            _kept.append(self.conn)
        else:
            self.conn.close()

    def transaction(self) -> _Transaction:
        """One write transaction (BEGIN IMMEDIATE); nested calls join the outer one."""
        return _Transaction(self)

    def trigger_generation(self) -> tuple[str, int]:
        """(this store's id, its trigger generation), as `SqliteStore.trigger_generation`."""
        return trigger_generation(self.conn)

    def holds_project(self, project: str) -> bool:
        """As `SqliteStore.holds_project`."""
        return holds_project(self.conn, project)

    def get_memories(self, refs: Iterable[str]) -> dict[str, FiringMemory]:
        """The memories found among refs, by ref (missing refs are left out)."""
        wanted = list(dict.fromkeys(refs))
        out: dict[str, FiringMemory] = {}
        for i in range(0, len(wanted), _CHUNK):
            chunk = wanted[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(f"{_FIRING_COLUMNS} WHERE ref IN ({marks})", chunk):
                out[row[0]] = _memory(row)
        return out

    def memories_with_tag(self, tag: str, project: str) -> list[FiringMemory]:
        """Current memories with this tag, visible from project, newest first."""
        rows = self.conn.execute(
            f"{_FIRING_COLUMNS} WHERE id IN (SELECT memory_id FROM memory_tags WHERE tag = ?) "
            f"AND until IS NULL AND status != 'retired' AND {VISIBLE} "
            "ORDER BY written DESC, id DESC",
            (tag, project),
        )
        return [_memory(r) for r in rows]

    def events_for(self, refs: Sequence[str]) -> list[FiringEvent]:
        """The events on these memories that still count, oldest first (as
        `cairn.io.store.evidence.for_refs` reads them)."""
        out: list[FiringEvent] = []
        for i in range(0, len(refs), _CHUNK):
            chunk = list(refs[i : i + _CHUNK])
            marks = ",".join("?" * len(chunk))
            for ref, event, at in self.conn.execute(
                f"SELECT ref, event, at FROM evidence WHERE {events_where(marks)}", chunk
            ):
                out.append(FiringEvent(ref, event, at))
        out.sort(key=lambda e: e.at)
        return out

    def offered(self, session: str, channels: Sequence[str]) -> set[str]:
        """Refs already handed to the session through these channels."""
        return offered(self.conn, session, channels)

    def record_offers(
        self, session: str, refs: Iterable[str], channel: str, tool: str, at: str
    ) -> None:
        """Record memories handed to a session."""
        with self.transaction():
            offer(self.conn, session, refs, channel, tool, at)

    def claim_gates(
        self, session: str, refs: Sequence[str], tool: str, call: str, at: str
    ) -> list[str]:
        """As `SqliteStore.claim_gates`: committed before this returns."""
        with self.transaction():
            return claim_gates(self.conn, session, refs, tool, call, at)

    def gates_waiting(self, session: str) -> set[str]:
        """Gates that stopped a call of this session and have not seen it retried yet."""
        return gates_waiting(self.conn, session)

    def note_retries(self, session: str, refs: Iterable[str], call: str, at: str) -> None:
        """Record the first matching call after each gate's denial (its retry)."""
        with self.transaction():
            note_retries(self.conn, session, refs, call, at)

    def session_changes(self, row: SessionRow) -> bool:
        """Would writing `row` change anything (a new session, or a changed field)?"""
        return session_changes(self.conn, row)

    def write_session(self, row: SessionRow) -> None:
        """Create the session or update its tool, branch, cwd (each when given) and ended."""
        with self.transaction():
            write_session(self.conn, row)


class _Transaction:
    """`with hook_store.transaction():`, as `cairn.io.store.transaction.Transaction`."""

    __slots__ = ("store",)

    def __init__(self, store: HookStore) -> None:
        self.store = store

    def __enter__(self) -> None:
        if self.store._depth == 0:
            self.store.conn.execute("BEGIN IMMEDIATE")
        self.store._depth += 1

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        store = self.store
        store._depth -= 1
        if store._depth:
            return
        if kind is not None:
            if store.conn.in_transaction:  # SQLite may have rolled back itself (a full disk)
                store.conn.execute("ROLLBACK")
            return
        try:
            store.conn.execute("COMMIT")
        except BaseException:
            if store.conn.in_transaction:
                store.conn.execute("ROLLBACK")
            raise


def close_left_open() -> None:
    """Close the connection `HookStore.leave_open` kept, if any (for a process that goes on)."""
    while _kept:
        _kept.pop().close()


def _regular(mode: int) -> bool:
    return mode & 0o170000 == 0o100000  # stat.S_ISREG without importing stat


def _memory(row: Sequence[Any]) -> FiringMemory:
    """A `_FIRING_COLUMNS` row as the firing path reads it."""
    return FiringMemory(
        ref=row[0],
        text=row[1],
        kind=row[2],
        project=row[3],
        scope=row[4],
        tags=tuple(loads(row[5])),
        reason=row[6],
        source_ref=row[7],
        when=_trigger(row[8]) if row[8] else None,
        pinned=bool(row[9]),
        written=row[10],
        until=row[11],
        status=row[12],
        last_touched=row[13],
        fingerprint=row[14] or "",
        gate=bool(row[15]),
    )


def _trigger(when_json: str) -> FiringTrigger:
    """The stored `when` (one of another shape reads as a trigger nothing matches, as
    `cairn.io.store.memories` reads it)."""
    try:
        when = loads(when_json)
        if isinstance(when, dict):
            return FiringTrigger(**when)
    except (ValueError, TypeError, RecursionError):
        pass
    return FiringTrigger(tool="")


# -- the SQL the hook and `SqliteStore` share --------------------------------------------
def events_where(marks: str) -> str:
    """SQL condition: events on refs `marks` that still count (not taken back, by itself or
    with its act), ordered as `for_refs` returns them."""
    return (
        f"ref IN ({marks}) AND {COUNTS} AND (act IS NULL OR act NOT IN "
        "(SELECT aid FROM acts WHERE undone_at IS NOT NULL)) ORDER BY at, id"
    )


def trigger_generation(conn: _sqlite3.Connection) -> tuple[str, int]:
    """(the store's id, its trigger generation: the newest change logged by migration 0007's
    triggers, 0 before the first)."""
    row = conn.execute(
        "SELECT (SELECT id FROM store_id), (SELECT coalesce(max(gen), 0) FROM trigger_changes)"
    ).fetchone()
    return str(row[0] or ""), int(row[1])


def holds_project(conn: _sqlite3.Connection, project: str) -> bool:
    """Whether a current project-scoped memory, a session or a progress note is stored
    under exactly `project` (workspace-wide memories do not count)."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM memories WHERE project = ? AND scope = 'project' "
        "AND until IS NULL AND status != 'retired') "
        "OR EXISTS (SELECT 1 FROM sessions WHERE project = ?) "
        "OR EXISTS (SELECT 1 FROM progress WHERE project = ?)",
        (project, project, project),
    ).fetchone()
    return bool(row and row[0])


def offer(
    conn: _sqlite3.Connection,
    session: str,
    refs: Iterable[str],
    channel: str,
    tool: str,
    at: str,
) -> None:
    """Record that these memories were handed to a session (brief, recall, lesson, rule)."""
    conn.executemany(
        "INSERT INTO offers (session, ref, channel, tool, at) VALUES (?, ?, ?, ?, ?)",
        [(session, ref, channel, tool, at) for ref in refs],
    )


def offered(conn: _sqlite3.Connection, session: str, channels: Sequence[str]) -> set[str]:
    """Refs already handed to this session through these channels."""
    marks = ",".join("?" * len(channels))
    rows = conn.execute(
        f"SELECT DISTINCT ref FROM offers WHERE session = ? AND channel IN ({marks})",
        (session, *channels),
    )
    return {r[0] for r in rows}


def claim_gates(
    conn: _sqlite3.Connection, session: str, refs: Sequence[str], tool: str, call: str, at: str
) -> list[str]:
    """Claim these gates for a call of `session` (caller holds the transaction); the refs this
    call claimed. Each gate is claimed once per session (the row's primary key): a ref another
    hook claimed first, even one running at the same moment, is left out. The claims are
    offered through channel `gate`."""
    claimed: list[str] = []
    for ref in refs:
        cur = conn.execute(
            "INSERT OR IGNORE INTO gate_denials (session, ref, tool, at, call) "
            "VALUES (?, ?, ?, ?, ?)",
            (session, ref, tool, at, call),
        )
        if cur.rowcount == 1:
            claimed.append(ref)
    if claimed:
        offer(conn, session, claimed, "gate", tool, at)
    return claimed


def gates_waiting(conn: _sqlite3.Connection, session: str) -> set[str]:
    """Gates that stopped a call of this session and have not seen it retried yet."""
    rows = conn.execute(
        "SELECT ref FROM gate_denials WHERE session = ? AND retry_at IS NULL", (session,)
    )
    return {r[0] for r in rows}


def note_retries(
    conn: _sqlite3.Connection, session: str, refs: Iterable[str], call: str, at: str
) -> None:
    """Record the first matching call after each gate's denial (caller holds the transaction)."""
    conn.executemany(
        "UPDATE gate_denials SET retry_at = ?, retry_call = ? "
        "WHERE session = ? AND ref = ? AND retry_at IS NULL",
        [(at, call, session, ref) for ref in refs],
    )


def write_session(conn: _sqlite3.Connection, row: SessionRow) -> None:
    """Create a session or update its tool, branch and cwd (each when given) and ended (caller
    holds the transaction)."""
    conn.execute(
        "INSERT INTO sessions (id, tool, project, branch, cwd, started, ended) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
        "tool = coalesce(nullif(excluded.tool, ''), sessions.tool), "
        "branch = coalesce(nullif(excluded.branch, ''), sessions.branch), "
        "cwd = coalesce(nullif(excluded.cwd, ''), sessions.cwd), "
        "ended = coalesce(excluded.ended, sessions.ended)",
        (row.id, row.tool, row.project, row.branch, row.cwd, row.started, row.ended),
    )


def session_changes(conn: _sqlite3.Connection, row: SessionRow) -> bool:
    """Would writing `row` change anything (a new session, or a changed field)?"""
    seen = conn.execute("SELECT tool, branch, cwd FROM sessions WHERE id = ?", (row.id,)).fetchone()
    if seen is None or row.ended is not None:
        return True
    given = (row.tool, row.branch, row.cwd)
    return any(new and new != old for new, old in zip(given, seen, strict=True))
