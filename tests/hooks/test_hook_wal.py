"""A firing hook call ends its process with the store's connection open: no checkpoint on
close, what it committed there for the next connection, and a write-ahead log that stays small
over many calls (`cairn.io.store.hookread`)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

import cairn
from cairn.io.store import hookread
from cairn.io.store.hookread import WAL_BYTES, HookStore
from cairn.usecases.install.command import launch
from tests import backends as sqlite_only
from tests.hooks.conftest import payload

SESSION = "0b7e3c1a-5d2f-4c8e-9a61-3f2d8e7c1b40"  # the recorded payload's session

pytestmark = sqlite_only.FILE


def _hook(home: Path, data: bytes) -> subprocess.CompletedProcess[bytes]:
    """The hook as an agent runs it: its own process, through the registered command."""
    argv = launch().hook_argv("claude-code", "PreToolUse")
    env = {**os.environ, "CAIRN_HOME": str(home)}
    return subprocess.run(argv, input=data, capture_output=True, env=env, timeout=60, check=False)


def _push(project: Path, session: str) -> bytes:
    return payload("claude-code", "PreToolUse", project).replace(SESSION.encode(), session.encode())


def _wal_size(home: Path) -> int | None:
    try:
        return (home / "cairn.db-wal").stat().st_size
    except FileNotFoundError:
        return None


def test_a_firing_hook_process_leaves_its_log_for_the_next_connection(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    ran = _hook(home, _push(project, "s-left"))
    assert ran.returncode == 0 and ran.stderr == b""
    assert lessons["shell"].encode() in ran.stdout
    # Not closed, so not checkpointed: the offer is in the log the process left behind.
    size = _wal_size(home)
    assert size is not None and size > 0
    conn = sqlite3.connect(home / "cairn.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = conn.execute("SELECT ref FROM offers WHERE session = 's-left'").fetchall()
    finally:
        conn.close()
    assert rows == [(lessons["shell"],)]


def test_the_log_stays_bounded_over_many_hook_calls(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    # Each call is a new session, so each one fires and writes its offer and session row.
    calls = 40
    sizes: list[int | None] = []
    for k in range(calls):
        ran = _hook(home, _push(project, f"s-{k}"))
        assert ran.returncode == 0 and lessons["shell"].encode() in ran.stdout
        sizes.append(_wal_size(home))
    grown = [s for s in sizes if s is not None]
    # Past WAL_BYTES the call closes its connection: the log is checkpointed and deleted. One
    # call adds a few pages, so the log never holds much more than WAL_BYTES.
    assert max(grown) <= WAL_BYTES + (64 << 10)
    assert sizes.count(None) >= 2  # it was cleared more than once in 40 calls
    assert sum(grown) < calls * WAL_BYTES  # and not merely left at its bound
    with cairn.open(home, project=project, cwd=project) as ws:
        for k in range(calls):
            assert ws.store.offered(f"s-{k}", ("lesson",)) == {lessons["shell"]}
    conn = sqlite3.connect(home / "cairn.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


def test_a_hook_call_in_a_process_that_goes_on_closes_its_connection(
    hook: object, lessons: dict[str, str], home: Path, project: Path
) -> None:
    status, out = hook("claude-code", "PreToolUse", _push(project, "s-here"))  # type: ignore[operator]
    assert status == 0 and lessons["shell"] in out
    assert hookread._kept == []
    # Closed as the last connection: checkpointed and deleted, as a process that goes on needs.
    assert _wal_size(home) is None


def test_only_one_connection_is_ever_left_open(lessons: dict[str, str], home: Path) -> None:
    first, second = HookStore.open(str(home), 300), HookStore.open(str(home), 300)
    assert first is not None and second is not None
    try:
        first.leave_open()
        second.leave_open()
        assert hookread._kept == [second.conn]
        with pytest.raises(sqlite3.ProgrammingError):
            first.conn.execute("SELECT 1")  # closed when the second was left open
    finally:
        hookread.close_left_open()
    assert hookread._kept == []
