"""Cursor's hook events end to end: `cairn-hook cursor EVENT` on the payloads Cursor sends.

What Cursor reads back is `{"additional_context": ...}` on postToolUse (and sessionStart), a
deny on a gated beforeShellExecution, and nothing at all on the events and tools Cairn does
not watch; every case exits 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import cairn


@pytest.fixture
def cursor(hook: Callable[..., tuple[int, str]], home: Path, project: Path) -> Callable[..., str]:
    """Run `cairn-hook cursor EVENT` on a payload (the hook's entry, in this process so that
    coverage sees it; tests/hooks/test_hook_process.py runs it as a process); its stdout."""

    def _run(event: str, **fields: Any) -> str:
        data = {
            "conversation_id": "c-7f3a",
            "generation_id": "g-1",
            "workspace_roots": [str(project)],
            "hook_event_name": event,
            **fields,
        }
        status, out = hook("cursor", event, json.dumps(data).encode())
        assert status == 0
        return out

    return _run


def _context(out: str) -> str:
    return str(json.loads(out)["additional_context"])


def test_a_read_edit_and_write_after_the_call_carry_their_lessons(
    lessons: dict[str, str], cursor: Callable[..., str], project: Path
) -> None:
    read = cursor(
        "postToolUse",
        tool_name="Read",
        tool_input={"path": str(project / "packages/db/schema.prisma")},
    )
    assert "The schema in packages/db is generated" in _context(read)
    edit = cursor(
        "postToolUse",
        tool_name="StrReplace",
        tool_input={"file_path": str(project / "services/payments/refund.ts"), "old_string": "x"},
    )
    assert "Refund changes need a finance review" in _context(edit)
    write = cursor(
        "postToolUse",
        tool_name="Write",
        tool_input={"file_path": str(project / "db/migrations/0001_init.sql")},
    )
    assert "Migrations are append-only" in _context(write)


def test_before_a_call_cursor_gets_no_answer_without_a_gate(
    lessons: dict[str, str], cursor: Callable[..., str]
) -> None:
    # A permission answer would skip the user's own approval: Cairn gives none.
    shell = {"tool_name": "Shell", "tool_input": {"command": "git push origin main"}}
    assert cursor("preToolUse", **shell) == ""
    assert cursor("beforeShellExecution", command="git push origin main") == ""


def test_a_gated_shell_command_is_denied_once_with_the_rule(
    lessons: dict[str, str], cursor: Callable[..., str], home: Path, project: Path
) -> None:
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        ws.gate(lessons["shell"], True)
    first = json.loads(cursor("beforeShellExecution", command="git push"))
    assert first["permission"] == "deny"
    assert "Before a push, run make check" in first["agent_message"]
    assert first["user_message"].startswith("Cairn stopped this command once")
    # The same call again in the session passes.
    assert cursor("beforeShellExecution", command="git push") == ""


def test_tools_and_events_cairn_does_not_watch_get_nothing(
    lessons: dict[str, str], cursor: Callable[..., str]
) -> None:
    web = {"tool_name": "WebSearch", "tool_input": {"query": "git push"}}
    assert cursor("postToolUse", **web) == ""
    assert cursor("beforeMCPExecution", tool_name="x") == ""
    assert cursor("stop", status="completed") == ""
    assert cursor("sessionEnd") == ""


def test_an_edit_event_after_the_fact_prints_nothing(
    lessons: dict[str, str], cursor: Callable[..., str], project: Path
) -> None:
    # afterFileEdit takes no answer from a hook.
    out = cursor(
        "afterFileEdit",
        file_path=str(project / "services/payments/refund.ts"),
        edits=[{"old_string": "a", "new_string": "b"}, "stray"],
    )
    assert out == ""
