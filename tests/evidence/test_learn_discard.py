"""A branch deleted or reset away unmerged is a discard: it contradicts what its sessions cited."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from learn_git import GIT_ENV, Lab, hours

NONE = {"merge": 0, "revert": 0, "discard": 0}


def _work(lab: Lab, branch: str, sid: str, cites: list[str], start: float = 1) -> str:
    lab.repo.git("switch", "-q", "-c", branch, "main")
    lab.session(sid, branch, hours(start), hours(start + 1), cites)
    return lab.repo.commit(f"{sid}.py", f"{sid}\n", hours(start + 0.5))


def test_a_branch_deleted_unmerged_is_discarded(lab: Lab) -> None:
    cited = lab.ws.remember("Store avatars in the object store").ref
    other = lab.ws.remember("Avatars are square").ref
    _work(lab, "feat/avatars", "s1", [cited])
    lab.repo.git("switch", "-q", "main")
    assert lab.learn().acts == []  # the branch is still there: nothing is decided
    lab.repo.git("branch", "-q", "-D", "feat/avatars")

    acts = lab.learn().acts

    assert [(r.act.act, r.act.branch, r.act.detail["how"], r.refs) for r in acts] == [
        ("discard", "feat/avatars", "deleted", (cited,))
    ]
    assert lab.counts(cited) == {**NONE, "discard": 1}
    assert lab.counts(other) == NONE
    assert lab.learn().acts == []


def test_a_branch_deleted_before_learn_ever_ran_is_found_in_the_reflog(lab: Lab) -> None:
    ref = lab.ws.remember("Prices are shown with two decimals").ref
    _work(lab, "feat/prices", "s1", [ref])
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("branch", "-q", "-D", "feat/prices")
    result = lab.learn()
    assert result.commits == 1
    assert [r.act.act for r in result.acts] == ["discard"]


def test_a_branch_reset_away_is_discarded(lab: Lab) -> None:
    ref = lab.ws.remember("Sessions expire after a week").ref
    _work(lab, "feat/sessions", "s1", [ref])
    lab.learn()
    lab.repo.git("reset", "-q", "--hard", "main")

    acts = lab.learn().acts

    assert [(r.act.act, r.act.detail["how"]) for r in acts] == [("discard", "reset")]
    assert lab.counts(ref) == {**NONE, "discard": 1}


def test_work_on_main_reset_away_is_discarded(lab: Lab) -> None:
    ref = lab.ws.remember("Cron jobs run in UTC").ref
    lab.session("s1", "main", hours(1), hours(2), [ref])
    lab.repo.commit("cron.py", "x\n", hours(1.5))
    lab.learn()
    lab.repo.git("reset", "-q", "--hard", "HEAD~1")
    assert [r.act.act for r in lab.learn().acts] == ["discard"]


def test_a_partial_reset_is_not_a_discard(lab: Lab) -> None:
    ref = lab.ws.remember("Uploads are virus scanned").ref
    _work(lab, "feat/scan", "s1", [ref])
    lab.repo.commit("more.py", "y\n", hours(1.7))
    lab.learn()
    lab.repo.git("reset", "-q", "--hard", "HEAD~1")  # one of s1's two commits stays
    assert lab.learn().acts == []
    assert lab.counts(ref) == NONE


def test_amending_or_rebasing_is_not_a_discard(lab: Lab) -> None:
    ref = lab.ws.remember("Search is case insensitive").ref
    _work(lab, "feat/case", "s1", [ref])
    assert lab.learn().commits == 1
    lab.repo.git("commit", "-q", "--amend", "--no-gpg-sign", "-m", "better message", at=hours(3))
    lab.learn()
    lab.repo.git("switch", "-q", "main")
    lab.repo.commit("main.txt", "moved\n", hours(3.5))
    lab.repo.git("switch", "-q", "feat/case")
    lab.repo.git("rebase", "-q", "main", at=hours(4))
    assert lab.learn().acts == []
    assert lab.counts(ref) == NONE


def test_a_branch_kept_on_the_remote_is_not_discarded(lab: Lab, tmp_path: Path) -> None:
    ref = lab.ws.remember("Audit logs are append only").ref
    remote = tmp_path / "remote.git"
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, env=env)
    lab.repo.git("remote", "add", "origin", str(remote))
    _work(lab, "feat/audit", "s1", [ref])
    lab.repo.git("push", "-q", "origin", "feat/audit")
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("branch", "-q", "-D", "feat/audit")
    assert lab.learn().acts == []
    lab.repo.git("push", "-q", "origin", "--delete", "feat/audit")
    lab.repo.git("fetch", "-q", "--prune", "origin")
    assert [r.act.act for r in lab.learn().acts] == ["discard"]


def test_sessions_without_commits_share_the_discard_of_a_deleted_branch(lab: Lab) -> None:
    looked = lab.ws.remember("Exports are zipped").ref
    _work(lab, "feat/export", "s1", [])
    lab.session("s0", "feat/export", hours(0.5), hours(0.9), [looked])
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("branch", "-q", "-D", "feat/export")
    acts = lab.learn().acts
    assert [(r.act.sessions, r.refs) for r in acts] == [(("s0", "s1"), (looked,))]


def test_a_deleted_branch_whose_changes_were_undone_is_still_discarded(lab: Lab) -> None:
    ref = lab.ws.remember("Feature X needs a queue").ref
    sha = _work(lab, "feat/x", "s1", [ref])
    lab.repo.git("revert", "--no-edit", sha, at=hours(1.8))  # inside s1: its own commit
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("branch", "-q", "-D", "feat/x")
    acts = [r.act.act for r in lab.learn().acts]
    assert acts == ["discard"]


def test_history_cut_short_never_makes_a_discard(lab: Lab, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    ref = lab.ws.remember("Reports are cached per tenant").ref
    _work(lab, "feat/tenant", "s1", [ref])
    lab.repo.commit("later.py", "later\n", hours(3))  # s1's commit is no longer the newest
    lab.learn()
    monkeypatch.setattr("cairn.io.repo.history.MAX_COMMITS", 1)
    lab.repo.commit("more.py", "more\n", hours(4))
    assert lab.learn().acts == []  # git itself says the branch still holds s1's commit
    assert lab.counts(ref) == NONE


def test_a_reset_branch_keeps_its_sessions_without_commits_out_of_the_discard(lab: Lab) -> None:
    looked = lab.ws.remember("Exports are streamed").ref
    _work(lab, "feat/stream", "s1", [])
    lab.session("s0", "feat/stream", hours(0.5), hours(0.9), [looked])
    lab.learn()
    lab.repo.git("reset", "-q", "--hard", "main")
    acts = lab.learn().acts
    assert [(r.act.sessions, r.refs) for r in acts] == [(("s1",), ())]
    assert lab.counts(looked) == NONE
