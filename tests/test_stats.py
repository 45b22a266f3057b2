"""`cairn stats`: the counts agree with the offers, citations and hook calls recorded."""

from __future__ import annotations

import io
import json
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from cairn.api import Cairn
from cairn.cli import cli
from cairn.core.context import stamp
from cairn.core.errors import QueryError
from cairn.hooks import entry
from cairn.usecases.brief import session_brief
from cairn.usecases.calls import Call, lessons_for
from cairn.usecases.stats import bar, percentile, read_timing, sparkline, stats, weekly
from tests import backends as sqlite_only
from tests.conftest import search

PUSH = Call("shell", command="git push origin main")


def _timing(home: Path, name: str, lines: list[tuple[float, str, str, float, int]]) -> None:
    with open(home / name, "a", encoding="utf-8") as log:
        for at, agent, event, ms, fired in lines:
            log.write(f"{at:.3f}\t{agent}\t{event}\t{ms:.2f}\t{fired}\n")


def _hook(monkeypatch: pytest.MonkeyPatch, payload: dict[str, object]) -> None:
    data = json.dumps(payload).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert entry.main(["claude-code", "PreToolUse"]) == 0


@pytest.fixture
def recorded(ws: Cairn, home: Path, project: Path, clock, monkeypatch, capsys):  # type: ignore[no-untyped-def]
    """A store with offers (brief, recall, lessons), citations and hook calls, all known."""
    deploy = ws.remember("We deploy with Render from main").ref
    other = ws.remember("Postgres 16 runs in prod").ref
    lesson = ws.remember("Run the gate before a push", when={"tool": "shell", "match": "git push"})

    a, b, c = (ws.using(session=s) for s in ("a", "b", "c"))
    session_brief(ws.store, a.ctx)  # brief offers both facts to session a
    search(a, "render")
    search(c, "render")
    b.cite([deploy])  # b cites it before it is offered: no hit
    clock.advance(minutes=5)
    search(b, "render")
    a.remember("Deploy logs go to Papertrail", used=[deploy])  # a cites after the offer: a hit

    lessons_for(a.store, a.ctx, PUSH)
    lessons_for(b.store, b.ctx, PUSH)
    x = ws.using(tool="codex", session="x")
    lessons_for(x.store, x.ctx, PUSH)

    _hook(
        monkeypatch,
        {
            "session_id": "hook-1",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git push"},
        },
    )
    assert "Run the gate before a push" in capsys.readouterr().out
    _timing(
        home,
        "hook-timing.log.1",
        [(1_700_000_000.0 + i, "codex", "pretooluse", 10.0 * (i + 1), 0) for i in range(20)],
    )
    return {"deploy": deploy, "other": other, "lesson": lesson.ref}


def test_per_memory_offers_citations_and_hit_rate(ws: Cairn, recorded) -> None:  # type: ignore[no-untyped-def]
    result = stats(ws)
    by_ref = {m.ref: m for m in result.memories}
    deploy = by_ref[recorded["deploy"]]
    assert deploy.offered == {"brief": 1, "recall": 3, "lesson": 0, "total": 4}
    assert deploy.cited == 2
    assert (deploy.offered_sessions, deploy.hit_sessions) == (3, 1)
    assert deploy.hit_rate == pytest.approx(1 / 3)
    other = by_ref[recorded["other"]]
    assert other.offered == {"brief": 1, "recall": 0, "lesson": 0, "total": 1}
    assert other.cited == 0 and other.hit_rate == 0
    lesson = by_ref[recorded["lesson"]]
    assert lesson.offered == {"brief": 0, "recall": 0, "lesson": 4, "total": 4}
    assert result.memories[0].offered["total"] >= result.memories[-1].offered["total"]


def test_per_lesson_fires_by_agent(ws: Cairn, recorded) -> None:  # type: ignore[no-untyped-def]
    (lesson,) = stats(ws).lessons
    assert lesson.ref == recorded["lesson"] and lesson.fires == 4
    assert lesson.by_agent == {"claude-code": 3, "codex": 1}


def test_per_agent_hook_calls_fires_and_latency(ws: Cairn, recorded) -> None:  # type: ignore[no-untyped-def]
    agents = {a.agent: a for a in stats(ws).agents}
    assert set(agents) == {"claude-code", "codex"}
    claude, codex = agents["claude-code"], agents["codex"]
    # Sessions: the hook's, and s1, a, b and c, recorded as they wrote, cited or were offered.
    assert claude.hook_calls == 1 and claude.fires == 3 and claude.sessions == 5
    assert claude.p50_ms is not None and claude.p50_ms == claude.p95_ms
    assert codex.hook_calls == 20 and codex.fires == 1 and codex.sessions == 0
    assert (codex.p50_ms, codex.p95_ms) == (100.0, 190.0)


def test_the_timing_log_and_its_rotated_file_are_both_read(home: Path) -> None:
    home.mkdir(parents=True)
    _timing(home, "hook-timing.log.1", [(100.0, "codex", "pretooluse", 5.0, 0)])
    _timing(home, "hook-timing.log", [(200.0, "gemini", "aftertool", 7.5, 1)])
    with open(home / "hook-timing.log", "a", encoding="utf-8") as log:
        log.write("junk line\n1\tx\nnan\tcodex\tpretooluse\t1.0\t0\n")
        log.write("300.000\tcodex\tpretooluse\t2.50\t1\tprocess\n")  # how it was answered
        log.write("350.000\tcodex\tpretooluse\t1.50\t1\thelper\n")  # an older version's line
        log.write("400.000\tcodex\tpretooluse\t2.50\t1\tprocess\textra\n")
    calls = read_timing(home)
    assert [(c.agent, c.ms, c.fired, c.via) for c in calls] == [
        ("codex", 5.0, 0, ""),
        ("gemini", 7.5, 1, ""),
        ("codex", 2.5, 1, "process"),
        ("codex", 1.5, 1, "helper"),
    ]


@sqlite_only.FILE
def test_store_size_and_growth_per_week(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ws.remember("We deploy with Render from main")
    ws.remember("Postgres 16 runs in prod")
    clock.advance(days=1)  # Monday 2 November: ISO week 45
    ws.remember("Redis holds the session cache")
    clock.advance(days=14)
    ref = ws.remember("Tests run on every push").ref
    ws.correct(ref, "Tests run on every push and every merge")  # a correction is no growth
    store = stats(ws).store
    assert store.growth == [("2026-W44", 2), ("2026-W45", 1), ("2026-W46", 0), ("2026-W47", 1)]
    assert store.memories == 4
    assert store.bytes >= Path(store.path).stat().st_size > 0


def test_since_keeps_what_happened_from_that_day_on(ws: Cairn, home: Path, clock) -> None:  # type: ignore[no-untyped-def]
    deploy = ws.remember("We deploy with Render from main").ref
    search(ws.using(session="early"), "render")
    ws.using(session="early").cite([deploy])
    clock.advance(days=10)
    ws.remember("Redis holds the session cache")
    search(ws.using(session="late"), "render")
    late = datetime(2026, 11, 11, tzinfo=UTC).timestamp()
    _timing(
        home,
        "hook-timing.log",
        [
            (late - 86400 * 9, "codex", "pretooluse", 50.0, 0),
            (late, "codex", "pretooluse", 20.0, 0),
        ],
    )
    everything = stats(ws)
    assert {m.ref: m.offered["recall"] for m in everything.memories} == {deploy: 2}
    recent = stats(ws, since="2026-11-05")
    (m,) = recent.memories
    assert m.offered["recall"] == 1 and m.cited == 0 and m.offered_sessions == 1
    agents = {a.agent: a for a in recent.agents}
    assert set(agents) == {"claude-code", "codex"}
    assert agents["claude-code"].sessions == 1  # "late"; "early" and "s1" began before
    assert agents["codex"].hook_calls == 1 and agents["codex"].p95_ms == 20.0
    assert recent.store.growth == [("2026-W45", 0), ("2026-W46", 1)]
    with pytest.raises(QueryError):
        stats(ws, since="last week")
    with pytest.raises(QueryError):
        stats(ws, since="2026-02-30")


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 21)]
    assert percentile(values, 50) == 10.0 and percentile(values, 95) == 19.0
    assert percentile([3.0], 95) == 3.0 and percentile([], 50) is None
    assert percentile([5.0, 1.0, 4.0], 50) == 4.0


def test_small_charts() -> None:
    assert sparkline([0, 1, 2, 4]) == "▁▃▅█"
    assert sparkline([0, 0]) == "▁▁"
    assert bar(5, 10, 10) == "█████" and bar(0.01, 10, 10) == "█" and bar(0, 10) == ""


def test_weekly_caps_and_fills(clock) -> None:  # type: ignore[no-untyped-def]
    weeks = weekly([("2020-01-01T00:00:00.000000Z", 1)], None, clock())
    assert len(weeks) == 52 and weeks[-1] == ("2026-W44", 0)
    assert weekly([], None, clock()) == [("2026-W44", 0)]


def test_cli_stats_json_and_charts(ws: Cairn, recorded, project: Path) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    result = runner.invoke(
        cli, ["--project", str(project), "stats", "--json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    deploy = next(m for m in data["memories"] if m["ref"] == recorded["deploy"])
    assert deploy["cited"] == 2 and deploy["hit_rate"] == pytest.approx(1 / 3, abs=1e-4)
    assert {a["agent"]: a["hook_calls"] for a in data["agents"]} == {"claude-code": 1, "codex": 20}
    human = runner.invoke(cli, ["--project", str(project), "stats"], catch_exceptions=False)
    assert human.exit_code == 0
    for text in ("new per week", "agents", "codex", "lessons on tool calls", "33%", "█"):
        assert text in human.stdout, text
    bad = runner.invoke(cli, ["--project", str(project), "stats", "--since", "yesterday"])
    assert bad.exit_code == QueryError.exit_code


def test_per_gate_denials_retries_and_changed_retries(ws: Cairn, project: Path, clock) -> None:  # type: ignore[no-untyped-def]
    rule = ws.remember(
        "Commit messages: one line, conventional prefix", tags=["trigger:git-commit"], gate=True
    ).ref
    untouched = ws.remember("Tag releases as vX.Y.Z", tags=["trigger:git-tag"], gate=True).ref

    def commit(view: Cairn, message: str) -> None:
        lessons_for(
            view.store, view.ctx, Call("shell", command=f"git commit -m '{message}'"), gates=True
        )

    a, b, c = ws.using(session="a"), ws.using(session="b", tool="codex"), ws.using(session="c")
    commit(a, "Fixed stuff")  # denied
    commit(a, "fix: stuff")  # its retry, rewritten
    commit(a, "fix: more")  # a later call: not a retry
    commit(b, "fix: it")  # denied
    commit(b, "fix: it")  # retried unchanged
    commit(c, "wip")  # denied, never retried
    (gate,) = stats(ws).gates
    assert (gate.ref, gate.denials, gate.retries, gate.differed) == (rule, 3, 2, 1)
    assert gate.by_agent == {"claude-code": 2, "codex": 1}
    assert untouched not in {g.ref for g in stats(ws).gates}
    clock.advance(days=2)
    assert stats(ws, since=clock().date().isoformat()).gates == []
    runner = CliRunner()
    data = json.loads(runner.invoke(cli, ["--project", str(project), "stats", "--json"]).stdout)
    assert data["gates"] == [
        {
            "ref": rule,
            "text": "Commit messages: one line, conventional prefix",
            "denials": 3,
            "retries": 2,
            "differed": 1,
            "by_agent": {"claude-code": 2, "codex": 1},
        }
    ]
    human = runner.invoke(cli, ["--project", str(project), "stats"], catch_exceptions=False)
    for text in ("gates", "denials", "retries", "changed", rule):
        assert text in human.stdout, text


@given(
    st.lists(
        st.datetimes(
            min_value=datetime(2025, 1, 1), max_value=datetime(2026, 10, 31), timezones=st.just(UTC)
        ),
        max_size=30,
    )
)
def test_weekly_counts_cairn_stamps_as_it_counts_any_iso_form(moments: list[datetime]) -> None:
    now = datetime(2026, 11, 1, 12, tzinfo=UTC)
    ours = [stamp(m) for m in moments]
    others = [m.isoformat() for m in moments]  # "+00:00": read by parse_stamp
    days = Counter(s[:10] for s in ours)  # as the store counts Cairn's stamps
    every = weekly([(s, 1) for s in others], None, now)
    assert weekly(sorted(days.items()), None, now) == every
    assert weekly([(s, 1) for s in ours], None, now) == every
