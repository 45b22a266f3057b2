"""log_mission_progress: records labelled with the branch, the brief built from them, `used`
counted as cited, and refusals that write nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import cairn
from cairn.api import Cairn
from cairn.cli import cli
from cairn.usecases.progress import MAX_CHARS, check_status, log_mission_progress


def log(ws: Cairn, goal: str, step: str, status: str, used: tuple[str, ...] = ()) -> dict:  # type: ignore[type-arg]
    return log_mission_progress(ws.store, ws.ctx, goal, step, status, used)


def test_a_record_is_labelled_with_project_branch_tool_and_session(
    open_ws: Callable[..., Cairn],
) -> None:
    ws = open_ws(branch="feat/login")
    out = log(ws, "Ship the login page", "write the form", "in_progress")
    assert out["branch"] == "feat/login" and out["pid"].startswith("p-")
    [record] = ws.store.progress(ws.ctx.project, "feat/login")
    assert (record.pid, record.project, record.branch) == (out["pid"], ws.ctx.project, "feat/login")
    assert (record.goal, record.step, record.status) == (
        "Ship the login page",
        "write the form",
        "in_progress",
    )
    assert (record.tool, record.session) == ("claude-code", "s1")
    assert ws.store.progress(ws.ctx.project, "main") == []


def test_the_brief_takes_goal_open_and_done_from_the_branch_records(
    open_ws: Callable[..., Cairn],
) -> None:
    ws = open_ws(branch="feat/login")
    other = open_ws(branch="main")
    log(other, "Release 2.0", "tag the release", "open")
    log(ws, "Ship the login page", "write the form", "in_progress")
    log(ws, "Ship the login page", "add the rate limit", "open")
    log(ws, "Ship the login page", "review the copy", "blocked")
    out = log(ws, "Ship the login page", "write the form", "done")
    brief = out["brief"]
    assert brief["goal"] == "Ship the login page"
    assert brief["open"] == ["add the rate limit", "review the copy"]
    assert brief["done"] == ["write the form"]
    assert "tag the release" not in brief["open"]
    assert brief["last_steps"][-1] == "write the form (done)"


def test_recall_what_is_open_puts_the_branch_brief_first(open_ws: Callable[..., Cairn]) -> None:
    ws = open_ws(branch="feat/login")
    log(ws, "Ship the login page", "add the rate limit", "open")
    first = ws.recall("what is open").hits[0]
    assert first.kind == "brief" and first.ref == "branch:feat/login"
    assert "goal: Ship the login page" in first.line and "add the rate limit" in first.line


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("open", "open"),
        ("In-Progress", "in_progress"),
        ("in progress", "in_progress"),
        ("IN_PROGRESS", "in_progress"),
        (" Blocked ", "blocked"),
        ("DONE", "done"),
        ("completed", "done"),
        ("todo", "open"),
        ("wip", "in_progress"),
    ],
)
def test_status_is_read_leniently(given: str, stored: str) -> None:
    assert check_status(given) == stored


def test_used_refs_count_as_cited_and_unknown_ones_come_back(
    open_ws: Callable[..., Cairn],
) -> None:
    writer = open_ws(tool="codex", session="s0")
    ref = writer.remember("Login forms post to /api/session").ref
    ws = open_ws(branch="feat/login")
    out = log(ws, "Ship the login page", "write the form", "done", (ref, "m-000000", ref))
    assert out["cited"] == [ref] and out["unknown_used"] == ["m-000000"]
    view = ws.get_memory(ref)["memories"][0]
    assert view["cited"]["count"] == 1
    assert view["evidence"]["cited"]["tools"] == ["claude-code"]
    assert len(ws.store.progress(ws.ctx.project, "feat/login")) == 1


@pytest.mark.parametrize(
    ("goal", "step", "status", "error", "words"),
    [
        ("", "write the form", "open", cairn.EmptySentenceError, "goal is empty"),
        ("Ship login", "  \n ", "open", cairn.EmptySentenceError, "step is empty"),
        ("g" * (MAX_CHARS + 1), "write", "open", cairn.SentenceTooLongError, "501 characters"),
        ("Ship login", "s" * (MAX_CHARS + 1), "open", cairn.SentenceTooLongError, "step is 501"),
        ("Ship login", "write the form", "almost", cairn.RefusedError, "unknown status 'almost'"),
        ("Ship login", "write the form", "", cairn.RefusedError, "in_progress"),
        (
            "Ship login",
            "use ghp_abcdefghijklmnopqrstuvwxyz0123456789 to push",
            "open",
            cairn.SecretError,
            "the step looks like",
        ),
    ],
)
def test_refusals_write_nothing(
    open_ws: Callable[..., Cairn],
    goal: str,
    step: str,
    status: str,
    error: type[Exception],
    words: str,
) -> None:
    ws = open_ws(branch="feat/login")
    ref = ws.remember("Login forms post to /api/session").ref
    with pytest.raises(error, match=words):
        log(ws, goal, step, status, (ref,))
    assert ws.store.progress(ws.ctx.project) == []
    assert ws.get_memory(ref)["memories"][0]["cited"]["count"] == 0


def test_a_goal_of_exactly_the_limit_is_kept(open_ws: Callable[..., Cairn]) -> None:
    ws = open_ws(branch="feat/login")
    assert log(ws, "g" * MAX_CHARS, "write   the\nform", "open")["step"] == "write the form"


def test_each_record_gets_its_own_pid(open_ws: Callable[..., Cairn]) -> None:
    ws = open_ws(branch="feat/login")
    pids = {log(ws, "Ship login", f"step {i}", "open")["pid"] for i in range(50)}
    assert len(pids) == 50


# -- `cairn progress` ---------------------------------------------------------------------------


def run_cli(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_progress_json_prints_the_record_and_the_brief(
    home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    ref = json.loads(run_cli("remember", "Login forms post to /api/session", "--json").stdout)[
        "ref"
    ]
    result = run_cli(
        "progress",
        "Ship login",
        "write the form",
        "--status",
        "DONE",
        "--used",
        ref,
        "--used",
        "m-000000",
        "--json",
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["goal"], out["step"], out["status"]) == ("Ship login", "write the form", "done")
    assert out["cited"] == [ref] and out["unknown_used"] == ["m-000000"]
    assert out["brief"]["done"] == ["write the form"]


def test_cli_progress_human_output_and_default_status(
    home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    result = run_cli("progress", "Ship login", "add the rate limit")
    assert result.exit_code == 0, result.output
    assert "logged add the rate limit in_progress" in result.stdout
    assert "open add the rate limit" in " ".join(result.stdout.split())


def test_cli_progress_refusal_is_one_line_and_an_exit_code(
    home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    result = run_cli("progress", "Ship login", "write the form", "--status", "maybe")
    assert result.exit_code == cairn.RefusedError.exit_code
    assert result.stderr.strip() == (
        "cairn: refused: unknown status 'maybe'; use one of open, in_progress, blocked, done"
    )
