"""Reading and appending files Cairn does not control: regular files only, bounded, never blocking.

Any path Cairn reads may have been swapped for something that is not a file: a FIFO (opening it
waits for a writer that never comes), a device (`/dev/zero` never ends), a symbolic link to
either, or a file far larger than anything Cairn needs (a `.git/HEAD` of a gigabyte). Each
reader here opens with `O_NONBLOCK` (a FIFO opens at once instead of waiting) and `O_NOCTTY`,
checks with `fstat` on the open descriptor (no race with a swap after a `stat`) that it holds a
regular file, and reads at most `limit` bytes. What is not a regular file raises
`NotRegularFile`; what is larger than the limit raises `FileTooLarge` (or, with
`partial=True`, gives its first `limit` bytes). Both are `OSError`s, so a caller that already
treats an unreadable file as missing keeps doing so.

`follow=False` adds `O_NOFOLLOW`: a symbolic link as the last part of the path is refused.
Cairn's own files beside the store are read that way; files a user may link on purpose
(a dotfile manager's `~/.claude/settings.json`, a cited source file) are followed, and then
still refused when the link leads to anything but a regular file.

Imports only `os`, `stat` (which `os` loads anyway) and the built-in `errno`: the hook's fast
path reads the trigger list through this module.
"""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

__all__ = [
    "FileTooLarge",
    "NotRegularFile",
    "append",
    "kind_of",
    "open_append",
    "open_binary",
    "read_bytes",
    "read_text",
    "size_text",
]

_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
_APPEND = (
    os.O_WRONLY
    | os.O_APPEND
    | os.O_CREAT
    | os.O_NONBLOCK
    | os.O_NOCTTY
    | getattr(os, "O_CLOEXEC", 0)
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket, a folder or (unfollowed) a symbolic link."""


class FileTooLarge(OSError):
    """The file holds more bytes than the caller's limit."""


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words ("a FIFO", "a device", ...)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def size_text(size: int) -> str:
    """A byte count as people write it: 16 MiB, 64 KiB, 100 bytes."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} bytes"


def _open(
    path: str | os.PathLike[str], flags: int, follow: bool, mode: int = 0o600
) -> tuple[int, os.stat_result]:
    """A descriptor on the regular file at `path` and its `fstat`, or NotRegularFile (and
    nothing left open)."""
    try:
        fd = os.open(path, flags | (0 if follow else _NOFOLLOW), mode)
    except OSError as exc:
        if not follow and exc.errno == errno.ELOOP:
            raise NotRegularFile(
                errno.EINVAL, "a symbolic link, not followed", os.fspath(path)
            ) from None
        raise
    try:
        info = os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise NotRegularFile(
            errno.EINVAL, f"{kind_of(info.st_mode)}, not a regular file", os.fspath(path)
        )
    return fd, info


def read_bytes(
    path: str | os.PathLike[str], limit: int, *, follow: bool = True, partial: bool = False
) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them.

    Raises NotRegularFile for anything else, FileTooLarge when it holds more than `limit`
    bytes (with `partial`, its first `limit` bytes are returned instead), and the OSError
    `os.open` raises (missing, unreadable).
    """
    fd, info = _open(path, _READ, follow)
    try:
        size = info.st_size
        if size > limit and not partial:
            raise FileTooLarge(errno.EFBIG, f"larger than {size_text(limit)}", os.fspath(path))
        # Reading stops one byte past the limit, however large the file (or a /proc file
        # that says it holds 0 bytes): that byte tells a file that grew from one that fits.
        want = limit + 1
        step = min(want, size + 1) if size else min(want, 1 << 16)
        chunks: list[bytes] = []
        got = 0
        while got < want:
            chunk = os.read(fd, min(want - got, step))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            step = 1 << 16
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        if not partial:
            raise FileTooLarge(errno.EFBIG, f"larger than {size_text(limit)}", os.fspath(path))
        data = data[:limit]
    return data


def read_text(
    path: str | os.PathLike[str],
    limit: int,
    *,
    follow: bool = True,
    partial: bool = False,
    errors: str = "strict",
) -> str:
    """`read_bytes` decoded as UTF-8 (`errors` as in `bytes.decode`)."""
    return read_bytes(path, limit, follow=follow, partial=partial).decode("utf-8", errors)


def open_binary(path: str | os.PathLike[str], *, follow: bool = True) -> BinaryIO:
    """The regular file at `path` opened for reading in binary (for a caller that streams it
    and bounds the reading itself); NotRegularFile for anything else."""
    return os.fdopen(_open(path, _READ, follow)[0], "rb")


def open_append(path: str | os.PathLike[str], *, follow: bool = False, mode: int = 0o600) -> int:
    """A descriptor appending to the regular file at `path` (created with `mode`), for a
    caller that writes it itself; refused without waiting as `append` says."""
    return _open(path, _APPEND, follow, mode)[0]


def append(
    path: str | os.PathLike[str], data: bytes, *, follow: bool = False, mode: int = 0o600
) -> int:
    """Append `data` to the regular file at `path` (created with `mode`); its size after.

    Never waits: a FIFO with no reader fails to open (ENXIO), one with a reader is refused
    as NotRegularFile, like a device or (unless `follow`) a symbolic link.
    """
    fd = open_append(path, follow=follow, mode=mode)
    try:
        while data:
            data = data[os.write(fd, data) :]
        return os.fstat(fd).st_size
    finally:
        os.close(fd)
