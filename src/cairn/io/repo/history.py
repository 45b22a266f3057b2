"""Reading a repository's recent history for `learn`: refs, commits, reflogs, landed changes.

Every read goes through `cairn.io.repo.git.git` (bounded by its timeout) and fails soft: a
failed read returns None or an empty answer, never raises. Commit times are returned as
stored timestamps (UTC) so they compare with the store's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from cairn.core.context import parse_stamp, stamp
from cairn.io.repo.git import git

MAX_COMMITS = 5000
MAX_REFLOG = 2000
_REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,64})")
_SQUASHED = re.compile(r"(?m)^commit ([0-9a-f]{40,64})$")
_SHA = re.compile(r"[0-9a-f]{40,64}")
# Reflog subjects of entries that created a commit in this checkout.
_MADE_HERE = ("commit", "revert:", "cherry-pick:")


@dataclass(frozen=True)
class GitCommit:
    """One commit: parents, author time and email, committer time, full message."""

    sha: str
    parents: tuple[str, ...]
    author_at: str
    email: str
    committed_at: str
    message: str

    @property
    def ident(self) -> tuple[str, str]:
        """(author time, author email): kept by rebase, amend and cherry-pick."""
        return (self.author_at, self.email)

    @property
    def subject(self) -> str:
        """The first line of the message."""
        return self.message.split("\n", 1)[0]

    def reverted(self) -> list[str]:
        """Shas (maybe abbreviated) this commit says it reverts (`git revert`'s message)."""
        return _REVERTS.findall(self.message)

    def squashed(self) -> list[str]:
        """Shas listed by `git merge --squash`'s message ("Squashed commit of the following")."""
        if "Squashed commit of the following" not in self.message:
            return []
        return _SQUASHED.findall(self.message)


@dataclass(frozen=True)
class MadeCommit:
    """A commit the reflog says was made in a checkout while `branch` was checked out."""

    sha: str
    branch: str
    author_at: str
    email: str


@dataclass(frozen=True)
class DefaultBranch:
    """The default branch's name and the refs that carry it (local, and origin's)."""

    name: str
    refs: tuple[str, ...]


def _utc(text: str) -> str:
    return stamp(parse_stamp(text.strip()))


def ref_heads(root: Path) -> dict[str, str] | None:
    """Full ref name -> sha of every local and remote-tracking branch (one `for-each-ref`)."""
    out = git(
        root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/remotes"
    )
    if out is None:
        return None
    heads: dict[str, str] = {}
    for line in out.splitlines():
        name, _, sha = line.partition(" ")
        if name and sha and not name.endswith("/HEAD"):
            heads[name] = sha
    return heads


def signature(heads: Mapping[str, str]) -> str:
    """A short digest of the branch heads: it changes whenever a branch moves or goes."""
    text = "\n".join(f"{name} {sha}" for name, sha in sorted(heads.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def default_branch(root: Path, heads: Mapping[str, str]) -> DefaultBranch | None:
    """The default branch: origin's HEAD, else `init.defaultBranch`, else main, else master.

    Rule: the first candidate that exists as a local branch or as `origin/<name>` wins.
    """
    candidates: list[str] = []
    origin = git(root, "symbolic-ref", "-q", "refs/remotes/origin/HEAD")
    if origin and origin.strip().startswith("refs/remotes/origin/"):
        candidates.append(origin.strip().removeprefix("refs/remotes/origin/"))
    configured = git(root, "config", "--get", "init.defaultBranch")
    if configured and configured.strip():
        candidates.append(configured.strip())
    candidates += ["main", "master"]
    for name in candidates:
        refs = tuple(r for r in (f"refs/heads/{name}", f"refs/remotes/origin/{name}") if r in heads)
        if refs:
            return DefaultBranch(name, refs)
    return None


def commits_since(root: Path, since: str, limit: int = MAX_COMMITS) -> dict[str, GitCommit] | None:
    """Commits reachable from any branch (local or remote) committed at or after `since`.

    At most `limit` commits, newest first; git stops walking at older commits, so the cost
    follows the recent history, not the whole repository.
    """
    out = git(
        root,
        "log",
        "--branches",
        "--remotes",
        f"--since={since}",
        f"-n{int(limit)}",
        "--format=%H%x1f%P%x1f%aI%x1f%ae%x1f%cI%x1f%B%x1e",
    )
    if out is None:
        return None
    commits: dict[str, GitCommit] = {}
    for record in out.split("\x1e"):
        parts = record.strip("\n").split("\x1f")
        if len(parts) != 6 or not parts[0]:
            continue
        sha, parents, author_at, email, committed_at, message = parts
        try:
            commit = GitCommit(
                sha,
                tuple(parents.split()),
                _utc(author_at),
                email.lower(),
                _utc(committed_at),
                message.strip(),
            )
        except ValueError:
            continue
        commits[sha] = commit
    return commits


def reachable(commits: Mapping[str, GitCommit], tips: Iterable[str]) -> set[str]:
    """The commits of `commits` reachable from `tips` (walking every parent)."""
    seen: set[str] = set()
    stack = [t for t in tips if t in commits]
    while stack:
        sha = stack.pop()
        if sha in seen:
            continue
        seen.add(sha)
        stack.extend(p for p in commits[sha].parents if p in commits)
    return seen


def first_parents(commits: Mapping[str, GitCommit], tip: str) -> list[GitCommit]:
    """The branch's own line: `tip`, its first parent, that one's first parent, ..."""
    line: list[GitCommit] = []
    seen: set[str] = set()
    sha: str | None = tip
    while sha is not None and sha in commits and sha not in seen:
        seen.add(sha)
        commit = commits[sha]
        line.append(commit)
        sha = commit.parents[0] if commit.parents else None
    return line


def merged_side(commits: Mapping[str, GitCommit], merge: GitCommit) -> set[str]:
    """What a merge commit brought in: reachable from its other parents, not its first."""
    if len(merge.parents) < 2:
        return set()
    return reachable(commits, merge.parents[1:]) - reachable(commits, merge.parents[:1])


def made_commits(root: Path, limit: int = MAX_REFLOG) -> list[MadeCommit]:
    """Commits made in the checkout at `root` (its HEAD reflog), with the branch they were on.

    Rule: an entry counts when git wrote it for a commit it created (`commit`, `commit
    (amend)`, `revert`, `cherry-pick`; not a merge commit). The branch is the one the last
    `checkout: moving from A to B` entry before it moved to (before the first checkout entry:
    its A; with no checkout entry: the branch checked out now); moving to `HEAD` or to a sha
    detaches (no branch). A rebase leaves the branch
    unknown until it finishes; its new commits are found on the branch itself.
    """
    out = git(root, "log", "-g", f"-n{int(limit)}", "--format=%H%x1f%gs%x1f%aI%x1f%ae", "HEAD")
    if out is None:
        return []
    entries = [line.split("\x1f") for line in out.splitlines()]
    entries = [e for e in reversed(entries) if len(e) == 4]
    branch = ""
    for _, subject, _, _ in entries:
        if subject.startswith("checkout: moving from "):
            branch = subject.removeprefix("checkout: moving from ").split(" to ", 1)[0]
            break
    else:
        current = git(root, "symbolic-ref", "-q", "--short", "HEAD")
        branch = current.strip() if current else ""
    made: list[MadeCommit] = []
    for sha, subject, author_at, email in entries:
        if subject.startswith("checkout: moving from "):
            target = subject.rsplit(" to ", 1)[-1].strip()
            branch = "" if target == "HEAD" or _SHA.fullmatch(target) else target
        elif subject.startswith(("rebase (start)", "rebase -i (start)")):
            branch = ""
        elif subject.startswith(
            (
                "rebase (finish): returning to refs/heads/",
                "rebase -i (finish): returning to refs/heads/",
            )
        ):
            branch = subject.split("refs/heads/", 1)[1].strip()
        elif subject.startswith(_MADE_HERE) and not subject.startswith("commit (merge)") and branch:
            try:
                made.append(MadeCommit(sha, branch, _utc(author_at), email.lower()))
            except ValueError:
                continue
    return made


def changes_landed(root: Path, target: str, sha: str) -> bool:
    """Are the changes `sha` made since it forked from `target` all in `target` already?

    Rule: `sha` changed files since its merge base with `target`, and merging it into
    `target` (`git merge-tree --write-tree`) gives `target`'s own tree. This is how a squash
    merge (or a cherry-pick) is recognised once the branch is gone.
    """
    base = git(root, "merge-base", target, sha)
    if not base or not base.strip():
        return False
    changed = git(root, "diff", "--name-only", base.strip(), sha)
    if not changed or not changed.strip():
        return False
    merged = git(root, "merge-tree", "--write-tree", target, sha)
    tree = git(root, "rev-parse", f"{target}^{{tree}}")
    if not merged or not tree:
        return False
    return merged.split()[0] == tree.strip()


def branch_of(ref: str) -> str:
    """`refs/heads/feat/x` and `refs/remotes/origin/feat/x` are both branch `feat/x`."""
    if ref.startswith("refs/heads/"):
        return ref.removeprefix("refs/heads/")
    parts = ref.split("/", 3)
    return parts[3] if len(parts) == 4 and parts[1] == "remotes" else ""


def gone(root: Path, sha: str) -> bool:
    """Does no branch (local or remote) hold the commit? Asked of git itself, not of a read
    history that may be cut short.

    A commit whose object no longer exists is gone; when git cannot answer, it is kept.
    """
    holders = git(
        root,
        "for-each-ref",
        "--count=1",
        "--format=%(refname)",
        "--contains",
        sha,
        "refs/heads",
        "refs/remotes",
    )
    if holders is not None:
        return not holders.strip()
    return (
        git(root, "cat-file", "-t", sha) is None and git(root, "rev-parse", "--git-dir") is not None
    )


Ident = tuple[str, str]


@dataclass(frozen=True)
class Reach:
    """Recent history indexed: what the default branch holds, and what any branch holds.

    A commit is known by its sha, or by its identity (author time, email), which rebase,
    amend and cherry-pick keep.
    """

    commits: Mapping[str, GitCommit]
    heads: Mapping[str, str]
    default: DefaultBranch | None
    default_shas: frozenset[str]
    default_idents: frozenset[Ident]
    squashed: frozenset[str]
    idents: frozenset[Ident]

    @classmethod
    def read(
        cls,
        commits: Mapping[str, GitCommit],
        heads: Mapping[str, str],
        default: DefaultBranch | None,
    ) -> Reach:
        """Index `commits` (from `commits_since`) against the branch heads."""
        tips = [heads[r] for r in default.refs] if default else []
        on_default = reachable(commits, tips)
        return cls(
            commits=commits,
            heads=heads,
            default=default,
            default_shas=frozenset(on_default),
            default_idents=frozenset(commits[s].ident for s in on_default),
            squashed=frozenset(x for s in on_default for x in commits[s].squashed()),
            idents=frozenset(c.ident for c in commits.values()),
        )

    def how_in_default(self, sha: str, ident: Ident) -> str:
        """How the commit reached the default branch: reachable, rebased, squash, or ''."""
        if sha in self.default_shas:
            return "reachable"
        if ident in self.default_idents:
            return "rebased"
        if sha in self.squashed:
            return "squash"
        return ""

    def kept(self, sha: str, ident: Ident) -> bool:
        """Is the commit (or a rebased copy of it) still on some branch?"""
        return sha in self.commits or ident in self.idents
