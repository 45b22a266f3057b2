"""One repository, cloned at different paths, is one project on one store (both backends).

Real git clones in tmp folders stand for two laptops; each has its own Cairn folder, and both
use one store: a PostgreSQL database, or (SQLite) one store folder both point at. The hook
runs as the agents run it, in its own process. An old store, keyed by the project's folder as
every Cairn before the repository key wrote it, is moved to the key on the first open.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import cairn
from cairn.io.store.backends import open_store
from cairn.io.workspace import project_key
from cairn.usecases.install.command import launch
from tests.faults.conftest import SLOW_BUDGET_S, run_bounded
from tests.hooks.conftest import payload

KEY = "git:github.com/acme/widgets"


def _git(*args: str, cwd: Path) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True, timeout=60)


@pytest.fixture
def server(tmp_path: Path) -> Path:
    """The team's repository: a bare one with one commit."""
    seed = tmp_path / "seed"
    seed.mkdir()
    _git("init", "-q", "-b", "main", cwd=seed)
    (seed / "README").write_text("widgets\n")
    _git("add", "README", cwd=seed)
    _git("commit", "-q", "-m", "first", cwd=seed)
    bare = tmp_path / "server.git"
    _git("clone", "-q", "--bare", str(seed), str(bare), cwd=tmp_path)
    return bare


def _clone(server: Path, where: Path, remote: str | None) -> Path:
    where.parent.mkdir(parents=True, exist_ok=True)
    _git("clone", "-q", str(server), str(where), cwd=where.parent)
    if remote is None:
        _git("remote", "remove", "origin", cwd=where)
    else:
        _git("remote", "set-url", "origin", remote, cwd=where)
    return where


class Team:
    """Where each laptop keeps its Cairn folder, and the store they share."""

    def __init__(self, tmp_path: Path, url: str | None) -> None:
        self.url = url
        self.shared = tmp_path / "shared-store"  # SQLite: one store folder for both

    def home(self, laptop: str) -> Path:
        return self.shared if self.url is None else self.shared.parent / f"cairn-{laptop}"

    def open(self, laptop: str, clone: Path, session: str = "") -> cairn.Cairn:
        return cairn.open(
            self.home(laptop), project=clone, cwd=clone, store=self.url, session=session
        )

    def hook(self, laptop: str, clone: Path, command: str) -> bytes:
        """What the Claude Code hook prints for a shell call in `clone`, after a session start."""
        env = {
            "CAIRN_HOME": str(self.home(laptop)),
            "CAIRN_DATABASE_URL": self.url or "",
            "CAIRN_HOOK_BUDGET": str(SLOW_BUDGET_S),  # a slow answer is not a missing one
        }
        if self.url is None:
            env.pop("CAIRN_DATABASE_URL")
        start = run_bounded(
            launch().hook_argv("claude-code", "SessionStart"),
            payload("claude-code", "SessionStart", clone),
            env=env,
        )
        assert start.returncode == 0 and start.stderr == b""
        data = payload("claude-code", "PreToolUse", clone)
        call = run_bounded(
            launch().hook_argv("claude-code", "PreToolUse"),
            data.replace(b"git push origin feature/refunds", command.encode()),
            env=env,
        )
        assert call.returncode == 0 and call.stderr == b""
        return call.stdout


@pytest.fixture(params=["sqlite", "postgresql"])
def team(request: pytest.FixtureRequest, tmp_path: Path) -> Team:
    url = None
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_cluster").new_database()
    return Team(tmp_path, url)


def test_two_clones_at_different_paths_share_memories_and_lessons(
    team: Team, server: Path, tmp_path: Path
) -> None:
    alice = _clone(server, tmp_path / "alice" / "code" / "widgets", "git@github.com:acme/widgets")
    bob = _clone(server, tmp_path / "bob" / "src" / "w", "https://github.com/acme/widgets.git")
    with team.open("alice", alice, session="s-a") as ws:
        assert ws.ctx.project == KEY and ws.ctx.root == str(alice.resolve())
        fact = ws.remember("The billing service retries webhooks three times").ref
        lesson = ws.remember(
            "Before deploy-billing, drain the webhook queue",
            when={"tool": "shell", "match": "deploy-billing"},
        ).ref
    with team.open("bob", bob, session="s-b") as ws:
        assert ws.ctx.project == KEY
        assert fact in [h.ref for h in ws.recall("billing webhooks retries").hits]
        restated = ws.remember("The billing service retries webhooks three times")
        assert restated.ref == fact and restated.outcome != "new"  # one memory, not two
        bobs = ws.remember(
            "Before rotate-keys, tell the on-call", when={"tool": "shell", "match": "rotate-keys"}
        ).ref
    assert lesson.encode() in team.hook("bob", bob, "deploy-billing --now")
    assert bobs.encode() in team.hook("alice", alice, "rotate-keys prod")
    assert b"deploy" not in team.hook("alice", alice, "ls -la")


def test_a_clone_without_a_remote_is_its_own_project(
    team: Team, server: Path, tmp_path: Path
) -> None:
    alone = _clone(server, tmp_path / "alone", None)
    keyed = _clone(server, tmp_path / "keyed", "git@github.com:acme/widgets.git")
    with team.open("alice", alone) as ws:
        assert ws.ctx.project == str(alone.resolve())
        ref = ws.remember("Only this folder knows this").ref
    with team.open("bob", keyed) as ws:
        assert ref not in [h.ref for h in ws.recall("only this folder knows").hits]


def test_an_old_store_keyed_by_folder_is_moved_to_the_key_on_first_open(
    team: Team, server: Path, tmp_path: Path
) -> None:
    # Each laptop's earlier Cairn kept the project under its own folder: the remote is added
    # after, so these writes are keyed exactly as before the repository key existed.
    alice = _clone(server, tmp_path / "alice" / "widgets", None)
    bob = _clone(server, tmp_path / "bob" / "w2", None)
    with team.open("alice", alice, session="s-a") as ws:
        assert ws.ctx.project == str(alice.resolve())
        both_a = ws.remember("Run the migrations before the tests").ref
        only_a = ws.remember(
            "Before deploy-billing, drain the webhook queue",
            when={"tool": "shell", "match": "deploy-billing"},
        ).ref
        assert ws.confirm(only_a)
        ws.log_mission_progress("ship refunds", "wrote the handler", "done")
    with team.open("bob", bob) as ws:
        both_b = ws.remember("Run the migrations before the tests").ref
        only_b = ws.remember("The staging database is reset nightly").ref
    assert both_a != both_b  # two folders, two projects: the sentence is held twice
    _git("remote", "add", "origin", "git@github.com:acme/widgets.git", cwd=alice)
    _git("remote", "add", "origin", "https://github.com/acme/widgets", cwd=bob)

    with team.open("alice", alice) as ws:
        assert ws.ctx.project == KEY
        store = ws.store
        moved_a = {m.text: m for m in store.own_memories(KEY)}
        assert set(moved_a) == {
            "Run the migrations before the tests",
            "Before deploy-billing, drain the webhook queue",
        }
        old = store.get_memory(only_a)  # every version kept: the old one, superseded
        assert (old.status, old.replaced_by) == ("superseded", moved_a[old.text].ref)
        assert store.get_memory(old.replaced_by or "").replaces == only_a
        assert any(e.event == "confirmed" for e in store.events_for([old.replaced_by or ""]))
        assert [p.goal for p in store.progress(KEY)] == ["ship refunds"]
        assert not store.holds_project(str(alice.resolve()))
    with team.open("bob", bob) as ws:
        hits = [h.ref for h in ws.recall("migrations before the tests").hits]
        texts = [ws.store.get_memory(r).text for r in hits]
        # Bob's copy of the sentence Alice's laptop moved first joined hers: one, not two.
        assert texts.count("Run the migrations before the tests") == 1
        assert ws.store.get_memory(both_b).replaced_by == ws.store.get_memory(both_a).replaced_by
        staging = ws.store.get_memory(only_b).replaced_by
        assert staging and ws.store.get_memory(staging).project == KEY
        assert len(ws.store.own_memories(KEY)) == 3
    # A lesson one laptop kept under its folder fires on the other laptop's clone.
    fired = team.hook("bob", bob, "deploy-billing --now")
    assert only_a.encode() not in fired
    assert moved_a["Before deploy-billing, drain the webhook queue"].ref.encode() in fired
    # Opening again moves nothing more.
    store = open_store(team.home("alice"), url=team.url)
    try:
        assert not store.holds_project(str(bob.resolve()))
        assert len(store.own_memories(KEY)) == 3
    finally:
        store.close()


def test_lessons_kept_under_the_folder_fire_before_anything_moves_them(
    team: Team, server: Path, tmp_path: Path
) -> None:
    # An earlier Cairn kept the lesson under the folder; the remote came later, and no command,
    # MCP server or app has opened the project since: the hook still gives the lesson.
    alice = _clone(server, tmp_path / "alice" / "widgets", None)
    with team.open("alice", alice) as ws:
        lesson = ws.remember(
            "Before deploy-billing, drain the webhook queue",
            when={"tool": "shell", "match": "deploy-billing"},
        ).ref
    _git("remote", "add", "origin", "git@github.com:acme/widgets.git", cwd=alice)
    assert lesson.encode() in team.hook("alice", alice, "deploy-billing --now")
    store = open_store(team.home("alice"), url=team.url)
    try:
        assert store.holds_project(str(alice.resolve()))  # the hook moved nothing
    finally:
        store.close()


def test_keys_of_the_clones_match_the_documented_form(server: Path, tmp_path: Path) -> None:
    a = _clone(server, tmp_path / "a", "ssh://git@github.com:22/acme/widgets.git")
    assert project_key(a) == KEY
