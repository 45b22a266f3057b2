"""What went wrong with the store, said so a person can act on it.

SQLite reports a full disk, a read-only folder, another process's lock and a damaged file as
`sqlite3.OperationalError` or `DatabaseError` with terse texts ("disk I/O error", "unable to
open database file"). `failure` turns one into a `StoreError` naming the cause and what to do,
looking at the folder when SQLite's code leaves the cause open (a full disk often surfaces as
an I/O error when SQLite cannot grow its shared-memory file).

Every write runs in a transaction (`SqliteStore.transaction`), which is rolled back when it
fails, so a StoreError from a write always means nothing was written.
"""

from __future__ import annotations

import os

from cairn.core.errors import StoreError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import _sqlite3 as sqlite3

# SQLite's primary result codes (the low byte of `sqlite_errorcode`).
PERM, BUSY, LOCKED, READONLY, IOERR = 3, 5, 6, 8, 10
CORRUPT, FULL, CANTOPEN, NOTADB = 11, 13, 14, 26
# A folder with less free space than this is full for SQLite's purposes (a write needs a page
# of the database and a frame of its WAL, and the shared-memory file is 32 KiB).
FULL_BELOW = 1 << 20

FAULTS = frozenset({PERM, BUSY, LOCKED, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, NOTADB})


def is_fault(exc: sqlite3.Error) -> bool:
    """Is this error the environment's (disk, folder, lock, damage), not the SQL's?"""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in FAULTS


def failure(exc: sqlite3.Error, path: str, busy_ms: int = 0) -> StoreError:
    """A StoreError for an SQLite error on the database at `path`, with its `cause` set."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    home = os.path.dirname(path) or "."
    detail = str(exc) or type(exc).__name__
    if primary in (BUSY, LOCKED):
        waited = f" (waited {busy_ms / 1000:g} s)" if busy_ms else ""
        return _error(
            "locked",
            f"the Cairn store at {path} is locked by another process{waited}; nothing was "
            f"written. Try again; if it stays locked, `fuser {path}` shows who holds it",
        )
    if primary in (CORRUPT, NOTADB):
        return _error(
            "damaged",
            f"the Cairn store at {path} is damaged ({detail}). Move it aside with its -wal "
            "and -shm files and run `cairn init`; `cairn import` brings back an export",
        )
    cause = "full" if primary == FULL else folder_trouble(home)
    if cause is None and primary == READONLY:
        cause = "read-only"
    if cause == "full":
        return _full(home)
    if cause == "read-only":
        return _read_only(home)
    if primary in (IOERR, CANTOPEN, PERM):
        return _error(
            "unreadable",
            f"the Cairn store at {path} cannot be read or written ({detail}); nothing was "
            f"written. Check that {home} exists, is yours, and its disk is healthy",
        )
    return _error("unreadable", f"the Cairn store at {path} failed ({detail}); nothing was written")


def _file_cause(exc: OSError, home: str) -> str | None:
    """ "full" or "read-only" when the error (or else the folder) says so, else None."""
    import errno

    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "full"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return "read-only"
    return folder_trouble(home)


def file_failure(exc: OSError, home: str) -> StoreError:
    """A StoreError for a file beside the store that could not be written (the trigger list,
    its lock), with its `cause` set; nothing was written to the store either."""
    cause = _file_cause(exc, home)
    if cause == "full":
        return _full(home)
    if cause == "read-only":
        return _read_only(home)
    return _error(
        "unreadable",
        f"the files beside the Cairn store at {home} cannot be written "
        f"({exc.strerror or exc}); nothing was written. Check that {home} is yours",
    )


def list_failure(exc: OSError, home: str) -> StoreError:
    """A StoreError for a write the store holds but the trigger list beside it could not
    follow (its file could not be written), with its `cause` set. The keys file keeps the `!`
    the write left on it, so the hook asks the store until the list is repaired."""
    cause = _file_cause(exc, home)
    fix = {"full": "free some space", "read-only": "make the folder writable"}.get(
        cause or "", f"check that {home} is yours"
    )
    return _error(
        cause or "unreadable",
        f"the write is stored, but the trigger list beside the Cairn store at {home} could not "
        f"be updated ({exc.strerror or exc}); until it is, the hooks ask the store itself. "
        f"To fix it, {fix}, then run `cairn lessons rebuild`",
    )


def folder_trouble(home: str) -> str | None:
    """ "full" or "read-only" when that is true of the folder's disk or the folder, else None."""
    try:
        disk = os.statvfs(home)
    except OSError:
        return None
    if disk.f_flag & os.ST_RDONLY:
        return "read-only"
    if disk.f_bavail * disk.f_frsize < FULL_BELOW and disk.f_blocks:
        return "full"
    if not os.access(home, os.W_OK):
        return "read-only"
    return None


def _full(home: str) -> StoreError:
    return _error(
        "full",
        f"the disk holding {home} is full; nothing was written. Free some space, then try again",
    )


def _read_only(home: str) -> StoreError:
    return _error(
        "read-only",
        f"the Cairn store at {home} is read-only; nothing was written. Make the folder and its "
        "files writable by you (or remount it read-write), or set CAIRN_HOME to a writable "
        "folder",
    )


def _error(cause: str, message: str) -> StoreError:
    error = StoreError(message)
    error.cause = cause
    return error
