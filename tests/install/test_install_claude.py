"""`cairn setup claude-code`: the shape written, merging, idempotence, backups, uninstall."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from install_support import (
    CAIRN,
    backups_of,
    payload,
    read_json,
    run_hook_command,
    snapshot,
    write_json,
)

from cairn.usecases.install import InstallError, setup
from cairn.usecases.install.command import PORTABLE

USER_HOOK = {"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}
USER_SERVER = {"type": "stdio", "command": "/usr/bin/other-mcp", "args": [], "env": {}}


def test_fresh_install_writes_the_documented_shape(
    proj: Path, store: Path, user_home: Path
) -> None:
    result = setup("claude-code", "project", proj, home=store)
    settings = read_json(proj / ".claude" / "settings.json")
    hooks = settings["hooks"]
    assert list(hooks) == ["PreToolUse", "SessionStart", "Stop", "SessionEnd"]
    pre = hooks["PreToolUse"]
    assert len(pre) == 1 and pre[0]["matcher"] == "Bash|Read|Edit|Write|MultiEdit"
    handler = pre[0]["hooks"][0]
    assert handler["type"] == "command"
    assert handler["timeout"] == 5  # seconds
    assert handler["command"] == PORTABLE.format(
        script="cairn-hook", agent="claude-code", event="PreToolUse"
    )
    assert "matcher" not in hooks["SessionStart"][0]
    assert hooks["Stop"][0]["hooks"][0]["command"].endswith(" claude-code Stop || :")
    # Machine-specific: the server in Claude Code's local scope, the store in settings.local.
    projects = read_json(user_home / ".claude.json")["projects"]
    server = projects[str(proj)]["mcpServers"]["cairn"]
    assert server["type"] == "stdio"
    assert os.path.isabs(server["command"]) and server["args"][-1] == "mcp"
    assert server["env"] == {"CAIRN_HOME": str(store)}
    local = read_json(proj / ".claude" / "settings.local.json")
    assert local == {"env": {"CAIRN_HOME": str(store)}}
    assert not (proj / ".mcp.json").exists()
    assert {c.action for c in result.changes} == {"create", "unchanged"}
    assert result.hook_command == handler["command"]


def test_committed_files_are_the_same_from_any_machine_path(
    tmp_path: Path, user_home: Path
) -> None:
    written = []
    for where in ("alice/src/app", "bob/work/app"):
        proj = tmp_path / where
        (proj / ".git").mkdir(parents=True)
        setup("claude-code", "project", proj, executable=f"/{where}/.venv/bin/python")
        raw = (proj / ".claude" / "settings.json").read_bytes()
        assert b"/" + where.encode() not in raw and str(tmp_path).encode() not in raw
        assert b"CAIRN_HOME" not in raw and b"python" not in raw
        written.append(raw)
    assert written[0] == written[1]


def test_an_old_absolute_server_in_mcp_json_is_taken_out(proj: Path) -> None:
    old = {"type": "stdio", "command": "/old/venv/bin/python", "args": ["mcp"], "env": {}}
    write_json(proj / ".mcp.json", {"mcpServers": {"other": USER_SERVER, "cairn": old}})
    setup("claude-code", "project", proj)
    assert read_json(proj / ".mcp.json") == {"mcpServers": {"other": USER_SERVER}}


def test_the_portable_hook_is_silent_without_cairn(proj: Path) -> None:
    setup("claude-code", "project", proj)
    command = read_json(proj / ".claude" / "settings.json")["hooks"]["PreToolUse"][0]["hooks"][0]
    done = subprocess.run(
        ["/bin/sh", "-c", command["command"]],
        input=payload("claude-code", "PreToolUse", proj),
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(proj)},
        cwd=proj,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_user_scope_writes_the_home_files_and_keeps_claude_json(
    proj: Path, user_home: Path
) -> None:
    state = {"numStartups": 3, "projects": {"/x": {"allowedTools": []}}}
    write_json(user_home / ".claude.json", state)
    setup("claude-code", "user", proj)
    assert "PreToolUse" in read_json(user_home / ".claude" / "settings.json")["hooks"]
    claude_json = read_json(user_home / ".claude.json")
    assert claude_json["numStartups"] == 3 and claude_json["projects"] == state["projects"]
    assert claude_json["mcpServers"]["cairn"]["type"] == "stdio"
    assert not (proj / ".claude").exists() and not (proj / ".mcp.json").exists()


def test_merge_keeps_the_users_hooks_and_servers_in_order(proj: Path) -> None:
    settings = proj / ".claude" / "settings.json"
    write_json(
        settings,
        {"model": "opus", "hooks": {"PreToolUse": [USER_HOOK], "PostToolUse": [USER_HOOK]}},
        indent=4,
    )
    write_json(proj / ".mcp.json", {"mcpServers": {"other": USER_SERVER}})
    setup("claude-code", "project", proj)
    data = read_json(settings)
    assert data["model"] == "opus"
    assert data["hooks"]["PreToolUse"][0] == USER_HOOK
    assert data["hooks"]["PreToolUse"][1]["matcher"] == "Bash|Read|Edit|Write|MultiEdit"
    assert data["hooks"]["PostToolUse"] == [USER_HOOK]
    assert settings.read_text().startswith('{\n    "model"')  # the user's 4-space indent
    assert read_json(proj / ".mcp.json") == {"mcpServers": {"other": USER_SERVER}}


def test_second_run_changes_nothing_and_says_so(proj: Path) -> None:
    write_json(proj / ".mcp.json", {"mcpServers": {"other": USER_SERVER}})
    setup("claude-code", "project", proj)
    before = snapshot(proj)
    again = setup("claude-code", "project", proj)
    assert not again.changed
    assert {c.action for c in again.changes} == {"unchanged"}
    assert "Already up to date" in again.notes[0]
    assert snapshot(proj) == before  # not even a new backup


def test_a_moved_interpreter_replaces_cairns_entry_in_place(proj: Path) -> None:
    settings = proj / ".claude" / "settings.json"
    write_json(settings, {"hooks": {"PreToolUse": [USER_HOOK]}})
    setup("claude-code", "project", proj, executable="/old/venv/bin/python")
    write_json(
        settings,
        {"hooks": {"PreToolUse": [*read_json(settings)["hooks"]["PreToolUse"], USER_HOOK]}},
    )
    setup("claude-code", "project", proj)
    pre = read_json(settings)["hooks"]["PreToolUse"]
    assert [g == USER_HOOK for g in pre] == [True, False, True]
    assert "/old/venv" not in json.dumps(pre)


def test_backup_holds_the_original_bytes(proj: Path) -> None:
    settings = proj / ".claude" / "settings.json"
    original = write_json(settings, {"hooks": {"PreToolUse": [USER_HOOK]}})
    result = setup("claude-code", "project", proj)
    saved = backups_of(settings)
    assert len(saved) == 1 and saved[0].read_bytes() == original
    change = next(c for c in result.changes if c.path == settings)
    assert change.action == "update" and change.backup == saved[0]
    assert not backups_of(proj / ".mcp.json")  # it did not exist: nothing to back up


def test_uninstall_restores_the_untouched_file_byte_for_byte(proj: Path) -> None:
    settings = proj / ".claude" / "settings.json"
    original = (
        b'{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command",'
        b'"command":"./lint.sh"}]}]},  "model": "opus"}'
    )  # odd spacing, no newline
    settings.parent.mkdir(parents=True)
    settings.write_bytes(original)
    setup("claude-code", "project", proj)
    assert settings.read_bytes() != original
    setup("claude-code", "project", proj, uninstall=True)
    assert settings.read_bytes() == original
    assert not (proj / ".mcp.json").exists()  # Cairn created it, so it goes


def test_uninstall_after_user_edits_removes_only_cairns_entries(proj: Path) -> None:
    settings = proj / ".claude" / "settings.json"
    write_json(settings, {"hooks": {"PreToolUse": [USER_HOOK]}})
    write_json(proj / ".mcp.json", {"mcpServers": {"other": USER_SERVER}})
    setup("claude-code", "project", proj)
    edited = read_json(settings)
    edited["permissions"] = {"allow": ["Bash(ls:*)"]}
    write_json(settings, edited)
    setup("claude-code", "project", proj, uninstall=True)
    assert read_json(settings) == {
        "hooks": {"PreToolUse": [USER_HOOK]},
        "permissions": {"allow": ["Bash(ls:*)"]},
    }
    assert read_json(proj / ".mcp.json") == {"mcpServers": {"other": USER_SERVER}}
    again = setup("claude-code", "project", proj, uninstall=True)
    assert not again.changed and "Nothing to remove" in again.notes[0]


def test_dry_run_writes_nothing_and_shows_diffs(proj: Path) -> None:
    write_json(proj / ".claude" / "settings.json", {"hooks": {"PreToolUse": [USER_HOOK]}})
    before = snapshot(proj)
    result = setup("claude-code", "project", proj, dry_run=True)
    assert snapshot(proj) == before
    diffs = {c.path.name: c.diff for c in result.changes}
    assert (
        '+            "command":' in diffs["settings.json"]
        or "claude-code PreToolUse" in diffs["settings.json"]
    )
    assert diffs[".claude.json"].startswith("--- /dev/null")
    assert all(c.backup is None for c in result.changes)


def test_invalid_json_is_refused_and_left_alone(proj: Path) -> None:
    settings = proj / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"hooks": {,}')
    with pytest.raises(InstallError, match="not valid JSON"):
        setup("claude-code", "project", proj)
    assert settings.read_text() == '{"hooks": {,}'
    assert not (proj / ".mcp.json").exists()  # planned first, so nothing else was written
    assert not backups_of(settings)


def test_a_hooks_value_that_is_not_an_object_is_refused(proj: Path) -> None:
    write_json(proj / ".claude" / "settings.json", {"hooks": ["x"]})
    with pytest.raises(InstallError, match="not an object"):
        setup("claude-code", "project", proj)


def test_installed_hook_command_returns_a_lesson(proj: Path, store: Path) -> None:
    env = {**os.environ, "CAIRN_HOME": str(store)}
    subprocess.run(
        [
            CAIRN,
            "--project",
            str(proj),
            "remember",
            "Before a push, run make check: the hook is the only CI",
            "--when",
            '{"tool": "shell", "match": "git push"}',
        ],
        check=True,
        env=env,
        capture_output=True,
        cwd=proj,
    )
    setup("claude-code", "project", proj)
    command = read_json(proj / ".claude" / "settings.json")["hooks"]["PreToolUse"][0]["hooks"][0][
        "command"
    ]
    done = run_hook_command(command, payload("claude-code", "PreToolUse", proj), proj)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PreToolUse"
    assert "run make check" in answer["additionalContext"]


def test_hook_command_falls_back_to_the_module_without_a_script(proj: Path, tmp_path: Path) -> None:
    bindir = tmp_path / "bare" / "bin"
    bindir.mkdir(parents=True)
    python = bindir / "python"
    python.symlink_to(sys.executable)
    result = setup("claude-code", "user", proj, executable=str(python))
    assert f"{python} -I -m cairn.hooks.entry claude-code PreToolUse" in result.hook_command
    server = read_json(proj.parent / "user" / ".claude.json")["mcpServers"]["cairn"]
    assert server["command"] == str(python) and server["args"][-1] == "mcp"
