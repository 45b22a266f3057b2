"""The hook's slow path: parse the payload with the agent's adapter and ask the core.

Reached only when the trigger list says something could match (or for a session start or
end). Runs under a hard time budget: SIGALRM ends it silently.
"""

from __future__ import annotations

import os

from cairn.calls import ALREADY_GIVEN, lessons_for, render
from cairn.codec import loads
from cairn.context import Context
from cairn.hooks.registry import adapter
from cairn.store import SessionRow, SqliteStore
from cairn.workspace import checkout_dir, current_branch, project_dir

# A call that fires a lesson imports this module and what it imports: the standard library's
# light parts, sqlite3 and RE2 only. tests/hooks/test_hook_imports.py holds the list.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cairn.lessons.prefilter import Entry

HOOK_BUSY_MS = 300


GIVEN_FILES_KEPT = 500
GIVEN_MAX_AGE = 7 * 86400
PRUNE_EVERY_S = 3600
PRUNED = "given.pruned"  # beside the folder: a session may be called anything


def remember_given(home: str, session: str, refs: list[str]) -> None:
    """Add refs to the session's given-file, so the hook's fast path can skip them next time.

    The store's ledger stays the truth; this is its cache. When a session's file is new, and
    the folder was not looked at in the last `PRUNE_EVERY_S`, files older than
    `GIVEN_MAX_AGE` are pruned if there are more than `GIVEN_FILES_KEPT` (so neither every
    firing call nor every new session pays a stat of every file once there are hundreds).
    """
    from cairn.hooks.entry import given_path

    path = given_path(home, session)
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    new = not os.path.exists(path)
    with open(path, "a", encoding="utf-8") as out:
        out.write("".join(f"{ref}\n" for ref in refs))
        out.flush()
        # File ages are measured on the file system's clock (the mtime it just gave this
        # file), not the process's: the two agree on a real machine, and this stays right
        # when they do not (a skewed network share, faketime in tests).
        now = os.fstat(out.fileno()).st_mtime
    if not new:
        return
    marker = os.path.join(home, PRUNED)
    try:
        if now - os.path.getmtime(marker) < PRUNE_EVERY_S:
            return
    except OSError:
        pass  # never pruned
    with open(marker, "a", encoding="utf-8"):
        pass
    os.utime(marker, (now, now))
    names = os.listdir(folder)
    if len(names) <= GIVEN_FILES_KEPT:
        return
    cutoff = now - GIVEN_MAX_AGE
    for name in names:
        full = os.path.join(folder, name)
        try:
            if os.path.getmtime(full) < cutoff:
                os.remove(full)
        except OSError:
            pass  # another hook pruned it first


def _refresh_docs(store: SqliteStore, ctx: Context) -> None:
    """Index the project's doc files that changed, at session start (bounded reads).

    After the brief, which comes first: when this fails or the budget runs out, the brief is
    still printed (a file is indexed whole or not at all; the next call goes on).
    """
    import contextlib  # here, not at the top: a firing call never loads it

    from cairn import docs

    with contextlib.suppress(Exception):  # a hook never fails for the docs' sake
        docs.refresh_docs(store, ctx, max_reads=docs.START_READS, max_bytes=docs.START_BYTES)


def _checked(
    home: str, store: SqliteStore, data: bytes, entries: list[Entry] | None, held: str
) -> list[Entry] | None:
    """The candidates to use once the trigger list is checked against the store.

    When the fast path read a list holding the store's generation (`held`), its candidates
    stand: one query, and `cairn.triggerlist` is not even imported. Else the list is checked
    and repaired when stale (`cairn.triggerlist.ensure`), and the candidates are read again
    from it; None (every trigger, from the store) while a writer holds the list, or when it
    cannot be written.
    """
    if entries is not None and held:
        from cairn.lessons.prefilter import token

        if held == token(*store.trigger_generation()):
            return entries
    from cairn.hooks.entry import call_part, candidates
    from cairn.triggerlist import ensure

    try:
        state = ensure(store)
    except OSError:
        return None
    if state == "busy":
        return None
    return candidates(home, call_part(data))[0]


class BudgetSpent(Exception):
    """The hook's time budget ran out."""


def run_with_budget(
    agent: str,
    event: str,
    data: bytes,
    entries: list[Entry] | None,
    home: str,
    budget: float,
    held: str = "",
) -> tuple[str, int]:
    """`run`, stopped by SIGALRM after `budget` seconds (main thread only)."""
    try:
        # `_signal`, not `signal`: the wrapper module imports `enum` (~5 ms for the hook).
        import _signal as signal
    except ImportError:  # pragma: no cover - CPython on POSIX has it
        import signal

    def expire(signum: int, frame: Any) -> None:
        raise BudgetSpent(f"hook budget of {budget}s spent")

    try:
        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, budget)
    except (ValueError, OSError):  # not the main thread: run without the alarm
        return run(agent, event, data, entries, home, held)
    try:
        return run(agent, event, data, entries, home, held)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run(
    agent: str, event: str, data: bytes, entries: list[Entry] | None, home: str, held: str = ""
) -> tuple[str, int]:
    """What to print for this hook call ('' for nothing), and how many memories fired.

    `entries` are the trigger-list lines the fast path let through (None: every trigger, from
    the store), `held` the generation token of the list they came from.
    """
    module = adapter(agent)
    if module is None:
        return "", 0
    payload = loads(data)
    if not isinstance(payload, dict):
        return "", 0
    ev = module.parse(event, payload)
    if ev is None:
        return "", 0
    cwd = ev.cwd or os.getcwd()
    store = SqliteStore(home, create=False, busy_ms=HOOK_BUSY_MS)
    try:
        if ev.kind == "tool":
            entries = _checked(home, store, data, entries, held)
        else:
            _checked(home, store, data, None, "")
        ctx = Context(
            project=project_dir(cwd),
            cwd=cwd,
            tool=module.AGENT,
            session=ev.session,
            branch=current_branch(checkout_dir(cwd)),
        )
        now = ctx.now()
        session = SessionRow(ev.session, module.AGENT, ctx.project, ctx.branch, cwd, now, None)
        text = ""
        if ev.kind == "tool" and ev.call is not None:
            # Writes only what changed: the session row when it is new or changed, the offers
            # only when something fires (both in one transaction when both are due). A call
            # that fires nothing writes nothing, so closing has no WAL to checkpoint.
            if ev.session and store.session_changes(session):
                with store.transaction():
                    store.write_session(session)
                    decision = lessons_for(store, ctx, ev.call, entries)
            else:
                decision = lessons_for(store, ctx, ev.call, entries)
            fired = len(decision.fired)
            text = render(decision)
            given = [f.memory.ref for f in decision.fired] + [
                ref for ref, why in decision.skipped.items() if why == ALREADY_GIVEN
            ]
            if ev.session and given:
                remember_given(home, ev.session, given)
            return (str(module.respond(ev, text)) if text else ""), fired
        if ev.session:
            store.upsert_session(session)
        if ev.kind == "start":
            from cairn.brief import session_brief

            text = session_brief(store, ctx)
            _refresh_docs(store, ctx)
        elif ev.kind == "end":
            from cairn.sessions import end_session

            end_session(store, ctx, ev.transcript)
        return (str(module.respond(ev, text)) if text else ""), 0
    finally:
        store.close()
