"""The hook fires what the store holds: after an import, a killed writer, a damaged list."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

import cairn
from cairn.cli import cli
from cairn.io import triggerlist
from cairn.io.store import SqliteStore
from cairn.usecases.remember import remember as remember_on_store
from tests import backends as sqlite_only
from tests.hooks.conftest import payload

Hook = Callable[[str, str, bytes], tuple[int, str]]
SESSION = "0b7e3c1a-5d2f-4c8e-9a61-3f2d8e7c1b40"  # the recorded payloads' session


def _push(project: Path) -> bytes:
    return payload("claude-code", "PreToolUse", project)  # `git push origin feature/refunds`


def _listed(home: Path) -> set[str]:
    return {e.ref for e in triggerlist.lines_of(home)}


def _in_step(home: Path) -> bool:
    store = SqliteStore(home, create=False)
    try:
        return triggerlist.diagnose(store) == ""
    finally:
        store.close()


def test_an_imported_lesson_fires_from_the_hook(
    hook: Hook, home: Path, project: Path, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    with cairn.open(tmp_path / "elsewhere", project=project, cwd=project) as source:
        ref = source.remember(
            "Before a push, run make check", when={"tool": "shell", "match": "git push"}
        ).ref
        exported = tmp_path / "export.jsonl"
        exported.write_text("\n".join(source.export()) + "\n", encoding="utf-8")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(cli, ["import", str(exported)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    status, out = hook("claude-code", "PreToolUse", _push(project))
    assert status == 0 and ref in out


def test_a_commit_the_list_missed_is_repaired_by_the_next_session_start(
    hook: Hook, home: Path, project: Path
) -> None:
    with cairn.open(home, project=project, cwd=project) as ws:
        ws.remember("Images are built by CI only", when={"tool": "shell", "match": "docker push"})
        # Written to the store without the API's after-write step (a script, an older
        # Cairn): the hook's fast path cannot see it, the next call that opens the store does.
        ref = remember_on_store(
            ws.store,
            ws.ctx,
            "Before a push, run make check",
            when={"tool": "shell", "match": "git push"},
        ).ref
    assert ref not in _listed(home)
    hook("claude-code", "SessionStart", payload("claude-code", "SessionStart", project))
    assert ref in _listed(home)
    status, out = hook("claude-code", "PreToolUse", _push(project))
    assert status == 0 and ref in out


# A writer that kills itself (SIGKILL) right after the COMMIT of its next write: whatever
# came after it (the trigger list's refresh) never runs.
KILLED_AFTER_COMMIT = """
import os, signal, sys
import cairn
from cairn.io.store import transaction
home, project = sys.argv[1], sys.argv[2]
ws = cairn.open(home, project=project, cwd=project, tool="cli")
ws.remember("Images are built by CI only", when={"tool": "shell", "match": "docker push"})
armed = []
commit = transaction.Transaction.__exit__
def exit_then_die(self, kind, exc, tb):
    commit(self, kind, exc, tb)
    if armed and kind is None and self.store._depth == 0:
        os.kill(os.getpid(), signal.SIGKILL)
transaction.Transaction.__exit__ = exit_then_die
armed.append(1)
ws.remember("Before a push, run make check", when={"tool": "shell", "match": "git push"})
"""


@sqlite_only.FILE
def test_a_writer_killed_between_commit_and_list_is_repaired_by_the_next_hook_call(
    hook: Hook, home: Path, project: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_COMMIT, str(home), str(project)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    store = SqliteStore(home, create=False)
    try:
        committed = {m.ref: m.text for m in store.trigger_memories()}
    finally:
        store.close()
    (ref,) = [r for r, text in committed.items() if "push, run" in text]
    assert ref not in _listed(home)  # committed, not listed: what the kill left
    status, out = hook("claude-code", "PreToolUse", _push(project))
    assert status == 0 and ref in out
    assert ref in _listed(home) and _in_step(home)


# A writer that keeps saving, correcting and forgetting lessons until it is killed.
WRITER = """
import sys
import cairn
home, project = sys.argv[1], sys.argv[2]
ws = cairn.open(home, project=project, cwd=project, tool="cli")
for i in range(int(sys.argv[3]), 100000):
    ref = ws.remember(f"lesson {i}", when={"tool": "shell", "match": f"make target{i}"}).ref
    if i % 3 == 1:
        ref = ws.correct(ref, f"lesson {i}, corrected").ref
    if i % 5 == 2:
        ws.forget(ref)
    print(i, flush=True)
"""


def test_a_writer_killed_anywhere_leaves_a_list_the_next_reader_repairs(
    home: Path, project: Path
) -> None:
    start = 0
    for kill_after in (3, 7, 2):  # a few kills, at different points of the loop
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(home), str(project), str(start)],
            stdout=subprocess.PIPE,
        )
        assert writer.stdout is not None
        for _ in range(kill_after):
            line = writer.stdout.readline()
            assert line, "the writer stopped before it was killed"
            start = int(line) + 1
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=60)
        writer.stdout.close()
        with cairn.open(home, project=project, cwd=project) as ws:
            listed = set(triggerlist.lines_of(ws.home))
            assert listed == {
                e for m in ws.store.trigger_memories() for e in triggerlist.entries_for(m)
            }
            assert listed


def test_a_list_typed_match_does_not_silence_the_other_shell_lessons(
    hook: Hook, home: Path, project: Path
) -> None:
    with cairn.open(home, project=project, cwd=project) as ws:
        good = ws.remember(
            "Before a push, run make check", when={"tool": "shell", "match": "git push"}
        ).ref
        bad = ws.remember("Pushes need a ticket", when={"tool": "shell", "match": "git pull"}).ref
        # As a store written by an older Cairn, or edited by hand, may hold it (an import
        # refuses it now): a list where the regex goes.
        ws.store.conn.execute(
            "UPDATE memories SET when_json = ? WHERE ref = ?",
            ('{"tool": "shell", "match": ["git push"]}', bad),
        )
        ws.rebuild_triggers()
    log = home / "hook-errors.log"
    built = log.read_text() if log.exists() else ""
    for session in ("s-1", "s-2"):
        data = _push(project).replace(SESSION.encode(), session.encode())
        status, out = hook("claude-code", "PreToolUse", data)
        assert status == 0 and good in out
    assert bad in built and "not a regex" in built  # logged when the list was built
    assert log.read_text() == built  # and never by a call


@sqlite_only.FILE
def test_a_bad_line_in_the_list_stops_no_other_lesson(
    hook: Hook, home: Path, project: Path
) -> None:
    with cairn.open(home, project=project, cwd=project) as ws:
        ref = ws.remember(
            "Before a push, run make check", when={"tool": "shell", "match": "git push"}
        ).ref
        ws.remember("Images are built by CI only", when={"tool": "shell", "match": "docker push"})
    listed = triggerlist.list_path(home)
    listed.write_bytes(listed.read_bytes() + b"\xff\xfe not a line\n")
    status, out = hook("claude-code", "PreToolUse", _push(project))
    assert status == 0 and ref in out
    assert _in_step(home)  # the call that found it damaged rewrote it
    log = (home / "hook-errors.log").read_text()
    assert log.count("damaged") == 1 and "Error" not in log
