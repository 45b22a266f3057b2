"""`cairn setup codex`: hooks.json, config.toml (MCP and hook trust), merging, uninstall."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from install_support import backups_of, read_json, read_toml, snapshot, write_json

from cairn.usecases.install import InstallError, setup
from cairn.usecases.install.codex import hook_hash
from cairn.usecases.install.files import BLOCK_BEGIN
from cairn.usecases.install.rpc import app_server_trust

USER_HOOK = {
    "matcher": "Bash",
    "hooks": [{"type": "command", "command": "echo mine", "timeout": 3}],
}
USER_TOML = (
    'model = "gpt-5.5"\n\n[mcp_servers.docs]\ncommand = "/usr/bin/docs-mcp"\nargs = ["--stdio"]\n'
)

# Known answers: keys and hashes that Codex 0.171.0 itself (`codex app-server`, `hooks/list`)
# reported as `trusted` for these hooks.json handlers (timeout 5).
KNOWN = [
    (
        "PreToolUse",
        {"matcher": "Bash|apply_patch"},
        "echo PRE >> /tmp/ctrust/h_trust/marker",
        "sha256:bd9cce61d87cf35c4546cf71932f52d263b8bda28f7633cb37c676df09008e46",
    ),
    (
        "SessionStart",
        {},
        "echo SS >> /tmp/ctrust/h_trust/marker",
        "sha256:88d1eb3f473881d6349ee17f741d8543b1980f658172c566dfa3e419a067ad87",
    ),
    (
        "Stop",
        {},
        "echo stop",
        "sha256:09401cceb4f683a7677cb3c8f8172ff1d9d712e977b65f194022bee07678f972",
    ),
]


@pytest.mark.parametrize(("event", "group", "command", "expected"), KNOWN)
def test_hook_hash_matches_what_codex_computes(
    event: str, group: dict[str, str], command: str, expected: str
) -> None:
    handler = {"type": "command", "command": command, "timeout": 5}
    assert hook_hash(event, {**group, "hooks": [handler]}, handler) == expected


def test_hook_hash_changes_with_the_command_and_ignores_stop_matchers() -> None:
    handler = {"type": "command", "command": "echo stop", "timeout": 5}
    assert hook_hash("Stop", {"matcher": "x"}, handler) == KNOWN[2][3]
    other = {**handler, "command": "echo other"}
    assert hook_hash("Stop", {}, other) != KNOWN[2][3]


def test_user_install_writes_hooks_mcp_and_trust(proj: Path, user_home: Path) -> None:
    codex = user_home / ".codex"
    result = setup("codex", "user", proj, trust=True)
    hooks = read_json(codex / "hooks.json")["hooks"]
    assert list(hooks) == ["PreToolUse", "SessionStart", "Stop"]
    assert hooks["PreToolUse"][0]["matcher"] == "Bash|apply_patch"
    assert hooks["PreToolUse"][0]["hooks"][0]["timeout"] == 5  # seconds
    config = read_toml(codex / "config.toml")
    server = config["mcp_servers"]["cairn"]
    assert os.path.isabs(server["command"]) and server["args"][-1] == "mcp"
    states = config["hooks"]["state"]
    assert set(states) == {
        f"{codex}/hooks.json:pre_tool_use:0:0",
        f"{codex}/hooks.json:session_start:0:0",
        f"{codex}/hooks.json:stop:0:0",
    }
    group = hooks["PreToolUse"][0]
    assert states[f"{codex}/hooks.json:pre_tool_use:0:0"]["trusted_hash"] == hook_hash(
        "PreToolUse", group, group["hooks"][0]
    )
    assert any("trusted" in note for note in result.notes)


def test_codex_home_is_respected(
    proj: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(elsewhere))
    setup("codex", "user", proj, trust=True)
    assert (elsewhere / "hooks.json").exists() and (elsewhere / "config.toml").exists()


def test_merge_keeps_the_users_hook_config_and_trust_follows_position(
    proj: Path, user_home: Path
) -> None:
    codex = user_home / ".codex"
    write_json(codex / "hooks.json", {"hooks": {"PreToolUse": [USER_HOOK]}}, indent=4)
    (codex / "config.toml").write_text(USER_TOML)
    setup("codex", "user", proj, trust=True)
    hooks = read_json(codex / "hooks.json")["hooks"]
    assert hooks["PreToolUse"][0] == USER_HOOK
    text = (codex / "config.toml").read_text()
    assert text.startswith(USER_TOML)  # the user's TOML is left as it was, byte for byte
    config = read_toml(codex / "config.toml")
    assert config["model"] == "gpt-5.5"
    assert config["mcp_servers"]["docs"]["args"] == ["--stdio"]
    assert f"{codex}/hooks.json:pre_tool_use:1:0" in config["hooks"]["state"]
    assert f"{codex}/hooks.json:pre_tool_use:0:0" not in config["hooks"]["state"]


COMMENTED_TOML = """\
# My Codex settings: keep these notes.
model = "gpt-5.5"   # the model I use

# Servers I run by hand
[mcp_servers.docs]
command = "/usr/bin/docs-mcp"  # stdio only
args = [
  "--stdio",  # one per line, as I like them
]

[hooks.state."/elsewhere/hooks.json:stop:0:0"]
trusted_hash = "sha256:00"  # approved in the TUI
"""


def test_a_commented_config_keeps_its_comments_and_layout(proj: Path, user_home: Path) -> None:
    codex = user_home / ".codex"
    codex.mkdir()
    (codex / "config.toml").write_text(COMMENTED_TOML)
    setup("codex", "user", proj, trust=True)
    text = (codex / "config.toml").read_text()
    assert text.startswith(COMMENTED_TOML)  # every comment, blank line and indent kept
    config = read_toml(codex / "config.toml")
    assert config["mcp_servers"]["cairn"]["args"][-1] == "mcp"
    assert config["hooks"]["state"]["/elsewhere/hooks.json:stop:0:0"]["trusted_hash"] == "sha256:00"
    assert f"{codex}/hooks.json:stop:0:0" in config["hooks"]["state"]
    setup("codex", "user", proj, trust=True)
    assert (codex / "config.toml").read_text() == text  # a second run changes nothing
    setup("codex", "user", proj, uninstall=True)
    assert (codex / "config.toml").read_text() == COMMENTED_TOML


def test_second_run_changes_nothing(proj: Path, user_home: Path) -> None:
    (user_home / ".codex").mkdir()
    (user_home / ".codex" / "config.toml").write_text(USER_TOML)
    setup("codex", "user", proj, trust=True)
    before = snapshot(user_home)
    assert not setup("codex", "user", proj, trust=True).changed
    assert snapshot(user_home) == before


def test_uninstall_restores_both_files_exactly(proj: Path, user_home: Path) -> None:
    codex = user_home / ".codex"
    hooks_raw = write_json(codex / "hooks.json", {"hooks": {"PreToolUse": [USER_HOOK]}})
    (codex / "config.toml").write_text(USER_TOML.rstrip("\n"))  # no final newline
    setup("codex", "user", proj, trust=True)
    assert [p.read_bytes() for p in backups_of(codex / "config.toml")] == [
        USER_TOML.rstrip("\n").encode()
    ]
    setup("codex", "user", proj, uninstall=True)
    assert (codex / "hooks.json").read_bytes() == hooks_raw
    assert (codex / "config.toml").read_text() == USER_TOML.rstrip("\n")


def test_project_scope_puts_mcp_and_trust_in_the_user_config(proj: Path, user_home: Path) -> None:
    result = setup("codex", "project", proj, trust=True)
    assert read_json(proj / ".codex" / "hooks.json")["hooks"]["Stop"]
    assert not (proj / ".codex" / "config.toml").exists()  # nothing machine-specific committed
    user = read_toml(user_home / ".codex" / "config.toml")
    assert user["mcp_servers"]["cairn"]["args"][-1] == "mcp"
    states = user["hooks"]["state"]
    assert all(key.startswith(f"{proj}/.codex/hooks.json:") for key in states)
    assert any("trusted project" in note for note in result.notes)
    setup("codex", "user", proj, trust=True)  # both scopes share the user config's trust block
    both = read_toml(user_home / ".codex" / "config.toml")["hooks"]["state"]
    assert len(both) == 6
    setup("codex", "project", proj, uninstall=True)
    left = read_toml(user_home / ".codex" / "config.toml")["hooks"]["state"]
    assert len(left) == 3 and all(k.startswith(f"{user_home}/.codex/") for k in left)
    assert not (proj / ".codex" / "hooks.json").exists()


def test_trust_is_written_only_when_asked(proj: Path, user_home: Path) -> None:
    result = setup("codex", "project", proj)
    config = read_toml(user_home / ".codex" / "config.toml")
    assert "hooks" not in config  # no trusted_hash: the user approves the hooks in Codex
    [note] = [n for n in result.notes if "approve" in n]
    assert "/hooks" in note and "cairn setup codex --trust" in note
    trusted = setup("codex", "project", proj, trust=True)
    assert read_toml(user_home / ".codex" / "config.toml")["hooks"]["state"]
    assert any("as you asked with --trust" in n for n in trusted.notes)
    # A run without --trust keeps the approval the user gave.
    setup("codex", "project", proj)
    assert read_toml(user_home / ".codex" / "config.toml")["hooks"]["state"]


def test_an_old_server_in_the_projects_config_toml_is_taken_out(proj: Path) -> None:
    config = proj / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(
        'model = "o3"\n\n'
        "# >>> cairn: written by `cairn setup`; `cairn setup AGENT --uninstall` removes it\n"
        '[mcp_servers.cairn]\ncommand = "/old/venv/bin/python"\nargs = ["mcp"]\n# <<< cairn\n'
    )
    setup("codex", "project", proj)
    assert config.read_text() == 'model = "o3"\n'


def test_a_users_own_cairn_server_is_left_alone(proj: Path, user_home: Path) -> None:
    config = user_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('[mcp_servers.cairn]\ncommand = "/opt/cairn/bin/cairn"\nargs = ["mcp"]\n')
    result = setup("codex", "user", proj, trust=True)
    parsed = read_toml(config)
    assert parsed["mcp_servers"]["cairn"]["command"] == "/opt/cairn/bin/cairn"
    assert parsed["hooks"]["state"]  # trust is still written
    assert any("already has its own" in note for note in result.notes)


def test_uninstall_warns_when_later_user_hooks_lose_their_trust_position(
    proj: Path, user_home: Path
) -> None:
    setup("codex", "user", proj, trust=True)
    hooks_file = user_home / ".codex" / "hooks.json"
    data = read_json(hooks_file)
    data["hooks"]["PreToolUse"].append(USER_HOOK)
    write_json(hooks_file, data)
    result = setup("codex", "user", proj, uninstall=True)
    assert read_json(hooks_file) == {"hooks": {"PreToolUse": [USER_HOOK]}}
    assert any("moved up and must be trusted again" in note for note in result.notes)


def test_invalid_toml_is_refused(proj: Path, user_home: Path) -> None:
    config = user_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text("model = \n")
    before = snapshot(user_home)
    with pytest.raises(InstallError, match="not valid TOML"):
        setup("codex", "user", proj, trust=True)
    assert snapshot(user_home) == before


def test_a_clashing_table_is_refused_before_writing(proj: Path, user_home: Path) -> None:
    config = user_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('hooks = "not a table"\n')
    with pytest.raises(InstallError, match="would make"):
        setup("codex", "user", proj, trust=True)
    assert config.read_text() == 'hooks = "not a table"\n'
    assert not (user_home / ".codex" / "hooks.json").exists()


def test_dry_run_writes_nothing(proj: Path, user_home: Path) -> None:
    before = snapshot(user_home, proj)
    result = setup("codex", "user", proj, dry_run=True, trust=True)
    assert snapshot(user_home, proj) == before
    toml_diff = next(c.diff for c in result.changes if c.path.name == "config.toml")
    assert BLOCK_BEGIN in toml_diff and "trusted_hash" in toml_diff


CODEX = os.environ.get("CAIRN_TEST_CODEX") or shutil.which("codex")


@pytest.mark.skipif(not CODEX, reason="no codex binary (set CAIRN_TEST_CODEX or put it on PATH)")
def test_codex_itself_reports_cairns_hooks_trusted(proj: Path, user_home: Path) -> None:
    codex = user_home / ".codex"
    write_json(codex / "hooks.json", {"hooks": {"PreToolUse": [USER_HOOK]}})
    (codex / "config.toml").write_text(f'[projects."{proj}"]\ntrust_level = "trusted"\n')
    setup("codex", "user", proj, trust=True)
    setup("codex", "project", proj, trust=True)
    told = app_server_trust(str(CODEX), proj)
    assert told is not None
    ours = {k: v for k, v in told.items() if "echo mine" not in k}
    assert len([k for k in told if k.endswith(":pre_tool_use:0:0")]) == 2
    assert told[f"{codex}/hooks.json:pre_tool_use:0:0"] == "untrusted"  # the user's own
    del ours[f"{codex}/hooks.json:pre_tool_use:0:0"]
    assert len(ours) == 6 and set(ours.values()) == {"trusted"}
