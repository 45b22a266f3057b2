"""The resident hook helper: one background process per store that answers hook calls.

A hook call starts a new interpreter, and a call that could fire a lesson then imports sqlite3,
RE2 (for a regex that needs it), tree-sitter (for action rules) and ~20 of Cairn's modules
before it does any work. The helper pays those imports once: the hook still decides a call
that cannot match on its own (`cairn.hooks.entry`, standard library only), and only a call
that could fire, or a session start or end, is handed to the helper over a Unix socket
beside the store (`hook.sock`). The helper answers it with the same code the hook would run
(`cairn.hooks.run.run_with_budget`), so its answer is the hook's answer.

Lifecycle:
- No helper yet (no socket, or a dead one): the hook answers the call itself, then starts a
  helper in the background (a new session, stdin/stdout/stderr on /dev/null, so the agent
  never waits for it), at most once per `SPAWN_PAUSE_S`.
- One helper per store: it holds an exclusive lock on `hook-helper.lock` (its pid inside)
  while it runs; a second one exits at once.
- It leaves after `CAIRN_HOOK_HELPER_IDLE` seconds without a call (default 600), when its
  socket is removed or replaced, and when one of Cairn's files it runs has changed since it
  loaded it (an upgrade or an edit): it answers `stale`, and the hook answers that call itself.
- `kill PID` (the pid is in `hook-helper.lock`) ends it cleanly; the next call that could
  fire starts a new one.
- `CAIRN_HOOK_HELPER=0` turns it off: every call runs in the hook's own process.

Fail open, as the hook: the hook waits for an answer at most its time budget, and a helper
that is not there, refuses, or answers garbage means the hook answers itself or prints
nothing. The helper logs its errors to `hook-errors.log` and always answers.

Protocol (one connection per call): the hook sends one header line, tab-separated
(`PROTOCOL`, Cairn's package folder, agent, event, budget in seconds, the hook's working
folder, and the number of trigger-list lines that follow, `-` for none), the trigger-list
lines its prefilter let through, then the raw payload, and closes its side. The helper
answers `ok<TAB>FIRED` and a newline, then the text to print; or one of `stale`, `other`
(another install of Cairn, or an unknown request), after which the hook answers itself.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cairn.lessons.prefilter import Entry
    from cairn.store import SqliteStore

SOCKET = "hook.sock"
LOCK = "hook-helper.lock"
PROTOCOL = "cairn-hook-helper/1"
IDLE_S = 600.0
CHECK_S = 2.0  # how often an idle helper checks that its socket is still its own
SPAWN_PAUSE_S = 30.0
READ_S = 2.0  # how long the helper waits for a request's bytes
MAX_SOCKET_PATH = 100  # sun_path holds 104-108 bytes, depending on the system
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the `cairn` package


def enabled() -> bool:
    """Is the helper on (`CAIRN_HOOK_HELPER` is not 0, off, no or false)?"""
    value = os.environ.get("CAIRN_HOOK_HELPER", "1").strip().lower()
    return value not in ("0", "off", "no", "false")


def socket_path(home: str) -> str | None:
    """The helper's socket for the store at `home`; None where a Unix socket cannot be used."""
    path = os.path.join(home, SOCKET)
    if len(os.fsencode(path)) > MAX_SOCKET_PATH or not hasattr(os, "posix_spawn"):
        return None
    return path


# --- the hook's side -------------------------------------------------------------------------


def ask(
    home: str, agent: str, event: str, data: bytes, entries: list[Entry] | None, budget: float
) -> tuple[str, int] | None:
    """The helper's answer to this call: (text to print, memories fired).

    `entries` are the trigger-list lines the hook's prefilter let through (None for a session
    start or end), sent along so the helper does not read the list again.

    None when there is no helper to ask (no socket, nobody listening) or it declined (stale,
    another install): then the caller answers the call itself. Raises TimeoutError when the
    helper took the whole budget: the caller then prints nothing.
    """
    path = socket_path(home)
    if path is None:
        return None
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(budget)
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            return None
        try:
            cwd = os.getcwd()
        except OSError:
            cwd = ""
        count = "-" if entries is None else str(len(entries))
        header = "\t".join((PROTOCOL, ROOT, agent, event, repr(budget), cwd, count)) + "\n"
        lines = "".join(e.to_line() for e in entries or ())
        try:
            sock.sendall((header + lines).encode("utf-8", "surrogateescape") + data)
            sock.shutdown(_socket.SHUT_WR)
            reply = _read_all(sock)
        except (ConnectionResetError, BrokenPipeError):
            return None  # it left while this call waited in its queue
    finally:
        sock.close()
    head, _, out = reply.partition(b"\n")
    status, _, fired = head.partition(b"\t")
    if status != b"ok" or not fired.isdigit():
        return None
    return out.decode("utf-8"), int(fired)


def start(home: str) -> None:
    """Start a helper for the store at `home` in the background (at most once per pause).

    The helper runs in a new session with stdin, stdout and stderr on /dev/null, and without
    any of this process's other file descriptors: an agent that waits for its hook's output
    to close never waits for the helper.
    """
    if socket_path(home) is None or not os.path.isdir(home):
        return
    import time

    lock = os.path.join(home, LOCK)
    try:
        if time.time() - os.stat(lock).st_mtime < SPAWN_PAUSE_S:
            return
    except FileNotFoundError:
        pass
    with open(lock, "a", encoding="utf-8"):
        pass
    os.utime(lock)
    code = (
        f"import sys;sys.path[:]={sys.path!r};"
        "from cairn.hooks.resident import serve;serve(sys.argv[1])"
    )
    null = os.devnull
    os.posix_spawn(
        sys.executable,
        [sys.executable, "-I", "-S", "-c", code, home],
        dict(os.environ),
        setsid=True,
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0),
        ],
    )


def _read_all(sock: Any) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


# --- the helper's side -----------------------------------------------------------------------


def serve(home: str) -> None:
    """Answer hook calls for the store at `home` until idle, replaced or stale (see above)."""
    os.closerange(3, 65536)  # the spawning hook's inherited descriptors: never hold them
    os.chdir("/")  # nor the folder the agent worked in
    import fcntl
    import signal
    import socket
    import time
    from contextlib import suppress

    idle = float(os.environ.get("CAIRN_HOOK_HELPER_IDLE") or IDLE_S)
    path = socket_path(home)
    if path is None:
        return
    lock = os.open(os.path.join(home, LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another helper serves this store
    os.ftruncate(lock, 0)
    os.write(lock, f"{os.getpid()}\n".encode())
    signal.signal(signal.SIGTERM, _leave)  # `kill PID` ends it as cleanly as an idle timeout
    _warm()
    seen: dict[str, int] = {}
    _stale(seen)  # record what is loaded now
    with suppress(FileNotFoundError):
        os.unlink(path)  # a dead helper's socket
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mask = os.umask(0o077)
    try:
        sock.bind(path)
    finally:
        os.umask(mask)
    sock.listen(64)
    mine = os.stat(path).st_ino
    sock.settimeout(min(CHECK_S, idle))
    stores = OpenStore()
    last = time.monotonic()
    try:
        while _owns(path, mine):
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                if time.monotonic() - last >= idle:
                    break
                continue
            last = time.monotonic()
            with conn:
                if not _answer(conn, home, seen, path, mine, stores):
                    break
    finally:
        stores.drop()
        if _owns(path, mine):
            os.unlink(path)
        sock.close()


class OpenStore:
    """The helper's store, kept open between calls while its database file stays the same.

    Opening costs each call its pragmas, and closing its checkpoint (~1.5 ms together). A
    database that was removed or replaced (a new inode) is opened afresh; a missing one is
    not created (the hook's own rule), so `get` raises as the hook's open would.
    """

    def __init__(self) -> None:
        self.store: SqliteStore | None = None
        self.inode: tuple[int, int] | None = None

    def get(self, home: str) -> SqliteStore:
        from cairn.hooks.run import HOOK_BUSY_MS
        from cairn.store import DB_NAME, SqliteStore

        try:
            info = os.stat(os.path.join(home, DB_NAME))
            inode: tuple[int, int] | None = (info.st_dev, info.st_ino)
        except OSError:
            inode = None
        if self.store is not None and inode == self.inode and inode is not None:
            return self.store
        self.drop()
        store = SqliteStore(home, create=False, busy_ms=HOOK_BUSY_MS)
        self.store, self.inode = store, inode
        return store

    def drop(self) -> None:
        """Close the store, if open (errors closing it are of no use to anyone)."""
        from contextlib import suppress

        store, self.store, self.inode = self.store, None, None
        if store is not None:
            with suppress(Exception):
                store.close()


def _leave(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def _owns(path: str, inode: int) -> bool:
    """Is the socket at `path` still the one this helper bound?"""
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _warm() -> None:
    """Import what answering a call needs, so the first call does not pay for it."""
    import re2  # noqa: F401

    import cairn.hooks.run
    import cairn.lessons.glob
    import cairn.lessons.globmatch
    import cairn.lessons.match  # noqa: F401
    from cairn.hooks.registry import ADAPTERS, adapter
    from cairn.shell import actions

    for name in ADAPTERS:
        adapter(name)
    actions("git commit -m warm")  # loads tree-sitter and the bash grammar, for action rules


def _stale(seen: dict[str, int]) -> bool:
    """Has any loaded Cairn module's file changed since it was first seen? Records new ones."""
    changed = False
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not file or not file.startswith(ROOT):
            continue
        try:
            stamp = os.stat(file).st_mtime_ns
        except OSError:
            changed = True
            continue
        if seen.setdefault(file, stamp) != stamp:
            changed = True
    return changed


def _answer(
    conn: Any, home: str, seen: dict[str, int], path: str, mine: int, stores: OpenStore
) -> bool:
    """Answer one call; False when the helper should leave (its code changed)."""
    from contextlib import suppress

    from cairn.hooks.entry import _log
    from cairn.hooks.run import run_with_budget
    from cairn.lessons.prefilter import Entry

    args = ["helper"]
    try:
        conn.settimeout(READ_S)
        request = _read_all(conn)
        head, _, rest = request.partition(b"\n")
        fields = head.decode("utf-8", "surrogateescape").split("\t")
        if len(fields) != 7 or fields[0] != PROTOCOL or fields[1] != ROOT:
            conn.sendall(b"other\n")
            return True
        _, _, agent, event, budget, cwd, count = fields
        args = [agent, event]
        if _stale(seen):
            if _owns(path, mine):
                os.unlink(path)  # so the next hook starts a fresh helper
            conn.sendall(b"stale\n")
            return False
        entries: list[Entry] | None = None
        if count != "-":
            lines = rest.split(b"\n", int(count))
            rest = lines.pop()
            texts = [line.decode("utf-8", "surrogateescape") + "\n" for line in lines]
            entries = [e for e in map(Entry.from_line, texts) if e is not None]
        store = stores.get(home)
        try:
            out, fired = run_with_budget(
                agent, event, rest, entries, home, float(budget), cwd, store
            )
        except BaseException:
            stores.drop()  # a call that failed may leave its connection in any state
            raise
        conn.sendall(f"ok\t{fired}\n".encode() + out.encode("utf-8"))
    except Exception as exc:
        _log(home, args, exc)
        with suppress(OSError):
            conn.sendall(b"ok\t0\n")
    return True
