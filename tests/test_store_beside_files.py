"""A write refused because a file Cairn keeps beside the store cannot be written says so in one
actionable line, and writes nothing (or, for the trigger list, says the write is stored)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import cairn
from cairn.cli import cli
from cairn.core.errors import StoreError

PUSH = {"tool": "shell", "match": "git push"}


def _count(home: Path, project: Path) -> int:
    with cairn.open(home, project=project) as ws:
        return len(ws.list(limit=None))


def test_a_lock_file_that_is_a_folder_refuses_the_write(home: Path, project: Path) -> None:
    with cairn.open(home, project=project) as ws:
        ws.remember("The build runs on the CI only")
    (home / "triggers.lock").unlink(missing_ok=True)
    (home / "triggers.lock").mkdir()
    with cairn.open(home, project=project) as ws, pytest.raises(StoreError) as caught:
        ws.remember("Run the tests before a push", when=PUSH)
    assert caught.value.cause == "unreadable"
    message = str(caught.value)
    assert message.startswith(f"the files beside the Cairn store at {home} cannot be written")
    assert "nothing was written" in message and f"Check that {home} is yours" in message
    assert _count(home, project) == 1
    result = CliRunner().invoke(
        cli,
        [
            "--project",
            str(project),
            "remember",
            "Deploys are on Tuesdays",
            "--when",
            '{"tool": "shell", "match": "deploy"}',
        ],
    )
    assert result.exit_code == 6
    assert result.stderr.startswith("cairn: the files beside the Cairn store at ")
    assert len(result.stderr.splitlines()) == 1
    assert _count(home, project) == 1
