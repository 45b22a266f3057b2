"""Code acts by hand (`cairn review`): a merge, revert or discard of a branch recorded by the
user, the project's acts listed, and an act taken back."""

from __future__ import annotations

from cairn.core.context import Context
from cairn.core.errors import RefusedError
from cairn.io.store.acts import ACTS, Act
from cairn.io.store.protocol import Store
from cairn.usecases.codeacts.recording import SETTLING, Recorded, record_act


def review(store: Store, ctx: Context, act: str, branch: str) -> Recorded:
    """Record a merge, revert or discard of `branch` by hand (`cairn review ACT BRANCH`).

    Rule: the act judges the branch's sessions not yet judged by a live act of its weight (a
    merge or discard for merge and discard; a revert for revert), and, like a git act, adds
    one event per memory they cited.
    """
    if act not in ACTS:
        raise RefusedError(f"refused: the act must be one of {', '.join(ACTS)}, not {act!r}")
    branch = branch.strip()
    sessions = store.learn_sessions_on_branch(ctx.project, branch)
    if not sessions:
        raise RefusedError(
            f"refused: no session was recorded on branch {branch!r} in this "
            "project, so there is nothing to judge"
        )
    kinds = SETTLING if act in SETTLING else ("revert",)
    judged = store.judged_sessions(ctx.project, kinds)
    todo = [s.id for s in sessions if s.id not in judged]
    if not todo:
        raise RefusedError(
            f"refused: every session on {branch!r} was already judged by a "
            f"{' or '.join(kinds)}; `cairn review undo` takes the last act back"
        )
    done = record_act(store, ctx, act, branch, todo, "review", "", {"by": ctx.tool})
    if done is None:  # pragma: no cover - a review's key is its own new id, never taken
        raise RefusedError("refused: the act could not be recorded; try again")
    return done


def list_acts(store: Store, ctx: Context, limit: int = 20) -> list[Act]:
    """The project's acts, newest first, those taken back included."""
    return store.recent_acts(ctx.project, limit=limit)


def undo(store: Store, ctx: Context, aid: str) -> Act:
    """Take one act back: its events stop counting; the act and events stay stored.

    Rule: append-only; the act gets `undone_at`, and readers skip events of undone acts.
    """
    found = store.get_acts([aid]).get(aid)
    if found is None or found.project != ctx.project:
        raise RefusedError(
            f"refused: no act {aid!r} in this project; `cairn review list` shows them"
        )
    with store.transaction():
        if not store.mark_act_undone(aid, ctx.now()):
            raise RefusedError(f"refused: act {aid} was already taken back")
    return store.get_acts([aid])[aid]


def undo_last(store: Store, ctx: Context) -> Act:
    """Take back the project's most recent act still in force (`cairn review undo`)."""
    last = store.recent_acts(ctx.project, live_only=True, limit=1)
    if not last:
        raise RefusedError("refused: there is no act to take back in this project")
    return undo(store, ctx, last[0].aid)
