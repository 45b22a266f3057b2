"""The hook fails open: whatever goes wrong, no stdout, exit 0, within its budget."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cairn.usecases import calls
from tests import backends as sqlite_only
from tests.hooks.conftest import payload

JUNK = [
    b"",
    b"   ",
    b"not json at all",
    b"{",
    b"[1, 2, 3]",
    b"\xff\xfe\x00garbage",
    b'{"tool_name": 42, "tool_input": "git push"}',
    b"null",
]


@pytest.mark.parametrize("data", JUNK)
def test_junk_stdin(hook, lessons, data: bytes) -> None:  # type: ignore[no-untyped-def]
    assert hook("claude-code", "PreToolUse", data) == (0, "")


def test_junk_that_mentions_a_trigger_word(hook, lessons) -> None:  # type: ignore[no-untyped-def]
    assert hook("claude-code", "PreToolUse", b'git push {"half": ') == (0, "")


@pytest.mark.parametrize(
    ("agent", "event"), [("nobody", "PreToolUse"), ("claude-code", "NoSuchEvent"), ("codex", "")]
)
def test_unknown_agent_or_event(hook, lessons, project: Path, agent: str, event: str) -> None:  # type: ignore[no-untyped-def]
    data = payload("claude-code", "PreToolUse", project)
    assert hook(agent, event, data) == (0, "")


def test_missing_store(hook, home: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    assert not home.exists()
    assert hook("claude-code", "PreToolUse", payload("claude-code", "PreToolUse", project)) == (
        0,
        "",
    )
    assert hook("claude-code", "SessionStart", payload("claude-code", "SessionStart", project)) == (
        0,
        "",
    )
    assert not (home / "cairn.db").exists()  # a hook never creates a store


@sqlite_only.FILE
def test_corrupt_store(hook, lessons, home: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    for name in ("cairn.db-wal", "cairn.db-shm"):
        (home / name).unlink(missing_ok=True)
    (home / "cairn.db").write_bytes(b"this is not a database" * 100)
    assert hook("claude-code", "PreToolUse", payload("claude-code", "PreToolUse", project)) == (
        0,
        "",
    )
    assert "StoreError" in (home / "hook-errors.log").read_text()


@sqlite_only.FILE
def test_a_locked_store_still_gives_the_lesson(hook, lessons, home: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    # Another process holds the write lock: the hook cannot record the offer, but it reads the
    # store (WAL) and the lesson still rides along; the lock is logged.
    holder = sqlite3.connect(home / "cairn.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        status, out = hook(
            "claude-code", "PreToolUse", payload("claude-code", "PreToolUse", project)
        )
        assert status == 0 and lessons["shell"] in out
        assert time.monotonic() - started < 1.5
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "locked by another process" in (home / "hook-errors.log").read_text()


def test_exception_inside_the_core(
    hook,
    lessons,
    project: Path,
    home: Path,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug in the core")

    monkeypatch.setattr(calls, "lessons_for", boom)
    monkeypatch.setattr("cairn.hooks.run.lessons_for", boom)
    assert hook("claude-code", "PreToolUse", payload("claude-code", "PreToolUse", project)) == (
        0,
        "",
    )
    assert "a bug in the core" in (home / "hook-errors.log").read_text()


def test_a_slow_core_is_cut_off_by_the_budget(
    hook,
    lessons,
    project: Path,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def slow(*args: object, **kwargs: object) -> None:
        time.sleep(10)

    monkeypatch.setattr("cairn.hooks.run.lessons_for", slow)
    monkeypatch.setenv("CAIRN_HOOK_BUDGET", "0.3")
    started = time.monotonic()
    assert hook("claude-code", "PreToolUse", payload("claude-code", "PreToolUse", project)) == (
        0,
        "",
    )
    assert time.monotonic() - started < 3


def test_the_console_script_exits_0_on_junk(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("cairn-hook")
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "cairn.hooks.entry"]
    env = {**os.environ, "CAIRN_HOME": str(tmp_path / "h")}
    out = subprocess.run(
        [*argv, "claude-code", "PreToolUse"],
        input=b"\x00junk{",
        capture_output=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")


def test_the_console_script_fires_a_lesson(lessons, home: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    script = Path(sys.executable).with_name("cairn-hook")
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "cairn.hooks.entry"]
    env = {**os.environ, "CAIRN_HOME": str(home)}
    out = subprocess.run(
        [*argv, "claude-code", "PreToolUse"],
        input=payload("claude-code", "PreToolUse", project),
        capture_output=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert out.returncode == 0 and out.stderr == b""
    assert lessons["shell"].encode() in out.stdout


def test_cairn_hook_on_the_cli_runs_the_same_entry(lessons, home: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    env = {**os.environ, "CAIRN_HOME": str(home)}
    argv = [sys.executable, "-c", "from cairn.cli import main; main()", "hook"]
    out = subprocess.run(
        [*argv, "claude-code", "PreToolUse"],
        input=payload("claude-code", "PreToolUse", project),
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0 and lessons["shell"].encode() in out.stdout
    junk = subprocess.run(
        [*argv, "claude-code", "PreToolUse"],
        input=b"{junk",
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (junk.returncode, junk.stdout) == (0, b"")
