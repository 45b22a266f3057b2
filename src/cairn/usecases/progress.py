"""log_mission_progress: one step of the branch's mission, recorded for the branch brief.

A progress record holds the branch's goal, one step and that step's status, labelled with the
project and the branch of the caller's checkout. The latest record of a step decides its status,
and the latest goal is the branch's goal (`cairn.usecases.brief.progress_summary`); recall puts that
summary first when a query names the branch or asks what is open.

Statuses: `open`, `in_progress`, `blocked`, `done`. Case, spaces and hyphens are forgiven
(`In-Progress` is `in_progress`), and a few words agents write anyway are read as one of them
(`todo`, `pending` -> open; `wip`, `started` -> in_progress; `complete`, `completed`,
`finished` -> done). Anything else is refused, like an empty or over-long goal or step, or a
secret in either; a refused call writes nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any

from cairn.core.context import Context
from cairn.core.errors import EmptySentenceError, RefusedError, SentenceTooLongError
from cairn.io.store import Progress
from cairn.io.store.protocol import Store
from cairn.usecases.brief import progress_summary
from cairn.usecases.remember import check_secrets, check_used, cite

MAX_CHARS = 500
STATUSES = ("open", "in_progress", "blocked", "done")
ALIASES = {
    "todo": "open",
    "pending": "open",
    "wip": "in_progress",
    "started": "in_progress",
    "complete": "done",
    "completed": "done",
    "finished": "done",
}


def new_pid() -> str:
    """A globally unique progress id, `p-` + 16 hex, so export/import stays idempotent."""
    return "p-" + secrets.token_hex(8)


def check_status(status: str) -> str:
    """The status in its canonical spelling, or a refusal naming the accepted ones."""
    word = "_".join(str(status).strip().lower().replace("-", " ").split())
    word = ALIASES.get(word, word)
    if word not in STATUSES:
        raise RefusedError(f"refused: unknown status {status!r}; use one of {', '.join(STATUSES)}")
    return word


def check_text(name: str, value: str) -> str:
    """A goal or step with its whitespace collapsed, or a refusal: empty or over the limit."""
    text = " ".join(str(value).split())
    if not text:
        raise EmptySentenceError(f"refused: the {name} is empty; say it in a few words")
    if len(text) > MAX_CHARS:
        raise SentenceTooLongError(
            f"refused: the {name} is {len(text)} characters, over the {MAX_CHARS} limit; "
            f"keep the {name} short and put the detail in a memory"
        )
    return text


def check_progress(goal: str, step: str, status: str) -> tuple[str, str, str]:
    """Goal, step and status as stored, or a refusal (`log_mission_progress` and `import`)."""
    goal = check_text("goal", goal)
    step = check_text("step", step)
    status = check_status(status)
    check_secrets({"goal": goal, "step": step})
    return goal, step, status


def log_mission_progress(
    store: Store,
    ctx: Context,
    goal: str,
    step: str,
    status: str,
    used: Iterable[str] = (),
) -> dict[str, Any]:
    """Record one step of the branch's mission; return it with the branch's progress summary.

    Refs in `used` count as cited at once (each tool once per session, as for `remember`);
    refs naming no memory are listed under `unknown_used` and do not stop the write.
    """
    goal, step, status = check_progress(goal, step, status)
    used_refs = list(check_used(used))
    record = Progress(
        pid=new_pid(),
        project=ctx.project,
        branch=ctx.branch,
        goal=goal,
        step=step,
        status=status,
        tool=ctx.tool,
        session=ctx.session,
        at=ctx.now(),
    )
    with store.transaction():
        store.note_session(ctx)
        store.add_progress(record)
        known = store.get_memories(used_refs)
        cited = [u for u in used_refs if u in known]
        if cited:
            cite(store, ctx, cited)
    return {
        "pid": record.pid,
        "branch": record.branch,
        "goal": goal,
        "step": step,
        "status": status,
        "cited": cited,
        "unknown_used": [u for u in used_refs if u not in known],
        "brief": progress_summary(store.progress(ctx.project, ctx.branch)),
    }
