"""Sessions named by the CLI (`--session`) and the Python API (`cairn.open(session=)`) are
recorded when they first write or cite, so merges, reverts and discards judge what they cited."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from learn_git import Lab, hours
from tests.conftest import search

from cairn.api import Cairn
from cairn.cli import cli


@pytest.fixture
def run(lab: Lab, home: Path, project: Path):  # type: ignore[no-untyped-def]
    runner = CliRunner()

    def _run(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli, ["--project", str(project), *args], catch_exceptions=False)
        assert result.exit_code == code, (result.output, result.stderr)
        return result.stdout if code == 0 else result.stderr

    return _run


def test_a_cli_session_that_cites_is_judged_by_a_merge_by_hand(lab: Lab, run) -> None:  # type: ignore[no-untyped-def]
    ref = lab.ws.remember("Invoices are numbered per tenant").ref
    lab.repo.git("switch", "-q", "-c", "feat/invoices")
    lab.clock.moment = hours(1)

    run("--session", "s1", "remember", "Invoice numbers never repeat", "--used", ref)

    row = lab.ws.store.get_session("s1")
    assert row is not None
    assert (row.tool, row.branch, row.started) == ("cli", "feat/invoices", lab.ws.ctx.now())
    merged = json.loads(run("review", "merge", "feat/invoices", "--json"))
    assert (merged["sessions"], merged["memories"]) == (["s1"], [ref])
    view = lab.view(ref)
    assert view["evidence"]["confirmed"]["count"] == 1


def test_a_cli_session_is_confirmed_when_git_merges_its_branch(lab: Lab, run) -> None:  # type: ignore[no-untyped-def]
    ref = lab.ws.remember("Exports are written as CSV with a header row").ref
    lab.repo.git("switch", "-q", "-c", "feat/export")
    lab.clock.moment = hours(1)
    run(
        "--session", "s1", "--tool", "codex", "remember", "Exports quote every field", "--used", ref
    )
    lab.repo.commit("export.py", "csv\n", hours(1.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge export", "feat/export", at=hours(2))
    lab.clock.moment = hours(24)

    learned = json.loads(run("learn", "--json"))

    assert [(a["act"], a["branch"], a["sessions"], a["memories"]) for a in learned["acts"]] == [
        ("merge", "feat/export", ["s1"], [ref])
    ]
    assert lab.counts(ref)["merge"] == 1


def test_a_python_api_session_that_cites_is_confirmed_by_a_git_merge(
    lab: Lab, open_ws: Callable[..., Cairn]
) -> None:
    ref = lab.ws.remember("Webhooks retry with exponential backoff").ref
    lab.repo.git("switch", "-q", "-c", "feat/hooks")
    lab.clock.moment = hours(1)
    agent = open_ws(session="p1", tool="python")
    assert agent.ctx.branch == "feat/hooks"

    assert agent.cite([ref]) == [ref]

    row = agent.store.get_session("p1")
    assert row is not None and (row.tool, row.branch) == ("python", "feat/hooks")
    lab.repo.commit("hooks.py", "retry\n", hours(1.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge hooks", "feat/hooks", at=hours(2))
    assert [(r.act.act, r.act.sessions, r.refs) for r in lab.learn().acts] == [
        ("merge", ("p1",), (ref,))
    ]


def test_a_python_api_session_is_contradicted_when_its_branch_is_discarded(
    lab: Lab, open_ws: Callable[..., Cairn]
) -> None:
    ref = lab.ws.remember("Search indexes are rebuilt nightly").ref
    lab.repo.git("switch", "-q", "-c", "feat/search")
    lab.clock.moment = hours(1)
    open_ws(session="p2").remember("Search results are cached for a minute", used=[ref])
    lab.repo.commit("search.py", "cache\n", hours(1.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("branch", "-q", "-D", "feat/search")

    assert [(r.act.act, r.act.sessions, r.refs) for r in lab.learn().acts] == [
        ("discard", ("p2",), (ref,))
    ]


def test_the_branch_brief_lists_a_cli_session(lab: Lab, run) -> None:  # type: ignore[no-untyped-def]
    lab.repo.git("switch", "-q", "-c", "feat/brief")
    run("--session", "s9", "remember", "Briefs name the sessions of the branch")

    found = json.loads(run("recall", "what is open on this branch", "--json"))

    brief = found["results"][0]
    assert brief["kind"] == "brief"
    assert [s["id"] for s in brief["sessions"]] == ["s9"]


def test_a_session_is_recorded_once_and_keeps_what_it_was_first_seen_with(
    lab: Lab, open_ws: Callable[..., Cairn]
) -> None:
    ref = lab.ws.remember("Taxes are computed at checkout").ref
    lab.session("s1", "feat/tax", hours(0), None)  # as a hook records it
    lab.clock.moment = hours(1)

    open_ws(session="s1", tool="cli", branch="feat/other").cite([ref])

    row = lab.ws.store.get_session("s1")
    assert row is not None
    assert (row.tool, row.branch, row.started) == (
        "claude-code",
        "feat/tax",
        "2026-11-01T12:00:00.000000Z",
    )


def test_a_search_without_offers_records_no_session(
    lab: Lab, open_ws: Callable[..., Cairn]
) -> None:
    lab.ws.remember("Refund windows are thirty days")
    lab.clock.moment = hours(1)
    reader = open_ws(session="r1")

    search(reader, "refund windows", as_of="2026-11-01")  # the past: nothing offered
    search(reader, "nothing matches this")
    reader.get_memory("m-000000")

    assert reader.store.get_session("r1") is None
    search(reader, "refund windows")  # offers a memory: a write for this session
    assert reader.store.get_session("r1") is not None
