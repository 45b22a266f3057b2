"""The hook as agents run it: its own process, started by the registered command."""

from __future__ import annotations

import os
import signal
import sqlite3
import stat
import subprocess
import time
import uuid
from pathlib import Path

import pytest

import cairn
from cairn.usecases.install.command import launch
from tests import backends as sqlite_only
from tests.faults.conftest import SLOW_BUDGET_S
from tests.hooks.conftest import payload


def _hook(home: Path, data: bytes, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    argv = launch().hook_argv("claude-code", "PreToolUse")
    env = {**os.environ, "CAIRN_HOME": str(home)}
    return subprocess.run(
        argv, input=data, capture_output=True, env=env, timeout=60, check=False, cwd=cwd
    )


def test_what_a_hook_process_commits_is_there_for_the_next_one(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    # The hook process leaves with os._exit, its store connection still open: what it
    # committed must be there for the next process.
    data = payload("claude-code", "PreToolUse", project)
    first, second = _hook(home, data), _hook(home, data)
    assert first.returncode == second.returncode == 0
    assert lessons["shell"].encode() in first.stdout
    assert second.stdout == b""  # once per session: the first call's offer was kept
    with cairn.open(home, project=project, cwd=project) as ws:
        assert ws.store.offered("0b7e3c1a-5d2f-4c8e-9a61-3f2d8e7c1b40", ("lesson",)) == {
            lessons["shell"]
        }
    conn = sqlite3.connect(home / "cairn.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


def test_the_given_file_is_a_cache_the_store_can_overrule(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    data = payload("claude-code", "PreToolUse", project)
    assert lessons["shell"].encode() in _hook(home, data).stdout
    for given in (home / "given").iterdir():
        given.unlink()
    # Without the cache the slow path runs and asks the store, whose ledger says "given".
    assert _hook(home, data).stdout == b""


def test_modules_in_the_agents_folder_are_never_imported(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    # The hook runs in the folder the agent works in. With `python -c`, that folder would come
    # before the standard library on sys.path: a project's own `functools.py` would run.
    marker = project / "imported.txt"
    for name in ("functools", "collections", "types", "operator", "datetime"):
        (project / f"{name}.py").write_text(
            f"open({str(marker)!r}, 'a').write({name!r})\nraise SystemExit(2)\n"
        )
    result = _hook(home, payload("claude-code", "PreToolUse", project), cwd=project)
    assert result.returncode == 0
    assert lessons["shell"].encode() in result.stdout
    assert not marker.exists()


@sqlite_only.FILE
def test_a_call_that_fires_nothing_writes_nothing(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        ws.remember(
            "Tags are pushed by the release job", when={"tool": "shell", "match": "^git tag"}
        )
    first = payload("claude-code", "PreToolUse", project)
    assert lessons["shell"].encode() in _hook(home, first).stdout  # the session row is written
    db, wal = home / "cairn.db", home / "cairn.db-wal"
    # The first call left its log for the next connection (tests/hooks/test_hook_wal.py).
    before = [(f.stat().st_mtime_ns, f.stat().st_size) for f in (db, wal)]
    # Passes the prefilter (it holds "git tag") but not the anchored trigger: nothing fires.
    data = first.replace(b"git push", b"echo git tag")
    result = _hook(home, data)
    assert result.returncode == 0 and result.stdout == b""
    assert [(f.stat().st_mtime_ns, f.stat().st_size) for f in (db, wal)] == before


# Calls that fire a lesson for each agent, and a session's start and end.
FIRING = [
    ("claude-code", "PreToolUse", "PreToolUse", "shell"),
    ("codex", "PreToolUse", "PreToolUse", "rule"),
    ("gemini", "AfterTool-read_file", "AfterTool", "read"),
    ("cursor", "postToolUse", "postToolUse", "shell"),
    ("opencode", "after-edit", "after", "edit"),
    ("claude-code", "SessionStart", "SessionStart", "fact"),
    ("claude-code", "Stop", "Stop", None),
]


def _carrying(mark: bytes) -> list[int]:
    """The processes whose environment holds `mark` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and mark in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue  # gone, or another user's
    return found


def _sockets(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if stat.S_ISSOCK(p.lstat().st_mode)]


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_a_hook_call_leaves_no_process_and_no_socket(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    # Every process a call starts, and theirs, inherits its environment (even one in a new
    # session, reparented away from this test): mark the calls' environment, then look for it.
    mark = uuid.uuid4().hex
    env = {
        **os.environ,
        "CAIRN_HOME": str(home),
        "CAIRN_TEST_CALL": mark,
        "CAIRN_HOOK_BUDGET": str(SLOW_BUDGET_S),  # a slow answer is not a missing one
    }
    for agent, fixture, event, fires in FIRING:
        result = subprocess.run(
            launch().hook_argv(agent, event),
            input=payload(agent, fixture, project),
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0
        assert fires is None or lessons[fires].encode() in result.stdout
    left: list[int] = []
    for _ in range(20):  # a process started late, or a socket bound late: look for a while
        left = _carrying(f"CAIRN_TEST_CALL={mark}".encode())
        if left or _sockets(home):
            break
        time.sleep(0.05)
    for pid in left:  # leave nothing running, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []
    assert _sockets(home) == [] and not (home / "hook.sock").exists()
