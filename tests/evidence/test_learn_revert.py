"""`git revert` of a session's commit contradicts what that session cited."""

from __future__ import annotations

from learn_git import Lab, hours

NONE = {"merge": 0, "revert": 0, "discard": 0}


def test_reverting_a_sessions_commit_contradicts_what_it_cited(lab: Lab) -> None:
    cited = lab.ws.remember("Use the bulk endpoint to sync contacts").ref
    other = lab.ws.remember("Contacts are deduplicated by email").ref
    lab.session("s1", "main", hours(1), hours(2), [cited])
    lab.session("s2", "main", hours(3), hours(4), [other])
    bad = lab.repo.commit("sync.py", "bulk\n", hours(1.5))
    lab.repo.commit("dedupe.py", "email\n", hours(3.5))
    lab.repo.git("revert", "--no-edit", bad, at=hours(5))

    acts = lab.learn().acts

    assert [(r.act.act, r.act.branch, r.act.sessions, r.refs) for r in acts] == [
        ("revert", "main", ("s1",), (cited,))
    ]
    assert acts[0].act.detail["reverts"] == [bad]
    assert lab.counts(cited) == {**NONE, "revert": 1}
    assert lab.counts(other) == NONE
    view = lab.view(cited)
    assert view["status"] == "active"  # one strike
    assert view["evidence"]["acts"][0]["detail"]["commit"] == lab.repo.head()


def test_reverting_a_merge_contradicts_the_merged_branchs_sessions(lab: Lab) -> None:
    ref = lab.ws.remember("Cache product pages at the edge").ref
    lab.repo.git("switch", "-q", "-c", "feat/edge")
    lab.session("s1", "feat/edge", hours(1), hours(2), [ref])
    lab.repo.commit("edge.py", "x\n", hours(1.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.commit("main.txt", "main moved\n", hours(2.5))
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge edge", "feat/edge", at=hours(3))
    merge = lab.repo.head()
    lab.repo.git("revert", "--no-edit", "-m", "1", merge, at=hours(4))

    acts = lab.learn().acts

    assert [(r.act.act, r.act.sessions) for r in acts] == [("merge", ("s1",)), ("revert", ("s1",))]
    assert lab.counts(ref) == {"merge": 1, "revert": 1, "discard": 0}


def test_a_sessions_work_is_contradicted_by_reverts_once(lab: Lab) -> None:
    ref = lab.ws.remember("Thumbnails are generated on upload").ref
    lab.session("s1", "main", hours(1), hours(2), [ref])
    first = lab.repo.commit("a.py", "a\n", hours(1.2))
    second = lab.repo.commit("b.py", "b\n", hours(1.4))
    lab.repo.git("revert", "--no-edit", second, at=hours(3))
    lab.repo.git("revert", "--no-edit", first, at=hours(3.1))

    acts = lab.learn().acts

    assert [r.act.act for r in acts] == ["revert", "revert"]
    assert [r.refs for r in acts] == [(ref,), ()]
    assert lab.counts(ref) == {**NONE, "revert": 1}
    assert lab.view(ref)["status"] == "active"


def test_reverting_the_revert_takes_the_revert_back(lab: Lab) -> None:
    ref = lab.ws.remember("PDFs are rendered with the headless browser").ref
    lab.session("s1", "main", hours(1), hours(2), [ref])
    bad = lab.repo.commit("pdf.py", "x\n", hours(1.5))
    lab.repo.git("revert", "--no-edit", bad, at=hours(3))
    reverted = lab.learn().acts
    assert lab.counts(ref)["revert"] == 1
    lab.repo.git("revert", "--no-edit", "HEAD", at=hours(4))

    result = lab.learn()

    assert result.acts == [] and result.reapplied == [reverted[0].act.aid]
    assert lab.counts(ref) == NONE
    again = lab.learn()
    assert again.acts == [] and again.reapplied == []


def test_a_revert_and_its_revert_learned_together_cancel_out(lab: Lab) -> None:
    ref = lab.ws.remember("Invoices are numbered per year").ref
    lab.session("s1", "main", hours(1), hours(2), [ref])
    bad = lab.repo.commit("numbers.py", "x\n", hours(1.5))
    lab.repo.git("revert", "--no-edit", bad, at=hours(3))
    lab.repo.git("revert", "--no-edit", "HEAD", at=hours(3))  # the same second

    result = lab.learn()

    assert [r.act.act for r in result.acts] == ["revert"]
    assert result.reapplied == [result.acts[0].act.aid]
    assert lab.counts(ref) == NONE


def test_a_revert_of_unknown_work_records_nothing(lab: Lab) -> None:
    ref = lab.ws.remember("Use the replica for reports").ref
    lab.session("s1", "main", hours(1), hours(2), [ref])
    lab.repo.commit("reports.py", "x\n", hours(1.5))
    stranger = lab.repo.commit("other.py", "y\n", hours(2.5))  # after s1 ended
    lab.repo.git("revert", "--no-edit", stranger, at=hours(3))
    assert lab.learn().acts == []
    assert lab.counts(ref) == NONE


def test_reverts_are_learned_once(lab: Lab) -> None:
    ref = lab.ws.remember("Emails are sent through the outbox table").ref
    lab.session("s1", "main", hours(1), hours(2), [ref])
    bad = lab.repo.commit("outbox.py", "x\n", hours(1.5))
    lab.repo.git("revert", "--no-edit", bad, at=hours(3))
    assert len(lab.learn().acts) == 1
    lab.repo.commit("more.py", "z\n", hours(4))  # the head moves; nothing new to learn
    assert lab.learn().acts == []
    assert lab.counts(ref) == {**NONE, "revert": 1}
