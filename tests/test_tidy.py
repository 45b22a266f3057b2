"""Tidy proposals, made from real stores: each kind, accept, decline, and declines that hold."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from cairn.api import Cairn
from cairn.cli import cli
from cairn.core.errors import UnknownRefError
from cairn.core.lifecycle import state_of
from cairn.core.models import Event, Trigger
from cairn.io.citations.status import clear_cache
from cairn.io.store import new_eid
from cairn.usecases.calls import Call
from cairn.usecases.tidy import (
    BROAD_FIRES,
    Proposal,
    accept,
    decline,
    narrower_trigger,
    proposal_id,
    proposals,
)


def _only(ws: Cairn, kind: str) -> list[Proposal]:
    return [p for p in proposals(ws) if p.kind == kind]


def _set_mtime(path: Path, moment: datetime) -> None:
    os.utime(path, (moment.timestamp(), moment.timestamp()))


# -- near-duplicates --------------------------------------------------------------------------


def test_near_duplicates_are_proposed_for_a_merge_with_the_fuller_sentence(
    ws: Cairn, clock
) -> None:  # type: ignore[no-untyped-def]
    short = ws.remember("Run make check before pushing").ref
    clock.advance(days=1)
    long = ws.remember("Always run make check before you push").ref
    ws.remember("Redis holds the session cache")
    (p,) = _only(ws, "merge")
    assert p.refs == (short, long)
    assert p.texts == ("Run make check before pushing", "Always run make check before you push")
    assert p.text == "Always run make check before you push"
    assert p.action == "merge" and p.detail["overlap"] == pytest.approx(5 / 6, abs=1e-3)
    assert _only(ws, "conflict") == []


def test_accepting_a_merge_corrects_one_forgets_the_other_and_keeps_history(
    ws: Cairn, clock
) -> None:  # type: ignore[no-untyped-def]
    lesson = ws.remember(
        "Run make check before pushing",
        when={"tool": "shell", "match": "git push"},
        reason="the hook is the only CI",
        tags=["ci"],
    ).ref
    clock.advance(days=1)
    fact = ws.remember("Always run make check before you push", tags=["gate"]).ref
    (p,) = _only(ws, "merge")
    applied = accept(ws, p.id)
    (new,) = applied.written
    assert applied.retired == (fact,)
    merged = ws.store.get_memory(new)
    assert merged.text == "Always run make check before you push"
    assert merged.when == Trigger("shell", match="git push")
    assert merged.kind == "lesson" and merged.reason == "the hook is the only CI"
    assert set(merged.tags) == {"ci", "gate"}
    assert ws.store.get_memory(fact).status == "retired"
    view = ws.get_memory(new)["memories"][0]
    assert [v["ref"] for v in view["history"]["replaced"]] == [lesson]
    assert ws.store.get_memory(lesson).replaced_by == new
    assert proposals(ws) == []


# -- conflicts --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("older", "newer", "reason"),
    [
        ("Postgres 15 runs in prod", "Postgres 16 runs in prod", "different numbers: 15 vs 16"),
        ("Use rebase to update branches", "Never use rebase to update branches", "negation"),
        (
            "We deploy to production with fly",
            "We deploy to production with render",
            "one word differs: fli vs render",
        ),
    ],
)
def test_conflicting_claims_on_one_subject_are_proposed(
    ws: Cairn, clock, older: str, newer: str, reason: str
) -> None:  # type: ignore[no-untyped-def]
    a = ws.remember(older).ref
    clock.advance(hours=1)
    b = ws.remember(newer).ref
    (p,) = proposals(ws)
    assert p.kind == "conflict" and reason in p.why
    assert p.refs == (a, b) and p.text == newer


def test_accepting_a_conflict_supersedes_the_older_claim(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    old = ws.remember("Postgres 15 runs in prod").ref
    clock.advance(days=2)
    new = ws.remember("Postgres 16 runs in prod").ref
    (p,) = proposals(ws)
    applied = accept(ws, p.id)
    (written,) = applied.written
    assert applied.retired == (new,)
    assert ws.store.get_memory(written).text == "Postgres 16 runs in prod"
    before = ws.store.get_memory(old)
    assert before.replaced_by == written and before.until is not None
    assert [m.text for m in ws.list()] == ["Postgres 16 runs in prod"]


def test_lessons_on_different_triggers_are_not_compared(ws: Cairn) -> None:
    ws.remember("Run the tests before pushing", when={"tool": "shell", "match": "git push"})
    ws.remember("Run the tests before committing", when={"tool": "shell", "match": "git commit"})
    ws.remember("Commit titles are one line", tags=["trigger:git-commit"])
    ws.remember("PR titles are one line", tags=["trigger:pr-create"])
    assert proposals(ws) == []
    ws.remember("Run the tests before merging")  # no trigger: compared with both lessons
    assert sorted(p.kind for p in proposals(ws)) == ["conflict", "conflict"]


def test_unrelated_memories_sharing_words_get_no_proposal(ws: Cairn) -> None:
    ws.remember("Postgres 16 runs in prod")
    ws.remember("Redis runs in prod as the session cache")
    ws.remember("Tests run in CI on every push")
    assert proposals(ws) == []


# -- stale citations --------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _cold_citation_cache() -> None:
    clear_cache()


def test_a_citation_changed_long_ago_is_proposed_for_retirement(
    ws: Cairn, project: Path, clock
) -> None:  # type: ignore[no-untyped-def]
    (project / "conf.toml").write_text("timeout = 5\n")
    ref = ws.remember("The timeout is five seconds", source_ref="conf.toml").ref
    start = clock()
    clock.advance(days=30)
    (project / "conf.toml").write_text("timeout = 50\n")
    _set_mtime(project / "conf.toml", start + timedelta(days=5))
    (p,) = _only(ws, "stale-citation")
    assert p.refs == (ref,) and p.action == "retire"
    assert p.detail["status"] == "changed" and "at least 25 days" in p.why
    accept(ws, p.id)
    assert ws.store.get_memory(ref).status == "retired"


def test_a_recent_change_waits_until_it_has_lasted(ws: Cairn, project: Path, clock) -> None:  # type: ignore[no-untyped-def]
    (project / "conf.toml").write_text("timeout = 5\n")
    ws.remember("The timeout is five seconds", source_ref="conf.toml")
    clock.advance(days=3)
    (project / "conf.toml").write_text("timeout = 50\n")
    _set_mtime(project / "conf.toml", clock())
    assert _only(ws, "stale-citation") == []  # seen changed now: recorded, not yet proposed
    clock.advance(days=13)
    assert _only(ws, "stale-citation") == []
    clock.advance(days=1, minutes=1)
    (p,) = _only(ws, "stale-citation")
    assert "at least 14 days" in p.why


def test_a_gone_file_is_proposed_once_the_folder_changed_long_ago(
    ws: Cairn, project: Path, clock
) -> None:  # type: ignore[no-untyped-def]
    (project / "src").mkdir()
    (project / "src" / "old.py").write_text("def f():\n    return 1\n")
    ref = ws.remember("f returns one", source_ref="src/old.py").ref
    start = clock()
    clock.advance(days=40)
    (project / "src" / "old.py").unlink()
    _set_mtime(project / "src", start + timedelta(days=2))
    (p,) = _only(ws, "stale-citation")
    assert p.refs == (ref,) and p.detail["status"] == "gone"
    assert "is gone" in p.why


def test_a_citation_fixed_and_broken_again_counts_afresh(ws: Cairn, project: Path, clock) -> None:  # type: ignore[no-untyped-def]
    conf = project / "conf.toml"
    conf.write_text("timeout = 5\n")
    ws.remember("The timeout is five seconds", source_ref="conf.toml")
    conf.write_text("timeout = 50\n")
    _set_mtime(conf, clock())
    assert _only(ws, "stale-citation") == []  # first seen changed now
    clock.advance(days=20)
    conf.write_text("timeout = 5\n")
    _set_mtime(conf, clock())
    assert _only(ws, "stale-citation") == []  # holds again: the sighting is dropped
    clock.advance(days=1)
    conf.write_text("timeout = 7\n")
    _set_mtime(conf, clock())
    assert _only(ws, "stale-citation") == []  # broke again just now
    clock.advance(days=15)
    assert len(_only(ws, "stale-citation")) == 1


def test_a_citation_that_still_holds_is_not_proposed(ws: Cairn, project: Path, clock) -> None:  # type: ignore[no-untyped-def]
    (project / "conf.toml").write_text("timeout = 5\n")
    ws.remember("The timeout is five seconds", source_ref="conf.toml")
    clock.advance(days=20)
    assert _only(ws, "stale-citation") == []


# -- lessons that fire often and are never cited -----------------------------------------------


def _fire(ws: Cairn, call: Call, sessions: range, tool: str = "claude-code") -> None:
    for i in sessions:
        decision = ws.using(session=f"fire-{i}", tool=tool).lessons_for(call)
        assert decision.fired, f"the lesson did not fire in session {i}"


def test_a_shell_lesson_that_fires_often_uncited_gets_a_narrower_trigger(ws: Cairn) -> None:
    ref = ws.remember("Run the gate before a push", when={"tool": "shell", "match": "git push"}).ref
    _fire(ws, Call("shell", command="git push origin main"), range(BROAD_FIRES - 1))
    assert _only(ws, "broad-lesson") == []
    _fire(ws, Call("shell", command="git push"), range(BROAD_FIRES - 1, BROAD_FIRES))
    (p,) = _only(ws, "broad-lesson")
    assert p.refs == (ref,) and p.action == "narrow"
    assert p.detail["fires"] == BROAD_FIRES and p.detail["sessions"] == BROAD_FIRES
    assert p.detail["tools"] == ["claude-code"]
    assert [s["session"] for s in p.detail["fired_in"]] == [f"fire-{i}" for i in range(5)]
    assert p.when == {"tool": "shell", "match": r"(?:^|[;&|(]\s*)(?:git push)(?:\s|$)"}

    applied = accept(ws, p.id)
    (new,) = applied.written
    narrowed = ws.store.get_memory(new)
    assert narrowed.text == "Run the gate before a push" and narrowed.replaces == ref
    fires = ws.using(session="after-1").lessons_for(Call("shell", command="cd app && git push"))
    assert [f.memory.ref for f in fires.fired] == [new]
    for command in ("echo git push", "git push-mirror", "git pushy"):
        quiet = ws.using(session=f"after-{command}").lessons_for(Call("shell", command=command))
        assert quiet.fired == [], command


def test_a_cited_lesson_is_not_too_broad(ws: Cairn) -> None:
    ref = ws.remember("Run the gate before a push", when={"tool": "shell", "match": "git push"}).ref
    _fire(ws, Call("shell", command="git push"), range(BROAD_FIRES + 2))
    ws.using(session="fire-3").cite([ref])
    assert _only(ws, "broad-lesson") == []


def test_a_read_lesson_narrows_to_edits_and_an_edit_lesson_is_proposed_for_retirement(
    ws: Cairn,
) -> None:
    read = ws.remember("SQL files use tabs", when={"tool": "read", "path": "*.sql"}).ref
    edit = ws.remember("Migrations are append-only", when={"tool": "edit", "path": "db/**"}).ref
    _fire(ws, Call("read", paths=("q/report.sql",)), range(BROAD_FIRES))
    _fire(ws, Call("edit", paths=("db/001.sql",)), range(100, 100 + BROAD_FIRES), tool="codex")
    found = {p.refs[0]: p for p in _only(ws, "broad-lesson")}
    assert found[read].action == "narrow"
    assert found[read].when == {"tool": "edit", "path": "*.sql"}
    assert found[edit].action == "retire" and found[edit].detail["tools"] == ["codex"]
    accept(ws, found[edit].id)
    assert ws.store.get_memory(edit).status == "retired"


def test_narrower_trigger_rules() -> None:
    assert narrower_trigger(Trigger("shell", match="^make deploy$")) is None
    anchored = narrower_trigger(Trigger("shell", match="^make deploy"))
    assert anchored == Trigger("shell", match=r"(?:^make deploy)(?:\s|$)")
    assert narrower_trigger(Trigger("edit", path="db/**")) is None


# -- pinned but contradicted ------------------------------------------------------------------


def _act(ws: Cairn, ref: str, event: str) -> None:
    ws.store.add_events([Event(new_eid(), ref, event, "git", "", ws.ctx.now())])


def test_a_pinned_memory_contradicted_twice_is_proposed_for_unpinning(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("Deploys go through the staging cluster", pinned=True).ref
    _act(ws, ref, "revert")
    assert _only(ws, "pinned-contradicted") == []
    clock.advance(hours=1)
    _act(ws, ref, "discard")
    (p,) = _only(ws, "pinned-contradicted")
    assert p.refs == (ref,) and p.action == "unpin" and p.detail["strikes"] == 2
    accept(ws, p.id)
    memory = ws.store.get_memory(ref)
    assert not memory.pinned
    assert state_of(memory, ws.store.events_for([ref]), clock()).status == "out"


def test_a_confirmation_clears_the_contradictions(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("Deploys go through the staging cluster", pinned=True).ref
    _act(ws, ref, "revert")
    _act(ws, ref, "revert")
    clock.advance(hours=1)
    _act(ws, ref, "merge")
    assert _only(ws, "pinned-contradicted") == []


# -- resting memories -------------------------------------------------------------------------


def test_a_memory_resting_long_is_proposed_for_retirement(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("The staging database is refreshed on Mondays").ref
    ws.remember("Answer in British English", kind="preference")
    clock.advance(days=45)
    assert _only(ws, "retire") == []  # resting, but not yet for long
    clock.advance(days=16)
    (p,) = _only(ws, "retire")
    assert p.refs == (ref,) and "61 days" in p.why
    applied = accept(ws, p.id)
    assert applied.retired == (ref,) and ws.store.get_memory(ref).status == "retired"


# -- declines ---------------------------------------------------------------------------------


def test_a_declined_proposal_stays_declined(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ws.remember("Run make check before pushing")
    ws.remember("Always run make check before you push")
    (p,) = proposals(ws)
    assert decline(ws, p.id) == p
    assert proposals(ws) == []
    clock.advance(days=3)
    ws.remember("Redis holds the session cache")
    assert proposals(ws) == []
    assert [x.id for x in proposals(ws, include_declined=True)] == [p.id]


def test_a_declined_proposal_comes_back_when_its_facts_change(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("The staging database is refreshed on Mondays").ref
    clock.advance(days=61)
    (p,) = proposals(ws)
    decline(ws, p.id)
    assert proposals(ws) == []
    ws.cite([ref])  # used again: it wakes up, and its last touch moves
    assert proposals(ws) == []
    clock.advance(days=61)
    (again,) = proposals(ws)
    assert again.kind == "retire" and again.refs == (ref,) and again.id != p.id


def test_a_declined_broad_lesson_comes_back_when_its_fires_double(ws: Cairn) -> None:
    ws.remember("Run the gate before a push", when={"tool": "shell", "match": "git push"})
    _fire(ws, Call("shell", command="git push"), range(BROAD_FIRES))
    (p,) = proposals(ws)
    decline(ws, p.id)
    _fire(ws, Call("shell", command="git push"), range(BROAD_FIRES, 15))
    assert proposals(ws) == []  # 15 fires: same doubling band as 10
    _fire(ws, Call("shell", command="git push"), range(15, 16))
    (again,) = proposals(ws)
    assert again.kind == "broad-lesson" and again.id != p.id


def test_ids_are_stable_and_rest_on_the_facts() -> None:
    one = proposal_id("merge", ["m-000001", "m-000002"], {"texts": ["a", "b"]})
    assert one == proposal_id("merge", ["m-000002", "m-000001"], {"texts": ["a", "b"]})
    assert one != proposal_id("merge", ["m-000001", "m-000002"], {"texts": ["a", "c"]})
    assert one == "t-" + one[2:12] + "-000001-000002"
    assert proposal_id("retire", ["m-00000a"], {}).endswith("-00000a")


def test_unknown_ids_are_refused(ws: Cairn) -> None:
    with pytest.raises(UnknownRefError, match="an id looks like"):
        accept(ws, "t-0000000000")
    with pytest.raises(UnknownRefError, match="no longer holds"):
        decline(ws, "t-0000000000-000001-000002")


def test_an_id_is_found_from_its_memories_alone_and_a_stale_one_is_refused(
    ws: Cairn, clock
) -> None:  # type: ignore[no-untyped-def]
    short = ws.remember("Run make check before pushing").ref
    clock.advance(days=1)
    long = ws.remember("Always run make check before you push").ref
    ws.remember("Postgres 15 runs in prod")
    ws.remember("Postgres 16 runs in prod")
    merge = next(p for p in proposals(ws) if p.kind == "merge")
    assert merge.id.endswith("-" + "-".join(sorted(r[2:] for r in (short, long))))
    # The same proposal, made again from the two memories alone, is the one listed.
    assert decline(ws, merge.id) == merge
    assert merge.id not in {p.id for p in proposals(ws)}
    assert accept(ws, merge.id).retired == (merge.detail["retire"],)
    # Its facts moved (one memory is forgotten): accepting or declining it again is refused.
    with pytest.raises(UnknownRefError, match="no longer holds"):
        accept(ws, merge.id)
    with pytest.raises(UnknownRefError, match="no longer holds"):
        decline(ws, merge.id)


def test_a_changed_fact_makes_an_id_stale(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("The staging database is refreshed on Mondays").ref
    clock.advance(days=61)
    (p,) = proposals(ws)
    ws.cite([ref])  # touched: the proposal's last touch moved
    with pytest.raises(UnknownRefError, match="no longer holds"):
        accept(ws, p.id)
    assert ws.store.get_memory(ref).status == "active"


def test_an_id_of_another_project_or_a_wrong_pair_is_refused(
    open_ws: Callable[..., Cairn], project: Path, tmp_path: Path
) -> None:
    ws = open_ws()
    a = ws.remember("Run make check before pushing").ref
    b = ws.remember("Always run make check before you push").ref
    c = ws.remember("Redis holds the session cache").ref
    (p,) = proposals(ws)
    wrong = p.id[:12] + "-" + "-".join(sorted(r[2:] for r in (a, c)))
    with pytest.raises(UnknownRefError, match="no longer holds"):
        accept(ws, wrong)
    # The hash of a merge of a memory with itself, as anyone could compute it: refused.
    text = ws.store.get_memory(a).text
    twice = proposal_id("merge", [a, a], {"texts": [text, text]})
    with pytest.raises(UnknownRefError, match="no longer holds"):
        accept(ws, twice)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = open_ws(project=elsewhere, cwd=elsewhere)
    with pytest.raises(UnknownRefError, match="no longer holds"):
        accept(other, p.id)
    assert {ws.store.get_memory(r).status for r in (a, b, c)} == {"active"}
    assert accept(ws, p.id).proposal == p


def test_an_id_declined_before_ids_named_their_refs_stays_declined(ws: Cairn) -> None:
    ws.remember("Run make check before pushing")
    ws.remember("Always run make check before you push")
    (p,) = proposals(ws)
    with ws.store.transaction():  # as an older Cairn stored it: the hash part alone
        ws.store.decline_proposal(p.id[:12], p.kind, p.refs, ws.ctx.now())
    assert proposals(ws) == []
    assert [x.id for x in proposals(ws, include_declined=True)] == [p.id]


# -- the command line -------------------------------------------------------------------------


def test_cli_lists_declines_and_accepts(open_ws: Callable[..., Cairn], project: Path) -> None:
    ws = open_ws(tool="cli", session="")
    ws.remember("Postgres 15 runs in prod")
    ws.remember("Postgres 16 runs in prod")
    ws.remember("Run make check before pushing")
    ws.remember("Always run make check before you push")
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--project", str(project), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    listed = json.loads(run("tidy", "--json"))
    assert sorted(p["kind"] for p in listed) == ["conflict", "merge"]
    human = run("tidy")
    assert all(p["id"] in human for p in listed) and "merged:" in human
    merge = next(p for p in listed if p["kind"] == "merge")
    conflict = next(p for p in listed if p["kind"] == "conflict")
    assert json.loads(run("tidy", "decline", merge["id"], "--json")) == {
        "id": merge["id"],
        "declined": True,
    }
    done = json.loads(run("tidy", "accept", conflict["id"], "--json"))
    assert done["retired"] == [conflict["refs"][1]] and len(done["written"]) == 1
    assert json.loads(run("tidy", "--json")) == []
    assert "nothing to tidy" in run("tidy")
    failed = runner.invoke(cli, ["--project", str(project), "tidy", "accept", "t-0000000000"])
    assert failed.exit_code == UnknownRefError.exit_code
