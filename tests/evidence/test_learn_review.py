"""`cairn review` records acts by hand; `cairn review undo` takes the last act back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from learn_git import Lab, hours

from cairn.cli import cli
from cairn.core.errors import RefusedError
from cairn.io.store import acts as store_acts
from cairn.usecases.codeacts import review, undo, undo_last

NONE = {"merge": 0, "revert": 0, "discard": 0}


def test_a_merge_by_hand_confirms_and_its_undo_takes_it_back(lab: Lab) -> None:
    ref = lab.ws.remember("Orders ship from the nearest warehouse").ref
    other = lab.ws.remember("Warehouses report stock hourly").ref
    lab.session("s1", "feat/ship", hours(1), hours(2), [ref])
    lab.session("s2", "feat/stock", hours(1), hours(2), [other])
    lab.clock.moment = hours(24)
    before = lab.score("orders ship warehouse", ref)

    done = review(lab.ws.store, lab.ws.ctx, "merge", "feat/ship")

    assert (done.act.act, done.act.source, done.act.sessions, done.refs) == (
        "merge",
        "review",
        ("s1",),
        (ref,),
    )
    assert lab.counts(ref) == {**NONE, "merge": 1} and lab.counts(other) == NONE
    assert lab.score("orders ship warehouse", ref) == pytest.approx(before * 2**0.5)

    undone = undo_last(lab.ws.store, lab.ws.ctx)

    assert undone.aid == done.act.aid and undone.undone_at == lab.ws.ctx.now()
    assert lab.score("orders ship warehouse", ref) == pytest.approx(before)
    assert "acts" not in lab.view(ref)["evidence"]
    stored = lab.ws.store.conn.execute(
        "SELECT count(*) FROM evidence WHERE act = ?", (done.act.aid,)
    ).fetchone()[0]
    assert stored == 1  # append-only: the event stays, it no longer counts


def test_undo_takes_back_the_most_recent_act_still_in_force(lab: Lab) -> None:
    ref = lab.ws.remember("Refunds go back to the original card").ref
    lab.session("s1", "feat/a", hours(1), hours(2), [ref])
    lab.session("s2", "feat/b", hours(3), hours(4), [ref])
    first = review(lab.ws.store, lab.ws.ctx, "discard", "feat/a")
    second = review(lab.ws.store, lab.ws.ctx, "discard", "feat/b")
    assert lab.view(ref)["status"] == "out"
    assert undo_last(lab.ws.store, lab.ws.ctx).aid == second.act.aid
    assert lab.view(ref)["status"] == "active"
    assert undo_last(lab.ws.store, lab.ws.ctx).aid == first.act.aid
    with pytest.raises(RefusedError, match="no act to take back"):
        undo_last(lab.ws.store, lab.ws.ctx)
    with pytest.raises(RefusedError, match="already taken back"):
        undo(lab.ws.store, lab.ws.ctx, first.act.aid)
    with pytest.raises(RefusedError, match="no act"):
        undo(lab.ws.store, lab.ws.ctx, "a-000000000000")


def test_review_refuses_a_branch_without_sessions_or_already_judged(lab: Lab) -> None:
    ref = lab.ws.remember("Coupons cannot be stacked").ref
    lab.session("s1", "feat/coupons", hours(1), hours(2), [ref])
    with pytest.raises(RefusedError, match="no session"):
        review(lab.ws.store, lab.ws.ctx, "merge", "feat/nothing")
    with pytest.raises(RefusedError, match="must be one of"):
        review(lab.ws.store, lab.ws.ctx, "ship", "feat/coupons")
    review(lab.ws.store, lab.ws.ctx, "merge", "feat/coupons")
    with pytest.raises(RefusedError, match="already judged"):
        review(lab.ws.store, lab.ws.ctx, "discard", "feat/coupons")
    review(lab.ws.store, lab.ws.ctx, "revert", "feat/coupons")  # a revert may follow a merge
    undo_last(lab.ws.store, lab.ws.ctx)
    undo_last(lab.ws.store, lab.ws.ctx)
    review(lab.ws.store, lab.ws.ctx, "discard", "feat/coupons")  # the merge was taken back
    assert lab.counts(ref) == {**NONE, "discard": 1}


def test_a_git_act_taken_back_is_not_learned_again(lab: Lab) -> None:
    ref = lab.ws.remember("Carts expire after a day").ref
    lab.repo.git("switch", "-q", "-c", "feat/carts")
    lab.session("s1", "feat/carts", hours(1), hours(2), [ref])
    lab.repo.commit("carts.py", "x\n", hours(1.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("branch", "-q", "-D", "feat/carts")
    assert [r.act.act for r in lab.learn().acts] == ["discard"]
    undo_last(lab.ws.store, lab.ws.ctx)
    lab.repo.commit("other.py", "y\n", hours(5))  # move a head so learn looks again
    assert lab.learn().acts == []
    assert lab.counts(ref) == NONE
    acts = store_acts.recent_acts(lab.ws.store.conn, lab.ws.ctx.project)
    assert [(a.act, a.live) for a in acts] == [("discard", False)]


@pytest.fixture
def run(lab: Lab, home: Path, project: Path):  # type: ignore[no-untyped-def]
    runner = CliRunner()

    def _run(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli, ["--project", str(project), *args], catch_exceptions=False)
        assert result.exit_code == code, (result.output, result.stderr)
        return result.stdout if code == 0 else result.stderr

    return _run


def test_the_cli_learns_reviews_lists_and_undoes(lab: Lab, run) -> None:  # type: ignore[no-untyped-def]
    ref = lab.ws.remember("Reports are generated overnight").ref
    lab.repo.git("switch", "-q", "-c", "feat/reports")
    lab.session("s1", "feat/reports", hours(1), hours(2), [ref])
    lab.repo.commit("reports.py", "x\n", hours(1.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge", "feat/reports", at=hours(3))

    learned = json.loads(run("learn", "--json"))
    assert [(a["act"], a["branch"], a["memories"]) for a in learned["acts"]] == [
        ("merge", "feat/reports", [ref])
    ]
    assert run("learn", "--quiet") == ""
    assert "nothing new" in run("learn")

    manual = json.loads(run("review", "revert", "feat/reports", "--json"))
    assert manual["act"] == "revert" and manual["source"] == "review"
    listed = json.loads(run("review", "list", "--json"))
    assert [a["act"] for a in listed] == ["revert", "merge"]
    assert "revert of feat/reports" in run("review", "list")

    undone = json.loads(run("review", "undo", "--json"))
    assert undone["id"] == manual["id"] and "undone_at" in undone
    assert learned["acts"][0]["id"] in run("review", "undo", learned["acts"][0]["id"])
    assert "no act to take back" in run("review", "undo", code=3)
    assert "no session" in run("review", "merge", "feat/none", code=3)
