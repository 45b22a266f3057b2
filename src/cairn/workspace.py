"""Where the agent is: the project (git root, else the folder) and its current branch.

Read from the filesystem only (no `git` subprocess): the hook calls this on every tool call.
"""

from __future__ import annotations

import os
from pathlib import Path


def checkout_root(cwd: str | os.PathLike[str] | None = None) -> Path:
    """The git checkout holding `cwd` (a worktree's own folder), else `cwd` itself, resolved."""
    start = Path(cwd or os.getcwd()).expanduser()
    try:
        start = start.resolve()
    except OSError:
        return start
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def project_root(cwd: str | os.PathLike[str] | None = None) -> Path:
    """The project of `cwd`: the main repository's root (a worktree maps to the repository it
    belongs to, so all its sessions share one project), else the folder itself."""
    root = checkout_root(cwd)
    gd = git_dir(root)
    if gd is None or (root / ".git").is_dir():
        return root
    common = gd / "commondir"
    try:
        common_dir = (gd / common.read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return root
    return common_dir.parent if common_dir.name == ".git" else root


def git_dir(root: Path) -> Path | None:
    """The git directory of a checkout (follows a worktree's `.git` file)."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        try:
            text = dot_git.read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if text.startswith("gitdir:"):
            path = Path(text[len("gitdir:") :].strip())
            return path if path.is_absolute() else (root / path).resolve()
    return None


def current_branch(root: Path) -> str:
    """The checked-out branch name, `""` outside git or on a detached HEAD."""
    gd = git_dir(root)
    if gd is None:
        return ""
    try:
        head = (gd / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return ""
    prefix = "ref: refs/heads/"
    return head[len(prefix) :] if head.startswith(prefix) else ""


def refs_signature(root: Path) -> tuple[int, ...] | None:
    """A cheap fingerprint of where the branches point: mtimes of HEAD, packed-refs and the
    ref folders (git renames a ref file into place, so its folder's mtime moves).

    None outside git. No subprocess: recall calls this before every search.
    """
    gd = git_dir(root)
    if gd is None:
        return None
    common = gd
    try:  # noqa: SIM105 - contextlib costs the hook an import
        common = (gd / (gd / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        pass  # not a worktree: the refs are in this git directory
    stamps: list[int] = []
    for place in (
        gd / "HEAD",
        common / "packed-refs",
        common / "refs" / "heads",
        common / "refs" / "remotes",
    ):
        try:
            stamps.append(place.stat().st_mtime_ns)
        except OSError:
            stamps.append(0)
        if place.is_dir():
            for sub in sorted(place.rglob("*")):
                if sub.is_dir():
                    stamps.append(sub.stat().st_mtime_ns)
    return tuple(stamps)
