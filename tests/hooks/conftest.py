"""Fixtures for replaying recorded hook payloads against a real store."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import cairn
from cairn.hooks import entry

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hooks"


def payload(agent: str, name: str, project: Path) -> bytes:
    """A recorded payload with its `/work/app` paths moved into `project`."""
    text = (FIXTURES / agent / f"{name}.json").read_text(encoding="utf-8")
    return text.replace("/work/app", str(project)).encode()


@pytest.fixture
def lessons(home: Path, project: Path) -> dict[str, str]:
    """A store with one lesson per trigger kind and one action rule, in a git project."""
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature/refunds\n")
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        return {
            "shell": ws.remember(
                "Before a push, run make check: the hook is the only CI",
                when={"tool": "shell", "match": "git push"},
            ).ref,
            "read": ws.remember(
                "The schema in packages/db is generated; edit the models",
                when={"tool": "read", "path": "packages/db/**"},
            ).ref,
            "edit": ws.remember(
                "Refund changes need a finance review",
                when={"tool": "edit", "path": "services/payments/**"},
            ).ref,
            "migration": ws.remember(
                "Migrations are append-only: never edit an applied one",
                when={"tool": "edit", "path": "db/migrations/*.sql"},
            ).ref,
            "rule": ws.remember(
                "Commit messages: single line, conventional prefix, no emojis",
                kind="preference",
                tags=["trigger:git-commit"],
            ).ref,
            "fact": ws.remember("The payments service is written in TypeScript").ref,
        }


@pytest.fixture
def hook(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str]]:
    """Run the hook entry in-process on a payload; (exit status, stdout).

    On the slow tests' budget, as the subprocess tests run it: a loaded machine (or coverage)
    can take a call past the default second, and the alarm then lands wherever the test
    process is, a garbage collector's callback included. A test of the budget sets its own.
    """
    from tests.faults.conftest import SLOW_BUDGET_S  # it imports this module's fixtures

    monkeypatch.setenv("CAIRN_HOOK_BUDGET", str(SLOW_BUDGET_S))

    def _run(agent: str, event: str, data: bytes) -> tuple[int, str]:
        class Stdin:
            buffer = io.BytesIO(data)

        monkeypatch.setattr(sys, "stdin", Stdin)
        status = entry.main([agent, event])
        return status, capsys.readouterr().out

    return _run


def context_of(agent: str, out: str) -> str:
    """The text an agent would pass to the model, from the hook's stdout."""
    if agent == "opencode":
        return out
    data = json.loads(out)
    if agent == "cursor":
        return str(data["additional_context"])
    return str(data["hookSpecificOutput"]["additionalContext"])
