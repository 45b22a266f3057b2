"""The SQLite adapter: the one narrow interface through which Cairn touches its database.

Every SQL statement of Cairn lives in `cairn.io.store`. A second adapter (for a team's shared
PostgreSQL) implements the same methods; nothing above this layer knows which one it has.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from cairn.io.store import evidence as ev
from cairn.io.store import hookread
from cairn.io.store import memories as mem
from cairn.io.store.connection import DB_NAME, connect
from cairn.io.store.rows import Progress, SessionRow
from cairn.io.store.sqlite_docs import SqliteDocs
from cairn.io.store.sqlite_ledger import SqliteLedger
from cairn.io.store.sqlite_transfer import SqliteTransfer
from cairn.io.store.transaction import Transaction

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path
    from typing import Any

    from cairn.core.context import Context
    from cairn.core.models import Memory
    from cairn.io.store.postgres import TriggerWatch

FTS_CANDIDATES = 1000


class _Counts:
    """What `holding_counts` read (see it)."""

    __slots__ = (
        "data_version",
        "docs",
        "everywhere",
        "last_event",
        "last_memory",
        "project",
        "visible",
    )

    def __init__(self, project: str, row: Sequence[Any]) -> None:
        self.project = project
        numbers = [int(n or 0) for n in row]
        self.last_memory, self.last_event, self.everywhere, self.visible = numbers[:4]
        self.docs = (numbers[4], numbers[5])
        self.data_version = numbers[6]


class _Holding:
    """`with store.holding_counts(project):`: the counts read once, for the outermost block."""

    __slots__ = ("outer", "project", "store")

    def __init__(self, store: SqliteStore, project: str) -> None:
        self.store = store
        self.project = project
        self.outer = False

    def __enter__(self) -> None:
        store = self.store
        if store._held is not None:
            return
        self.outer = True
        row = store.conn.execute(
            "SELECT (SELECT coalesce(max(id), 0) FROM memories), "
            "(SELECT coalesce(max(id), 0) FROM evidence), "
            "(SELECT coalesce(sum(n), 0) FROM memory_counts), "
            f"(SELECT coalesce(sum(n), 0) FROM memory_counts WHERE {mem.visible_clause()}), "
            "(SELECT n_docs FROM index_stats WHERE name = 'docs'), "
            "(SELECT n_tokens FROM index_stats WHERE name = 'docs'), "
            f"{store.HELD_DATA_VERSION}",
            (self.project,),
        ).fetchone()
        store._held = _Counts(self.project, row)

    def __exit__(self, *exc: object) -> None:
        if self.outer:
            self.store._held = None


def _any_of(terms: Iterable[str]) -> str:
    """An FTS5 query matching rows holding any of `terms`, each quoted as a phrase."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


class SqliteStore(SqliteTransfer, SqliteDocs, SqliteLedger):
    """A workspace store in one SQLite file (WAL, FTS5): the `cairn.io.store.Store` protocol."""

    # What `holding_counts` reads as the data_version `current_among` keys its answers by.
    HELD_DATA_VERSION = "(SELECT data_version FROM pragma_data_version())"

    def __init__(
        self, home: str | os.PathLike[str], *, create: bool = True, busy_ms: int | None = None
    ) -> None:
        self._home = os.fspath(home)
        db = os.path.join(self._home, DB_NAME)
        if busy_ms is None:
            self.conn = connect(db, create=create)
        else:
            self.conn = connect(db, create=create, busy_ms=busy_ms)
        self._depth = 0
        self._held: _Counts | None = None
        self._noted: set[tuple[str, ...]] = set()  # note_session's sessions seen complete
        # `rowids_with_events`, kept while the store is open: (the rows' marks, the rowids).
        self._with_events: tuple[Any, frozenset[int]] | None = None
        # `current_among`'s answers, kept while the store is unchanged: (its mark, rowid ->
        # current).
        self._current: tuple[tuple[int, int], dict[int, bool]] = ((-1, -1), {})

    @property
    def home(self) -> Path:
        """The workspace folder."""
        from pathlib import Path

        return Path(self._home)

    @property
    def folder(self) -> str:
        """The workspace folder as text (for the hook's paths: no pathlib)."""
        return self._home

    @property
    def path(self) -> Path:
        """The database file."""
        return self.home / DB_NAME

    @property
    def location(self) -> str:
        """Where the memories are, as a person reads it: the database file."""
        return os.path.join(self._home, DB_NAME)

    @property
    def read_only(self) -> bool:
        """Was the store opened read-only (its folder cannot be written)?"""
        return bool(self.conn.read_only)

    def size(self) -> int:
        """Bytes the database takes on disk (its file and its write-ahead log)."""
        total = 0
        for suffix in ("", "-wal"):
            try:
                total += os.stat(self.location + suffix).st_size
            except OSError:
                continue
        return total

    def set_busy_ms(self, ms: int) -> int:
        """Wait at most `ms` for another writer's lock from now on; returns the old bound."""
        (before,) = self.conn.execute("PRAGMA busy_timeout").fetchone()
        self.conn.execute(f"PRAGMA busy_timeout = {int(ms)}")
        return int(before)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    # -- transactions -------------------------------------------------------------------
    def transaction(self) -> Transaction:
        """One write transaction (BEGIN IMMEDIATE); nested calls join the outer one."""
        return Transaction(self)

    def reading(self) -> Transaction:
        """One read transaction: every query inside sees the same snapshot (WAL), and no write
        lock is taken; inside a transaction, it joins it."""
        return Transaction(self, "BEGIN")

    @property
    def in_transaction(self) -> bool:
        """Is a transaction open on this connection?"""
        return bool(self.conn.in_transaction)

    # -- memories -----------------------------------------------------------------------
    def insert_memory(self, memory: Memory, folded: str, index: mem.IndexText) -> Memory:
        """Insert one memory version with its index rows; returns it as stored."""
        with self.transaction():
            return mem.insert(self.conn, memory, folded, index)

    def get_memory(self, ref: str) -> Memory:
        """One memory by ref (UnknownRefError if none)."""
        return mem.get(self.conn, ref)

    def has_memory(self, ref: str) -> bool:
        """Whether a memory version with this ref is stored (any status)."""
        row = self.conn.execute("SELECT 1 FROM memories WHERE ref = ?", (ref,)).fetchone()
        return row is not None

    def get_memories(self, refs: Iterable[str]) -> dict[str, Memory]:
        """The memories found among refs."""
        return mem.get_many(self.conn, refs)

    def memories_by_ids(self, ids: Sequence[int]) -> dict[int, Memory]:
        """Memories by index rowid."""
        return mem.by_ids(self.conn, ids)

    def update_memory(self, memory: Memory, **changes: Any) -> Memory:
        """Change status/pinned/until/replaced_by/last_touched, checking the revision."""
        with self.transaction():
            return mem.update(self.conn, memory, **changes)

    def touch(self, refs: Iterable[str], at: str) -> None:
        """Mark memories as cited or restated at `at`."""
        with self.transaction():
            mem.touch(self.conn, refs, at)

    def find_current(self, project: str, folded: str) -> Memory | None:
        """The current memory holding this folded sentence, visible from project."""
        return mem.find_current(self.conn, project, folded)

    def list_memories(self, **filters: Any) -> list[Memory]:
        """Memories newest first (filters: project, kind, tag, status, current, limit)."""
        return mem.select(self.conn, **filters)

    def memories_with_tag(self, tag: str, project: str) -> list[Memory]:
        """Current memories with this tag, visible from project, newest first."""
        return mem.with_tag(self.conn, tag, project)

    def projects(self) -> list[str]:
        """Every project that holds a memory, in name order."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT project FROM memories ORDER BY 1")]

    def holds_project(self, project: str) -> bool:
        """Whether a current project-scoped memory, a session or a progress note is stored
        under exactly `project` (workspace-wide memories do not count)."""
        return hookread.holds_project(self.conn, project)

    def own_memories(self, project: str) -> list[Memory]:
        """The current project-scoped memories stored under exactly `project`, oldest first."""
        return mem.own(self.conn, project)

    def move_project(self, old: str, new: str) -> int:
        """Sessions, progress notes, acts and learn state of project `old` moved to `new`;
        how many rows moved. An act or learn-state key `new` already holds stays with `old`."""
        moved = 0
        with self.transaction():
            for table in ("sessions", "progress"):
                moved += self.conn.execute(
                    f"UPDATE {table} SET project = ? WHERE project = ?", (new, old)
                ).rowcount
            for table in ("acts", "learn_state"):
                moved += self.conn.execute(
                    f"UPDATE {table} SET project = ? WHERE project = ? AND NOT EXISTS "
                    f"(SELECT 1 FROM {table} AS held WHERE held.project = ? "
                    f"AND held.key = {table}.key)",
                    (new, old, new),
                ).rowcount
        return moved

    def count_memories(self, project: str | None = None) -> int:
        """Current memories in a project (with workspace ones) or the whole workspace."""
        held = self._held
        if held is not None and (project is None or project == held.project):
            return held.everywhere if project is None else held.visible
        return mem.count(self.conn, project)

    def sentence_words(self, project: str) -> dict[str, str]:
        """The analysed words of each current memory's sentence, by ref (as indexed)."""
        return mem.sentence_words(self.conn, project)

    def briefable_count(
        self, project: str, branch: str, fresh_since: str, contradicting: Sequence[str]
    ) -> tuple[int, list[Memory]]:
        """How many memories the session brief may list, and those to judge for strikes."""
        return mem.briefable_count(self.conn, project, branch, fresh_since, contradicting)

    def briefable(self, project: str, branch: str, fresh_since: str, limit: int) -> list[Memory]:
        """The memories the session brief may list: pinned first, then newest first."""
        return mem.briefable(self.conn, project, branch, fresh_since, limit)

    def memories_as_of(self, project: str, end: str) -> dict[int, Memory]:
        """Versions believed at instant `end`, by index rowid."""
        return mem.as_of(self.conn, project, end)

    def index_rows_after(self, after: int, limit: int | None = None) -> list[tuple[Any, ...]]:
        """(rowid, ref, project, scope, kind, sentence, tags, citation, reason, n_tokens,
        written) of the memory index's versions with a rowid over `after` (the first `limit`
        of them, when given), ascending."""
        return mem.index_rows_after(self.conn, after, limit)

    def current_rowids(self, every: int = 1) -> list[int]:
        """The rowid of every current memory in the workspace (of one in `every`), ascending."""
        return mem.current_rowids(self.conn, every)

    def index_words(self, ids: Sequence[int]) -> dict[int, str]:
        """The analysed words of these memory rows (four fields in one text), by rowid."""
        return mem.index_words(self.conn, ids)

    def trigger_memories(self) -> list[Memory]:
        """Current memories the trigger list needs: lessons, action rules, cited files."""
        return mem.trigger_memories(self.conn)

    def watch_triggers(self) -> TriggerWatch | None:
        """None: a SQLite store is this machine's own; its writers refresh the list."""
        return None

    def trigger_generation(self) -> tuple[str, int]:
        """(this store's id, its trigger generation): the generation moves, in the writing
        transaction, with every change to the memories `trigger_memories` returns."""
        return hookread.trigger_generation(self.conn)

    def trigger_changes(self, after: int) -> list[tuple[int, str, str]] | None:
        """(gen, ref, 'add' | 'drop') of the changes after generation `after`, oldest first;
        None when they are no longer all kept."""
        return mem.trigger_changes(self.conn, after)

    def history_chain(self, ref: str) -> tuple[list[Memory], list[Memory]]:
        """(versions this one replaced, newest first; versions that replaced it, oldest first).

        A version naming one the store does not hold (an import cut short, lines out of order)
        ends the chain there: the history shows what is stored, and reading never raises."""
        older: list[Memory] = []
        current = mem.get(self.conn, ref)
        seen = {ref}
        while current.replaces and current.replaces not in seen:
            seen.add(current.replaces)
            found = mem.get_many(self.conn, [current.replaces]).get(current.replaces)
            if found is None:
                break
            current = found
            older.append(current)
        newer: list[Memory] = []
        current = mem.get(self.conn, ref)
        while current.replaced_by and current.replaced_by not in seen:
            seen.add(current.replaced_by)
            found = mem.get_many(self.conn, [current.replaced_by]).get(current.replaced_by)
            if found is None:
                break
            current = found
            newer.append(current)
        return older, newer

    # -- the full-text index ------------------------------------------------------------
    def refs_at_rowids(self, ids: Sequence[int]) -> list[str]:
        """The ref of each memory rowid in `ids`, in order ("" where none)."""
        return mem.refs_at(self.conn, ids)

    CURRENT_KEPT = 50_000  # rowids whose currentness `current_among` keeps

    def current_among(self, ids: Sequence[int]) -> set[int]:
        """The rowids among `ids` of current memory versions (not replaced, not retired).

        Answers are kept until the store may have changed: a commit by another connection
        (`PRAGMA data_version`) or a row written by this one (`total_changes`); nothing read
        inside an open transaction is kept (a rollback moves neither). A warm recall asks
        about the same candidates again.
        """
        if self.conn.in_transaction:
            # What an open transaction reads may yet be rolled back (which moves no mark).
            return mem.current_among(self.conn, ids)
        # Inside `holding_counts` (one recall), the data_version read with the counts: the
        # recall answers from that read, and a commit since moves the mark for the next one.
        held = self._held
        version = held.data_version if held is not None else self.data_version()
        mark = (version, self.conn.total_changes)
        kept_mark, known = self._current
        if kept_mark != mark or len(known) > self.CURRENT_KEPT:
            known = {}
            self._current = (mark, known)
        missing = [i for i in ids if i not in known]
        if missing:
            found = mem.current_among(self.conn, missing)
            known.update((i, i in found) for i in missing)
        return {i for i in ids if known[i]}

    def doc_candidates(self, terms: Sequence[str], limit: int = FTS_CANDIDATES) -> list[int]:
        """Rowids of doc pages holding any of `terms`."""
        return self._candidates("doc_fts", terms, limit)

    def _candidates(self, table: str, terms: Sequence[str], limit: int) -> list[int]:
        if not terms:
            return []
        match = _any_of(dict.fromkeys(terms))
        rows = self.conn.execute(
            f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ?",
            (match, limit),
        )
        return [r[0] for r in rows]

    def doc_freqs(self, terms: Sequence[str]) -> dict[str, int]:
        """How many doc pages hold each term (FTS5's own vocabulary statistics).

        Memories have no FTS5 index: recall counts their terms from its postings
        (`cairn.usecases.recall.kept`). This walks the term's rows in the docs index.
        """
        out: dict[str, int] = {}
        for term in dict.fromkeys(terms):
            row = self.conn.execute("SELECT doc FROM doc_vocab WHERE term = ?", (term,)).fetchone()
            out[term] = int(row[0]) if row else 0
        return out

    def index_stats(self, name: str = "docs") -> tuple[int, int]:
        """(rows, total tokens) in the doc index, for BM25's N and average length."""
        held = self._held
        if held is not None and name == "docs":
            return held.docs
        row = self.conn.execute(
            "SELECT n_docs, n_tokens FROM index_stats WHERE name = ?", (name,)
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def holding_counts(self, project: str) -> _Holding:
        """Inside this block, the counts (`change_count`, `count_memories` of the workspace
        and of `project`, the events mark of `rowids_with_events`, the doc index's
        `index_stats`) are read once, in one query,
        and held until it ends or a transaction begins: one use case asking for them several
        times pays one round trip. Nested blocks use the outer one's."""
        return _Holding(self, project)

    def data_version(self) -> int:
        """A number that changes when another connection commits (cache invalidation)."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def change_count(self) -> int:
        """Rows ever written to the memory index (grows on every remember)."""
        if self._held is not None:
            return self._held.last_memory
        return int(self.conn.execute("SELECT coalesce(max(id), 0) FROM memories").fetchone()[0])

    # -- evidence and offers ------------------------------------------------------------
    def add_events(self, events: Iterable[ev.Event]) -> int:
        """Append evidence events; returns how many were new (an existing eid is skipped)."""
        before = self.conn.total_changes
        with self.transaction():
            for event in events:
                ev.add(self.conn, event)
        return self.conn.total_changes - before

    def rowids_with_events(self) -> frozenset[int]:
        """The memory rowids whose ref has any event (counting or not): recall looks the
        events of these up, and knows the others have none. Kept until an event or a memory
        row is added."""
        held = self._held
        mark = (
            (held.last_event, held.last_memory)
            if held is not None
            else self.conn.execute(
                "SELECT (SELECT coalesce(max(id), 0) FROM evidence), "
                "(SELECT coalesce(max(id), 0) FROM memories)"
            ).fetchone()
        )
        kept = self._with_events
        if kept is None or kept[0] != mark:
            rows = self.conn.execute(
                "SELECT id FROM memories WHERE ref IN (SELECT DISTINCT ref FROM evidence)"
            )
            kept = self._with_events = (mark, frozenset(int(r[0]) for r in rows))
        return kept[1]

    def events_for(self, refs: Sequence[str]) -> list[ev.Event]:
        """Events on these memories, oldest first."""
        return ev.for_refs(self.conn, refs)

    def take_back_events(self, eids: Sequence[str], at: str) -> int:
        """Mark events taken back (kept, no longer counted); how many were marked."""
        if not eids:
            return 0
        with self.transaction():
            return ev.take_back(self.conn, eids, at)

    def event_exists(self, ref: str, event: str, tool: str, session: str, day: str) -> bool:
        """Has this tool produced this event on this memory in this session (or day)?"""
        return ev.exists(self.conn, ref, event, tool, session, day)

    def record_offers(
        self, session: str, refs: Iterable[str], channel: str, tool: str, at: str
    ) -> None:
        """Record memories handed to a session."""
        with self.transaction():
            hookread.offer(self.conn, session, refs, channel, tool, at)

    def fires_by_agent(
        self, refs: Sequence[str], channels: Sequence[str]
    ) -> dict[str, tuple[dict[str, int], str]]:
        """Per memory: how often it was handed out through these channels, by tool, and
        when last."""
        out: dict[str, tuple[dict[str, int], str]] = {}
        if not refs or not channels:
            return out
        kinds = ",".join("?" * len(channels))
        for i in range(0, len(refs), 500):
            chunk = list(refs[i : i + 500])
            marks = ",".join("?" * len(chunk))
            for ref, tool, n, last in self.conn.execute(
                f"SELECT ref, tool, count(*), max(at) FROM offers WHERE ref IN ({marks}) "
                f"AND channel IN ({kinds}) GROUP BY ref, tool ORDER BY ref, tool",
                (*chunk, *channels),
            ):
                by_tool, seen = out.get(ref, ({}, ""))
                by_tool[str(tool)] = int(n)
                out[str(ref)] = (by_tool, max(seen, str(last)))
        return out

    def refs_with_events(self, events: Sequence[str], project: str) -> list[str]:
        """Current memories visible from `project` with an event of these kinds that counts."""
        kinds = ",".join("?" * len(events))
        rows = self.conn.execute(
            f"SELECT DISTINCT e.ref FROM evidence e JOIN memories m ON m.ref = e.ref "
            f"WHERE e.event IN ({kinds}) AND json_extract(e.detail, '$.taken_back') IS NULL "
            f"AND {mem.visible_clause('m')} "
            "AND m.until IS NULL AND m.status != 'retired'",
            (*events, project),
        )
        return [str(r[0]) for r in rows]

    def offered(self, session: str, channels: Sequence[str]) -> set[str]:
        """Refs already handed to the session through these channels."""
        return hookread.offered(self.conn, session, channels)

    # -- gates --------------------------------------------------------------------------
    def claim_gates(
        self, session: str, refs: Sequence[str], tool: str, call: str, at: str
    ) -> list[str]:
        """Record that these gates stop a call of `session`; return the refs this call claimed.

        Each gate is claimed once per session (the row's primary key): a ref another hook
        claimed first, even one running at the same moment, is left out. The claims and their
        offers (channel `gate`) are committed before this returns, so before any denial is
        printed.
        """
        with self.transaction():
            return hookread.claim_gates(self.conn, session, refs, tool, call, at)

    def gates_waiting(self, session: str) -> set[str]:
        """Gates that stopped a call of this session and have not seen it retried yet."""
        return hookread.gates_waiting(self.conn, session)

    def note_retries(self, session: str, refs: Iterable[str], call: str, at: str) -> None:
        """Record the first matching call after each gate's denial (its retry)."""
        with self.transaction():
            hookread.note_retries(self.conn, session, refs, call, at)

    # -- sessions -----------------------------------------------------------------------
    def upsert_session(self, row: SessionRow) -> None:
        """Create a session or update its tool, branch and cwd (each when given) and ended.

        A row that would not change is not written (`session_changes`): the hook calls this
        on every call that could fire, and a call that writes nothing leaves no WAL for its
        close to checkpoint.
        """
        if self.session_changes(row):
            self.write_session(row)

    def write_session(self, row: SessionRow) -> None:
        """`upsert_session` without the check (for a caller that just made it)."""
        with self.transaction():
            hookread.write_session(self.conn, row)

    def session_changes(self, row: SessionRow) -> bool:
        """Would `upsert_session(row)` write anything (a new session, or a changed field)?"""
        return hookread.session_changes(self.conn, row)

    def note_session(self, ctx: Context) -> None:
        """Record the caller's session, when it names one, as it writes or cites for it.

        A session already recorded keeps what it was first seen with (a hook knows its agent
        and branch better than a later CLI call naming the same id); only fields it lacks are
        filled in. Nothing is written when there is nothing new, so a second call is a read.
        """
        if not ctx.session:
            return
        cwd = ctx.cwd or ctx.project
        given = (ctx.tool, ctx.branch, cwd)
        if (ctx.session, *given) in self._noted:
            return  # seen complete by this handle: fields are filled in, never emptied
        seen = self.conn.execute(
            "SELECT tool, branch, cwd FROM sessions WHERE id = ?", (ctx.session,)
        ).fetchone()
        if seen is not None and all(old or not new for new, old in zip(given, seen, strict=True)):
            self._noted.add((ctx.session, *given))
            return
        with self.transaction():
            self.conn.execute(
                "INSERT INTO sessions (id, tool, project, branch, cwd, started, ended) "
                "VALUES (?, ?, ?, ?, ?, ?, NULL) ON CONFLICT (id) DO UPDATE SET "
                "tool = coalesce(nullif(sessions.tool, ''), excluded.tool), "
                "branch = coalesce(nullif(sessions.branch, ''), excluded.branch), "
                "cwd = coalesce(nullif(sessions.cwd, ''), excluded.cwd)",
                (ctx.session, ctx.tool, ctx.project, ctx.branch, cwd, ctx.now()),
            )

    def end_session(self, session_id: str, at: str) -> None:
        """Mark a session ended."""
        with self.transaction():
            self.conn.execute("UPDATE sessions SET ended = ? WHERE id = ?", (at, session_id))

    def get_session(self, session_id: str) -> SessionRow | None:
        """One session by id."""
        r = self.conn.execute(
            "SELECT id, tool, project, branch, cwd, started, ended FROM sessions WHERE id = ?",
            (session_id,),
        ).fetchone()
        return SessionRow(*r) if r else None

    def sessions(
        self, project: str, branch: str | None = None, limit: int = 20
    ) -> list[SessionRow]:
        """Recent sessions of a project (optionally of one branch), newest first."""
        sql = (
            "SELECT id, tool, project, branch, cwd, started, ended FROM sessions WHERE project = ?"
        )
        args: list[Any] = [project]
        if branch is not None:
            sql += " AND branch = ?"
            args.append(branch)
        sql += " ORDER BY started DESC LIMIT ?"
        args.append(limit)
        return [SessionRow(*r) for r in self.conn.execute(sql, args)]

    def cited_in_sessions(self, session_ids: Sequence[str]) -> set[str]:
        """Refs cited by these sessions."""
        if not session_ids:
            return set()
        marks = ",".join("?" * len(session_ids))
        rows = self.conn.execute(
            f"SELECT DISTINCT ref FROM evidence WHERE event = 'cited' AND session IN ({marks})",
            list(session_ids),
        )
        return {r[0] for r in rows}

    # -- progress -----------------------------------------------------------------------
    def add_progress(self, p: Progress) -> int:
        """Append a progress record; returns 1 when new, 0 when its pid exists."""
        before = self.conn.total_changes
        with self.transaction():
            self.conn.execute(
                "INSERT OR IGNORE INTO progress (pid, project, branch, goal, step, status, tool, "
                "session, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (p.pid, p.project, p.branch, p.goal, p.step, p.status, p.tool, p.session, p.at),
            )
        return self.conn.total_changes - before

    def progress(self, project: str, branch: str | None = None, limit: int = 200) -> list[Progress]:
        """Progress records of a project (optionally one branch), oldest first."""
        sql = (
            "SELECT pid, project, branch, goal, step, status, tool, session, at FROM progress "
            "WHERE project = ?"
        )
        args: list[Any] = [project]
        if branch is not None:
            sql += " AND branch = ?"
            args.append(branch)
        sql += " ORDER BY at DESC, id DESC LIMIT ?"
        args.append(limit)
        return [Progress(*r) for r in reversed(self.conn.execute(sql, args).fetchall())]
