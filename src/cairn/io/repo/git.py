"""Reading git: commits, branches, merges. Every call is bounded and fails soft.

Git itself waits for ever on a `.git/HEAD` that is a FIFO, so no git runs in a checkout whose
HEAD is not a small regular file; anything else git could block on ends with GIT_TIMEOUT.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cairn.io.workspace import GIT_FILE_BYTES, checkout_dir, git_dir_of

GIT_TIMEOUT = 5.0


@dataclass(frozen=True)
class Commit:
    """One commit: sha, subject, author time (ISO 8601)."""

    sha: str
    subject: str
    at: str


def git(root: Path, *args: str) -> str | None:
    """Run git in `root`; its stdout, or None when git fails or is missing."""
    if not _head_is_a_file(root):
        return None
    try:
        out = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def _head_is_a_file(root: Path) -> bool:
    """False when the checkout holding `root` has a HEAD that is not a regular file of at
    most GIT_FILE_BYTES (git would wait on a FIFO there, and read a huge one whole)."""
    gd = git_dir_of(checkout_dir(root))
    if gd is None:
        return True  # not a checkout: git says so itself
    try:
        info = os.stat(os.path.join(gd, "HEAD"))
    except (OSError, ValueError):
        return True  # no HEAD: git says so itself
    return stat.S_ISREG(info.st_mode) and info.st_size <= GIT_FILE_BYTES


def recent_commits(
    root: Path, rev: str = "HEAD", n: int = 5, not_on: Sequence[str] = ()
) -> list[Commit]:
    """The last `n` commits reachable from `rev` and from none of `not_on`, newest first."""
    out = git(
        root,
        "log",
        f"-n{int(n)}",
        "--format=%H%x1f%s%x1f%aI",
        rev,
        *(f"^{other}" for other in not_on),
        "--",
    )
    commits: list[Commit] = []
    for line in (out or "").splitlines():
        parts = line.split("\x1f")
        if len(parts) == 3:
            commits.append(Commit(*parts))
    return commits


DEFAULT_NAMES = ("main", "master", "trunk")


def default_branch(root: Path) -> str:
    """The repository's default branch: the one `origin/HEAD` names, else the first of main,
    master and trunk that exists locally; "" when there is none of them."""
    out = git(
        root,
        "for-each-ref",
        "--format=%(refname)%09%(symref)",
        "refs/remotes/origin/HEAD",
        *(f"refs/heads/{name}" for name in DEFAULT_NAMES),
    )
    refs = dict(line.split("\t", 1) for line in (out or "").splitlines() if "\t" in line)
    origin = "refs/remotes/origin/"
    target = refs.get(origin + "HEAD", "")
    if target.startswith(origin) and target != origin + "HEAD":
        return target[len(origin) :]
    return next((name for name in DEFAULT_NAMES if f"refs/heads/{name}" in refs), "")


def branch_commits(root: Path, branch: str, n: int = 5) -> list[Commit]:
    """The last `n` commits of `branch` itself, newest first: those not on the default branch
    (neither its local ref nor origin's), so commits it only shares with the default branch are
    left out. On the default branch, or when there is none to compare with, its last commits.
    """
    default = default_branch(root)
    if not default or default == branch:
        return recent_commits(root, f"refs/heads/{branch}", n)
    candidates = (f"refs/heads/{default}", f"refs/remotes/origin/{default}")
    existing = (git(root, "for-each-ref", "--format=%(refname)", *candidates) or "").split()
    if not existing:
        return recent_commits(root, f"refs/heads/{branch}", n)
    return recent_commits(root, f"refs/heads/{branch}", n, not_on=existing)
