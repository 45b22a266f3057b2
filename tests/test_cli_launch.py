"""`cairn hook`, `cairn mcp` and `cairn serve` run their entry point as its own program, and
the command's exit status is that program's (`cairn.cli.launch`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.cli.launch import command, run_program


@pytest.fixture
def exits_with_7(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "exits_with_7.py").write_text(
        "import sys\nprint('ran', *sys.argv[1:])\nraise SystemExit(7)\n", encoding="utf-8"
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), *sys.path]))
    return "exits_with_7"


def test_the_program_runs_on_this_interpreter_with_the_arguments() -> None:
    assert command("cairn.mcp_server", ["--x"]) == [sys.executable, "-m", "cairn.mcp_server", "--x"]


def test_on_posix_the_program_replaces_the_process_and_its_status_is_the_commands(
    exits_with_7: str, tmp_path: Path
) -> None:
    code = (
        "import sys; from cairn.cli.launch import run_program; "
        f"run_program({exits_with_7!r}, ['a', 'b']); print('never here')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 7
    assert done.stdout == "ran a b\n"


def test_an_isolated_interpreter_starts_the_program_isolated(tmp_path: Path) -> None:
    code = "from cairn.cli.launch import command; print(command('m', [])[1])"
    done = subprocess.run(
        [sys.executable, "-I", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": ""},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "-I"


def test_elsewhere_the_program_is_a_child_and_its_status_is_returned(
    exits_with_7: str, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # Not POSIX (Windows): execv would start a new process and return, so the child is waited for.
    monkeypatch.setattr(os, "name", "nt")
    assert run_program(exits_with_7, ["c"]) == 7
    assert capfd.readouterr().out == "ran c\n"
