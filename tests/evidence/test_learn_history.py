"""Reading git for `learn`: the default branch, the reflog, landed changes, session windows."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from learn_git import GIT_ENV, Lab, Repo, hours
from tests import backends as sqlite_only

from cairn.io.repo import history
from cairn.io.store.connection import migrate
from cairn.io.store.migrations import MIGRATIONS


def test_the_default_branch_is_main_or_master_or_configured(tmp_path: Path) -> None:
    for name in ("main", "master", "trunk"):
        repo = Repo(tmp_path / name)
        repo.root.mkdir()
        repo.git("init", "-q", "-b", name)
        repo.commit("a.txt", "a\n", hours(0))
        if name == "trunk":
            assert history.default_branch(repo.root, history.ref_heads(repo.root) or {}) is None
            repo.git("config", "init.defaultBranch", "trunk")
        found = history.default_branch(repo.root, history.ref_heads(repo.root) or {})
        assert found == history.DefaultBranch(name, (f"refs/heads/{name}",))


def test_origins_head_names_the_default_branch(tmp_path: Path) -> None:
    upstream = Repo(tmp_path / "upstream")
    upstream.root.mkdir()
    upstream.git("init", "-q", "-b", "develop")
    upstream.commit("a.txt", "a\n", hours(0))
    upstream.git("branch", "main")
    env = {**os.environ, **GIT_ENV}
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(upstream.root), str(clone)], check=True, env=env)
    heads = history.ref_heads(clone) or {}
    assert "refs/remotes/origin/HEAD" not in heads
    found = history.default_branch(clone, heads)
    assert found == history.DefaultBranch(
        "develop", ("refs/heads/develop", "refs/remotes/origin/develop")
    )


def test_the_reflog_names_the_branch_each_commit_was_made_on(repo: Repo) -> None:
    on_main = repo.commit("a.txt", "a\n", hours(1))
    repo.git("switch", "-q", "-c", "feat")
    on_feat = repo.commit("b.txt", "b\n", hours(2))
    repo.git("commit", "-q", "--amend", "--no-gpg-sign", "-m", "amended", at=hours(3))
    amended = repo.head()
    repo.git("switch", "-q", "--detach", "HEAD")
    detached = repo.commit("c.txt", "c\n", hours(4))
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "merge", "feat", at=hours(5))
    made = {m.sha: m.branch for m in history.made_commits(repo.root)}
    assert made[on_main] == "main" and made[on_feat] == "feat" and made[amended] == "feat"
    assert detached not in made and repo.head() not in made  # detached; a merge commit
    assert {m.author_at for m in history.made_commits(repo.root) if m.sha == amended} == {
        "2026-11-01T14:00:00.000000Z"  # amend keeps the author time
    }


def test_changes_landed_recognises_a_squash_and_not_an_undone_change(repo: Repo) -> None:
    repo.git("switch", "-q", "-c", "feat")
    feat = repo.commit("f.txt", "f\n", hours(1))
    repo.git("switch", "-q", "main")
    assert not history.changes_landed(repo.root, "main", feat)
    repo.git("merge", "-q", "--squash", "feat")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "squashed", at=hours(2))
    assert history.changes_landed(repo.root, "main", feat)
    repo.git("switch", "-q", "-c", "noop", "main~1")
    repo.commit("g.txt", "g\n", hours(3))
    repo.git("revert", "--no-edit", "HEAD", at=hours(3.5))
    assert not history.changes_landed(repo.root, "main", repo.head())  # changed nothing


def test_an_unended_session_runs_until_two_hours_after_its_last_activity(lab: Lab) -> None:
    ref = lab.ws.remember("Background jobs are idempotent").ref
    lab.repo.git("switch", "-q", "-c", "feat/jobs")
    lab.session("s1", "feat/jobs", hours(1), None, [ref])  # last activity: hours(1) + 1 min
    inside = lab.repo.commit("a.py", "a\n", hours(2.5))
    lab.repo.commit("b.py", "b\n", hours(3.5))  # more than 2 hours after the citation
    lab.session("s2", "feat/jobs", hours(5), None, [])
    lab.repo.commit("c.py", "c\n", hours(6.9))  # s2's own: s1 ended where s2 began
    assert lab.learn().commits == 2
    rows = lab.ws.store.conn.execute("SELECT session, sha FROM session_commits ORDER BY at")
    assert [r[0] for r in rows] == ["s1", "s2"]
    found = lab.ws.store.conn.execute("SELECT sha FROM session_commits WHERE session = 's1'")
    assert [r[0] for r in found] == [inside]


@sqlite_only.MIGRATIONS
def test_code_acts_is_a_named_migration_applied_once(lab: Lab) -> None:
    names = [name for name, _ in MIGRATIONS]
    assert names == sorted(names) and "0003_code_acts" in names
    conn = lab.ws.store.conn
    assert "0003_code_acts" in {r[0] for r in conn.execute("SELECT name FROM migrations")}
    assert migrate(conn) == []
