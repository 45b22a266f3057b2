"""The project key: the same repository cloned anywhere is one key, read without `git`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.io.workspace import normalise_remote, parse_git_remotes, project_key

# Every spelling of one repository a team member may have cloned, and what it normalises to.
SAME_REPO = [
    "git@github.com:acme/Widgets.git",
    "git@github.com:acme/Widgets",
    "github.com:acme/Widgets.git",
    "ssh://git@github.com/acme/Widgets.git",
    "ssh://git@github.com:22/acme/Widgets",
    "git+ssh://git@github.com/acme/Widgets.git",
    "https://github.com/acme/Widgets.git",
    "https://github.com/acme/Widgets",
    "https://github.com/acme/Widgets/",
    "https://GitHub.COM/acme/Widgets.git",
    "https://alice@github.com/acme/Widgets.git",
    "https://alice:s3cret-token@github.com:443/acme/Widgets.git",
    "http://github.com//acme/Widgets.git",
    "git://github.com/acme/Widgets.git",
    "https://github.com/acme/Widgets.git?ref=x#frag",
]

TABLE = [
    ("git@gitlab.example.org:group/sub/proj.git", "gitlab.example.org/group/sub/proj"),
    ("https://gitlab.example.org/group/sub/proj.git", "gitlab.example.org/group/sub/proj"),
    ("ssh://git@[::1]:2222/org/repo.git", "[::1]/org/repo"),
    ("git@[::1]:org/repo.git", "[::1]/org/repo"),
    ("host:~alice/repo.git", "host/~alice/repo"),
    ("ssh://host/~alice/repo.git", "host/~alice/repo"),
    ("git@host:org/re@po.git", "host/org/re@po"),
    ("/srv/git/repo.git", "/srv/git/repo"),
    ("file:///srv/git/repo.git", "/srv/git/repo"),
    ("file:///srv/git/repo/", "/srv/git/repo"),
    # Nothing a key can be made of: the project falls back to its folder.
    ("", ""),
    ("   ", ""),
    ("../relative/repo", ""),
    ("./repo", ""),
    ("not a url", ""),
    ("word", ""),
    ("https://host/.git", ""),
    ("https://host/", ""),
    ("ssh://host/org/../etc", ""),
]


@pytest.mark.parametrize("url", SAME_REPO)
def test_ssh_and_https_spellings_of_one_repository_give_one_key(url: str) -> None:
    assert normalise_remote(url) == "github.com/acme/Widgets"


@pytest.mark.parametrize(("url", "key"), TABLE)
def test_remote_urls_normalise_as_the_table_says(url: str, key: str) -> None:
    assert normalise_remote(url) == key


@given(
    user=st.text(st.characters(categories=("L", "N")), min_size=1, max_size=12),
    secret=st.text(st.characters(categories=("L", "N")), min_size=6, max_size=24),
    scheme=st.sampled_from(["https", "http", "ssh", "git+ssh"]),
)
def test_credentials_never_reach_the_key(user: str, secret: str, scheme: str) -> None:
    key = normalise_remote(f"{scheme}://{user}:{secret}@code.example.com:8443/team/app.git")
    assert key == "code.example.com/team/app"


@given(st.text(max_size=80))
def test_normalising_any_text_never_raises_and_is_stable(text: str) -> None:
    once = normalise_remote(text)
    assert "\n" not in once
    assert normalise_remote(text) == once


def test_remotes_are_read_from_a_git_config_file() -> None:
    text = (
        '[core]\n\turl = not-a-remote\n[remote "origin"]\n\turl = "git@host:org/a.git" ; note\n'
        '\tfetch = +refs/heads/*:refs/remotes/origin/*\n[Remote "Up"]\n\tURL = https://h/o/b\n'
        '[remote.legacy]\n\turl = https://h/o/c\n[branch "main"]\n\tremote = origin\n'
    )
    assert parse_git_remotes(text) == {
        "origin": "git@host:org/a.git",
        "Up": "https://h/o/b",
        "legacy": "https://h/o/c",
    }


def _git(*args: str, cwd: Path) -> str:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """A bare repository with one commit, standing for the team's server."""
    work = tmp_path / "seed"
    work.mkdir()
    _git("init", "-q", "-b", "main", cwd=work)
    (work / "README").write_text("hello\n")
    _git("add", "README", cwd=work)
    _git("commit", "-q", "-m", "first", cwd=work)
    bare = tmp_path / "server" / "widgets.git"
    bare.parent.mkdir()
    _git("clone", "-q", "--bare", str(work), str(bare), cwd=tmp_path)
    return bare


def _clone(upstream: Path, where: Path, remote: str) -> Path:
    _git("clone", "-q", str(upstream), str(where), cwd=upstream.parent)
    _git("remote", "set-url", "origin", remote, cwd=where)
    return where


def test_two_clones_at_different_paths_share_one_key(upstream: Path, tmp_path: Path) -> None:
    laptop_a = _clone(
        upstream, tmp_path / "alice" / "code" / "widgets", "git@github.com:acme/w.git"
    )
    laptop_b = _clone(upstream, tmp_path / "bob" / "src" / "w2", "https://github.com/acme/w")
    assert project_key(laptop_a) == project_key(laptop_b) == "git:github.com/acme/w"


def test_a_clone_of_a_local_path_is_keyed_by_that_path(upstream: Path, tmp_path: Path) -> None:
    a = tmp_path / "a"
    _git("clone", "-q", str(upstream), str(a), cwd=tmp_path)
    assert project_key(a) == "git:" + str(upstream.resolve())[: -len(".git")]


def test_a_repository_without_a_remote_is_keyed_by_its_folder(tmp_path: Path) -> None:
    repo = tmp_path / "solo"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    assert project_key(repo) == str(repo.resolve())
    plain = tmp_path / "notes"
    plain.mkdir()
    assert project_key(plain) == str(plain.resolve())


def test_origin_wins_then_upstream_then_the_first_remote_by_name(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    _git("remote", "add", "zeta", "https://h/z/z.git", cwd=repo)
    _git("remote", "add", "beta", "https://h/b/b.git", cwd=repo)
    assert project_key(repo) == "git:h/b/b"
    _git("remote", "add", "upstream", "https://h/u/u.git", cwd=repo)
    assert project_key(repo) == "git:h/u/u"
    _git("remote", "add", "origin", "git@h:o/o.git", cwd=repo)
    assert project_key(repo) == "git:h/o/o"  # the cached key follows the changed config


def test_a_worktree_shares_its_repository_key(upstream: Path, tmp_path: Path) -> None:
    main = _clone(upstream, tmp_path / "main", "git@github.com:acme/w.git")
    tree = tmp_path / "elsewhere" / "feature"
    _git("worktree", "add", "-q", "-b", "feature", str(tree), cwd=main)
    assert project_key(tree) == project_key(main) == "git:github.com/acme/w"


def test_a_submodule_is_keyed_by_its_own_remote(upstream: Path, tmp_path: Path) -> None:
    outer = _clone(upstream, tmp_path / "outer", "git@github.com:acme/outer.git")
    _git(
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(upstream),
        "lib",
        cwd=outer,
    )
    inner = outer / "lib"
    _git("remote", "set-url", "origin", "https://github.com/acme/lib.git", cwd=inner)
    assert (inner / ".git").is_file()
    assert project_key(inner) == "git:github.com/acme/lib"
    assert project_key(outer) == "git:github.com/acme/outer"


def test_an_unreadable_config_falls_back_to_the_folder(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    _git("remote", "add", "origin", "https://h/o/o.git", cwd=repo)
    config = repo / ".git" / "config"
    config.unlink()
    os.mkfifo(config)  # opening a FIFO would block: it must be refused, not read
    assert project_key(repo) == str(repo.resolve())
