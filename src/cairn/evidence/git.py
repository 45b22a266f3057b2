"""Reading git: commits, branches, merges. Every call is bounded and fails soft."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT = 5.0


@dataclass(frozen=True)
class Commit:
    """One commit: sha, subject, author time (ISO 8601)."""

    sha: str
    subject: str
    at: str


def git(root: Path, *args: str) -> str | None:
    """Run git in `root`; its stdout, or None when git fails or is missing."""
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


def recent_commits(root: Path, rev: str = "HEAD", n: int = 5) -> list[Commit]:
    """The last `n` commits reachable from `rev`, newest first."""
    out = git(root, "log", f"-n{int(n)}", "--format=%H%x1f%s%x1f%aI", rev, "--")
    commits: list[Commit] = []
    for line in (out or "").splitlines():
        parts = line.split("\x1f")
        if len(parts) == 3:
            commits.append(Commit(*parts))
    return commits
