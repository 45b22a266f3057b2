"""The hook under faults: every file it reads broken, its store's disk full, read-only or locked,
stdin never closed. It always returns by itself, exits 0, prints nothing but a lesson, and reads
no more than a bounded reader would; when only something beside the lesson is broken, the lesson
still rides along."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import cairn
from tests.faults.conftest import FAULTS, SESSION, Disk, locked, make_fault, run_hook
from tests.hooks.conftest import payload

PUSH = ("claude-code", "PreToolUse")


def _push(project: Path) -> bytes:
    return payload("claude-code", "PreToolUse", project)


def _gives(ran_stdout: bytes, ref: str) -> bool:
    out = json.loads(ran_stdout)
    return ref in out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_keys_file_falls_back_to_the_list(
    lessons: dict[str, str], home: Path, project: Path, fault: str
) -> None:
    make_fault(home / "triggers.keys", fault)
    ran = run_hook(home, *PUSH, _push(project))
    assert ran.bounded and ran.returncode == 0 and ran.stderr == b""
    assert _gives(ran.stdout, lessons["shell"])


@pytest.mark.parametrize("name", ["triggers.tsv", "triggers.keys"])
@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_trigger_list_is_answered_from_the_store(
    lessons: dict[str, str], home: Path, project: Path, fault: str, name: str
) -> None:
    # A list that cannot be read as a list is not trusted (cairn.io.triggerlist): the slow path
    # answers from the store, at once, and the lesson still arrives.
    make_fault(home / "triggers.tsv", fault)
    if name == "triggers.keys":
        make_fault(home / "triggers.keys", fault)
    ran = run_hook(home, *PUSH, _push(project))
    assert ran.bounded and ran.returncode == 0 and ran.stderr == b""
    assert _gives(ran.stdout, lessons["shell"])


@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_given_file_still_gives_the_lesson(
    lessons: dict[str, str], home: Path, project: Path, fault: str
) -> None:
    make_fault(home / "given" / SESSION, fault)
    ran = run_hook(home, *PUSH, _push(project))
    assert ran.bounded and ran.returncode == 0 and ran.stderr == b""
    assert _gives(ran.stdout, lessons["shell"])


@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_git_head_still_gives_the_lesson(
    lessons: dict[str, str], home: Path, project: Path, fault: str
) -> None:
    make_fault(project / ".git" / "HEAD", fault)
    ran = run_hook(home, *PUSH, _push(project))
    assert ran.bounded and ran.returncode == 0 and ran.stderr == b""
    assert _gives(ran.stdout, lessons["shell"])


@pytest.mark.parametrize("log", ["hook-timing.log", "hook-errors.log"])
@pytest.mark.parametrize("fault", ["fifo", "device", "dangling", "folder"])
def test_a_broken_log_never_holds_the_hook(
    lessons: dict[str, str], home: Path, project: Path, fault: str, log: str
) -> None:
    # A FIFO with no reader made `open(log, "a")` wait forever, after the budget's end.
    make_fault(home / log, fault)
    ran = run_hook(home, *PUSH, _push(project))
    assert ran.bounded and ran.returncode == 0 and ran.stderr == b""
    assert _gives(ran.stdout, lessons["shell"])
    junk = run_hook(home, "claude-code", "SessionStart", b"{not json")  # logs an error
    assert junk.bounded and (junk.returncode, junk.stdout, junk.stderr) == (0, b"", b"")


@pytest.fixture
def cited(home: Path, project: Path) -> str:
    """A lesson citing lines of a file in a git project: it rides on that file's edits."""
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    source = project / "services" / "payments" / "refunds.ts"
    source.parent.mkdir(parents=True)
    source.write_text("const MAX_RETRIES = 5;\nexport function refund() {}\n")
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        return ws.remember(
            "Refund retries are capped by the bank's API",
            kind="lesson",
            source_ref="services/payments/refunds.ts:1-2",
        ).ref


@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_cited_file_still_gives_the_lesson(
    cited: str, home: Path, project: Path, fault: str
) -> None:
    make_fault(project / "services" / "payments" / "refunds.ts", fault)
    ran = run_hook(
        home, "claude-code", "PreToolUse", payload("claude-code", "PreToolUse-Edit", project)
    )
    assert ran.bounded and ran.returncode == 0 and ran.stderr == b""
    assert _gives(ran.stdout, cited)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_transcript_still_ends_the_session(
    lessons: dict[str, str], home: Path, project: Path, tmp_path: Path, fault: str
) -> None:
    transcript = tmp_path / "transcript.jsonl"
    make_fault(transcript, fault)
    data = json.loads(payload("claude-code", "Stop", project))
    data["transcript_path"] = str(transcript)
    ran = run_hook(home, "claude-code", "Stop", json.dumps(data).encode())
    assert ran.bounded and (ran.returncode, ran.stdout, ran.stderr) == (0, b"", b"")
    with sqlite3.connect(home / "cairn.db") as conn:
        ended = conn.execute("SELECT ended FROM sessions WHERE id = ?", (SESSION,)).fetchone()
    assert ended is not None and ended[0]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_store_file_answers_nothing(
    lessons: dict[str, str], home: Path, project: Path, fault: str
) -> None:
    for name in ("cairn.db-wal", "cairn.db-shm"):
        (home / name).unlink(missing_ok=True)
    make_fault(home / "cairn.db", fault)
    for event, data in (("PreToolUse", _push(project)), ("SessionStart", b'{"cwd": "/"}')):
        ran = run_hook(home, "claude-code", event, data)
        assert ran.bounded and (ran.returncode, ran.stdout, ran.stderr) == (0, b"", b"")


def test_stdin_never_closed_ends_with_the_budget(lessons: dict[str, str], home: Path) -> None:
    # The budget starts before stdin is read: a writer that never closes it cannot hold the
    # hook (it used to wait for ever).
    ran = run_hook(home, *PUSH, b"", hold_stdin=True)
    assert ran.bounded and (ran.returncode, ran.stdout, ran.stderr) == (0, b"", b"")
    assert "BudgetSpent" in (home / "hook-errors.log").read_text()


def test_a_payload_over_the_bound_is_not_read(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    data = _push(project).replace(b'"Push the branch"', b'"' + b"x" * (20 << 20) + b'"')
    ran = run_hook(home, *PUSH, data)
    assert ran.bounded and (ran.returncode, ran.stdout, ran.stderr) == (0, b"", b"")
    assert "payload over" in (home / "hook-errors.log").read_text()


def test_an_empty_store_file_is_not_made_a_store(home: Path, project: Path) -> None:
    # A zero-length cairn.db (an interrupted `cairn init`, a truncated copy) is no store: the
    # hook used to run every migration on it.
    home.mkdir()
    (home / "cairn.db").write_bytes(b"")
    ran = run_hook(
        home, "claude-code", "SessionStart", payload("claude-code", "SessionStart", project)
    )
    assert (ran.returncode, ran.stdout) == (0, b"")
    assert (home / "cairn.db").stat().st_size == 0


def test_the_hook_never_creates_the_workspace_folder_to_log(home: Path, project: Path) -> None:
    assert not home.exists()
    data = payload("claude-code", "SessionStart", project)
    ran = run_hook(home, "claude-code", "SessionStart", data)  # no store: an error, logged
    assert (ran.returncode, ran.stdout) == (0, b"")
    assert not home.exists()


def test_the_error_log_rotates(lessons: dict[str, str], home: Path) -> None:
    log = home / "hook-errors.log"
    log.write_text("an old error line\n" * 70_000)  # past the 1 MB bound
    ran = run_hook(home, "claude-code", "SessionStart", b"{not json")
    assert (ran.returncode, ran.stdout) == (0, b"")
    assert (home / "hook-errors.log.1").stat().st_size > 1_000_000
    assert not log.exists() or log.stat().st_size < 1000


def test_a_number_of_5001_digits_does_not_drop_the_call(
    hook,  # type: ignore[no-untyped-def]
    lessons: dict[str, str],
    project: Path,
) -> None:
    data = json.loads(_push(project))
    data["tool_input"]["timeout"] = int("9" * 4000)  # json.dumps writes it; we add a digit
    text = json.dumps(data).replace("9" * 4000, "9" * 5001)
    status, out = hook("claude-code", "PreToolUse", text.encode())
    assert status == 0 and lessons["shell"] in out


def test_a_full_disk_still_gives_the_lesson(disk: Disk, project: Path) -> None:
    home = disk.path / "home"
    _store_with_a_lesson(home, project)
    disk.fill()
    ran = run_hook(home, *PUSH, _push(project))
    assert ran.bounded and ran.returncode == 0 and ran.stderr == b""
    assert _gives(ran.stdout, "m-")


def test_a_read_only_home_still_gives_the_lesson(disk: Disk, project: Path) -> None:
    home = disk.path / "home"
    ref = _store_with_a_lesson(home, project)
    disk.read_only()
    ran = run_hook(home, *PUSH, _push(project))
    assert ran.bounded and ran.returncode == 0 and ran.stderr == b""
    assert _gives(ran.stdout, ref)


def test_a_locked_store_still_gives_the_lesson_in_its_own_process(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    with locked(home / "cairn.db"):
        ran = run_hook(home, *PUSH, _push(project))
    assert ran.bounded and ran.returncode == 0 and ran.stderr == b""
    assert _gives(ran.stdout, lessons["shell"])


def _store_with_a_lesson(home: Path, project: Path) -> str:
    (project / ".git").mkdir(exist_ok=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        return ws.remember(
            "Before a push, run make check", when={"tool": "shell", "match": "git push"}
        ).ref
