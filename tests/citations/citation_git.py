"""A real git repository in a tmp dir, driven through the `git` command (citation tests)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


class Repo:
    """A git repository on disk, driven through the real `git` command."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def git(self, *args: str, cwd: Path | None = None) -> str:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd or self.root,
            env={**os.environ, **_GIT_ENV},
            check=True,
            capture_output=True,
            text=True,
        )
        return done.stdout.strip()

    def write(self, path: str, text: str) -> Path:
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
        return file

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")
