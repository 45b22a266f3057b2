"""What the doctor says of a hook or an MCP server entry it cannot run: a hook that hangs, a
program that does not exist, a hook that prints text that is not JSON, and a server entry with
no command or a command that is not executable. Each peer is a real process."""

from __future__ import annotations

import os
from pathlib import Path

from cairn.usecases.install.plan import Installed
from cairn.usecases.install.probes import run_probe, server_check, server_environment


def _script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def _probe(tmp_path: Path, argv: tuple[str, ...], timeout: float = 10.0, *, plain: bool = False):  # type: ignore[no-untyped-def]
    return run_probe(
        "claude", "user", "", argv, {"tool_name": "Bash"}, tmp_path, timeout, {}, plain=plain
    )


def test_a_hook_that_does_not_answer_in_time_fails_with_the_timeout(tmp_path: Path) -> None:
    hangs = _script(tmp_path, "hangs", "exec sleep 30")
    check = _probe(tmp_path, (str(hangs),), timeout=0.5)
    assert (check.name, check.status, check.detail) == ("hook", "fail", "no answer within 0.5 s")
    assert check.ms is not None
    assert check.ms >= 500


def test_a_hook_program_that_does_not_exist_fails_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-hook"
    check = _probe(tmp_path, (str(missing),))
    assert check.status == "fail"
    assert check.detail == f"cannot run {missing}: No such file or directory"


def test_a_hook_printing_text_that_is_not_json_fails_quoting_it(tmp_path: Path) -> None:
    chatty = _script(tmp_path, "chatty", "cat >/dev/null; echo 'hello from the hook'")
    check = _probe(tmp_path, (str(chatty),))
    assert check.status == "fail"
    assert check.detail == f"printed text that is not JSON: 'hello from the hook' ({chatty})"


def test_plain_text_is_fine_for_an_agent_that_reads_plain_output(tmp_path: Path) -> None:
    chatty = _script(tmp_path, "chatty", "cat >/dev/null; echo 'hello from the hook'")
    check = _probe(tmp_path, (str(chatty),), plain=True)
    assert check.status == "ok"
    assert check.detail == f"exit 0, 19 chars of output ({chatty})"


def test_a_server_entry_gives_its_environment_under_either_key() -> None:
    assert server_environment(None) == {}
    assert server_environment({"command": "cairn"}) == {}
    assert server_environment({"env": {"CAIRN_HOME": "/h", "N": 1}}) == {
        "CAIRN_HOME": "/h",
        "N": "1",
    }
    assert server_environment({"environment": {"CAIRN_HOME": "/o"}}) == {"CAIRN_HOME": "/o"}
    assert server_environment({"env": ["CAIRN_HOME=/h"]}) == {}


def _installed(tmp_path: Path, server: dict[str, object] | None) -> Installed:
    config = tmp_path / "settings.json"
    return Installed("claude", "user", config, (), ("PreToolUse", {}), server, config)


def test_no_registered_server_is_a_warning(tmp_path: Path) -> None:
    check = server_check(_installed(tmp_path, None), tmp_path)
    assert (check.name, check.status) == ("mcp", "warn")
    assert check.detail == "no `cairn` MCP server registered"
    assert check.path == str(tmp_path / "settings.json")


def test_a_server_entry_without_a_command_fails(tmp_path: Path) -> None:
    for entry in ({"args": ["mcp"]}, {"command": ""}, {"command": ["cairn", "mcp"]}):
        check = server_check(_installed(tmp_path, entry), tmp_path)
        assert (check.status, check.detail) == ("fail", "the `cairn` server has no command")


def test_a_server_command_that_is_not_executable_says_to_set_up_again(tmp_path: Path) -> None:
    not_executable = tmp_path / "cairn"
    not_executable.write_text("#!/bin/sh\n", encoding="utf-8")
    not_executable.chmod(0o644)
    for program in (str(not_executable), "no-such-cairn-program-on-path"):
        entry = {"command": program, "args": ["mcp"]}
        check = server_check(_installed(tmp_path, entry), tmp_path)
        assert check.status == "fail"
        assert check.detail == (
            f"{program} is not an executable file: run `cairn setup claude` again"
        )
    assert not os.access(not_executable, os.X_OK)
