"""The store's folder is its owner's alone, new or made by an older Cairn; killed writers and
hooks running at once leave it whole."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cairn
from cairn.io.store import SqliteStore
from tests.faults.conftest import SESSION, Disk, make_git, run_cli, run_hook
from tests.hooks.conftest import payload


def _modes(home: Path) -> dict[str, int]:
    out = {".": stat.S_IMODE(home.stat().st_mode)}
    for root, dirs, files in os.walk(home):
        for name in [*dirs, *files]:
            full = Path(root) / name
            out[str(full.relative_to(home))] = stat.S_IMODE(full.lstat().st_mode)
    return out


def _shared(modes: dict[str, int]) -> dict[str, str]:
    return {name: oct(mode) for name, mode in modes.items() if mode & 0o077}


def test_a_new_store_is_its_owners_alone(home: Path, project: Path) -> None:
    make_git(project)
    old = os.umask(0o022)  # the usual umask: what Cairn does not set itself is 0644
    try:
        with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
            ws.remember(
                "Before a push, run make check", when={"tool": "shell", "match": "git push"}
            )
            ws.rebuild_triggers()
            held = _modes(home)  # while the store is open: its WAL and shared memory too
        ran = run_hook(
            home, "claude-code", "PreToolUse", payload("claude-code", "PreToolUse", project)
        )
        assert b"make check" in ran.stdout
        assert run_cli(home, project, "recall", "push").returncode == 0
    finally:
        os.umask(old)
    assert {"cairn.db-wal", "cairn.db-shm", "triggers.tsv", "triggers.keys"} <= set(held)
    assert {"hook-timing.log", f"given/{SESSION}"} <= set(_modes(home))
    assert _shared(held) == {}
    assert _shared(_modes(home)) == {}
    assert _modes(home)["."] == 0o700


def test_a_store_an_older_cairn_left_readable_is_made_private_on_open(
    home: Path, project: Path
) -> None:
    make_git(project)
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        ws.remember("Before a push, run make check", when={"tool": "shell", "match": "git push"})
    run_hook(home, "claude-code", "PreToolUse", payload("claude-code", "PreToolUse", project))
    (home / "notes.txt").write_text("the user's own file\n")
    for name in _modes(home):
        (home / name).chmod(0o755 if (home / name).is_dir() else 0o644)
    assert len(_shared(_modes(home))) >= 6
    assert run_cli(home, project, "recall", "push").returncode == 0
    assert _shared(_modes(home)) == {"notes.txt": "0o644"}  # only Cairn's own files change


def test_writers_killed_at_random_leave_a_whole_store(home: Path, project: Path) -> None:
    # SIGKILL lands anywhere in `cairn remember` (open, migrate, insert, commit, the trigger
    # list): what is there afterwards is whole, and a rebuilt trigger list has every lesson.
    make_git(project)
    cairn.open(home, project=project).close()
    rng = random.Random(14)
    code = "import sys; from cairn.cli import main; sys.exit(main())"
    env = {**os.environ, "CAIRN_HOME": str(home)}
    for n in range(12):
        proc = subprocess.Popen(
            [sys.executable, "-c", code, "remember", f"Lesson {n} about deploy step {n}",
             "--when", f'{{"tool": "shell", "match": "deploy step{n}"}}'],
            cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(rng.uniform(0.05, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    with sqlite3.connect(home / "cairn.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with cairn.open(home, project=project, cwd=project) as ws:
        stored = {m.ref for m in ws.list(kind="lesson", limit=100)}
        ws.rebuild_triggers()
        listed = (home / "triggers.tsv").read_text()
    assert all(ref in listed for ref in stored)


def test_hooks_at_once_each_give_their_lesson_once(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    # 24 sessions call the hook at the same moment on one store: each gets the lesson, the
    # store stays whole, and a second round gives nothing (each once per session).
    from cairn.usecases.install.command import launch

    base = payload("claude-code", "PreToolUse", project)
    argv = launch().hook_argv("claude-code", "PreToolUse")
    # A generous budget: 24 hooks share 2 cores here, and what is tested is that they share
    # the store, not how fast (bench/soak.py measures that).
    env = {**os.environ, "CAIRN_HOME": str(home), "CAIRN_HOOK_BUDGET": "20"}

    def round_of(n: int) -> list[bytes]:
        # Each payload is on its stdin from the start, as an agent writes it at once.
        inputs = []
        for k in range(n):
            path = home.parent / f"payload-{k}.json"
            path.write_bytes(base.replace(SESSION.encode(), f"s-{k}".encode()))
            inputs.append(path.open("rb"))
        procs = [
            subprocess.Popen(
                argv, stdin=src, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
            )
            for src in inputs
        ]
        outs = []
        for proc, src in zip(procs, inputs, strict=True):
            out, err = proc.communicate(timeout=60)
            src.close()
            assert proc.returncode == 0 and err == b""
            outs.append(out)
        return outs

    first = round_of(24)
    assert all(lessons["shell"].encode() in out for out in first)
    assert round_of(24) == [b""] * 24
    with sqlite3.connect(home / "cairn.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(DISTINCT session) FROM offers").fetchone()[0] == 24


def test_an_empty_store_file_is_no_store_without_create(home: Path) -> None:
    from cairn.core.errors import StoreError

    home.mkdir()
    (home / "cairn.db").write_bytes(b"")
    with pytest.raises(StoreError, match="no Cairn store"):
        SqliteStore(home, create=False)
    assert (home / "cairn.db").stat().st_size == 0
    SqliteStore(home).close()  # `cairn init`, `remember`: an empty file becomes a new store
    assert (home / "cairn.db").stat().st_size > 0


def test_doctor_says_when_the_store_cannot_be_written(
    disk: Disk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hook shows lessons from such a store but records nothing and cannot log why.
    from cairn.usecases.install import doctor, setup

    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    home = disk.path / "home"
    monkeypatch.setenv("CAIRN_HOME", str(home))
    project = (tmp_path / "app").resolve()
    project.mkdir()
    make_git(project)
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        ws.remember("Before a push, run make check", when={"tool": "shell", "match": "git push"})
    setup("claude-code", "project", project)
    assert {c.name: c.status for c in doctor(project, codex_bin=False)}["store"] == "ok"
    disk.read_only()
    checks = {c.name: c for c in doctor(project, codex_bin=False)}
    assert checks["store"].status == "fail"
    assert "cannot be written" in checks["store"].detail
    assert checks["hook"].status == "ok"
