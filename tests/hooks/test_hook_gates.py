"""Gates through the real hook entry: each agent's own deny form, once per session, fail open."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import cairn
from cairn.hooks.fastpath import session_of
from tests import backends as sqlite_only
from tests.hooks.conftest import payload

Hook = Callable[[str, str, bytes], tuple[int, str]]

# (agent, fixture, event as `cairn setup` registers it, the lesson the call matches)
DENIABLE = [
    ("claude-code", "PreToolUse", "PreToolUse", "shell"),
    ("claude-code", "PreToolUse-Read", "PreToolUse", "read"),
    ("claude-code", "PreToolUse-Edit", "PreToolUse", "edit"),
    ("codex", "PreToolUse", "PreToolUse", "rule"),
    ("codex", "PreToolUse-apply_patch", "PreToolUse", "edit"),
    ("gemini", "BeforeTool", "BeforeTool", "shell"),
    ("cursor", "beforeShellExecution", "beforeShellExecution", "shell"),
    ("opencode", "before", "before", "shell"),
]
IDS = [f"{a}-{f}" for a, f, _, _ in DENIABLE]
# What each lesson of the fixture store says (tests/hooks/conftest.py).
SAYS = {
    "shell": "Before a push, run make check",
    "read": "The schema in packages/db is generated",
    "edit": "Refund changes need a finance review",
    "rule": "Commit messages: single line, conventional prefix",
}
# Events where context goes to the model with the result: a gate there is an ordinary lesson.
AFTER = [
    ("claude-code", "PostToolUse", "PostToolUse", "shell"),
    ("codex", "PostToolUse", "PostToolUse", "rule"),
    ("gemini", "AfterTool", "AfterTool", "shell"),
    ("cursor", "postToolUse", "postToolUse", "shell"),
    ("opencode", "after", "after", "shell"),
]


@pytest.fixture
def gates(lessons: dict[str, str], home: Path, project: Path) -> dict[str, str]:
    """The fixture store's lessons and rule, each made a gate."""
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        for name in ("shell", "read", "edit", "migration", "rule"):
            ws.gate(lessons[name])
    return lessons


def deny_reason(agent: str, event: str, out: str) -> str:
    """The reason of the agent's own deny form, checked to be exactly that form."""
    if agent == "opencode":
        assert event == "before" and out and not out.startswith("{"), out
        return out
    data = json.loads(out)
    if agent in ("claude-code", "codex"):
        assert list(data) == ["hookSpecificOutput"], data
        inner = data["hookSpecificOutput"]
        assert list(inner) == ["hookEventName", "permissionDecision", "permissionDecisionReason"]
        assert inner["hookEventName"] == "PreToolUse"
        assert inner["permissionDecision"] == "deny"
        return str(inner["permissionDecisionReason"])
    if agent == "gemini":
        assert list(data) == ["decision", "reason"] and data["decision"] == "deny", data
        return str(data["reason"])
    assert agent == "cursor"
    assert list(data) == ["permission", "user_message", "agent_message"], data
    assert data["permission"] == "deny" and data["user_message"]
    return str(data["agent_message"])


@pytest.mark.parametrize(("agent", "fixture", "event", "lesson"), DENIABLE, ids=IDS)
def test_the_first_matching_call_is_denied_once_in_the_agent_s_own_form(
    hook: Hook,
    gates: dict[str, str],
    project: Path,
    agent: str,
    fixture: str,
    event: str,
    lesson: str,
) -> None:
    data = payload(agent, fixture, project)
    status, out = hook(agent, event, data)
    assert status == 0
    text = deny_reason(agent, event, out)
    assert gates[lesson] in text and SAYS[lesson] in text
    shell_call = lesson in ("shell", "rule")
    # What to do first, then to run the call again.
    again = "run the command again" if shell_call else "make this call again"
    assert text.index(SAYS[lesson]) < text.index(again)
    # Every later matching call of the session passes: no decision, no repeat of the gate.
    for _ in range(2):
        status, out = hook(agent, event, data)
        assert status == 0 and "deny" not in out and gates[lesson] not in out
    # A new session is stopped once again.
    session = session_of(data).encode()
    other = data.replace(session, session + b"-2")
    assert gates[lesson] in deny_reason(agent, event, hook(agent, event, other)[1])


@pytest.mark.parametrize(
    ("agent", "fixture", "event", "lesson"), AFTER, ids=[f"{a}-{f}" for a, f, _, _ in AFTER]
)
def test_after_the_call_a_gate_is_an_ordinary_lesson(
    hook: Hook,
    gates: dict[str, str],
    project: Path,
    agent: str,
    fixture: str,
    event: str,
    lesson: str,
) -> None:
    status, out = hook(agent, event, payload(agent, fixture, project))
    assert status == 0 and gates[lesson] in out
    assert "deny" not in out and "permission" not in out and "decision" not in out


def test_an_ungated_lesson_never_denies(hook: Hook, lessons: dict[str, str], project: Path) -> None:
    for agent, fixture, event, lesson in DENIABLE:
        status, out = hook(agent, event, payload(agent, fixture, project))
        assert status == 0 and "deny" not in out
        if agent in ("claude-code", "codex"):  # PreToolUse also carries context
            assert lessons[lesson] in out
        else:  # BeforeTool, beforeShellExecution and OpenCode's before take none
            assert out == ""


def test_gemini_s_retry_gets_its_lessons_after_the_call(
    hook: Hook, gates: dict[str, str], project: Path
) -> None:
    before, after = (
        payload("gemini", "BeforeTool", project),
        payload("gemini", "AfterTool", project),
    )
    assert gates["shell"] in deny_reason(
        "gemini", "BeforeTool", hook("gemini", "BeforeTool", before)[1]
    )
    assert hook("gemini", "BeforeTool", before) == (0, "")  # the retry passes
    assert hook("gemini", "AfterTool", after) == (0, "")  # the rule was the denial's reason


def test_the_retry_is_measured(
    hook: Hook, gates: dict[str, str], home: Path, project: Path
) -> None:
    data = payload("claude-code", "PreToolUse", project)
    hook("claude-code", "PreToolUse", data)
    hook(
        "claude-code",
        "PreToolUse",
        data.replace(b"git push origin", b"git push --force-with-lease origin"),
    )
    with cairn.open(home, project=project, cwd=project) as ws:
        from cairn.usecases.stats import stats

        (gate,) = stats(ws).gates
    assert (gate.ref, gate.denials, gate.retries, gate.differed) == (gates["shell"], 1, 1, 1)
    assert gate.by_agent == {"claude-code": 1}


def test_no_session_no_gate(hook: Hook, gates: dict[str, str], project: Path) -> None:
    data = payload("claude-code", "PreToolUse", project).replace(
        b'"session_id": "0b7e3c1a-5d2f-4c8e-9a61-3f2d8e7c1b40"', b'"session_id": ""'
    )
    status, out = hook("claude-code", "PreToolUse", data)
    assert status == 0 and "deny" not in out and gates["shell"] in out  # as a lesson


# -- fail open: every fault of the fault suite, with a gate waiting ----------------------------

JUNK = [
    b"",
    b"   ",
    b"not json at all",
    b"{",
    b"[1, 2, 3]",
    b"\xff\xfe\x00garbage",
    b'{"tool_name": 42, "tool_input": "git push"}',
    b'git push {"half": ',
    b"null",
]


@pytest.mark.parametrize(("agent", "fixture", "event", "lesson"), DENIABLE, ids=IDS)
@pytest.mark.parametrize("data", JUNK)
def test_junk_never_denies(
    hook: Hook,
    gates: dict[str, str],
    agent: str,
    fixture: str,
    event: str,
    lesson: str,
    data: bytes,
) -> None:
    assert hook(agent, event, data) == (0, "")


@pytest.mark.parametrize(("agent", "fixture", "event", "lesson"), DENIABLE, ids=IDS)
@sqlite_only.FILE
def test_a_corrupt_store_never_denies(
    hook: Hook,
    gates: dict[str, str],
    home: Path,
    project: Path,
    agent: str,
    fixture: str,
    event: str,
    lesson: str,
) -> None:
    for name in ("cairn.db-wal", "cairn.db-shm"):
        (home / name).unlink(missing_ok=True)
    (home / "cairn.db").write_bytes(b"this is not a database" * 100)
    assert hook(agent, event, payload(agent, fixture, project)) == (0, "")
    assert "StoreError" in (home / "hook-errors.log").read_text()


@pytest.mark.parametrize(("agent", "fixture", "event", "lesson"), DENIABLE, ids=IDS)
@sqlite_only.FILE
def test_a_missing_store_never_denies(
    hook: Hook,
    gates: dict[str, str],
    home: Path,
    project: Path,
    agent: str,
    fixture: str,
    event: str,
    lesson: str,
) -> None:
    for name in ("cairn.db", "cairn.db-wal", "cairn.db-shm"):
        (home / name).unlink(missing_ok=True)
    assert hook(agent, event, payload(agent, fixture, project)) == (0, "")
    assert not (home / "cairn.db").exists()


@pytest.mark.parametrize(("agent", "fixture", "event", "lesson"), DENIABLE, ids=IDS)
@sqlite_only.FILE
def test_a_locked_store_never_denies(
    hook: Hook,
    gates: dict[str, str],
    home: Path,
    project: Path,
    agent: str,
    fixture: str,
    event: str,
    lesson: str,
) -> None:
    holder = sqlite3.connect(home / "cairn.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        # The store reads but cannot take the gate's claim: no deny; the lesson may still ride
        # along unrecorded (the read-only/locked rule of `cairn.hooks.run`).
        status, out = hook(agent, event, payload(agent, fixture, project))
        assert status == 0 and "deny" not in out and "permission" not in out
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@sqlite_only.MIGRATIONS
def test_a_store_missing_the_gate_table_never_denies(
    hook: Hook, gates: dict[str, str], home: Path, project: Path
) -> None:
    conn = sqlite3.connect(home / "cairn.db")
    conn.execute("DROP TABLE gate_denials")
    conn.commit()
    conn.close()
    assert hook("claude-code", "PreToolUse", payload("claude-code", "PreToolUse", project)) == (
        0,
        "",
    )
    assert "gate_denials" in (home / "hook-errors.log").read_text()


@pytest.mark.parametrize(("agent", "fixture", "event", "lesson"), DENIABLE, ids=IDS)
def test_a_bug_in_the_core_never_denies(
    hook: Hook,
    gates: dict[str, str],
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    agent: str,
    fixture: str,
    event: str,
    lesson: str,
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug in the gate")

    monkeypatch.setattr("cairn.usecases.gates.reason", boom)
    assert hook(agent, event, payload(agent, fixture, project)) == (0, "")


@pytest.mark.parametrize(("agent", "fixture", "event", "lesson"), DENIABLE, ids=IDS)
def test_a_spent_budget_never_denies_and_spends_the_gate(
    hook: Hook,
    gates: dict[str, str],
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    agent: str,
    fixture: str,
    event: str,
    lesson: str,
) -> None:
    """The budget runs out after the claim was committed, before the deny was printed: the call
    runs, and the gate does not stop a later call of the session (it was recorded first)."""

    def slow(*args: object, **kwargs: object) -> str:
        time.sleep(10)
        return "never"

    monkeypatch.setattr("cairn.usecases.gates.reason", slow)
    monkeypatch.setenv("CAIRN_HOOK_BUDGET", "0.3")
    started = time.monotonic()
    data = payload(agent, fixture, project)
    assert hook(agent, event, data) == (0, "")
    assert time.monotonic() - started < 3
    monkeypatch.undo()
    status, out = hook(agent, event, data)
    assert status == 0 and "deny" not in out and gates[lesson] not in out


@pytest.mark.parametrize(
    ("agent", "event"),
    [
        ("nobody", "PreToolUse"),
        ("claude-code", "NoSuchEvent"),
        ("codex", ""),
        ("opencode", "later"),
    ],
)
def test_an_unknown_agent_or_event_never_denies(
    hook: Hook, gates: dict[str, str], project: Path, agent: str, event: str
) -> None:
    assert hook(agent, event, payload("claude-code", "PreToolUse", project)) == (0, "")


def test_hook_processes_at_once_deny_once(gates: dict[str, str], home: Path, project: Path) -> None:
    """Real hook processes started together on one session's call: one deny, the rest pass."""
    env = {**os.environ, "CAIRN_HOME": str(home), "CAIRN_HOOK_BUDGET": "20"}
    data = payload("claude-code", "PreToolUse", project)
    argv = [sys.executable, "-m", "cairn.hooks.entry", "claude-code", "PreToolUse"]
    procs = [
        subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        for _ in range(4)
    ]
    outs = [p.communicate(data, timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0]
    denials = [out for out, _ in outs if b'"deny"' in out]
    assert len(denials) == 1, outs
    assert not (home / "hook-errors.log").exists()
