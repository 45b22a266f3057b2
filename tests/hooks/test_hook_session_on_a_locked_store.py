"""A session's start and end while another process holds the store's write lock: the start still
prints the brief (the session row is logged as not written), the end prints nothing; both exit
0 and leave the failure in the hook's error log."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests import backends as sqlite_only
from tests.faults.conftest import locked
from tests.hooks.conftest import payload


def _errors(home: Path) -> str:
    log = home / "hook-errors.log"
    return log.read_text(encoding="utf-8") if log.exists() else ""


@sqlite_only.FILE
def test_a_session_start_on_a_locked_store_still_gives_the_brief(
    lessons: dict[str, str], home: Path, project: Path, hook: Callable[..., tuple[int, str]]
) -> None:
    with locked(home / "cairn.db"):
        status, out = hook(
            "claude-code", "SessionStart", payload("claude-code", "SessionStart", project)
        )
    assert status == 0
    assert "The payments service is written in TypeScript" in out
    assert "claude-code sessionstart StoreError: " in _errors(home)


@sqlite_only.FILE
def test_a_session_end_on_a_locked_store_prints_nothing_and_logs_why(
    lessons: dict[str, str], home: Path, project: Path, hook: Callable[..., tuple[int, str]]
) -> None:
    with locked(home / "cairn.db"):
        status, out = hook("claude-code", "Stop", payload("claude-code", "Stop", project))
    assert (status, out) == (0, "")
    assert "claude-code Stop StoreError: " in _errors(home)


@sqlite_only.FILE
def test_a_second_start_of_a_session_on_a_locked_store_gives_the_brief_unrecorded(
    lessons: dict[str, str], home: Path, project: Path, hook: Callable[..., tuple[int, str]]
) -> None:
    start = payload("claude-code", "SessionStart", project)
    status, first = hook("claude-code", "SessionStart", start)
    assert status == 0 and lessons["fact"] in first
    # The session's row is already there, unchanged: only the brief's offers need a write.
    with locked(home / "cairn.db"):
        status, again = hook("claude-code", "SessionStart", start)
    assert status == 0
    assert "The payments service is written in TypeScript" in again
    assert "claude-code sessionstart StoreError: " in _errors(home)
