"""The MCP server under bad input, driven over stdio as an agent drives it: lines that are not
JSON-RPC get JSON-RPC's answer, every field has remember's limits, `cwd` must name a project, and
a cited file that is not a file holds no call (nor the next one, for another project)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

import cairn
from tests.faults.conftest import HANG_S, make_fault, make_git, run_bounded

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "fault-suite", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _serve(home: Path, cwd: Path, lines: list[bytes]) -> tuple[dict[Any, dict[str, Any]], bytes]:
    """Send the lines one at a time, each request's answer awaited before the next line; the
    answers by id (errors with a null id under ("null", n), in order), and stderr.

    The whole conversation must end within HANG_S: a call that never answers fails the test.
    """
    argv = [sys.executable, "-m", "cairn.mcp_server"]
    env = {**os.environ, "CAIRN_HOME": str(home)}
    deadline = time.monotonic() + HANG_S
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env, cwd=cwd
        )
        assert proc.stdin is not None and proc.stdout is not None
        answers: dict[Any, dict[str, Any]] = {}
        nulls = 0
        pending = b""
        try:
            for line in lines:
                proc.stdin.write(line + b"\n")
                proc.stdin.flush()
                try:
                    wanted: Any = json.loads(line).get("id")
                except (ValueError, AttributeError):
                    wanted = ("null", nulls)  # a broken line: its answer has a null id
                if wanted is None:
                    continue  # a notification: no answer
                while wanted not in answers:
                    left = deadline - time.monotonic()
                    assert left > 0, f"no answer to {line[:80]!r}"
                    ready, _, _ = select.select([proc.stdout], [], [], left)
                    assert ready, f"no answer to {line[:80]!r} within {HANG_S} s"
                    chunk = os.read(proc.stdout.fileno(), 1 << 20)
                    assert chunk, f"the server closed before answering {line[:80]!r}"
                    pending += chunk
                    *whole, pending = pending.split(b"\n")
                    for text in whole:
                        message = json.loads(text)
                        if message.get("id") is None:
                            answers[("null", nulls)] = message
                            nulls += 1
                        else:
                            answers[message["id"]] = message
            proc.stdin.close()
            assert proc.wait(timeout=max(deadline - time.monotonic(), 1)) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        err.seek(0)
        return answers, err.read()


def _call(n: int, tool: str, **arguments: Any) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    return json.dumps(message).encode()


def _opening() -> list[bytes]:
    return [json.dumps(INIT).encode(), json.dumps(INITIALIZED).encode()]


def _error_text(answer: dict[str, Any]) -> str:
    result = answer["result"]
    assert result["isError"], result
    return str(result["content"][0]["text"])


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "app"
    folder.mkdir()
    make_git(folder)
    return folder


def test_lines_that_are_not_json_rpc_are_answered_and_the_server_goes_on(
    home: Path, repo: Path
) -> None:
    lines = [b"garbage", b'{"unterminated": ', b'{"a": 1}', b"[1, 2]", *_opening()]
    lines.append(_call(1, "recall", query="anything", cwd=str(repo)))
    answers, stderr = _serve(home, repo, lines)
    codes = [answers[("null", n)]["error"]["code"] for n in range(4)]
    assert codes == [-32700, -32700, -32600, -32600]
    assert answers[0]["result"]["serverInfo"]["name"] == "cairn"
    assert "results" in answers[1]["result"]["structuredContent"]
    assert b"Traceback" not in stderr


def test_a_cwd_that_is_not_a_project_is_refused_in_a_line(home: Path, repo: Path) -> None:
    outside = repo.parent / "plain"  # not git, not the server's project, not in the home
    outside.mkdir()
    cwds = {
        1: "x" * 100_000,
        2: "/",
        3: "/etc",
        4: str(repo / "nowhere"),
        5: "a\0b",
        6: str(outside),
    }
    lines = _opening() + [_call(n, "recall", query="anything", cwd=cwd) for n, cwd in cwds.items()]
    inside = repo / "src" / "deep"  # a folder inside a checkout: its project is the checkout
    inside.mkdir(parents=True)
    lines.append(_call(8, "recall", query="anything", cwd=str(inside)))
    answers, stderr = _serve(home, repo, lines)
    for n in cwds:
        text = _error_text(answers[n])
        assert text and "cwd" in text and len(text) < 400, (n, text)
    assert not answers[8]["result"]["isError"]
    assert b"Traceback" not in stderr


def test_every_field_has_remembers_limits(home: Path, repo: Path) -> None:
    with cairn.open(home, project=repo, cwd=repo) as ws:
        ref = ws.remember("The build runs on the CI only").ref
    text = "Deploys happen on Tuesdays"
    many = [f"m-{n:06x}" for n in range(101)]
    calls = {
        1: ("remember", {"text": text, "tags": [f"t{n}" for n in range(10_000)]}),
        2: ("remember", {"text": text, "tags": [f"t{n}" for n in range(21)]}),
        3: ("remember", {"text": text, "reason": "y" * 4001}),
        4: ("remember", {"text": "x" * 1001}),
        5: ("remember", {"text": text, "used": [ref] * 5 + many}),
        6: ("remember", {"text": text, "source_ref": "a/" * 3000}),
        7: ("remember", {"text": text, "when": {"tool": "shell", "match": "a" * 1001}}),
        8: ("get_memory", {"refs": many}),
        9: ("get_memory", {"refs": ["m-" + "0" * 10_000]}),
        10: ("recall", {"query": "deploy " * 200}),
        11: ("recall", {"query": "deploy", "also": ["ship " * 201]}),
        12: ("log_mission_progress", {"goal": "g" * 501, "step": "s", "status": "open"}),
        13: ("get_action_rules", {"action": "git-commit" * 20}),
        14: ("log_mission_progress", {"goal": "ship", "step": "s", "status": "open", "used": many}),
    }
    lines = _opening()
    for n, (tool, arguments) in calls.items():
        lines.append(_call(n, tool, cwd=str(repo), **arguments))
    tags = ["deploy"] * 20 + [f"t{n}" for n in range(19)]  # 20 distinct tags: the most
    lines.append(_call(99, "remember", text=text, tags=tags, cwd=str(repo)))
    answers, stderr = _serve(home, repo, lines)
    for n in calls:
        text = _error_text(answers[n])
        assert text and len(text) < 400, (n, text[:400])
    assert not answers[99]["result"]["isError"]
    with cairn.open(home, project=repo, cwd=repo) as ws:
        assert ws.store.count_memories() == 2
    assert b"Traceback" not in stderr


def test_a_cited_fifo_holds_neither_this_call_nor_the_next_project(
    home: Path, repo: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    make_git(other)
    (repo / "notes.md").write_text("one\ntwo\nthree\n")
    with cairn.open(home, project=repo, cwd=repo) as ws:
        ref = ws.remember("Release notes are kept by hand", source_ref="notes.md:1-2").ref
    with cairn.open(home, project=other, cwd=other) as ws:
        ws.remember("Release notes of the other app are generated")
    for fault in ("fifo", "device"):
        make_fault(repo / "notes.md", fault)
        lines = [
            *_opening(),
            _call(1, "recall", query="release notes", cwd=str(repo)),
            _call(2, "get_memory", refs=[ref], cwd=str(repo)),
            _call(3, "recall", query="release notes", cwd=str(other)),
        ]
        answers, _ = _serve(home, repo, lines)
        [hit] = answers[1]["result"]["structuredContent"]["results"]
        assert hit["citation"] == "changed"
        shown = answers[2]["result"]["structuredContent"]["memories"][0]
        assert shown["citation"]["status"] == "changed"
        assert answers[3]["result"]["structuredContent"]["results"]


def test_the_server_command_setup_writes_ignores_pythonpath(home: Path, repo: Path) -> None:
    from cairn.usecases.install.command import launch

    (repo / "encodings").mkdir()
    (repo / "encodings" / "__init__.py").write_text("raise SystemExit(3)\n")
    argv = list(launch(home).server)
    lines = b"".join(line + b"\n" for line in _opening())
    ran = run_bounded(argv, lines, env={"PYTHONPATH": str(repo)}, cwd=repo)
    assert ran.returncode == 0, ran.stderr.decode()
    assert json.loads(ran.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "cairn"
