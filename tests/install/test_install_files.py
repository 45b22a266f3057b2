"""The merge rules every config edit follows: in-place replacement, text-exact TOML blocks."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from cairn.usecases.install.command import Launch, is_cairn_hook, launch, split_command
from cairn.usecases.install.files import dump_json, join_block, split_block, toml_tables
from cairn.usecases.install.merge import cairn_handlers, set_hooks

CAIRN = {"type": "command", "command": "/v/bin/cairn-hook claude-code PreToolUse"}
MINE = {"type": "command", "command": "./lint.sh"}


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        ("/v/bin/cairn-hook claude-code PreToolUse", True),
        ("CAIRN_HOME=/s '/a b/cairn-hook' codex Stop", True),
        ("/v/bin/python -m cairn.hooks.entry gemini AfterTool", True),
        ("cairn-hook cursor postToolUse", True),
        ("/usr/local/bin/my-cairn-hook-wrapper", False),
        ("./cairn-hooks.sh", False),
        (None, False),
    ],
)
def test_cairns_commands_are_recognised(command: object, ours: bool) -> None:
    assert is_cairn_hook(command) is ours


def test_an_update_replaces_cairns_group_where_it_stands() -> None:
    hooks = {
        "PreToolUse": [
            {"hooks": [MINE]},
            {"matcher": "Bash", "hooks": [CAIRN]},
            {"matcher": "Read", "hooks": [MINE]},
        ]
    }
    new = {"matcher": "Bash|Read", "hooks": [{**CAIRN, "timeout": 5}]}
    set_hooks(hooks, {"PreToolUse": new})
    assert hooks["PreToolUse"] == [{"hooks": [MINE]}, new, {"matcher": "Read", "hooks": [MINE]}]


def test_a_mixed_group_keeps_the_users_handler_and_stale_events_go() -> None:
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [MINE, CAIRN]}],
        "PostToolUse": [{"hooks": [CAIRN]}],
        "Notification": "odd but the user's",
    }
    set_hooks(hooks, {})
    assert hooks == {
        "PreToolUse": [{"matcher": "Bash", "hooks": [MINE]}],
        "Notification": "odd but the user's",
    }
    assert cairn_handlers(hooks) == []


def test_flat_entries_are_handled_like_groups() -> None:
    hooks = {"postToolUse": [{"command": "./a"}, {"command": "x/cairn-hook cursor postToolUse"}]}
    set_hooks(hooks, {"postToolUse": {"command": "y/cairn-hook cursor postToolUse"}}, flat=True)
    assert hooks["postToolUse"] == [
        {"command": "./a"},
        {"command": "y/cairn-hook cursor postToolUse"},
    ]
    assert [(e, gi) for e, gi, _, _, _ in cairn_handlers(hooks, flat=True)] == [("postToolUse", 1)]


def test_json_keeps_the_files_indentation_and_final_newline() -> None:
    assert dump_json({"a": [1]}, b'{\n\t"x": 1\n}') == b'{\n\t"a": [\n\t\t1\n\t]\n}'
    assert dump_json({"a": 1}, None) == b'{\n  "a": 1\n}\n'


@pytest.mark.parametrize("original", ["", "a = 1\n", "a = 1", "a = 1\n\n", "# only\n"])
def test_a_toml_block_comes_off_exactly(original: str) -> None:
    body = '[mcp_servers.cairn]\ncommand = "/x"\n'
    text = join_block(original, body)
    assert tomllib.loads(text)["mcp_servers"]["cairn"]["command"] == "/x"
    outside, found = split_block(text)
    assert outside == original and found == body
    assert join_block(original, "") == original


def test_a_block_followed_by_user_text_comes_off_cleanly() -> None:
    text = join_block("a = 1\n", "[x]\nb = 2\n") + "[y]\nc = 3\n"
    assert split_block(text)[0] == "a = 1\n[y]\nc = 3\n"


@pytest.mark.parametrize("value", ['/a b/"q"\\path', "tab\there", "del\x7f", "ünï"])
def test_toml_values_and_keys_round_trip(value: str) -> None:
    text = toml_tables([(["hooks", "state", value], {"k": value, "env": {value: value}})])
    assert tomllib.loads(text)["hooks"]["state"][value] == {"k": value, "env": {value: value}}


def test_toml_tables_are_written_as_before() -> None:
    text = toml_tables(
        [
            (["mcp_servers", "cairn"], {"command": "/x", "args": ["mcp"], "env": {"A": "b"}}),
            (["hooks", "state", "/p/hooks.json:stop:0:0"], {"trusted_hash": "sha256:ab"}),
        ]
    )
    assert text == (
        '[mcp_servers.cairn]\ncommand = "/x"\nargs = ["mcp"]\nenv = {A = "b"}\n\n'
        '[hooks.state."/p/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:ab"\n'
    )
    assert toml_tables([]) == ""


def test_hook_command_quotes_paths_and_carries_the_store(tmp_path: Path) -> None:
    how = Launch(("/a b/cairn-hook",), ("/a b/cairn", "mcp"), "/s t/store")
    command = how.hook_command("codex", "Stop")
    assert command == "CAIRN_HOME='/s t/store' '/a b/cairn-hook' codex Stop"
    assert split_command(command) == (
        {"CAIRN_HOME": "/s t/store"},
        ["/a b/cairn-hook", "codex", "Stop"],
    )


def test_launch_never_uses_the_console_scripts(tmp_path: Path) -> None:
    # pip's console scripts start a plain `python`, which honours PYTHONPATH: the commands
    # written for agents run the interpreter isolated (-I) instead, even beside the scripts.
    bindir = tmp_path / "venv" / "bin"
    bindir.mkdir(parents=True)
    python = bindir / "python"
    python.write_text("")
    for name in ("cairn-hook", "cairn"):
        (bindir / name).write_text("#!/bin/sh\n")
        (bindir / name).chmod(0o755)
    how = launch(tmp_path / "store", str(python))
    assert how.hook == (str(python), "-I", "-m", "cairn.hooks.entry")
    assert how.server[:2] == (str(python), "-I") and how.server[-1] == "mcp"
    assert how.env == {"CAIRN_HOME": str(tmp_path / "store")}
