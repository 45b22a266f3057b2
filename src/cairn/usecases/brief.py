"""Briefs: the branch brief recall puts first, and the session brief given at start."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cairn.core.context import Context
from cairn.core.models import Hit
from cairn.io.repo.git import branch_commits, default_branch
from cairn.io.store import Progress
from cairn.io.store.protocol import Store
from cairn.io.workspace import checkout_root

DONE = ("done", "completed", "complete", "finished", "merged")


def progress_summary(records: Sequence[Progress]) -> dict[str, Any]:
    """Goal, open items and done items from progress records (oldest first).

    The latest record of a step decides its status; the latest goal is the branch's goal.
    """
    goal = records[-1].goal if records else ""
    latest: dict[str, Progress] = {}
    for r in records:
        if r.goal == goal:
            latest.pop(r.step, None)
            latest[r.step] = r
    open_items = [r.step for r in latest.values() if r.status.lower() not in DONE]
    done_items = [r.step for r in latest.values() if r.status.lower() in DONE]
    # The last three steps touched, each once, with its latest status (a step logged open,
    # in progress and done is one step, not three).
    recent: dict[str, Progress] = {}
    for r in reversed(records):
        if r.step not in recent:
            recent[r.step] = r
        if len(recent) == 3:
            break
    return {
        "goal": goal,
        "open": open_items,
        "done": done_items,
        "last_steps": [f"{r.step} ({r.status})" for r in reversed(recent.values())],
    }


# A question about what is open or in progress: a phrase, never one word ("pending payments
# timeout", "remaining disk space" and "todo comments policy" ask about something else).
_OPEN_QUESTION = re.compile(
    r"""(?x)
    \bwhat(?:'s|\s+is|\s+are|\s+else\s+is)?\s+(?:still\s+|left\s+)?
        (?:open|pending|left|remaining|unfinished|outstanding|undone|in[\s-]progress)\b
    | \bwhat\s+(?:remains|still\s+needs)\b
    | \b(?:open|pending|remaining|unfinished|outstanding)\s+(?:items?|tasks?|work|steps?|todos?)\b
    | \bwork\s+in[\s-]progress\b | \bwip\b
    | \b(?:left|still)\s+to\s+do\b
    """
)
_THIS_BRANCH = re.compile(r"\b(?:this|my|our|current)\s+branch\b")
_SEPARATORS = re.compile(r"[/._-]")


def asks_about_branch(
    query: str, branch: str, on_default: Callable[[], bool], has_goal: Callable[[], bool]
) -> bool:
    """Is `query` about the branch: does it name it, or ask what is open or in progress on it?

    It names the branch when it says "this branch" (my, our, current), "BRANCH branch" or
    "branch BRANCH" (BRANCH: the name or its last part, "the refunds branch"), or, for a name
    with a separator (`feature/refunds`, `fix-login`), holds the name itself: a one-word name
    (`main`, `payments`) is an ordinary word too. Asking what is open takes a phrase ("what is
    still open", "open items", "work in progress", "left to do"), never one word ("pending
    payments timeout"). On the default branch, where most questions are not about branch
    work, asking what is open brings the brief only when the query also holds the branch's
    name as a word ("what is open on main") or the branch has a goal recorded. `on_default`
    and `has_goal` are asked only when needed (each costs a git call or a query).
    """
    text = " ".join(query.replace("\u2019", "'").lower().split())
    name = branch.lower()
    if not name:
        return False
    if _THIS_BRANCH.search(text):
        return True
    for said in dict.fromkeys((name, name.rsplit("/", 1)[-1])):  # feature/refunds, refunds
        as_word = _bounded(said)
        if re.search(rf"\bbranch\s+{as_word}|{as_word}\s+branch\b", text):
            return True
    holds_name = re.search(_bounded(name), text) is not None
    if holds_name and _SEPARATORS.search(name):
        return True
    if not _OPEN_QUESTION.search(text):
        return False
    return holds_name or not on_default() or has_goal()


def _bounded(name: str) -> str:
    """A pattern for `name` standing alone: not part of a longer word, path or name."""
    return rf"(?<![\w/.-]){re.escape(name)}(?![\w/-]|\.\w)"


def about_branch(store: Store, ctx: Context, query: str) -> bool:
    """`asks_about_branch` for the caller's branch, its repository and its records."""
    root = checkout_root(ctx.cwd) if ctx.cwd else Path(ctx.root)
    return asks_about_branch(
        query,
        ctx.branch,
        on_default=lambda: default_branch(root) in ("", ctx.branch),
        has_goal=lambda: bool(store.progress(ctx.project, ctx.branch, limit=1)),
    )


def branch_brief(store: Store, ctx: Context) -> Hit:
    """The branch's goal, open items, recent sessions and commits, as the first recall hit.

    The commits are the branch's own: those not on the default branch (`branch_commits`).
    """
    summary = progress_summary(store.progress(ctx.project, ctx.branch))
    sessions = store.sessions(ctx.project, ctx.branch, limit=3)
    root = checkout_root(ctx.cwd) if ctx.cwd else Path(ctx.root)
    commits = branch_commits(root, ctx.branch, 5) if ctx.branch else []
    parts = [f"branch {ctx.branch}"]
    if summary["goal"]:
        parts.append(f"goal: {summary['goal']}")
    if summary["open"]:
        parts.append("open: " + "; ".join(summary["open"]))
    if commits:
        parts.append("last commit: " + commits[0].subject)
    return Hit(
        ref=f"branch:{ctx.branch}",
        kind="brief",
        line=" — ".join(parts),
        score=0.0,
        extra={
            **summary,
            "sessions": [{"id": s.id, "tool": s.tool, "started": s.started} for s in sessions],
            "commits": [{"sha": c.sha[:10], "subject": c.subject, "at": c.at} for c in commits],
        },
    )


SESSION_BUDGET = 3000
INDEX_LIMIT = 40
PINNED_LIMIT = 10
LISTED_FROM = 500  # memories read to fill the pinned list and the index (counted apart)


def session_brief(
    store: Store, ctx: Context, budget: int = SESSION_BUDGET, *, record: bool = True
) -> str:
    """What a session is given at the start: branch goal and open items, pinned memories,
    recent progress, and a compact index of the project's memories (ref + first words).

    Left out (the filter rules, in docs/hooks.md): memories that left the index (resting,
    contradicted, superseded, retired); lessons and action rules, which arrive on the
    action itself; progress memories of other branches. Pinned memories come first, then the
    newest. Everything listed is recorded as offered to the session (`record=False`: nothing
    is written, for a store that cannot be written just now).
    """
    from datetime import timedelta

    from cairn.core.context import stamp
    from cairn.core.lifecycle import CONTRADICTING, REST_AFTER_DAYS, state_of

    now = ctx.clock()
    # Counted in SQL and listed from the newest, so the count holds at any size (it once read
    # the newest 500 and said "500 memories" for a store of 100k).
    fresh_since = stamp(now - timedelta(days=REST_AFTER_DAYS))
    count, suspects = store.briefable_count(ctx.project, ctx.branch, fresh_since, CONTRADICTING)
    memories = store.briefable(ctx.project, ctx.branch, fresh_since, limit=LISTED_FROM)
    events: dict[str, list[Any]] = {}
    for e in store.events_for([m.ref for m in [*memories, *suspects]]):
        events.setdefault(e.ref, []).append(e)
    count -= sum(1 for m in suspects if not state_of(m, events.get(m.ref, []), now).in_index)
    live = [
        m
        for m in memories
        if state_of(m, events.get(m.ref, []), now).in_index
        and m.when is None
        and not m.action_names()
        and not (m.kind == "progress" and m.branch and m.branch != ctx.branch)
    ]
    pinned = [m for m in live if m.pinned]
    rest = [m for m in live if not m.pinned]
    summary = progress_summary(store.progress(ctx.project, ctx.branch)) if ctx.branch else None
    if not live and not (summary and summary["goal"]):
        return ""  # nothing to say: an empty brief would only cost the agent tokens
    lines = [
        f"Cairn memory for this project ({count} memories"
        + (f", branch {ctx.branch}" if ctx.branch else "")
        + ")."
    ]
    if summary and summary["goal"]:
        lines.append(f"Branch goal: {summary['goal']}")
        if summary["open"]:
            lines.append("Open: " + "; ".join(summary["open"][:8]))
        if summary["last_steps"]:
            lines.append("Recent progress: " + "; ".join(summary["last_steps"]))
    if pinned:
        lines.append("Pinned:")
        lines += [f"- {m.ref} ({m.kind}) {m.text}" for m in pinned[:PINNED_LIMIT]]
    listed = [m.ref for m in pinned[:PINNED_LIMIT]]
    if rest:
        lines.append("Index (search with recall, read with get_memory):")
        used = sum(len(x) + 1 for x in lines)
        for m in rest[:INDEX_LIMIT]:
            words = m.text.split()
            first = " ".join(words[:12]) + (" …" if len(words) > 12 else "")
            line = f"- {m.ref} {m.kind}: {first}"
            if used + len(line) + 1 > budget - 160:
                break
            lines.append(line)
            used += len(line) + 1
            listed.append(m.ref)
    left = count - len(listed)  # counted in SQL: true past the LISTED_FROM read
    if left > 0:
        lines.append(f"{left} more not listed here: use recall to find them.")
    lines.append("List the refs of memories that shaped your work in `used` when you remember.")
    if record and ctx.session and listed:
        with store.transaction():
            store.note_session(ctx)
            store.record_offers(ctx.session, listed, "brief", ctx.tool, ctx.now())
    return "\n".join(lines)[:budget]
