"""The PostgreSQL store: one database that a team's machines share, behind the `Store` protocol.

`PostgresStore` runs `SqliteStore`'s methods. The SQL of `cairn.io.store` is written so that both
engines read it, and `PgConnection` speaks the small part of the sqlite3 connection API those
methods use over psycopg 3, turning the spellings that differ into PostgreSQL's: `?`
placeholders, `INSERT OR IGNORE`, `cursor.lastrowid` (a `RETURNING id`), `total_changes`, and
`BEGIN IMMEDIATE`, which becomes a transaction holding the store's write lock
(`pg_migrations.WRITE_LOCK`) until it ends: one writer at a time, as in SQLite, so rowids and
the trigger generation are given in commit order and a reader that has seen rowid N has seen
every row below it (recall's postings grow from `index_rows_after`, as over SQLite). What no
shared spelling exists for is written again below: finding doc pages (no FTS5: `doc_terms`),
SQLite's scalar `max`, sums of conditions, pragmas.

The local folder (`home`) still holds what each machine keeps for itself: the trigger list the
hook reads first, recall's files, the hook's logs.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, cast

from cairn.core.errors import ConflictError, StoreError
from cairn.io.store.pg_migrations import MIGRATIONS, WRITE_LOCK
from cairn.io.store.sqlite import FTS_CANDIDATES, SqliteStore

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    import psycopg

    from cairn.io.store.acts import LearnSession
    from cairn.io.store.connection import Connection

__all__ = ["PgConnection", "PostgresStore", "TriggerWatch", "is_url", "migrate", "redact"]

SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT_S = 5
BUSY_TIMEOUT_MS = 10_000


def is_url(text: str) -> bool:
    """Does `text` name a PostgreSQL store (a `postgresql://` URL)?"""
    return text.startswith(SCHEMES)


# Query parameters of a URL that hold a secret (libpq reads both from the URL).
SECRET_PARAMETERS = frozenset({"password", "sslpassword"})


def redact(url: str) -> str:
    """The URL without its password, in the user part or as a `password=` (or `sslpassword=`)
    parameter (for messages, `location` and the schema note: never write a secret)."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if k.lower() not in SECRET_PARAMETERS]
    if len(kept) < len(pairs):
        parts = parts._replace(query=urlencode(kept, safe="/"))
    if parts.password is None:
        return url if len(kept) == len(pairs) else urlunsplit(parts)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit(parts._replace(netloc=user + host))


class _Rows:
    """A cursor as sqlite3's reads: rows, `rowcount`, `lastrowid`."""

    __slots__ = ("_rows", "lastrowid", "rowcount")

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int, lastrowid: int | None) -> None:
        self._rows = rows
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows, self._rows = self._rows, []
        return rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchall())


def _translate(sql: str, has_params: bool) -> tuple[str, bool]:
    """(PostgreSQL's spelling of an SQL statement of cairn.io.store, whether it returns the new
    row's id for `lastrowid`)."""
    text = sql.strip()
    if text.startswith("INSERT OR IGNORE INTO"):
        text = "INSERT INTO" + text[len("INSERT OR IGNORE INTO") :] + " ON CONFLICT DO NOTHING"
    returning = text.startswith(("INSERT INTO memories ", "INSERT INTO docs ")) and (
        "RETURNING" not in text
    )
    if returning:
        text += " RETURNING id"
    if "json_" in text:
        text = _json_spelling(text)
    if has_params:
        text = text.replace("%", "%%").replace("?", "%s")
    return text, returning


def _json_spelling(text: str) -> str:
    """SQLite's JSON functions on a text column, as PostgreSQL spells them on jsonb:
    `json_extract(col, '$.key')` reads the key as text, `json_set(col, '$.key', ?)` sets it
    (the value a string) and writes the column back as text."""
    import re

    text = re.sub(
        r"json_set\(([\w.]+), '\$\.(\w+)', \?\)",
        r"jsonb_set(\1::jsonb, '{\2}', to_jsonb(?::text))::text",
        text,
    )
    return re.sub(r"json_extract\(([\w.]+), '\$\.(\w+)'\)", r"(\1::jsonb ->> '\2')", text)


class PgConnection:
    """A psycopg connection with the sqlite3 API `SqliteStore`'s methods use (see the module
    docstring); an unreachable server or a lock waited out raises StoreError, a claim another
    machine made current first raises ConflictError."""

    def __init__(self, raw: psycopg.Connection[Any], where: str, busy_ms: int) -> None:
        self.raw = raw
        self.path = where
        self.busy_ms = busy_ms
        self.read_only = False
        self.total_changes = 0
        self.mark: str | None = None  # the schema check's note (`schema_mark`), once known
        self._sql: dict[tuple[str, bool], tuple[str, bool]] = {}

    @property
    def in_transaction(self) -> bool:
        from psycopg import pq

        return self.raw.info.transaction_status != pq.TransactionStatus.IDLE

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> _Rows:
        """Run one statement (translated), as sqlite3's `execute`."""
        if sql == "BEGIN IMMEDIATE":
            # One round trip: BEGIN, this transaction's lock bound and the lock. The bound is
            # sent here, not on every change of `busy_ms` (a recall that waits for nobody sets
            # it to 0 and back: two round trips for no query). PostgreSQL reads 0 as "wait for
            # ever": "do not wait" is sent as 1 ms.
            bound = max(1, int(self.busy_ms))
            return self._run(
                f"BEGIN; SET LOCAL lock_timeout = {bound}; "
                f"SELECT pg_advisory_xact_lock({WRITE_LOCK})",
                None,
            )
        if sql == "BEGIN":
            return self._run("BEGIN ISOLATION LEVEL REPEATABLE READ", None)
        key = (sql, bool(parameters))
        text, returning = self._sql.get(key) or self._sql.setdefault(
            key, _translate(sql, bool(parameters))
        )
        return self._run(text, tuple(parameters) if parameters else None, returning)

    def executemany(self, sql: str, parameters: Any, /) -> _Rows:
        """Run one statement for each parameter set, as sqlite3's `executemany`."""
        text, _ = _translate(sql, True)
        rows = [tuple(p) for p in parameters]
        if not rows:
            return _Rows([], 0, None)
        try:
            with self.raw.cursor() as cur:
                cur.executemany(text, rows)
                count = max(cur.rowcount, 0)
        except Exception as exc:
            raise self.failure(exc) from exc
        self.total_changes += count
        return _Rows([], count, None)

    def _run(self, text: str, params: tuple[Any, ...] | None, returning: bool = False) -> _Rows:
        try:
            with self.raw.cursor() as cur:
                cur.execute(text, params)
                rows = cur.fetchall() if cur.description is not None else []
                count = cur.rowcount
        except Exception as exc:
            raise self.failure(exc) from exc
        lastrowid = None
        if returning:
            lastrowid = int(rows[0][0]) if rows else None
            rows = []
        if count > 0 and not text.startswith("SELECT"):
            self.total_changes += count
        return _Rows(rows, count, lastrowid)

    def failure(self, exc: Exception) -> Exception:
        """The CairnError for a server's fault, or `exc` itself for anything else."""
        import psycopg

        if isinstance(exc, psycopg.errors.ExclusionViolation):
            return ConflictError(
                "another machine saved the same sentence at the same moment; nothing was "
                "written here: run it again to confirm theirs"
            )
        if isinstance(exc, psycopg.errors.LockNotAvailable):
            error = StoreError(
                f"the Cairn store at {self.path} is being written by another machine (waited "
                f"{self.busy_ms / 1000:g} s); nothing was written. Try again"
            )
            error.cause = "locked"
            return error
        errors = psycopg.errors
        faults = (errors.UndefinedTable, errors.UndefinedColumn, errors.UndefinedFunction)
        if self.mark and isinstance(exc, faults):
            # A table or column missing: the database is not the schema the note says it
            # checked (restored, dropped, migrated back). The next open checks again.
            _forget_mark(self.mark)
        if isinstance(exc, psycopg.OperationalError):
            error = StoreError(f"cannot reach the Cairn store at {self.path}: {_first_line(exc)}")
            error.cause = "unreachable"
            return error
        return exc

    def close(self) -> None:
        self.raw.close()


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def connect(
    url: str, busy_ms: int = BUSY_TIMEOUT_MS, *, within_s: float | None = None
) -> PgConnection:
    """Open a connection to the store at `url` (role, password and TLS options from the URL,
    the environment or `~/.pgpass`, as libpq reads them); StoreError when it cannot.

    The lock bound (`busy_ms`) and, with `within_s` (what is left of a caller's budget, the
    hook's), the bounds on connecting and on each statement travel in the connection's startup
    packet (`options`), not as statements of their own: no round trip is spent on them.
    """
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    where = redact(url)
    settings = [f"-c lock_timeout={max(1, int(busy_ms))}"]  # outside write transactions
    connect_timeout = CONNECT_TIMEOUT_S
    if within_s is not None:
        # libpq counts connect_timeout in whole seconds, 2 at least; a caller with a budget
        # (the hook) ends a slower connect itself (its alarm).
        connect_timeout = max(2, math.ceil(within_s))
        settings.append(f"-c statement_timeout={max(1, int(within_s * 1000))}")
    try:
        given = conninfo_to_dict(url).get("options") or os.environ.get("PGOPTIONS", "")
        raw = psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=connect_timeout,
            application_name="cairn",
            # Added to what the URL or PGOPTIONS asked for, which an `options` given here
            # would replace.
            options=" ".join([str(given), *settings]).strip(),
        )
    except psycopg.Error as exc:
        error = StoreError(f"cannot reach the Cairn store at {where}: {_first_line(exc)}")
        error.cause = "unreachable"
        raise error from exc
    return PgConnection(raw, where, busy_ms)


class TriggerWatch:
    """A LISTEN on `TRIGGERS_CHANNEL`: `fileno()` turns readable when a notification may have
    come, `changed()` reads what came without waiting. Its own connection, so the store's
    stays free for queries (psycopg's notifications arrive on the connection that listens)."""

    def __init__(self, url: str) -> None:
        from cairn.io.store.pg_migrations import TRIGGERS_CHANNEL

        self._conn = connect(url)
        self._conn.execute(f"LISTEN {TRIGGERS_CHANNEL}")

    def fileno(self) -> int:
        """The connection's socket, to wait on (select, anyio.wait_readable)."""
        return int(self._conn.raw.pgconn.socket)

    def changed(self) -> bool:
        """Has a notification come since the last call? Never waits; StoreError when the
        connection is lost."""
        import psycopg

        pgconn = self._conn.raw.pgconn
        try:
            pgconn.consume_input()
        except psycopg.OperationalError as exc:
            raise self._conn.failure(exc) from exc
        came = False
        while pgconn.notifies() is not None:
            came = True
        return came

    def close(self) -> None:
        """Stop listening (the connection closes)."""
        self._conn.close()


def applied(conn: PgConnection) -> set[str] | None:
    """Names of the migrations recorded in the database (None: it holds no Cairn store)."""
    found = conn.execute("SELECT to_regclass('migrations') IS NOT NULL").fetchone()
    if not found or not found[0]:
        return None
    return {str(r[0]) for r in conn.execute("SELECT name FROM migrations")}


def migrate(conn: PgConnection, now: str) -> list[str]:
    """Create the store's tables or bring them up to date; return the names applied."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations (name text PRIMARY KEY, applied text NOT NULL)"
    )
    out: list[str] = []
    for name, step in MIGRATIONS:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("COMMIT")
                continue
            if callable(step):
                step(conn)
            elif step:
                conn.execute(step)
            conn.execute("INSERT INTO migrations (name, applied) VALUES (?, ?)", (name, now))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.raw.execute("ROLLBACK")
            raise
        out.append(name)
    return out


# What a schema check found complete: the code's migrations, by count and last name. A Cairn
# with another migration list reads another version and checks again.
SCHEMA_VERSION = f"{len(MIGRATIONS)} {MIGRATIONS[-1][0]}"
MARKS = "pg-schema"  # beside the trigger list: one file per database this machine checked
# The libpq variables that change which database a URL reaches.
_WHERE_ENV = ("PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE")


def schema_mark(home: str, url: str) -> str:
    """Where this machine notes that the database at `url` holds `SCHEMA_VERSION`.

    Checking the schema costs two round trips, on every open. The hook's tool calls trust
    this note instead (`PostgresStore(trust_checked=True)`); every other open (CLI, MCP
    server, the hook's session start and end) checks again and rewrites or removes it. The
    note names the database it is for (`_noted`), so two that share a file name never pass
    for each other; the URL it holds has no password.
    """
    import zlib  # psycopg loads it anyway (hashlib would cost the hook ~4 ms)

    return os.path.join(home, MARKS, f"{zlib.crc32(_where(url).encode()):08x}")


def _where(url: str) -> str:
    """The database a URL reaches: the URL without its password, and the libpq variables."""
    return "\n".join([redact(url), *(os.environ.get(name, "") for name in _WHERE_ENV)])


def _noted(url: str) -> str:
    """What the note of a complete check of the database at `url` holds."""
    return f"{SCHEMA_VERSION}\n{_where(url)}\n"


def _read_mark(path: str) -> str:
    from cairn.io.regularfile import read_text

    try:
        return read_text(path, 4096)
    except (OSError, UnicodeDecodeError):
        return ""


def _write_mark(path: str, text: str) -> None:
    """Note the check (replaced whole, so a reader never sees half of it); best effort."""
    if _read_mark(path) == text:
        return
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        partial = f"{path}.{os.getpid()}"
        with open(partial, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(partial, path)
    except OSError:
        pass  # unwritable: the next open checks again


def _forget_mark(path: str) -> None:
    import contextlib

    with contextlib.suppress(OSError):  # gone already, or never written
        os.remove(path)


class PostgresStore(SqliteStore):
    """A store in a PostgreSQL database shared by many machines (see the module docstring).

    `home` is this machine's local folder (the trigger list, recall's files). The database
    must have been created or upgraded with `cairn store migrate`: opening a store that is
    behind says so rather than changing a team's schema as a side effect.
    """

    # `current_among` asks every time here (see it): no data_version to hold.
    HELD_DATA_VERSION = "0"

    def __init__(
        self,
        url: str,
        home: str | os.PathLike[str],
        *,
        busy_ms: int | None = None,
        trust_checked: bool = False,
        within_s: float | None = None,
    ) -> None:
        """Connect and check the schema (see `schema_mark`: with `trust_checked`, a check
        this machine made already for this database and schema version is not made again).
        `within_s` bounds connecting and each statement (see `connect`)."""
        self._url = url
        self._home = os.fspath(home)
        os.makedirs(self._home, mode=0o700, exist_ok=True)
        pg = connect(url, BUSY_TIMEOUT_MS if busy_ms is None else busy_ms, within_s=within_s)
        # SqliteStore's methods call the sqlite3 API; PgConnection speaks it (module docstring).
        self.conn = cast("Connection", pg)
        self._pg = pg
        self._depth = 0
        self._held = None
        self._noted = set()
        self._with_events = None
        mark = schema_mark(self._home, url)
        pg.mark = mark
        if trust_checked and _read_mark(mark) == _noted(url):
            return
        try:
            done = applied(pg)
        except BaseException:
            pg.close()
            raise
        missing = [name for name, _ in MIGRATIONS if name not in (done or set())]
        if missing:
            pg.close()
            _forget_mark(mark)
            what = "holds no Cairn store" if done is None else f"lacks {', '.join(missing)}"
            raise StoreError(
                f"the PostgreSQL database at {pg.path} {what}; run `cairn store migrate`"
            )
        _write_mark(mark, _noted(url))

    def memory_lines(self) -> Iterator[str]:
        """Every memory version as export writes its line, encoded here (SQLite's
        `json_object` is not spelled in PostgreSQL, whose JSON text has other spaces)."""
        import json

        encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        for record in self.dump(derived=False):
            if record["type"] != "memory":
                return  # memories come first
            yield encode.encode(record)

    def unchanged_memories(self, lines: Sequence[str]) -> dict[int, str]:
        """None named: SQLite's JSON functions are not spelled here, so import compares each
        line it reads with `memory_records` instead."""
        return {}

    @classmethod
    def migrate(cls, url: str, now: str) -> list[str]:
        """Create or upgrade the store at `url`; the migrations applied."""
        pg = connect(url)
        try:
            return migrate(pg, now)
        finally:
            pg.close()

    # -- where it is ----------------------------------------------------------------------
    @property
    def location(self) -> str:
        """The database URL without its password."""
        return self._pg.path

    @property
    def read_only(self) -> bool:
        """Never: a role that cannot write gets an error on the write itself."""
        return False

    def size(self) -> int:
        """Bytes the database takes on the server."""
        row = self.conn.execute("SELECT pg_database_size(current_database())").fetchone()
        return int(row[0]) if row else 0

    def set_busy_ms(self, ms: int) -> int:
        """Wait at most `ms` for the write lock from now on (`lock_timeout`, sent with each
        write transaction's BEGIN)."""
        before = self._pg.busy_ms
        self._pg.busy_ms = int(ms)
        return before

    def data_version(self) -> int:
        """A number that changes when any machine writes a memory or an event."""
        row = self.conn.execute(
            "SELECT (SELECT coalesce(max(id), 0) FROM memories) + "
            "(SELECT coalesce(max(id), 0) FROM evidence)"
        ).fetchone()
        return int(row[0]) if row else 0

    # -- following the trigger list's changes ------------------------------------------------
    def watch_triggers(self) -> TriggerWatch:
        """A connection of its own that LISTENs for writes changing the trigger list's set
        (migration 0015 notifies in the writing transaction), for a long-lived process."""
        return TriggerWatch(self._url)

    # -- copying every table (SqliteTransfer's methods, with this schema's catalogue) ------
    def table_columns(self, table: str) -> list[str]:
        """The columns of one of `COPIED_TABLES`, in the schema's order."""
        from cairn.io.store.sqlite_transfer import _check_table

        _check_table(table)
        rows = self.conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND table_name = ? ORDER BY ordinal_position",
            (table,),
        )
        return [str(row[0]) for row in rows]

    def _rebuild_derived(self) -> None:
        """`doc_terms` from the copied pages' analysed words, and each identity column's next
        value past the ids copied in (they were given, not drawn)."""
        self.conn.execute(
            "INSERT INTO doc_terms (doc_id, term) SELECT DISTINCT id, term FROM docs, "
            "regexp_split_to_table(fts_title || ' ' || fts_body, '\\s+') AS term "
            "WHERE term <> '' "
            "ON CONFLICT DO NOTHING"
        )
        for table in ("memories", "evidence", "offers", "progress", "docs", "acts"):
            self.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
            )

    def current_among(self, ids: Sequence[int]) -> set[int]:
        """The rowids among `ids` of current memory versions, asked every time: another
        machine's forget moves no mark this store can read cheaply (`data_version` counts
        rows added), so SQLite's kept answers would go stale here."""
        from cairn.io.store import memories as mem

        return mem.current_among(self.conn, ids)

    # -- docs: pages found through doc_terms --------------------------------------------
    def doc_candidates(self, terms: Sequence[str], limit: int = FTS_CANDIDATES) -> list[int]:
        """Rowids of doc pages holding any of `terms`, those holding most of them first."""
        if not terms:
            return []
        rows = self.conn.execute(
            "SELECT doc_id FROM doc_terms WHERE term = ANY(?) GROUP BY doc_id "
            "ORDER BY count(*) DESC, doc_id LIMIT ?",
            (list(dict.fromkeys(terms)), limit),
        )
        return [int(r[0]) for r in rows]

    def doc_freqs(self, terms: Sequence[str]) -> dict[str, int]:
        """How many doc pages hold each term."""
        wanted = list(dict.fromkeys(terms))
        out = dict.fromkeys(wanted, 0)
        if wanted:
            for term, n in self.conn.execute(
                "SELECT term, count(*) FROM doc_terms WHERE term = ANY(?) GROUP BY term",
                (wanted,),
            ):
                out[str(term)] = int(n)
        return out

    def replace_doc_file(
        self,
        project: str,
        path: str,
        file_hash: str | None,
        pages: Sequence[tuple[str, str, str, str, bool]],
        signature: str = "",
    ) -> None:
        """Swap a doc file's pages (see `SqliteStore.replace_doc_file`)."""
        conn = self.conn
        with self.transaction():
            removed = conn.execute(
                "DELETE FROM docs WHERE project = ? AND path = ? RETURNING n_tokens",
                (project, path),
            ).fetchall()
            if removed:
                conn.execute(
                    "UPDATE index_stats SET n_docs = n_docs - ?, n_tokens = n_tokens - ? "
                    "WHERE name = 'docs'",
                    (len(removed), sum(int(r[0]) for r in removed)),
                )
            conn.execute("DELETE FROM doc_files WHERE project = ? AND path = ?", (project, path))
            if file_hash is None:
                return
            conn.execute(
                "INSERT INTO doc_files (project, path, hash, signature) VALUES (?, ?, ?, ?)",
                (project, path, file_hash, signature),
            )
            for ordinal, (heading, text, title, body, captured) in enumerate(pages):
                n = len(title.split()) + len(body.split())
                cur = conn.execute(
                    "INSERT INTO docs (project, path, heading, ordinal, text, captured, "
                    "fts_title, fts_body, n_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (project, path, heading, ordinal, text, int(captured), title, body, n),
                )
                conn.executemany(
                    "INSERT INTO doc_terms (doc_id, term) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    [(cur.lastrowid, t) for t in dict.fromkeys(title.split() + body.split())],
                )
                conn.execute(
                    "UPDATE index_stats SET n_docs = n_docs + 1, n_tokens = n_tokens + ? "
                    "WHERE name = 'docs'",
                    (n,),
                )

    # -- what SQLite spells its own way -------------------------------------------------
    _SESSION_SQL = (
        "SELECT s.id, s.project, s.branch, s.cwd, s.started, s.ended, greatest(s.started, "
        "coalesce((SELECT max(e.at) FROM evidence e WHERE e.session = s.id), ''), "
        "coalesce((SELECT max(o.at) FROM offers o WHERE o.session = s.id), '')) "
        "FROM sessions s WHERE s.project = ? AND s.branch != ''"
    )

    def learn_sessions_since(self, project: str, since: str) -> list[LearnSession]:
        """Sessions on a branch that started at or after `since`, oldest first."""
        from cairn.io.store.acts import LearnSession

        rows = self.conn.execute(
            self._SESSION_SQL + " AND s.started >= ? ORDER BY s.started", (project, since)
        )
        return [LearnSession(*r) for r in rows]

    def learn_sessions_on_branch(self, project: str, branch: str) -> list[LearnSession]:
        """Every session of the project recorded on this branch, oldest first."""
        from cairn.io.store.acts import LearnSession

        rows = self.conn.execute(
            self._SESSION_SQL + " AND s.branch = ? ORDER BY s.started", (project, branch)
        )
        return [LearnSession(*r) for r in rows]

    def hit_counts(self, project: str, since: str = "") -> dict[str, tuple[int, int]]:
        """Per memory: (sessions offered it, those that cited it after the offer)."""
        from cairn.io.store.memories import visible_clause

        rows = self.conn.execute(
            "SELECT o.ref, count(*), count(*) FILTER (WHERE EXISTS (SELECT 1 FROM evidence e "
            "WHERE e.ref = o.ref AND e.session = o.session AND e.event = 'cited' "
            "AND e.at >= o.first_at)) "
            "FROM (SELECT ref, session, min(at) AS first_at FROM offers "
            "WHERE session != '' AND at >= ? GROUP BY ref, session) o "
            f"JOIN memories m ON m.ref = o.ref WHERE {visible_clause('m')} GROUP BY o.ref",
            (since, project),
        )
        return {str(r[0]): (int(r[1]), int(r[2] or 0)) for r in rows}
