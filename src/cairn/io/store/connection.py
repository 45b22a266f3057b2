"""Opening a workspace database: location, pragmas, migrations.

One SQLite file per workspace. WAL lets hooks read while an agent writes; the busy timeout
turns lock contention between agents into a short wait instead of an error.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from typing import TYPE_CHECKING

from cairn.core.context import stamp, utcnow
from cairn.core.errors import StoreError
from cairn.io.store.hookread import DB_NAME, SCHEMA_VERSION, Connection

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "DB_NAME",
    "SCHEMA_VERSION",
    "Connection",
    "connect",
    "default_home",
    "make_private",
    "migrate",
]

BUSY_TIMEOUT_MS = 10_000
# The workspace folder is its owner's alone: memories, sessions and logs say what a person
# works on. Files Cairn keeps there (by these name prefixes) are made 0600 when an older
# Cairn left them readable by others.
HOME_MODE = 0o700
FILE_MODE = 0o600
OWN_NAMES = ("cairn.db", "triggers.", "hook-", "recall-", "given")


def default_home() -> Path:
    """The workspace folder: `$CAIRN_HOME`, else `$XDG_DATA_HOME/cairn`, else ~/.local/share."""
    from pathlib import Path

    home = os.environ.get("CAIRN_HOME")
    if home:
        return Path(home).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data).expanduser() / "cairn"


def connect(
    path: str | os.PathLike[str], *, create: bool = True, busy_ms: int = BUSY_TIMEOUT_MS
) -> Connection:
    """Open (and migrate) the database at `path`; raise StoreError with the cause.

    `busy_ms` bounds the wait for another writer's lock (hooks pass a short one). Without
    `create`, a missing or empty database file is no store (StoreError): nothing is created.
    A store whose folder cannot be written (a read-only disk or folder, a full disk) opens
    read-only: recall and the hook still read it, and every write says why it cannot be made.
    """
    path = os.fspath(path)
    home = os.path.dirname(path) or "."
    if not create and not _holds_store(path):
        raise StoreError(f"no Cairn store at {path}; run `cairn init` or set CAIRN_HOME")
    try:
        os.makedirs(home, mode=HOME_MODE, exist_ok=True)
        make_private(home)
        if create:
            _create_file(path)
        _check_regular(path)
    except OSError as exc:
        raise StoreError(f"cannot create the Cairn store at {path}: {exc}") from exc
    try:
        return _open(path, busy_ms)
    except (sqlite3.DatabaseError, StoreError) as exc:
        from cairn.io.store.failures import failure, folder_trouble, is_fault

        if folder_trouble(home) is not None and _holds_store(path):
            return _open_read_only(path, busy_ms)
        if isinstance(exc, StoreError):
            raise
        if is_fault(exc):
            raise failure(exc, path, busy_ms) from exc
        raise StoreError(f"cannot open the Cairn store at {path}: {exc}") from exc


def _open(path: str, busy_ms: int) -> Connection:
    """Connect, set the pragmas, and migrate when the schema is behind."""
    conn = sqlite3.connect(
        path,
        timeout=busy_ms / 1000,
        isolation_level=None,
        check_same_thread=False,
        factory=Connection,
    )
    assert isinstance(conn, Connection)
    conn.path, conn.busy_ms = path, busy_ms
    try:
        _set_pragmas(conn, busy_ms)
        if _version(conn) < SCHEMA_VERSION:
            migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _version(conn: Connection) -> int:
    """The schema version recorded in the database (0 for a new one)."""
    version = sqlite3.Connection.execute(conn, "PRAGMA user_version").fetchone()[0]
    return int(version)


def _set_pragmas(conn: Connection, busy_ms: int) -> None:
    # The plain `execute`: a fault here is the caller's to explain (it may open read-only).
    def run(sql: str) -> None:
        sqlite3.Connection.execute(conn, sql)

    run(f"PRAGMA busy_timeout = {int(busy_ms)}")
    run("PRAGMA journal_mode = WAL")
    run("PRAGMA synchronous = NORMAL")
    run("PRAGMA foreign_keys = ON")
    # Up to 32 MiB of page cache (allocated only as pages are read): a bulk load no longer
    # spills dirty pages mid-transaction (the 100k build: system time 4.3 -> 2.3 s).
    run("PRAGMA cache_size = -32768")


def _open_read_only(path: str, busy_ms: int) -> Connection:
    """The store opened read-only, for a folder SQLite cannot write its WAL files in.

    `immutable`: with no shared-memory file to coordinate through, SQLite reads the database
    file as it stands (changes still in a WAL left behind are not seen) and refuses every write
    with SQLITE_READONLY, which `Connection` explains.
    """
    from urllib.parse import quote

    try:
        conn = sqlite3.connect(
            f"file:{quote(path)}?immutable=1",
            uri=True,
            isolation_level=None,
            check_same_thread=False,
            factory=Connection,
        )
        assert isinstance(conn, Connection)
        conn.path, conn.busy_ms, conn.read_only = path, busy_ms, True
        version = _version(conn)
    except sqlite3.DatabaseError as exc:
        from cairn.io.store.failures import failure

        raise failure(exc, path, busy_ms) from exc
    if version < SCHEMA_VERSION:
        conn.close()
        from cairn.io.store.failures import failure

        raise failure(sqlite3.OperationalError("the store needs upgrading"), path) from None
    return conn


def _holds_store(path: str) -> bool:
    """Is there a database at `path` (a file with something in it, or in its WAL)?"""
    try:
        if os.stat(path).st_size > 0:
            return True
        return os.stat(path + "-wal").st_size > 0
    except OSError:
        return False


def _create_file(path: str) -> None:
    """Create the empty database file, readable by its owner only (SQLite gives its WAL and
    shared-memory files the same mode)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE))


def _check_regular(path: str) -> None:
    """Refuse a database path that is a FIFO, a device or a folder: SQLite would wait on it
    or read it forever."""
    from cairn.io.regularfile import kind_of

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise StoreError(
            f"{path} is {kind_of(mode)}, not a Cairn store; move it aside, then run `cairn init`"
        )


def make_private(home: str) -> None:
    """Make the workspace folder its owner's alone (HOME_MODE); when it was not, also every
    file and folder Cairn keeps in it (FILE_MODE, HOME_MODE). One `stat` when all is well."""
    info = os.stat(home)
    if not info.st_mode & 0o077:
        return
    try:
        os.chmod(home, HOME_MODE)
    except OSError:
        return  # not ours to change (another owner): leave it as it is
    for folder in (home, os.path.join(home, "given")):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if folder == home and not name.startswith(OWN_NAMES):
                continue
            full = os.path.join(folder, name)
            try:
                mode = os.lstat(full).st_mode
                if stat.S_ISDIR(mode):
                    os.chmod(full, HOME_MODE)
                elif stat.S_ISREG(mode) and mode & 0o077:
                    os.chmod(full, stat.S_IMODE(mode) & ~0o077)
            except OSError:
                continue


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded; return the names applied.

    Then record the schema version in `user_version` (never lowering it: a store migrated by
    a newer Cairn keeps its number).
    """
    from cairn.io.store.migrations import MIGRATIONS

    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied TEXT NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    applied: list[str] = []
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        # BEGIN IMMEDIATE so two processes opening a new store do not both migrate it.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("COMMIT")
                continue
            if callable(sql):
                sql(conn)
            else:
                for statement in _statements(sql):
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO migrations (name, applied) VALUES (?, ?)", (name, stamp(utcnow()))
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite may have rolled back itself (a full disk)
                sqlite3.Connection.execute(conn, "ROLLBACK")
            raise
        applied.append(name)
    if len(MIGRATIONS) > conn.execute("PRAGMA user_version").fetchone()[0]:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    return applied


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (sqlite3.execute runs one at a time)."""
    out: list[str] = []
    buf = ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
