"""The branch brief: only when the query is about the branch, with the branch's own commits.

Real git repositories: a `main` with history, feature branches cut from it, and a clone whose
default branch is known only from `origin/HEAD`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from learn_git import Repo, hours

from cairn.api import Cairn
from cairn.io.repo.git import branch_commits, default_branch
from cairn.io.store import Progress
from cairn.usecases.brief import asks_about_branch


def brief_of(ws: Cairn, query: str) -> dict[str, object] | None:
    """The brief recall put first, as returned, or None."""
    hits = ws.recall(query).hits
    return hits[0].to_dict() if hits and hits[0].kind == "brief" else None


def log_goal(ws: Cairn, goal: str, step: str) -> None:
    ws.store.add_progress(
        Progress("p1", ws.ctx.project, ws.ctx.branch, goal, step, "open", "codex", "s1", "t")
    )


# -- when it fires -----------------------------------------------------------------------
ORDINARY_ON_MAIN = [
    "pending payments timeout",
    "remaining disk space",
    "todo comments policy",
    "main entry point",
    "what is the main entry point",
    "where is the remaining disk space computed",
    "open the payments modal",
]


@pytest.mark.parametrize("query", ORDINARY_ON_MAIN)
def test_an_ordinary_question_on_main_gets_no_brief(
    repo: Repo, open_ws: Callable[..., Cairn], query: str
) -> None:
    ws = open_ws(branch="main")
    ws.remember("pending payments time out after ten minutes")
    ws.remember("the main entry point is cli.py")
    assert brief_of(ws, query) is None


@pytest.mark.parametrize(
    "query", ["what is open on main", "status of the main branch", "what is left on this branch"]
)
def test_a_query_naming_main_as_a_branch_gets_the_brief(
    repo: Repo, open_ws: Callable[..., Cairn], query: str
) -> None:
    assert brief_of(open_ws(branch="main"), query) is not None


def test_on_main_what_is_open_needs_a_goal_or_the_name(
    repo: Repo, open_ws: Callable[..., Cairn]
) -> None:
    ws = open_ws(branch="main")
    assert brief_of(ws, "what is still open") is None
    log_goal(ws, "ship 2.0", "tag the release")
    brief = brief_of(ws, "what is still open")
    assert brief is not None and brief["open"] == ["tag the release"]


@pytest.mark.parametrize(
    "query",
    [
        "what is still open",
        "what's left to do",
        "open items",
        "work in progress",
        "what is in progress",
        "what is left on feature/refunds",
        "feature/refunds status",
        "the refunds branch",
    ],
)
def test_on_a_feature_branch_asking_what_is_open_or_naming_it_gets_the_brief(
    repo: Repo, open_ws: Callable[..., Cairn], query: str
) -> None:
    repo.git("switch", "-q", "-c", "feature/refunds")
    assert brief_of(open_ws(branch="feature/refunds"), query) is not None


@pytest.mark.parametrize(
    "query", ["refund retries", "pending refunds timeout", "remaining refunds", "feature flags"]
)
def test_on_a_feature_branch_an_ordinary_question_gets_no_brief(
    repo: Repo, open_ws: Callable[..., Cairn], query: str
) -> None:
    repo.git("switch", "-q", "-c", "feature/refunds")
    ws = open_ws(branch="feature/refunds")
    ws.remember("refund retries are capped at three")
    assert brief_of(ws, query) is None


@pytest.mark.parametrize(
    ("query", "about"),
    [
        ("payments timeout", False),
        ("the payments branch", True),
        ("branch payments", True),
        ("what is open", True),
        ("pending payments", False),
    ],
)
def test_a_one_word_branch_is_named_only_as_a_branch(query: str, about: bool) -> None:
    def never() -> bool:
        raise AssertionError("not needed off the default branch")

    assert asks_about_branch(query, "payments", lambda: False, never) is about


def test_the_default_branch_is_only_looked_up_for_an_open_question() -> None:
    asked: list[str] = []

    def on_default() -> bool:
        asked.append("default")
        return True

    assert not asks_about_branch("main entry point", "main", on_default, lambda: False)
    assert asked == []
    assert not asks_about_branch("what is open", "main", on_default, lambda: False)
    assert asked == ["default"]


# -- the branch's own commits ------------------------------------------------------------
def test_the_brief_lists_the_branchs_own_commits_not_mains(
    repo: Repo, open_ws: Callable[..., Cairn]
) -> None:
    for i in range(4):
        repo.commit(f"main{i}.py", "x\n", hours(-40 + i), f"main work {i}")
    repo.git("switch", "-q", "-c", "feat/login")
    repo.commit("login.py", "form\n", hours(-30), "add the login form")
    repo.commit("login.py", "form + limit\n", hours(-29), "rate-limit logins")
    repo.git("switch", "-q", "main")
    repo.commit("main9.py", "x\n", hours(-28), "main moves on")
    repo.git("switch", "-q", "feat/login")

    brief = brief_of(open_ws(branch="feat/login"), "what is open on this branch")
    assert brief is not None
    assert [c["subject"] for c in brief["commits"]] == ["rate-limit logins", "add the login form"]  # type: ignore[index]
    assert "last commit: rate-limit logins" in str(brief["line"])


def test_a_branch_merged_into_main_has_no_own_commits(repo: Repo) -> None:
    repo.git("switch", "-q", "-c", "feat/done")
    repo.commit("done.py", "x\n", hours(-30), "finish it")
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "merge feat/done", "feat/done", at=hours(-29))
    assert branch_commits(repo.root, "feat/done") == []
    assert [c.subject for c in branch_commits(repo.root, "main")][:2] == [
        "merge feat/done",
        "finish it",
    ]


def test_in_a_clone_the_default_branch_comes_from_origin_head(repo: Repo, tmp_path: Path) -> None:
    repo.git("branch", "-q", "-m", "main", "trunk-of-origin")
    clone = Repo(tmp_path / "clone")
    repo.git("clone", "-q", str(repo.root), str(clone.root))
    assert default_branch(clone.root) == "trunk-of-origin"
    clone.git("switch", "-q", "-c", "feat/x")
    clone.git("branch", "-q", "-D", "trunk-of-origin")  # only origin's ref is left
    clone.commit("x.py", "x\n", hours(-20), "x work")
    assert [c.subject for c in branch_commits(clone.root, "feat/x")] == ["x work"]


def test_without_a_default_branch_the_branch_lists_its_last_commits(repo: Repo) -> None:
    repo.git("branch", "-q", "-m", "main", "develop")
    repo.commit("d.py", "x\n", hours(-20), "develop work")
    assert default_branch(repo.root) == ""
    assert [c.subject for c in branch_commits(repo.root, "develop")] == ["develop work", "initial"]
