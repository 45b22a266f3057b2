"""Reading git: commits, branches, merges. Every call is bounded and fails soft.

Git itself waits for ever on a `.git/HEAD` that is a FIFO, so no git runs in a checkout whose
HEAD is not a small regular file; anything else git could block on ends with GIT_TIMEOUT.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cairn.workspace import GIT_FILE_BYTES, checkout_dir, git_dir_of

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


def recent_commits(root: Path, rev: str = "HEAD", n: int = 5) -> list[Commit]:
    """The last `n` commits reachable from `rev`, newest first."""
    out = git(root, "log", f"-n{int(n)}", "--format=%H%x1f%s%x1f%aI", rev, "--")
    commits: list[Commit] = []
    for line in (out or "").splitlines():
        parts = line.split("\x1f")
        if len(parts) == 3:
            commits.append(Commit(*parts))
    return commits
