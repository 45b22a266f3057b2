"""Merges confirm what the merged branch's sessions cited (real git repositories)."""

from __future__ import annotations

import pytest
from learn_git import Lab, hours
from tests.conftest import search

from cairn.usecases.codeacts import learn_if_moved

NONE = {"merge": 0, "revert": 0, "discard": 0}


def _feature(lab: Lab, branch: str, sid: str, cites: list[str], start: float = 1) -> str:
    """A session on a new branch that commits once; the commit's sha."""
    lab.repo.git("switch", "-q", "-c", branch, "main")
    lab.session(sid, branch, hours(start), hours(start + 1), cites)
    sha = lab.repo.commit(f"{sid}.py", f"{sid}\n", hours(start + 0.5))
    lab.repo.git("switch", "-q", "main")
    return sha


def test_merge_confirms_the_cited_memories_and_lifts_them_in_recall(lab: Lab) -> None:
    cited = lab.ws.remember("Parse invoices with the streaming xml reader").ref
    other = lab.ws.remember("Thumbnails are resized with libvips").ref
    _feature(lab, "feat/invoices", "s1", [cited])
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge invoices", "feat/invoices", at=hours(3))
    lab.clock.moment = hours(24)
    before = lab.score("invoices streaming xml", cited)
    other_before = lab.score("thumbnails libvips", other)

    result = lab.learn()

    assert [(r.act.act, r.act.branch, r.refs) for r in result.acts] == [
        ("merge", "feat/invoices", (cited,))
    ]
    assert result.acts[0].act.sessions == ("s1",)
    assert lab.counts(cited) == {**NONE, "merge": 1}
    assert lab.counts(other) == NONE
    assert lab.score("invoices streaming xml", cited) == pytest.approx(before * 2**0.5)
    assert lab.score("thumbnails libvips", other) == pytest.approx(other_before)
    act = lab.view(cited)["evidence"]["acts"][0]
    assert act["id"] == result.acts[0].act.aid
    assert (act["act"], act["branch"], act["source"]) == ("merge", "feat/invoices", "git")
    assert act["detail"]["into"] == "main" and act["detail"]["how"] == ["reachable"]
    assert act["at"] == lab.ws.ctx.now()


def test_merges_lift_a_memory_at_most_x2(lab: Lab) -> None:
    ref = lab.ws.remember("Money amounts are integers of cents").ref
    lab.clock.moment = hours(24)
    before = lab.score("money cents", ref)
    for i in range(3):
        _feature(lab, f"feat/{i}", f"s{i}", [ref], start=1 + 2 * i)
        lab.repo.git("merge", "-q", "--no-ff", "-m", f"merge {i}", f"feat/{i}", at=hours(8 + i))
    assert len(lab.learn().acts) == 3
    assert lab.counts(ref)["merge"] == 3
    assert lab.score("money cents", ref) == pytest.approx(before * 2.0)


def test_fast_forward_merge_then_delete_is_a_merge_not_a_discard(lab: Lab) -> None:
    ref = lab.ws.remember("Feature flags live in flags.toml").ref
    _feature(lab, "feat/flags", "s1", [ref])
    lab.repo.git("merge", "-q", "--ff-only", "feat/flags")
    lab.repo.git("branch", "-q", "-d", "feat/flags")
    # learn never ran while the branch existed: the reflog still says what s1 committed
    assert [r.act.act for r in lab.learn().acts] == ["merge"]
    assert lab.counts(ref) == {**NONE, "merge": 1}


def test_a_rebased_branch_merged_counts_by_author_time_and_email(lab: Lab) -> None:
    ref = lab.ws.remember("Dates are stored in UTC").ref
    _feature(lab, "feat/utc", "s1", [ref])
    assert lab.learn().commits == 1
    lab.repo.commit("other.txt", "main moved\n", hours(2.5))
    lab.repo.git("switch", "-q", "feat/utc")
    lab.repo.git("rebase", "-q", "main", at=hours(3))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("merge", "-q", "--ff-only", "feat/utc")
    lab.repo.git("branch", "-q", "-D", "feat/utc")
    acts = lab.learn().acts
    assert [r.act.act for r in acts] == ["merge"]
    assert acts[0].act.detail["how"] == ["rebased"]  # the recorded sha left; its copy is in
    assert lab.counts(ref) == {**NONE, "merge": 1}


def test_a_local_squash_merge_is_a_merge(lab: Lab) -> None:
    ref = lab.ws.remember("Retries use exponential backoff").ref
    _feature(lab, "feat/retry", "s1", [ref])
    lab.learn()
    lab.repo.git("merge", "-q", "--squash", "feat/retry")
    lab.repo.git("commit", "-q", "--no-edit", "--no-gpg-sign", at=hours(4))
    lab.repo.git("branch", "-q", "-D", "feat/retry")
    acts = lab.learn().acts
    assert [r.act.act for r in acts] == ["merge"]
    assert "squash" in acts[0].act.detail["how"]


def test_a_squash_merge_without_its_message_is_a_merge_once_the_branch_is_gone(lab: Lab) -> None:
    ref = lab.ws.remember("Webhooks are verified with HMAC").ref
    _feature(lab, "feat/hooks", "s1", [ref])
    lab.repo.git("merge", "-q", "--squash", "feat/hooks")
    lab.repo.git("commit", "-q", "--no-gpg-sign", "-m", "Verify webhooks (#12)", at=hours(4))
    assert lab.learn().acts == []  # the branch is still there, its commit not in main
    lab.repo.git("branch", "-q", "-D", "feat/hooks")
    acts = lab.learn().acts
    assert [(r.act.act, r.act.detail["how"]) for r in acts] == [("merge", ["changes in default"])]
    assert lab.counts(ref) == {**NONE, "merge": 1}


def test_sessions_without_commits_ride_along_when_they_came_before_the_work(lab: Lab) -> None:
    early = lab.ws.remember("The search index is rebuilt nightly").ref
    late = lab.ws.remember("Search results are cached for a minute").ref
    elsewhere = lab.ws.remember("Search uses BM25").ref
    lab.repo.git("switch", "-q", "-c", "feat/search")
    lab.session("s0", "feat/search", hours(0.5), hours(0.8), [early])  # read only, before
    lab.session("s1", "feat/search", hours(1), hours(2), [])
    lab.repo.commit("search.py", "x\n", hours(1.5))
    lab.session("s2", "feat/search", hours(5), hours(6), [late])  # after the merged work
    lab.session("s3", "feat/other", hours(0.5), hours(0.8), [elsewhere])  # another branch
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge search", "feat/search", at=hours(3))
    acts = lab.learn().acts
    assert [(r.act.sessions, r.refs) for r in acts] == [(("s0", "s1"), (early,))]
    assert lab.counts(late) == NONE and lab.counts(elsewhere) == NONE


def test_work_on_the_default_branch_is_never_a_merge(lab: Lab) -> None:
    ref = lab.ws.remember("Logs are JSON lines").ref
    lab.session("s1", "main", hours(1), hours(2), [ref])
    lab.repo.commit("log.py", "x\n", hours(1.5))
    result = lab.learn()
    assert result.commits == 1 and result.acts == []


def test_commits_outside_the_session_window_are_not_its_work(lab: Lab) -> None:
    ref = lab.ws.remember("Queues are drained on shutdown").ref
    lab.repo.git("switch", "-q", "-c", "feat/queue")
    lab.session("s1", "feat/queue", hours(1), hours(2), [ref])
    lab.repo.commit("queue.py", "x\n", hours(2.5))  # after s1 ended
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge queue", "feat/queue", at=hours(3))
    result = lab.learn()
    assert result.commits == 0 and result.acts == []
    assert lab.counts(ref) == NONE


def test_learn_is_idempotent(lab: Lab) -> None:
    ref = lab.ws.remember("Migrations run before deploy").ref
    _feature(lab, "feat/migrate", "s1", [ref])
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge", "feat/migrate", at=hours(3))
    assert len(lab.learn().acts) == 1
    again = lab.learn()
    assert again.acts == [] and again.commits == 0
    assert lab.counts(ref) == {**NONE, "merge": 1}


def test_learn_if_moved_runs_only_when_a_branch_head_moved(lab: Lab) -> None:
    ref = lab.ws.remember("Secrets come from the vault").ref
    store, ctx, root = lab.ws.store, lab.ws.ctx, lab.repo.root
    lab.clock.moment = hours(24)
    assert learn_if_moved(store, ctx, root) is not None  # never ran: runs
    assert learn_if_moved(store, ctx, root) is None  # nothing moved
    _feature(lab, "feat/vault", "s1", [ref])
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge", "feat/vault", at=hours(3))
    moved = learn_if_moved(store, ctx, root)
    assert moved is not None and [r.act.act for r in moved.acts] == ["merge"]
    assert learn_if_moved(store, ctx, root) is None
    assert lab.counts(ref)["merge"] == 1


def test_learn_outside_git_says_so(lab: Lab, tmp_path) -> None:  # type: ignore[no-untyped-def]
    plain = tmp_path / "plain"
    plain.mkdir()
    from cairn.usecases.codeacts import learn

    result = learn(lab.ws.store, lab.ws.ctx, plain)
    assert result.acts == [] and "not a git repository" in result.note


def test_a_search_learns_first_when_git_moved(lab: Lab) -> None:
    cited = lab.ws.remember("Parse invoices with the streaming xml reader").ref
    _feature(lab, "feat/invoices", "s1", [cited])
    search(lab.ws, "invoices")  # nothing merged yet
    assert lab.counts(cited) == NONE
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge invoices", "feat/invoices", at=hours(3))
    lab.clock.moment = hours(24)
    search(lab.ws, "invoices")  # git moved: the merge is learned before searching
    assert lab.counts(cited) == {**NONE, "merge": 1}
    assert lab.learn().acts == []  # and not counted twice
