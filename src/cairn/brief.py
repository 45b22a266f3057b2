"""Briefs: the branch brief recall puts first, and the session brief given at start."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cairn.context import Context
from cairn.evidence.git import recent_commits
from cairn.models import Hit
from cairn.store import Progress, SqliteStore
from cairn.workspace import checkout_root

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
    return {
        "goal": goal,
        "open": open_items,
        "done": done_items,
        "last_steps": [f"{r.step} ({r.status})" for r in records[-3:]],
    }


def branch_brief(store: SqliteStore, ctx: Context) -> Hit:
    """The branch's goal, open items, recent sessions and commits, as the first recall hit."""
    summary = progress_summary(store.progress(ctx.project, ctx.branch))
    sessions = store.sessions(ctx.project, ctx.branch, limit=3)
    root = checkout_root(ctx.cwd) if ctx.cwd else Path(ctx.project)
    commits = recent_commits(root, ctx.branch or "HEAD", 5)
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
