"""The resident hook helper: started by the hook, answers as the hook would, leaves when told.

Every helper here runs as a real background process on a real socket beside a tmp store; each
test's fixture ends the helpers it started. Waits are bounded polls, never timing assertions.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import re2

import cairn
from cairn.hooks import resident
from cairn.install.command import launch
from tests.hooks.conftest import FIXTURES, payload
from tests.hooks.test_hook_imports import _imported

SESSION = b"0b7e3c1a-5d2f-4c8e-9a61-3f2d8e7c1b40"  # the recorded Claude Code payload's session
SITE = str(Path(re2.__file__).resolve().parents[1])
SRC = Path(cairn.__file__).resolve().parent

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")


def _wait(done: Callable[[], bool], seconds: float = 15.0) -> bool:
    """Poll `done` every 50 ms for at most `seconds` (bounded: never loops forever)."""
    for _ in range(int(seconds / 0.05)):
        if done():
            return True
        time.sleep(0.05)
    return done()


def _alive(pid: int) -> bool:
    """Is `pid` running (a zombie counts as gone)?"""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def _pid(home: Path) -> int | None:
    """The helper's pid, from its lock file (None if it never wrote one)."""
    try:
        return int((home / resident.LOCK).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _stop(home: Path) -> None:
    pid = _pid(home)
    if pid is not None and _alive(pid):
        os.kill(pid, signal.SIGTERM)
        _wait(lambda: not _alive(pid))


@pytest.fixture
def helper_on(monkeypatch: pytest.MonkeyPatch, home: Path) -> Iterator[Path]:
    """The helper turned on (tests turn it off by default); ends any helper the test started."""
    monkeypatch.setenv("CAIRN_HOOK_HELPER", "1")
    monkeypatch.setenv("CAIRN_HOOK_HELPER_IDLE", "60")
    yield home
    _stop(home)


def _hook(
    home: Path, data: bytes, argv: list[str] | None = None, **env: str
) -> subprocess.CompletedProcess[bytes]:
    """One hook call, run as agents run it; `timeout` fails a call that waits for the helper."""
    argv = argv or launch().hook_argv("claude-code", "PreToolUse")
    environ = {**os.environ, "CAIRN_HOME": str(home), **env}
    return subprocess.run(argv, input=data, capture_output=True, env=environ, timeout=20)


def _via(home: Path) -> list[str]:
    """Who answered each call so far, from the hook's timing log."""
    lines = (home / "hook-timing.log").read_text(encoding="utf-8").splitlines()
    return [line.split("\t")[5] for line in lines]


def _session(data: bytes, name: str) -> bytes:
    return data.replace(SESSION, name.encode())


def _listening(home: Path) -> bool:
    return (home / resident.SOCKET).exists()


def _answering(home: Path) -> bool:
    """Does something listen on the helper's socket?"""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(home / resident.SOCKET))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _serve(home: Path, **env: str) -> subprocess.Popen[bytes]:
    """A helper for `home` started directly (this test's own child, so it can be waited on)."""
    code = (
        f"import sys;sys.path[:0]=[{str(SRC.parent)!r}];sys.path.append({SITE!r});"
        "from cairn.hooks.resident import serve;serve(sys.argv[1])"
    )
    return subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", code, str(home)],
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _end(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
    proc.wait(timeout=20)


@contextmanager
def _serving(home: Path, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """`_serve`, once it answers on its socket; ended when the block is left."""
    proc = _serve(home, **env)
    try:
        assert _wait(lambda: _answering(home))
        yield proc
    finally:
        _end(proc)


def test_a_firing_call_starts_the_helper_and_the_next_calls_are_answered_by_it(
    lessons: dict[str, str], helper_on: Path, project: Path
) -> None:
    home = helper_on
    data = payload("claude-code", "PreToolUse", project)
    # subprocess.run returns only once the hook's stdout closes: a helper that kept the
    # hook's output open would hold this call until the helper left (TimeoutExpired).
    first = _hook(home, data)
    assert first.returncode == 0
    assert lessons["shell"].encode() in first.stdout
    assert _wait(lambda: _listening(home))
    second = _hook(home, _session(data, "second-session"))
    assert second.returncode == 0
    assert second.stdout == first.stdout  # the same lesson, the same words
    assert _via(home) == ["process", "helper"]
    with cairn.open(home, project=project, cwd=project) as ws:  # the helper kept the ledger
        assert ws.store.offered("second-session", ("lesson",)) == {lessons["shell"]}
    assert _hook(home, _session(data, "second-session")).stdout == b""  # once per session
    pid = _pid(home)
    assert pid is not None and _alive(pid)


def test_the_helper_answers_every_recorded_payload_as_the_hook_does(
    lessons: dict[str, str],
    helper_on: Path,
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    hook: Callable[[str, str, bytes], tuple[int, str]],
) -> None:
    home, alone = helper_on, tmp_path / "alone"
    shutil.copytree(home, alone)  # the same store, memories and refs, for the helper-less hook
    with _serving(home):
        cases = sorted(FIXTURES.glob("*/*.json"))
        for case in cases:
            agent, event = case.parent.name, case.stem.split("-")[0]
            data = payload(agent, case.stem, project)
            monkeypatch.setenv("CAIRN_HOME", str(home))
            helped = hook(agent, event, data)
            monkeypatch.setenv("CAIRN_HOME", str(alone))
            monkeypatch.setenv("CAIRN_HOOK_HELPER", "0")
            assert hook(agent, event, data) == helped, case
            monkeypatch.setenv("CAIRN_HOOK_HELPER", "1")
        # Every call that got past the prefilter went to the helper.
        helped_via, alone_via = _via(home), _via(alone)
        assert len(helped_via) == len(alone_via) == len(cases)
        assert "process" not in helped_via and "helper" not in alone_via
        assert helped_via.count("helper") == alone_via.count("process") >= 15


def test_a_helper_whose_code_changed_leaves_and_the_hook_answers_itself(
    lessons: dict[str, str], helper_on: Path, project: Path, tmp_path: Path
) -> None:
    home = helper_on
    copy = tmp_path / "install"
    shutil.copytree(SRC, copy / "cairn", ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        f"import sys;sys.path[:0]=[{str(copy)!r}];sys.path.append({SITE!r});"
        "from cairn.hooks.entry import console_main;console_main()"
    )
    argv = [sys.executable, "-I", "-S", "-c", code, "claude-code", "PreToolUse"]
    data = payload("claude-code", "PreToolUse", project)
    assert lessons["shell"].encode() in _hook(home, data, argv).stdout
    assert _wait(lambda: _listening(home))
    assert lessons["shell"].encode() in _hook(home, _session(data, "two"), argv).stdout
    pid = _pid(home)
    assert pid is not None
    calls = copy / "cairn" / "calls.py"  # loaded by the helper: an upgrade rewrote it
    later = calls.stat().st_mtime_ns + 5_000_000_000
    os.utime(calls, ns=(later, later))
    third = _hook(home, _session(data, "three"), argv)
    assert lessons["shell"].encode() in third.stdout
    assert _via(home) == ["process", "helper", "process"]
    assert _wait(lambda: not _alive(pid))


def test_calls_at_the_same_moment_are_all_answered(
    lessons: dict[str, str], helper_on: Path, project: Path
) -> None:
    # Parallel tool calls and subagents call the hook at once; the helper answers one at a
    # time, each caller waits for its own answer.
    home = helper_on
    with _serving(home):
        data = payload("claude-code", "PreToolUse", project)
        argv = launch().hook_argv("claude-code", "PreToolUse")
        env = {**os.environ, "CAIRN_HOME": str(home)}
        calls = [
            subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
            )
            for _ in range(12)
        ]
        for n, call in enumerate(calls):  # every call has its payload before any is read
            assert call.stdin is not None
            call.stdin.write(_session(data, f"parallel-{n}"))
            call.stdin.close()
        answers = []
        for call in calls:
            assert call.stdout is not None and call.stderr is not None
            with call.stdout, call.stderr:
                answers.append((call.stdout.read(), call.stderr.read()))
            call.wait(timeout=30)
        assert all(call.returncode == 0 for call in calls)
        assert all(lessons["shell"].encode() in out and err == b"" for out, err in answers)
        assert _via(home) == ["helper"] * 12


def test_a_dead_helpers_socket_is_answered_by_the_hook_then_replaced(
    lessons: dict[str, str], helper_on: Path, project: Path
) -> None:
    home = helper_on
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(home / resident.SOCKET))
    dead.close()  # the file stays, nobody listens: a helper that was killed
    assert not _answering(home)
    data = payload("claude-code", "PreToolUse", project)
    first = _hook(home, data)
    assert first.returncode == 0 and lessons["shell"].encode() in first.stdout
    assert _wait(lambda: _answering(home))
    assert lessons["shell"].encode() in _hook(home, _session(data, "two")).stdout
    assert _via(home) == ["process", "helper"]


RESET = b"<reset>"


class FakeHelper:
    """A socket at the helper's place that answers `reply` (or never, when None)."""

    def __init__(self, home: Path, reply: bytes | None) -> None:
        self.reply, self.release = reply, threading.Event()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(home / resident.SOCKET))
        self.sock.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            if self.reply == RESET:
                return  # closed with the request unread: the hook sees the connection reset
            conn.settimeout(10)
            while conn.recv(65536):
                pass
            if self.reply is None:
                self.release.wait(30)
            else:
                conn.sendall(self.reply)

    def close(self) -> None:
        self.release.set()
        self.thread.join(timeout=30)
        self.sock.close()


@pytest.mark.parametrize(
    "reply",
    [b"", b"nonsense\n", b"ok\tmany\nhello", b"stale\n", b"other\n", RESET],
    ids=["nothing", "nonsense", "bad-count", "stale", "other", "reset"],
)
def test_an_answer_that_is_not_ok_is_not_believed(
    lessons: dict[str, str], helper_on: Path, project: Path, reply: bytes
) -> None:
    home = helper_on
    (home / resident.LOCK).touch()  # a helper was started just now: do not start another
    fake = FakeHelper(home, reply)
    try:
        result = _hook(home, payload("claude-code", "PreToolUse", project))
    finally:
        fake.close()
    assert result.returncode == 0
    assert lessons["shell"].encode() in result.stdout  # the hook answered itself
    assert _via(home) == ["process"]


def test_a_helper_that_never_answers_costs_the_budget_and_prints_nothing(
    lessons: dict[str, str], helper_on: Path, project: Path
) -> None:
    home = helper_on
    (home / resident.LOCK).touch()
    fake = FakeHelper(home, None)
    try:
        data = payload("claude-code", "PreToolUse", project)
        result = _hook(home, data, CAIRN_HOOK_BUDGET="0.3")
    finally:
        fake.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert "TimeoutError" in (home / "hook-errors.log").read_text(encoding="utf-8")


def test_one_helper_per_store(lessons: dict[str, str], helper_on: Path) -> None:
    home = helper_on
    with _serving(home) as first:
        second = _serve(home)
        second.wait(timeout=20)  # the lock is taken: it leaves at once
        assert first.poll() is None
        assert _pid(home) == first.pid


def test_an_idle_helper_leaves_and_takes_its_socket(
    lessons: dict[str, str], helper_on: Path
) -> None:
    home = helper_on
    with _serving(home, CAIRN_HOOK_HELPER_IDLE="0.5") as proc:
        proc.wait(timeout=20)
        assert not _listening(home)


def test_a_terminated_helper_takes_its_socket_and_frees_the_store(
    lessons: dict[str, str], helper_on: Path
) -> None:
    home = helper_on
    with _serving(home) as proc:
        proc.terminate()
        proc.wait(timeout=20)
        assert not _listening(home)
        with _serving(home) as successor:  # the lock is free: a new helper takes the store
            assert _pid(home) == successor.pid


def test_a_helper_whose_socket_was_removed_leaves(lessons: dict[str, str], helper_on: Path) -> None:
    home = helper_on
    with _serving(home) as proc:
        (home / resident.SOCKET).unlink()  # a user cleaning up, or the store being moved
        proc.wait(timeout=20)


def test_turned_off_no_helper_is_started(
    lessons: dict[str, str], helper_on: Path, project: Path
) -> None:
    home = helper_on
    data = payload("claude-code", "PreToolUse", project)
    for n in range(2):
        result = _hook(home, _session(data, f"s{n}"), CAIRN_HOOK_HELPER="0")
        assert lessons["shell"].encode() in result.stdout
    assert _via(home) == ["process", "process"]
    assert not (home / resident.LOCK).exists()  # never even tried to start one


def test_a_store_too_deep_for_a_socket_gets_no_helper(
    helper_on: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    assert resident.socket_path(str(deep)) is None
    assert resident.ask(str(deep), "claude-code", "pretooluse", b"{}", [], 1.0) is None
    resident.start(str(deep))
    assert not (deep / resident.LOCK).exists()


def test_a_call_the_helper_answers_loads_neither_sqlite_nor_re2(
    lessons: dict[str, str], helper_on: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = helper_on
    with _serving(home):
        data = payload("claude-code", "PreToolUse", project)
        modules, out = _imported(home, data)
        assert lessons["shell"].encode() in out
        assert not {"_sqlite3", "re2", "cairn.store", "cairn.calls", "cairn.hooks.run"} & modules


def test_the_helper_fails_open_on_a_locked_or_corrupt_store(
    lessons: dict[str, str], helper_on: Path, project: Path
) -> None:
    home = helper_on
    with _serving(home) as proc:
        data = payload("claude-code", "PreToolUse", project)
        holder = sqlite3.connect(home / "cairn.db", isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            locked = _hook(home, _session(data, "locked"))
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert (locked.returncode, locked.stdout, locked.stderr) == (0, b"", b"")
        for name in ("cairn.db-wal", "cairn.db-shm"):
            (home / name).unlink(missing_ok=True)
        (home / "cairn.db").write_bytes(b"this is not a database" * 100)
        corrupt = _hook(home, _session(data, "corrupt"))
        assert (corrupt.returncode, corrupt.stdout, corrupt.stderr) == (0, b"", b"")
        assert _via(home) == ["helper", "helper"]  # the helper answered both: with nothing
        assert "StoreError" in (home / "hook-errors.log").read_text(encoding="utf-8")
        assert proc.poll() is None  # and it is still there for the next call
