"""Talking JSON-RPC over stdio to a program doctor checks: an MCP server, `codex app-server`.

One request/answer conversation per call, bounded: the process is killed once the answer came
or the time ran out, and a reader thread never outlives it by more than a second.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

MCP_TIMEOUT_S = 20.0
APP_SERVER_TIMEOUT_S = 15.0


def list_tools(
    argv: list[str], cwd: Path, env: dict[str, str], timeout: float = MCP_TIMEOUT_S
) -> list[str] | None:
    """The tool names an MCP server started with `argv` lists (None when it does not)."""
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "cairn-doctor", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    answer = converse(argv, messages, 2, cwd, timeout, env)
    if answer is None or not isinstance(answer.get("result"), dict):
        return None
    tools = answer["result"].get("tools")
    if not isinstance(tools, list):
        return None
    return [str(t.get("name")) for t in tools if isinstance(t, dict)]


def app_server_trust(
    program: str, cwd: Path, timeout: float = APP_SERVER_TIMEOUT_S
) -> dict[str, str] | None:
    """key -> trustStatus of every hook Codex sees from `cwd` (None when Codex cannot say).

    Speaks JSON-RPC lines to `codex app-server`: initialize, initialized, `hooks/list`.
    """
    messages: list[dict[str, Any]] = [
        {
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "cairn-doctor", "version": "1"}},
        },
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
    ]
    answer = converse([program, "app-server"], messages, 2, cwd, timeout)
    if answer is None or not isinstance(answer.get("result"), dict):
        return None
    told: dict[str, str] = {}
    for entry in answer["result"].get("data", []):
        for hook in entry.get("hooks", []) if isinstance(entry, dict) else []:
            if isinstance(hook, dict) and isinstance(hook.get("key"), str):
                told[hook["key"]] = str(hook.get("trustStatus", ""))
    return told


def converse(
    argv: list[str],
    messages: list[dict[str, Any]],
    want: int,
    cwd: Path,
    timeout: float,
    env: dict[str, str] | None = None,
) -> dict[str, Any] | None:
    """Send JSON-RPC lines to a process and return its answer to request `want` (or None).

    The process is killed once the answer came or `timeout` passed.
    """
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd if cwd.is_dir() else None,
            env=env,
            text=True,
        )
    except OSError:
        return None
    lines: queue.Queue[str] = queue.Queue()
    if proc.stdin is None or proc.stdout is None:  # not possible with PIPE; keeps mypy honest
        proc.kill()
        return None
    reader = threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True)
    reader.start()
    answer: dict[str, Any] | None = None
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while answer is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                break
            if not line:
                break
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == want:
                answer = message
    except OSError:
        return None
    finally:
        proc.kill()
        proc.wait()
        with contextlib.suppress(OSError):
            proc.stdin.close()
        reader.join(timeout=1)
        proc.stdout.close()
    return answer


def _pump(stream: IO[str], lines: queue.Queue[str]) -> None:
    """Copy lines from the app server to the queue; '' marks the end."""
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put("")
