"""The hook's own limits: a payload too large to read, and a time budget it cannot parse."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cairn.hooks.entry import MAX_PAYLOAD_BYTES
from tests.hooks.conftest import context_of, payload


def test_a_payload_over_the_limit_is_not_read_and_the_call_goes_on(
    lessons: dict[str, str],
    hook: Callable[..., tuple[int, str]],
    home: Path,
    project: Path,
) -> None:
    data = payload("claude-code", "PreToolUse", project)
    huge = data[:-1].rstrip()[:-1] + b', "padding": "' + b"x" * MAX_PAYLOAD_BYTES + b'"}}'
    status, out = hook("claude-code", "PreToolUse", huge)
    assert (status, out) == (0, "")  # the agent's call goes on, with nothing added
    log = (home / "hook-errors.log").read_text(encoding="utf-8")
    assert f"ValueError: payload over {MAX_PAYLOAD_BYTES} bytes: not read" in log
    # A payload within the limit is read as ever.
    status, out = hook("claude-code", "PreToolUse", data)
    assert status == 0 and "run make check" in context_of("claude-code", out)


@pytest.mark.parametrize("budget", ["soon", "-1", "99999"])
def test_a_budget_it_cannot_use_is_the_default(
    lessons: dict[str, str],
    hook: Callable[..., tuple[int, str]],
    project: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    budget: str,
) -> None:
    monkeypatch.setenv("CAIRN_HOOK_BUDGET", budget)
    status, out = hook("claude-code", "PreToolUse", payload("claude-code", "PreToolUse", project))
    assert status == 0 and "run make check" in context_of("claude-code", out)
    assert not (home / "hook-errors.log").exists()
