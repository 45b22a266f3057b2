"""The two files of the trigger list beside the store, and their lock (`cairn.io.triggerlist`).

`triggers.tsv` holds the lines, `triggers.keys` each line's key in the same order; both open
with a header naming the store generation they hold (`cairn.core.lessons.prefilter.TITLE`,
`token`). Every change to them happens under the lock (`triggers.lock`, an flock) and with the
keys file marked `!` until its header is rewritten, last: a reader that finds no `!` finds
both files whole. Standard library only: the hook's slow path runs this.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import time
from typing import TYPE_CHECKING

from cairn.core.context import now_seconds
from cairn.core.lessons.prefilter import PENDING, TITLE

if TYPE_CHECKING:
    from pathlib import Path

    from cairn.core.lessons.prefilter import Entry

FILE_NAME = "triggers.tsv"
KEYS_NAME = "triggers.keys"  # just the keys, one a line: what the hook reads first
LOCK_NAME = "triggers.lock"
LIST_BYTES = 64 << 20  # read no more (the hook's bound too: hooks.fastpath.TRIGGER_LIST_BYTES)
# Every file here is opened without following a link and without waiting (a FIFO put in a
# file's place fails at once), and used only when it is a regular file (cairn.io.regularfile).
_QUIET = os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
ERROR_LOG = "hook-errors.log"


def list_path(home: str | os.PathLike[str]) -> Path:
    """Where the trigger list of a workspace lives."""
    from pathlib import Path

    return Path(home) / FILE_NAME


def keys_path(home: str | os.PathLike[str]) -> Path:
    """Where the list's keys live (kept in step with the list, under the same lock)."""
    from pathlib import Path

    return Path(home) / KEYS_NAME


def read(home: str) -> tuple[bytes | None, bytes | None]:
    """The raw keys file and list (None for a file that is not there)."""
    return read_file(os.path.join(home, KEYS_NAME)), read_file(os.path.join(home, FILE_NAME))


class Lock:
    """An exclusive flock on `triggers.lock` beside the store; `held` says whether it was taken
    (without `wait`, a lock another process holds is not waited for)."""

    __slots__ = ("fd", "held")

    def __init__(self, home: str, *, wait: bool) -> None:
        path = os.path.join(home, LOCK_NAME)
        try:
            self.fd = _open_regular(path, os.O_RDWR | os.O_CREAT)
        except FileNotFoundError:  # no workspace folder yet
            os.makedirs(home, mode=0o700, exist_ok=True)
            self.fd = _open_regular(path, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            self.held = True
        except BlockingIOError:
            self.held = False
            os.close(self.fd)
        except BaseException:
            os.close(self.fd)
            raise

    def release(self) -> None:
        """Let the lock go (closing the file releases it)."""
        if self.held:
            self.held = False
            os.close(self.fd)


def _open_regular(path: str, flags: int, mode: int = 0o600) -> int:
    """`os.open` that never waits and never follows a link; OSError unless a regular file."""
    fd = os.open(path, flags | _QUIET, mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_file(path: str) -> bytes | None:
    """A whole file's bytes (os calls: cheaper than `open` for a file read once); None when it
    cannot be read, is not a regular file or holds over LIST_BYTES."""
    try:
        fd = _open_regular(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        chunks = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > LIST_BYTES:
                return None
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def mark(home: str) -> tuple[int, bool]:
    """Mark the keys file `!`: the list may be behind the store until the header is rewritten.

    Returns the open keys file (-1 when there is none: a missing list is as good as a mark),
    and whether it was settled (no `!` yet: no earlier write or repair was cut short).
    """
    try:
        fd = _open_regular(os.path.join(home, KEYS_NAME), os.O_RDWR)
    except FileNotFoundError:
        return -1, False
    try:
        settled = os.pread(fd, 1, 0) == b"#"
        os.pwrite(fd, PENDING, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd, settled


def write_at(path: str, data: bytes) -> None:
    """Overwrite the start of an existing file with `data` (one `pwrite`)."""
    fd = _open_regular(path, os.O_WRONLY)
    try:
        os.pwrite(fd, data, 0)
    finally:
        os.close(fd)


def append(home: str, entries: list[Entry], want: str) -> None:
    """Add lines to both files, then write the new token into both headers.

    Keys first: a key without its line only costs a slow path; a line without its key would be
    a lesson the hook never sees. The headers last, the keys file's (which clears the `!`) the
    very last: until then the hook finds the list marked or its generations different, and
    asks the store. Each append is whole lines in one `write`.
    """
    keys = os.path.join(home, KEYS_NAME)
    listed = os.path.join(home, FILE_NAME)
    append_bytes(keys, "".join(f"{e.key}\n" for e in entries).encode())
    append_bytes(listed, "".join(e.to_line() for e in entries).encode("utf-8", "surrogateescape"))
    write_at(listed, f"{TITLE} {want}".encode())
    write_at(keys, f"#{want}".encode())


def append_bytes(path: str, data: bytes) -> None:
    """Append `data` in one write.

    os.open and os.write, not `open`: one remember pays this for each cited file, and the
    buffered text layer costs more than the two system calls it wraps.
    """
    fd = _open_regular(path, os.O_WRONLY | os.O_APPEND)
    try:
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)


def rewrite(home: str, entries: list[Entry], want: str) -> None:
    """Replace both files: the list first, then the keys (whose header clears the `!`)."""
    fd, _ = mark(home)
    if fd >= 0:
        os.close(fd)
    lines = "".join(e.to_line() for e in entries)
    replace(os.path.join(home, FILE_NAME), f"{TITLE} {want}\n{lines}")
    replace(os.path.join(home, KEYS_NAME), f"#{want}\n" + "".join(f"{e.key}\n" for e in entries))


def replace(path: str, text: str) -> None:
    """Write a file atomically: a temp file, fsync, rename."""
    tmp = path + ".tmp"
    # A stale one (the lock is held): O_EXCL then opens no FIFO or link.
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        data = text.encode("utf-8", "surrogateescape")
        while data:
            data = data[os.write(fd, data) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def log(home: str, message: str) -> None:
    """One line in the hook's error log beside the store; never raises."""
    try:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now_seconds()))
        with open(os.path.join(home, ERROR_LOG), "a", encoding="utf-8") as log:
            log.write(f"{stamp} triggers {message[:400]}\n")
    except (OSError, ValueError):
        pass
