"""`cairn setup gemini`: AfterTool and SessionStart hooks in ms, the MCP server, uninstall."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from install_support import backups_of, payload, read_json, run_hook_command, snapshot, write_json

import cairn
from cairn.usecases.install import InstallError, setup

USER = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "hooks": {
        "BeforeTool": [
            {
                "matcher": "run_shell_command",
                "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 2000}],
            }
        ]
    },
    "mcpServers": {"docs": {"command": "/usr/bin/docs-mcp", "args": []}},
}


def test_fresh_install_writes_the_documented_shape(proj: Path, user_home: Path) -> None:
    result = setup("gemini", "project", proj)
    data = read_json(proj / ".gemini" / "settings.json")
    assert list(data["hooks"]) == ["BeforeTool", "AfterTool", "SessionStart", "SessionEnd"]
    after = data["hooks"]["AfterTool"][0]
    assert after["matcher"] == "run_shell_command|read_file|read_many_files|replace|write_file"
    handler = after["hooks"][0]
    assert handler["timeout"] == 5000  # milliseconds
    assert handler["type"] == "command" and handler["name"] == "cairn"
    assert handler["command"].endswith(" gemini AfterTool || :")
    # BeforeTool ignores context: it is there for gates, which deny a call once.
    before = data["hooks"]["BeforeTool"][0]
    assert before["matcher"] == after["matcher"]
    assert before["hooks"][0]["command"].endswith(" gemini BeforeTool || :")
    assert "mcpServers" not in data  # the server names this machine's interpreter
    server = read_json(user_home / ".gemini" / "settings.json")["mcpServers"]["cairn"]
    assert set(server) == {"command", "args"} and server["args"][-1] == "mcp"
    assert any("trusted folder" in note for note in result.notes)


def test_user_scope_writes_the_home_settings(proj: Path, user_home: Path) -> None:
    setup("gemini", "user", proj)
    assert read_json(user_home / ".gemini" / "settings.json")["hooks"]["AfterTool"]
    assert not (proj / ".gemini").exists()


def test_merge_idempotence_and_exact_uninstall(proj: Path) -> None:
    path = proj / ".gemini" / "settings.json"
    original = write_json(path, USER)
    setup("gemini", "project", proj)
    data = read_json(path)
    assert data["security"] == USER["security"]
    # The user's own BeforeTool group stays first and untouched; Cairn's is added after it.
    assert data["hooks"]["BeforeTool"][:-1] == USER["hooks"]["BeforeTool"]
    assert data["hooks"]["BeforeTool"][-1]["hooks"][0]["name"] == "cairn"
    assert list(data["mcpServers"]) == ["docs"]
    assert [b.read_bytes() for b in backups_of(path)] == [original]
    before = snapshot(proj)
    assert not setup("gemini", "project", proj).changed
    assert snapshot(proj) == before
    setup("gemini", "project", proj, uninstall=True)
    assert path.read_bytes() == original


def test_uninstall_keeps_what_the_user_added_meanwhile(proj: Path) -> None:
    path = proj / ".gemini" / "settings.json"
    write_json(path, USER)
    setup("gemini", "project", proj)
    data = read_json(path)
    data["model"] = {"name": "gemini-2.5-pro"}
    write_json(path, data)
    setup("gemini", "project", proj, uninstall=True)
    assert read_json(path) == {**USER, "model": {"name": "gemini-2.5-pro"}}


def test_dry_run_and_invalid_json(proj: Path) -> None:
    before = snapshot(proj)
    result = setup("gemini", "project", proj, dry_run=True)
    assert snapshot(proj) == before and "gemini AfterTool" in result.changes[0].diff
    path = proj / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text("[1, 2]")
    with pytest.raises(InstallError, match="not an object"):
        setup("gemini", "project", proj)
    assert path.read_text() == "[1, 2]"


def test_installed_after_tool_hook_returns_a_lesson(proj: Path, store: Path) -> None:
    with cairn.open(store, project=proj, cwd=proj, tool="cli") as ws:
        ws.remember(
            "Before a push, run make check: the hook is the only CI",
            when={"tool": "shell", "match": "git push"},
        )
    setup("gemini", "project", proj)
    command = read_json(proj / ".gemini" / "settings.json")["hooks"]["AfterTool"][0]["hooks"][0][
        "command"
    ]
    done = run_hook_command(command, payload("gemini", "AfterTool", proj), proj)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "AfterTool" and "make check" in answer["additionalContext"]


def test_a_chosen_store_is_never_in_the_project_file_and_the_note_says_how(
    proj: Path, store: Path, user_home: Path
) -> None:
    result = setup("gemini", "project", proj, home=store)
    assert str(store) not in (proj / ".gemini" / "settings.json").read_text()
    server = read_json(user_home / ".gemini" / "settings.json")["mcpServers"]["cairn"]
    assert server["env"] == {"CAIRN_HOME": str(store)}
    assert any(f"export CAIRN_HOME={store}" in note for note in result.notes)
