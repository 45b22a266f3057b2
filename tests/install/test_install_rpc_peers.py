"""Doctor's JSON-RPC conversations (`list_tools`, `app_server_trust`) with real processes.

Each peer is a small Python program started as doctor starts an MCP server or `codex
app-server`: it reads the JSON-RPC lines doctor writes and answers as the test tells it to
(well, late, badly, or not at all). What doctor gets back is what it reports to the user.
"""

from __future__ import annotations

import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from cairn.usecases.install.rpc import app_server_trust, list_tools

PEER = textwrap.dedent(
    """
    import json, sys, time
    mode = sys.argv[-1]
    seen = []
    for line in sys.stdin:
        message = json.loads(line)
        seen.append(message.get("method"))
        if message.get("id") != 2:
            continue
        if mode == "exit":
            sys.exit(0)
        if mode == "silent":
            time.sleep(30)
        print("not json at all", flush=True)
        print(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress"}), flush=True)
        print(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "early"}]}}))
        results = {
            "tools": {"tools": [{"name": "recall"}, {"name": "remember"}, "stray"]},
            "no-tools": {"tools": "recall"},
            "error": None,
            "hooks": {"data": [
                {"hooks": [{"key": "k1", "trustStatus": "trusted"}, {"key": 3}, "stray"]},
                "stray",
                {"hooks": [{"key": "k2"}]},
            ]},
        }
        answer = {"jsonrpc": "2.0", "id": 2}
        if results[mode] is None:
            answer["error"] = {"code": -32601, "message": "no such method"}
        else:
            answer["result"] = results[mode]
        answer["seen"] = seen
        print(json.dumps(answer), flush=True)
    """
)


@pytest.fixture
def peer(tmp_path: Path) -> Path:
    script = tmp_path / "peer.py"
    script.write_text(PEER, encoding="utf-8")
    return script


def _argv(peer: Path, mode: str) -> list[str]:
    return [sys.executable, str(peer), mode]


def test_list_tools_names_the_tools_a_server_lists(peer: Path, tmp_path: Path) -> None:
    # Lines that are not JSON, notifications and answers to other requests are passed over.
    tools = list_tools(_argv(peer, "tools"), tmp_path, dict(os.environ), timeout=20)
    assert tools == ["recall", "remember"]


def test_list_tools_is_none_when_the_server_cannot_say(peer: Path, tmp_path: Path) -> None:
    env = dict(os.environ)
    assert list_tools(_argv(peer, "no-tools"), tmp_path, env, timeout=20) is None
    assert list_tools(_argv(peer, "error"), tmp_path, env, timeout=20) is None
    # A server that ends without answering, or never answers, is None, not a hang.
    assert list_tools(_argv(peer, "exit"), tmp_path, env, timeout=20) is None
    assert list_tools(_argv(peer, "silent"), tmp_path, env, timeout=0.5) is None


def test_a_program_that_cannot_start_is_none(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-server")
    assert list_tools([missing], tmp_path, dict(os.environ), timeout=5) is None
    assert app_server_trust(missing, tmp_path, timeout=5) is None


def _codex(tmp_path: Path, peer: Path, mode: str) -> str:
    program = tmp_path / f"codex-{mode}"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} {peer} "$@" {mode}\n', encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return str(program)


def test_app_server_trust_reads_each_hooks_trust_status(peer: Path, tmp_path: Path) -> None:
    told = app_server_trust(_codex(tmp_path, peer, "hooks"), tmp_path, timeout=20)
    # Entries and hooks that are not objects with a string key are left out; a hook without a
    # status is told as "".
    assert told == {"k1": "trusted", "k2": ""}


def test_app_server_trust_is_none_when_codex_answers_an_error(peer: Path, tmp_path: Path) -> None:
    assert app_server_trust(_codex(tmp_path, peer, "error"), tmp_path, timeout=20) is None


def test_a_cwd_that_is_not_a_folder_still_runs_the_program(peer: Path, tmp_path: Path) -> None:
    gone = tmp_path / "removed-project"
    tools = list_tools(_argv(peer, "tools"), gone, dict(os.environ), timeout=20)
    assert tools == ["recall", "remember"]


def test_the_messages_doctor_sends_are_the_protocols_handshake(peer: Path, tmp_path: Path) -> None:
    program = tmp_path / "echo-peer.py"
    program.write_text(
        PEER.replace(
            'answer["seen"] = seen', 'answer["result"] = {"tools": [{"name": m} for m in seen]}'
        ),
        encoding="utf-8",
    )
    seen = list_tools([sys.executable, str(program), "tools"], tmp_path, dict(os.environ), 20)
    assert seen == ["initialize", "notifications/initialized", "tools/list"]
