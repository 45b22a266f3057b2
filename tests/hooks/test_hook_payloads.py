"""Recorded payloads of every agent and event, replayed through the real hook entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.hooks.fastpath import session_of
from cairn.usecases.install import claude, codex, cursor, gemini
from tests import backends as sqlite_only
from tests.hooks.conftest import FIXTURES, context_of, payload

# (agent, fixture, event argument as `cairn setup` registers it, lesson expected or None)
CASES = [
    ("claude-code", "PreToolUse", "PreToolUse", "shell"),
    ("claude-code", "PreToolUse-Read", "PreToolUse", "read"),
    ("claude-code", "PreToolUse-Edit", "PreToolUse", "edit"),
    ("claude-code", "PreToolUse-Write", "PreToolUse", "migration"),
    ("claude-code", "PostToolUse", "PostToolUse", "shell"),
    ("claude-code", "PostToolUseFailure", "PostToolUseFailure", "shell"),
    ("codex", "PreToolUse", "PreToolUse", "rule"),
    ("codex", "PreToolUse-apply_patch", "PreToolUse", "edit"),
    ("codex", "PostToolUse", "PostToolUse", "rule"),
    ("gemini", "AfterTool", "AfterTool", "shell"),
    ("gemini", "AfterTool-read_file", "AfterTool", "read"),
    ("gemini", "AfterTool-replace", "AfterTool", "edit"),
    ("cursor", "postToolUse", "postToolUse", "shell"),
    ("opencode", "after", "after", "shell"),
    ("opencode", "after-read", "after", "read"),
    ("opencode", "after-edit", "after", "edit"),
]


@pytest.mark.parametrize(
    ("agent", "fixture", "event", "expected"), CASES, ids=[f"{a}-{f}" for a, f, _, _ in CASES]
)
def test_a_matching_call_gets_its_lesson(
    hook,
    lessons,
    project: Path,
    agent: str,  # type: ignore[no-untyped-def]
    fixture: str,
    event: str,
    expected: str,
) -> None:
    status, out = hook(agent, event, payload(agent, fixture, project))
    assert status == 0
    text = context_of(agent, out)
    assert lessons[expected] in text
    assert lessons["fact"] not in text
    if agent != "opencode":
        name = json.loads(out).get("hookSpecificOutput", {}).get("hookEventName")
        assert name in (None, event)


@pytest.mark.parametrize(
    ("agent", "fixture", "event"),
    [
        ("gemini", "BeforeTool", "BeforeTool"),  # context is ignored there: say nothing
        ("cursor", "beforeShellExecution", "beforeShellExecution"),  # never a permission answer
        ("cursor", "beforeReadFile", "beforeReadFile"),
        ("cursor", "afterFileEdit", "afterFileEdit"),
        ("claude-code", "Stop", "Stop"),
    ],
)
def test_events_that_take_no_context_print_nothing(
    hook,
    lessons,
    project: Path,
    agent: str,  # type: ignore[no-untyped-def]
    fixture: str,
    event: str,
) -> None:
    assert hook(agent, event, payload(agent, fixture, project)) == (0, "")


@pytest.mark.parametrize(
    ("agent", "fixture", "event"),
    [
        ("claude-code", "SessionStart", "SessionStart"),
        ("codex", "SessionStart", "SessionStart"),
        ("gemini", "SessionStart", "SessionStart"),
        ("cursor", "sessionStart", "sessionStart"),
        ("opencode", "start", "start"),
    ],
)
def test_session_start_gets_the_brief(
    hook,
    lessons,
    project: Path,
    agent: str,  # type: ignore[no-untyped-def]
    fixture: str,
    event: str,
) -> None:
    status, out = hook(agent, event, payload(agent, fixture, project))
    text = context_of(agent, out)
    assert status == 0
    assert lessons["fact"] in text and "branch feature/refunds" in text
    assert lessons["shell"] not in text  # lessons arrive on the action, not in the brief


def test_each_lesson_fires_once_per_session(hook, lessons, project: Path) -> None:  # type: ignore[no-untyped-def]
    data = payload("claude-code", "PreToolUse", project)
    assert lessons["shell"] in hook("claude-code", "PreToolUse", data)[1]
    assert hook("claude-code", "PreToolUse", data) == (0, "")
    other = data.replace(b"0b7e3c1a-5d2f", b"11111111-5d2f")
    assert lessons["shell"] in hook("claude-code", "PreToolUse", other)[1]


def test_a_call_that_cannot_match_prints_nothing(hook, lessons, project: Path) -> None:  # type: ignore[no-untyped-def]
    data = payload("claude-code", "PreToolUse", project).replace(b"git push", b"ls -la")
    assert hook("claude-code", "PreToolUse", data) == (0, "")


# Keys of each agent's hook output that would allow, deny or ask for a call, stop the agent, or
# change the call or its result (shared/reference/agent-hooks.md, and each agent's hook docs).
DECIDING_KEYS = {
    "claude-code": {
        "continue",
        "stopReason",
        "decision",
        "reason",
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
        "updatedMCPToolOutput",
        "updatedPermissions",
        "behavior",
        "interrupt",
    },
    "codex": {
        "continue",
        "stopReason",
        "decision",
        "reason",
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
    },
    "gemini": {
        "continue",
        "stopReason",
        "decision",
        "reason",
        "tool_input",
        "llm_request",
        "llm_response",
        "toolConfig",
    },
    "cursor": {
        "continue",
        "permission",
        "user_message",
        "agent_message",
        "userMessage",
        "agentMessage",
        "decision",
        "reason",
        "updated_input",
        "followup_message",
    },
    "opencode": {"args"},  # the plugin only appends text; changing `output.args` changes the call
}
# All the hook ever writes: the context, in the shape each agent takes it.
CONTEXT_KEYS = {"hookSpecificOutput", "hookEventName", "additionalContext", "additional_context"}
# The events `cairn setup` registers (OpenCode's plugin: `before`, `after` and `start`), and
# each fixture's own event: every output path of every agent.
EVENTS = {
    "claude-code": set(claude.EVENTS),
    "codex": set(codex.EVENTS),
    "gemini": set(gemini.EVENTS),
    "cursor": set(cursor.EVENTS),
    "opencode": {"before", "after", "start"},
}
# The one decision Cairn ever makes, and only for an opt-in gate: each agent's own deny form
# (cairn.hooks.*.deny). Never an allow or an ask, never a changed call, never a stop.
DENY_KEYS = {
    "claude-code": {
        "hookSpecificOutput",
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
    },
    "codex": {
        "hookSpecificOutput",
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
    },
    "gemini": {"decision", "reason"},
    "cursor": {"permission", "user_message", "agent_message"},
    "opencode": set(),  # plain text on `before`, which the plugin throws
}
RECORDED = sorted(
    (agent.name, fixture.stem)
    for agent in FIXTURES.iterdir()
    if agent.is_dir()
    for fixture in agent.glob("*.json")
)


def _keys(value: object) -> set[str]:
    """Every key of every object, at any depth."""
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


def _printed_keys(agent: str, out: str) -> set[str]:
    """The keys of what the hook printed; OpenCode's plugin takes plain text."""
    if not out:
        return set()
    try:
        return _keys(json.loads(out))
    except ValueError:
        assert agent == "opencode", out  # every other agent is answered in JSON
        return set()


@pytest.mark.parametrize(("agent", "fixture"), RECORDED, ids=[f"{a}-{f}" for a, f in RECORDED])
def test_an_ordinary_lesson_never_decides_stops_or_changes_a_call(
    hook,
    lessons,
    project: Path,
    agent: str,  # type: ignore[no-untyped-def]
    fixture: str,
) -> None:
    data = payload(agent, fixture, project)
    session = session_of(data).encode()
    assert session
    own = fixture.split("-")[0]
    printed = []
    for n, event in enumerate([own, *sorted(EVENTS[agent] - {own})]):
        # A new session for each event, so that lessons given once per session fire again.
        status, out = hook(agent, event, data.replace(session, session + b"-%d" % n))
        assert status == 0
        keys = _printed_keys(agent, out)
        deciding = set().union(*DECIDING_KEYS.values())
        assert not keys & deciding, (event, keys & deciding)
        assert keys <= CONTEXT_KEYS, (event, keys - CONTEXT_KEYS)
        printed.append(out)
    # The lessons fired (and a new session got its brief): the outputs checked are real ones.
    expected = {f: lesson for a, f, _, lesson in CASES if a == agent}
    if fixture in expected:
        assert lessons[expected[fixture]] in printed[0]
    if agent == "opencode":
        assert printed[[own, *sorted(EVENTS[agent] - {own})].index("before")] == ""


def _deny_values(value: object) -> list[object]:
    """Every value under a deciding key, at any depth."""
    deciding = {"permissionDecision", "decision", "permission", "behavior"}
    if isinstance(value, dict):
        own = [v for k, v in value.items() if k in deciding]
        return own + [x for v in value.values() for x in _deny_values(v)]
    if isinstance(value, list):
        return [x for v in value for x in _deny_values(v)]
    return []


@pytest.mark.parametrize(("agent", "fixture"), RECORDED, ids=[f"{a}-{f}" for a, f in RECORDED])
def test_only_a_gate_decides_and_only_with_a_deny(
    hook,
    lessons,
    home: Path,
    project: Path,
    agent: str,  # type: ignore[no-untyped-def]
    fixture: str,
) -> None:
    """Every payload x every event, with every lesson and rule a gate: what is printed is
    context or the agent's own deny, never an allow, an ask, a changed call or a stop."""
    import cairn

    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        for name in ("shell", "read", "edit", "migration", "rule"):
            ws.gate(lessons[name])
    data = payload(agent, fixture, project)
    session = session_of(data).encode()
    own = fixture.split("-")[0]
    denied = 0
    for n, event in enumerate([own, *sorted(EVENTS[agent] - {own})]):
        status, out = hook(agent, event, data.replace(session, session + b"-%d" % n))
        assert status == 0
        keys = _printed_keys(agent, out)
        assert keys <= CONTEXT_KEYS | DENY_KEYS[agent], (event, keys)
        values = _deny_values(json.loads(out)) if keys else []
        assert all(v == "deny" for v in values), (event, values)
        assert not ({"permissionDecision", "decision", "permission"} & keys) or (
            not keys & {"additionalContext", "additional_context"}
        ), (event, keys)  # a deny carries no context beside it
        denied += bool(values) or (agent == "opencode" and event == "before" and bool(out))
        assert not (agent == "opencode" and event != "before" and out and "Before this call" in out)
    before = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
    if fixture.split("-")[0] == before.get(agent) or (agent, fixture) in (
        ("cursor", "beforeShellExecution"),
        ("opencode", "before"),
    ):
        assert denied, (agent, fixture)  # its own event denied: the checks saw a real deny


def test_an_empty_store_gives_no_brief(hook, home: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    import cairn

    cairn.open(home, project=project).close()
    assert hook("claude-code", "SessionStart", payload("claude-code", "SessionStart", project)) == (
        0,
        "",
    )


@sqlite_only.FILE
def test_the_tool_s_output_does_not_trigger_a_lesson(
    hook,
    lessons,
    project: Path,  # type: ignore[no-untyped-def]
    home: Path,
) -> None:
    data = payload("gemini", "AfterTool", project)
    data = data.replace(b'"command": "git push origin feature/refunds"', b'"command": "ls"')
    assert b"git push" in data  # still in the tool's output
    (home / "cairn.db").rename(home / "moved.db")  # the store must not even be opened
    assert hook("gemini", "AfterTool", data) == (0, "")
    assert not (home / "hook-errors.log").exists()


@pytest.mark.parametrize(
    ("agent", "fixture", "session"),
    [
        ("claude-code", "PreToolUse", "0b7e3c1a-5d2f-4c8e-9a61-3f2d8e7c1b40"),
        ("codex", "PreToolUse", "019a4f3e-7c21-7d90-b5e4-2f8a61c0d3e9"),
        ("gemini", "AfterTool", "5f1c2a9e-8b3d-4e7f-a0c6-d19b2e4f7a31"),
        ("cursor", "postToolUse", "c-7f3a"),
        ("opencode", "after", "ses_5f1c2a9e"),
    ],
)
def test_the_session_id_is_read_from_raw_bytes(
    agent: str, fixture: str, session: str, project: Path
) -> None:

    assert session_of(payload(agent, fixture, project)) == session


@sqlite_only.FILE
def test_a_lesson_already_given_skips_the_store(
    hook,
    lessons,
    project: Path,  # type: ignore[no-untyped-def]
    home: Path,
) -> None:
    data = payload("claude-code", "PreToolUse", project)
    assert lessons["shell"] in hook("claude-code", "PreToolUse", data)[1]
    (home / "cairn.db").rename(home / "moved.db")  # the second call must not need the store
    assert hook("claude-code", "PreToolUse", data) == (0, "")
    assert not (home / "hook-errors.log").exists()


@sqlite_only.FILE
def test_the_keys_file_decides_first(hook, lessons, project: Path, home: Path) -> None:  # type: ignore[no-untyped-def]
    generation, *keys = (home / "triggers.keys").read_text().split()
    assert generation.startswith("#gen:")
    # One key per trigger-list line; the commit rule has three: `git commit`, `hub commit`
    # and a git alias of commit.
    assert len(keys) == 7 and keys.count("w:commit") == 2 and "a:commit" in keys
    # A list whose line would always be a candidate, and no store: reading the list would
    # send this call down the slow path, which would fail and log.
    (home / "triggers.tsv").write_text(f"shell\t{lessons['shell']}\t*\t*\t\t\n")
    (home / "cairn.db").rename(home / "moved.db")
    data = payload("claude-code", "PreToolUse", project).replace(b"git push", b"ls -la")
    data = data.replace(b"Push the branch", b"List the files")
    assert hook("claude-code", "PreToolUse", data) == (0, "")
    assert not (home / "hook-errors.log").exists()
    # Without the keys file and without a store, nothing can fire: still no slow path.
    (home / "triggers.keys").unlink()
    assert hook("claude-code", "PreToolUse", data) == (0, "")
    assert not (home / "hook-errors.log").exists()
    # With the store back, a missing list sends the call to the slow path, which writes the
    # list again from the store.
    (home / "triggers.tsv").unlink()
    (home / "moved.db").rename(home / "cairn.db")
    assert hook("claude-code", "PreToolUse", data) == (0, "")
    assert (home / "triggers.keys").read_text().split()[1:] == keys
    assert not (home / "hook-errors.log").exists()


def test_the_timing_log_says_how_each_call_was_answered(
    hook, lessons, project: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    from cairn.usecases.stats import read_timing

    data = payload("claude-code", "PreToolUse", project)
    assert hook("claude-code", "PreToolUse", data.replace(b"git push", b"ls -la")) == (0, "")
    assert lessons["shell"] in hook("claude-code", "PreToolUse", data)[1]
    assert [(c.via, c.fired) for c in read_timing(home)] == [("prefilter", 0), ("process", 1)]
