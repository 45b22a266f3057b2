"""Issue 15: a call gets the rules `cairn rules ACTION` and `get_action_rules` give (k=6), and
a git alias of the checkout performs its action."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

import cairn
from cairn.cli import cli
from cairn.usecases.calls import RULES_K
from tests.conftest import Clock
from tests.hooks.conftest import context_of

Hook = Callable[[str, str, bytes], tuple[int, str]]


def _call(project: Path, command: str, session: str = "s-rules") -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    ).encode()


def _refs(agent: str, out: str) -> list[str]:
    return re.findall(r"m-[0-9a-f]{6,}", context_of(agent, out)) if out else []


def test_the_hook_gives_only_the_rules_cairn_rules_gives(
    hook: Hook, home: Path, project: Path, clock: Clock
) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    with cairn.open(home, project=project, cwd=project, tool="cli", clock=clock) as ws:
        for i in range(8):
            clock.advance(seconds=1)
            ws.remember(f"Commit rule number {i} holds", kind="rule", tags=["trigger:git-commit"])
    listed = CliRunner().invoke(cli, ["--project", str(project), "rules", "git-commit", "--json"])
    assert listed.exit_code == 0, listed.output
    newest = [row["ref"] for row in json.loads(listed.output)]
    assert len(newest) == RULES_K
    given: list[str] = []
    for _ in range(5):  # PER_CALL (2) a call: three calls give the six, then nothing
        status, out = hook("claude-code", "PostToolUse", _call(project, "git commit -m x"))
        assert status == 0
        given += _refs("claude-code", out)
    assert sorted(given) == sorted(newest)


def test_a_git_alias_in_the_repository_config_fires_the_actions_rules(
    hook: Hook, home: Path, project: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(["git", "-C", str(project), "config", "alias.ci", "commit -v"], check=True)
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        ref = ws.remember("Commits are signed", kind="rule", tags=["trigger:git-commit"]).ref
    out = hook("claude-code", "PostToolUse", _call(project, "git ci"))[1]
    assert _refs("claude-code", out) == [ref]
    # An unaliased word performs nothing.
    out = hook("claude-code", "PostToolUse", _call(project, "git cx", session="s2"))[1]
    assert out == ""


def test_a_git_alias_in_the_users_config_fires_the_actions_rules(
    hook: Hook, home: Path, project: Path, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    user = tmp_path / "user.gitconfig"
    user.write_text("[alias]\n\tpub = push\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(user))
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        ref = ws.remember("Push after make check", kind="rule", tags=["trigger:git-push"]).ref
    out = hook("claude-code", "PostToolUse", _call(project, "git pub origin main"))[1]
    assert _refs("claude-code", out) == [ref]
