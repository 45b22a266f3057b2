"""Opening a workspace database: location, pragmas, migrations.

One SQLite file per workspace. WAL lets hooks read while an agent writes; the busy timeout
turns lock contention between agents into a short wait instead of an error.
"""

from __future__ import annotations

# The C module itself, not the `sqlite3` package around it: the package only adds date and
# time adapters Cairn never uses (it stores text) and ~3 ms of imports to every hook call
# that opens the store. The classes are the same objects (`sqlite3.Connection` is
# `_sqlite3.Connection`), so the rest of Cairn keeps `import sqlite3`.
import _sqlite3 as sqlite3
import os

from cairn.context import stamp, utcnow
from cairn.errors import StoreError

# How many migrations this Cairn has (tests pin it to len(MIGRATIONS)). Stored in the
# database's `user_version` once they are applied, so that opening an up-to-date store
# needs neither the migrations module nor the migrations table (the hook opens it often).
SCHEMA_VERSION = 7

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

DB_NAME = "cairn.db"
BUSY_TIMEOUT_MS = 10_000


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
) -> sqlite3.Connection:
    """Open (and migrate) the database at `path`; raise StoreError with the cause.

    `busy_ms` bounds the wait for another writer's lock (hooks pass a short one).
    """
    path = os.fspath(path)
    if not create and not os.path.exists(path):
        raise StoreError(f"no Cairn store at {path}; run `cairn init` or set CAIRN_HOME")
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        conn = sqlite3.connect(
            path,
            timeout=busy_ms / 1000,
            isolation_level=None,
            check_same_thread=False,
        )
        conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        # Up to 32 MiB of page cache (allocated only as pages are read): a bulk load no longer
        # spills dirty pages mid-transaction (the 100k build: system time 4.3 -> 2.3 s).
        conn.execute("PRAGMA cache_size = -32768")
        if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            migrate(conn)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot open the Cairn store at {path}: {exc}") from exc
    except OSError as exc:
        raise StoreError(f"cannot create the Cairn store at {path}: {exc}") from exc
    return conn


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded; return the names applied.

    Then record the schema version in `user_version` (never lowering it: a store migrated by
    a newer Cairn keeps its number).
    """
    from cairn.store.migrations import MIGRATIONS

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
            conn.execute("ROLLBACK")
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
