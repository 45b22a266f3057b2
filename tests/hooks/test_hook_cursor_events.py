"""Cursor's hook events end to end: `cairn-hook cursor EVENT` as Cursor runs it, a process.

What Cursor reads back is `{"additional_context": ...}` on postToolUse (and sessionStart), a
deny on a gated beforeShellExecution, and nothing at all on the events and tools Cairn does
not watch; every case exits 0.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from cairn.usecases.install.command import launch


def _cursor(home: Path, project: Path, event: str, **fields: Any) -> str:
    data = {
        "conversation_id": "c-7f3a",
        "generation_id": "g-1",
        "workspace_roots": [str(project)],
        "hook_event_name": event,
        **fields,
    }
    done = subprocess.run(
        launch().hook_argv("cursor", event),
        input=json.dumps(data).encode(),
        capture_output=True,
        env={**os.environ, "CAIRN_HOME": str(home)},
        timeout=60,
        check=False,
        cwd=project,
    )
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    return done.stdout.decode()


def _context(out: str) -> str:
    return str(json.loads(out)["additional_context"])


def test_a_read_edit_and_write_after_the_call_carry_their_lessons(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    read = _cursor(
        home,
        project,
        "postToolUse",
        tool_name="Read",
        tool_input={"path": str(project / "packages/db/schema.prisma")},
    )
    assert "The schema in packages/db is generated" in _context(read)
    edit = _cursor(
        home,
        project,
        "postToolUse",
        tool_name="StrReplace",
        tool_input={"file_path": str(project / "services/payments/refund.ts"), "old_string": "x"},
    )
    assert "Refund changes need a finance review" in _context(edit)
    write = _cursor(
        home,
        project,
        "postToolUse",
        tool_name="Write",
        tool_input={"file_path": str(project / "db/migrations/0001_init.sql")},
    )
    assert "Migrations are append-only" in _context(write)


def test_before_a_call_cursor_gets_no_answer_without_a_gate(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    # A permission answer would skip the user's own approval: Cairn gives none.
    shell = {"tool_name": "Shell", "tool_input": {"command": "git push origin main"}}
    assert _cursor(home, project, "preToolUse", **shell) == ""
    assert _cursor(home, project, "beforeShellExecution", command="git push origin main") == ""


def test_a_gated_shell_command_is_denied_once_with_the_rule(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    import cairn

    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        ws.gate(lessons["shell"], True)
    first = json.loads(_cursor(home, project, "beforeShellExecution", command="git push"))
    assert first["permission"] == "deny"
    assert "Before a push, run make check" in first["agent_message"]
    assert first["user_message"].startswith("Cairn stopped this command once")
    # The same call again in the session passes.
    assert _cursor(home, project, "beforeShellExecution", command="git push") == ""


def test_tools_and_events_cairn_does_not_watch_get_nothing(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    web = {"tool_name": "WebSearch", "tool_input": {"query": "git push"}}
    assert _cursor(home, project, "postToolUse", **web) == ""
    assert _cursor(home, project, "beforeMCPExecution", tool_name="x") == ""
    assert _cursor(home, project, "stop", status="completed") == ""
    assert _cursor(home, project, "sessionEnd") == ""


def test_an_edit_event_after_the_fact_prints_nothing(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    # afterFileEdit takes no answer from a hook.
    out = _cursor(
        home,
        project,
        "afterFileEdit",
        file_path=str(project / "services/payments/refund.ts"),
        edits=[{"old_string": "a", "new_string": "b"}, "stray"],
    )
    assert out == ""
