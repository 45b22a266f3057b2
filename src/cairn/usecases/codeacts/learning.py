"""Learning code acts from git: what happened to the code becomes evidence on the memories
sessions cited.

A merge of a branch confirms the memories its sessions cited; a revert of a session's commit,
or a branch deleted or reset away unmerged (a discard), contradicts them. Each is a code act:
stored once, shown on the memory's card, and taken back with `cairn review undo`.

Rules, each applied by the function named:

- A session's commits (`_record_commits`): the non-merge commits on the session's branch whose
  author time falls inside the session: from `started` to `ended`; a session that never ended
  runs until `OPEN_GRACE` (2 hours) after its last activity (its latest evidence event or
  offer), and no later than the start of the next session on the same branch. They are found
  on the branch's own line (first parents from its local or remote head) and in the HEAD
  reflog of the project's checkout and of the session's checkout (commits made while that
  branch was checked out), so they are known even after the branch is deleted or reset.
  Recorded once, they stay. A commit keeps its identity through rebase, amend and cherry-pick
  by its author time and email.
- merge (`_settle`): a session on a branch other than the default one is merged when one of
  its commits is in the default branch: reachable from it, the same commit rebased onto it,
  named by a `git merge --squash` message on it, or, once every commit of the session has
  left all branches, its changes are already in the default branch (a squash merge). One act
  per branch covers its merged sessions and its sessions without commits that started before
  the newest merged commit; one `merge` event per memory they cited.
- discard (`_settle`): a session whose every commit has left all branches (local and remote,
  rebased copies count as kept) and whose changes are not in the default branch was
  discarded: its branch was deleted or reset away. One act per branch covers those sessions,
  and, when the branch is gone, its sessions without commits that started before the newest
  lost commit; one `discard` event per memory they cited.
- revert (`_reverts`): a commit on any branch whose message says "This reverts commit X"
  contradicts what the sessions that made X cited (X a merge: the commits it brought in). A
  session's work is contradicted by reverts once. A revert of a revert Cairn learned takes
  that act back (the change was reapplied).
- once: a session judged by a merge or discard is not judged again from git, even when that
  act was taken back; a revert commit is learned once (the act's key). Running learn twice
  records nothing new. Within one run merges and discards are recorded before reverts.
- horizon: only sessions that started in the last `HORIZON` (90 days) are considered.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from cairn.core.context import Context, parse_stamp, stamp
from cairn.core.errors import StoreError
from cairn.io.repo import history
from cairn.io.store.acts import LearnSession, SessionCommit
from cairn.io.store.protocol import Store
from cairn.io.workspace import checkout_root
from cairn.usecases.codeacts.recording import SETTLING, Recorded, record_act

HORIZON = timedelta(days=90)


OPEN_GRACE = timedelta(hours=2)


SLACK = timedelta(days=1)


MAX_CHECKOUTS = 8


_Found = dict[str, list[tuple[SessionCommit, str]]]


@dataclass(frozen=True)
class LearnResult:
    """What one run of `learn` found: new acts, acts taken back, session commits found."""

    acts: list[Recorded] = field(default_factory=list)
    reapplied: list[str] = field(default_factory=list)
    commits: int = 0
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """As `cairn learn --json` prints it."""
        out: dict[str, Any] = {
            "acts": [r.to_dict() for r in self.acts],
            "reapplied": self.reapplied,
            "commits": self.commits,
        }
        if self.note:
            out["note"] = self.note
        return out


def learn(store: Store, ctx: Context, root: Path) -> LearnResult:
    """Read git at `root` and record the merges, reverts and discards it shows.

    See the module docstring for the rules; running it again records nothing new.
    """
    heads = history.ref_heads(root)
    if heads is None:
        return LearnResult(note=f"{root} is not a git repository (or git is not available)")
    return _learn(store, ctx, root, heads)


def learn_if_moved(
    store: Store, ctx: Context, root: Path, fingerprint: tuple[str, str] | None = None
) -> LearnResult | None:
    """Run `learn` only when a branch head moved since the last run (one `for-each-ref`).

    Rule: the heads of every local and remote branch are compared, as a digest, with the
    one kept after the last run; None when nothing moved (or outside git). `fingerprint`,
    (key, value) of the refs' stat fingerprint taken before git was asked, is kept with the
    learn state once git answered and the heads are learned: a later process that finds the
    same fingerprint need not ask git (`Cairn.learn_if_moved`). A failed git call keeps none.
    """
    heads = history.ref_heads(root)
    if heads is None:
        return None
    seen = store.learn_state(ctx.project, "heads")
    if seen == history.signature(heads):
        _keep_fingerprint(store, ctx, fingerprint)
        return None
    result = _learn(store, ctx, root, heads)
    if store.learn_state(ctx.project, "heads") == history.signature(heads):
        _keep_fingerprint(store, ctx, fingerprint)
    return result


def _keep_fingerprint(store: Store, ctx: Context, fingerprint: tuple[str, str] | None) -> None:
    """Keep the refs' fingerprint; a store that cannot take it (read-only, locked past its
    wait) keeps none, and the next process asks git again, as before."""
    if fingerprint is None or store.read_only:
        return
    with suppress(StoreError):
        store.set_learn_state(ctx.project, *fingerprint)


def _learn(store: Store, ctx: Context, root: Path, heads: Mapping[str, str]) -> LearnResult:
    now = ctx.clock()
    sessions = store.learn_sessions_since(ctx.project, stamp(now - HORIZON))
    result = LearnResult(note="no session on a branch in the last 90 days")
    if sessions:
        since = min(parse_stamp(s.started) for s in sessions) - SLACK
        commits = history.commits_since(root, since.isoformat(), history.MAX_COMMITS)
        if commits is None:
            return LearnResult(note="could not read the git history (git failed or timed out)")
        default = history.default_branch(root, heads)
        found = _record_commits(store, ctx, root, heads, sessions, commits)
        view = history.Reach.read(commits, heads, default)
        settled = _settle(store, ctx, root, sessions, view)
        reverted, reapplied = _reverts(store, ctx, view)
        result = LearnResult(acts=settled + reverted, reapplied=reapplied, commits=found)
    with store.transaction():
        store.set_learn_state(ctx.project, "heads", history.signature(heads))
        store.set_learn_state(ctx.project, "learned_at", ctx.now())
    return result


def _windows(
    sessions: Sequence[LearnSession], now: datetime
) -> dict[str, tuple[datetime, datetime]]:
    """When each session ran (the rule for an unended session is in the module docstring)."""
    out: dict[str, tuple[datetime, datetime]] = {}
    by_branch: dict[str, list[LearnSession]] = {}
    for s in sessions:
        by_branch.setdefault(s.branch, []).append(s)
    for group in by_branch.values():
        group.sort(key=lambda s: parse_stamp(s.started))
        for i, s in enumerate(group):
            start = parse_stamp(s.started)
            if s.ended:
                end = parse_stamp(s.ended)
            else:
                end = min(parse_stamp(s.last_activity) + OPEN_GRACE, now)
                if i + 1 < len(group):
                    end = min(end, parse_stamp(group[i + 1].started))
            out[s.id] = (start, max(start, end))
    return out


def _record_commits(
    store: Store,
    ctx: Context,
    root: Path,
    heads: Mapping[str, str],
    sessions: Sequence[LearnSession],
    commits: Mapping[str, history.GitCommit],
) -> int:
    """Find and keep the commits each session made (rule: "A session's commits")."""
    windows = _windows(sessions, ctx.clock())
    by_branch: dict[str, list[LearnSession]] = {}
    for s in sessions:
        by_branch.setdefault(s.branch, []).append(s)

    def inside(session: LearnSession, at: str) -> bool:
        start, end = windows[session.id]
        return start <= parse_stamp(at) <= end

    found: list[SessionCommit] = []
    made_on: dict[str, str] = {}
    checkouts = [root.resolve()]
    for s in sessions:
        if len(checkouts) >= MAX_CHECKOUTS:
            break
        if s.cwd and Path(s.cwd).is_dir():
            checkout = checkout_root(s.cwd)
            if checkout not in checkouts:
                checkouts.append(checkout)
    for checkout in checkouts:
        for made in history.made_commits(checkout):
            made_on.setdefault(made.sha, made.branch)
            found.extend(
                SessionCommit(s.id, made.sha, made.author_at, made.email, "reflog")
                for s in by_branch.get(made.branch, [])
                if inside(s, made.author_at)
            )
    for ref, tip in heads.items():
        branch = history.branch_of(ref)
        group = by_branch.get(branch, [])
        if not group:
            continue
        for commit in history.first_parents(commits, tip):
            if len(commit.parents) > 1 or made_on.get(commit.sha, branch) != branch:
                continue
            found.extend(
                SessionCommit(s.id, commit.sha, commit.author_at, commit.email, "branch")
                for s in group
                if inside(s, commit.author_at)
            )
    with store.transaction():
        return store.add_session_commits(found)


def _classify(
    store: Store, root: Path, sessions: Sequence[LearnSession], view: history.Reach
) -> tuple[_Found, _Found, set[str]]:
    """Sessions merged and discarded (their commits, with how), and those without a commit."""
    recorded = store.session_commits([s.id for s in sessions])
    default = view.default
    merged: _Found = {}
    lost: _Found = {}
    for s in sessions:
        mine = recorded.get(s.id, [])
        if not mine:
            continue
        feature = default is not None and s.branch != default.name
        landed = [(c, how) for c in mine if (how := view.how_in_default(c.sha, c.ident))]
        if feature and landed:
            merged[s.id] = landed
            continue
        if any(view.kept(c.sha, c.ident) for c in mine) or not all(
            history.gone(root, c.sha) for c in mine
        ):
            continue
        last = max(c.at for c in mine)
        tips = [c for c in mine if c.at == last]
        if default is not None and any(
            history.changes_landed(root, default.refs[0], c.sha) for c in tips
        ):
            if feature:
                merged[s.id] = [(c, "changes in default") for c in tips]
            continue  # on the default branch: its changes are there, nothing was thrown away
        lost[s.id] = [(c, "lost") for c in mine]
    idle = {s.id for s in sessions if s.id not in recorded}
    return merged, lost, idle


def _settle(
    store: Store,
    ctx: Context,
    root: Path,
    sessions: Sequence[LearnSession],
    view: history.Reach,
) -> list[Recorded]:
    """Record merges and discards (rules "merge" and "discard"), one act per branch."""
    judged = store.judged_sessions(ctx.project, SETTLING, undone_from="git")
    open_sessions = [s for s in sessions if s.id not in judged]
    merged, lost, idle = _classify(store, root, open_sessions, view)
    out: list[Recorded] = []
    for kind, found in (("merge", merged), ("discard", lost)):
        for branch in sorted({s.branch for s in open_sessions if s.id in found}):
            group = [s for s in open_sessions if s.branch == branch]
            hit = [s.id for s in group if s.id in found]
            pairs = [pair for sid in hit for pair in found[sid]]
            newest = max(parse_stamp(c.at) for c, _ in pairs)
            gone = f"refs/heads/{branch}" not in view.heads
            # Sessions without commits ride along: on a merge, and on a discard of a branch
            # that is gone (a reset branch still holds what they looked at).
            quiet = [
                s.id
                for s in group
                if s.id in idle and parse_stamp(s.started) <= newest and (kind == "merge" or gone)
            ]
            detail: dict[str, Any] = {"commits": sorted({c.sha for c, _ in pairs})[:20]}
            if kind == "merge":
                detail["into"] = view.default.name if view.default else ""
                detail["how"] = sorted({how for _, how in pairs})
            else:
                detail["how"] = "deleted" if gone else "reset"
            judged_now = hit + quiet
            done = record_act(
                store, ctx, kind, branch, judged_now, "git", _key(kind, branch, judged_now), detail
            )
            if done is not None:
                out.append(done)
    return out


def _key(kind: str, branch: str, sessions: Iterable[str]) -> str:
    """The identity of a merge or discard: the kind, the branch and the sessions judged."""
    digest = hashlib.sha256(",".join(sorted(sessions)).encode()).hexdigest()[:16]
    return f"{kind}:{branch}:{digest}"


def _resolve(commits: Mapping[str, history.GitCommit], sha: str) -> str:
    """A full sha for a (maybe abbreviated) one, when the history read holds exactly one."""
    if sha in commits:
        return sha
    matches = [s for s in commits if s.startswith(sha)]
    return matches[0] if len(matches) == 1 else sha


def _reverts(store: Store, ctx: Context, view: history.Reach) -> tuple[list[Recorded], list[str]]:
    """Record reverts and take back reverts that were reverted (rule "revert")."""
    out: list[Recorded] = []
    reapplied: list[str] = []
    found = [c for c in view.commits.values() if c.reverted()]
    revert_shas = {c.sha for c in found}

    def order(c: history.GitCommit) -> tuple[bool, str, str]:
        # A revert of a revert comes after the revert it takes back, even at the same second.
        again = any(_resolve(view.commits, t) in revert_shas for t in c.reverted())
        return (again, c.committed_at, c.sha)

    reverts = sorted(found, key=order)
    for commit in reverts:
        key = f"revert:{commit.sha}"
        if store.act_key_exists(ctx.project, key):
            continue
        targets = [_resolve(view.commits, t) for t in commit.reverted()]
        undone: list[str] = []
        shas: list[str] = []
        for target in targets:
            earlier = store.act_for_key(ctx.project, f"revert:{target}")
            if earlier is not None:
                undone.append(earlier.aid)
                continue
            reverted = view.commits.get(target)
            if reverted is not None and len(reverted.parents) > 1:
                shas.extend(history.merged_side(view.commits, reverted))
            else:
                shas.append(target)
        with store.transaction():
            for aid in undone:
                if store.mark_act_undone(aid, ctx.now()):
                    reapplied.append(aid)
        idents = {s: view.commits[s].ident for s in shas if s in view.commits}
        owners = store.sessions_of_commits(shas, idents)
        sessions = sorted({s for holders in owners.values() for s in holders})
        if not sessions:
            continue
        already = store.judged_sessions(ctx.project, ("revert",))
        row = store.get_session(sessions[0])
        detail = {"commit": commit.sha, "reverts": targets, "subject": commit.subject}
        done = record_act(
            store,
            ctx,
            "revert",
            row.branch if row else "",
            sessions,
            "git",
            key,
            detail,
            counted=[s for s in sessions if s not in already],
        )
        if done is not None:
            out.append(done)
    return out, reapplied
