"""The hook entry run as a file (`python [-S] /abs/cairn/hooks/entry.py AGENT EVENT`, the
command e2e/ writes into agents' configs) and from a thread that cannot set the budget's alarm:
either way the lesson rides along and the call exits 0."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import cairn.hooks.entry
from tests import backends as sqlite_only
from tests.faults.conftest import SLOW_BUDGET_S
from tests.hooks.conftest import payload

ENTRY = Path(cairn.hooks.entry.__file__).resolve()


@pytest.mark.parametrize("flags", [["-S"], []], ids=["no-site", "site"])
def test_the_entry_run_as_a_file_gives_the_lesson(
    flags: list[str], lessons: dict[str, str], home: Path, project: Path
) -> None:
    env = {**os.environ, "CAIRN_HOME": str(home), "CAIRN_HOOK_BUDGET": str(SLOW_BUDGET_S)}
    env.pop("PYTHONPATH", None)  # the file must find its own package
    done = subprocess.run(
        [sys.executable, *flags, str(ENTRY), "claude-code", "PreToolUse"],
        input=payload("claude-code", "PreToolUse", project),
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert lessons["shell"].encode() in done.stdout
    assert b"Before a push, run make check" in done.stdout


@sqlite_only.MILLISECOND_BUDGET
def test_a_call_outside_the_main_thread_runs_without_an_alarm_and_answers(
    lessons: dict[str, str],
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    class Stdin:
        buffer = io.BytesIO(payload("claude-code", "PreToolUse", project))

    monkeypatch.setattr(sys, "stdin", Stdin)
    monkeypatch.setenv("CAIRN_HOOK_BUDGET", "0.001")  # would expire at once were it armed
    statuses: list[int] = []
    worker = threading.Thread(
        target=lambda: statuses.append(cairn.hooks.entry.main(["claude-code", "PreToolUse"]))
    )
    worker.start()
    worker.join(timeout=60)
    assert statuses == [0]
    assert lessons["shell"] in capsys.readouterr().out
