"""The hook's slow path: parse the payload with the agent's adapter and ask the core.

Reached only when the trigger list says something could match (or for a session start or
end). Runs inside the entry's time budget: SIGALRM ends the whole call silently.

What it prints, in the agent's own shape: the lessons for the call (`respond`), or, when a
gate stops the call, the agent's deny with the gate as the reason (`deny`). Only a gate ever
produces a decision, and only a deny: never an allow, never a changed call. The gate's claim
is committed by the core before the deny is returned here; if the budget runs out between the
two, the call runs (fail open) and the gate is spent for the session.
"""

from __future__ import annotations

import os
import time

from cairn.core.codec import loads
from cairn.core.context import Context
from cairn.core.errors import StoreError
from cairn.hooks.fastpath import log_error
from cairn.hooks.registry import adapter
from cairn.io.store.hookread import HookStore, SessionRow
from cairn.io.workspace import checkout_dir, current_branch, project_dir, project_key
from cairn.usecases.calls import ALREADY_GIVEN, lessons_for, render

# A call that fires a lesson imports this module and what it imports: the standard library's
# light parts, `_sqlite3` and RE2 only, and of the store only its hook reader (`HookStore`).
# tests/hooks/test_hook_imports.py holds the list.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.core.lessons.prefilter import Entry
    from cairn.io.store.protocol import Store
    from cairn.usecases.calls import Call, CallStore, Decision

HOOK_BUSY_MS = 300
# Store troubles that leave it readable: the hook still answers from it.
UNWRITABLE = ("read-only", "full", "locked")


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
    from cairn.hooks.fastpath import given_path
    from cairn.io.regularfile import append

    path = given_path(home, session)
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    data = "".join(f"{ref}\n" for ref in refs).encode()
    if append(path, data) > len(data):
        return  # the session's file was there already
    # File ages are measured on the file system's clock (the mtime it just gave this file),
    # not the process's: the two agree on a real machine, and this stays right when they do
    # not (a skewed network share, faketime in tests).
    now = os.stat(path).st_mtime
    marker = os.path.join(home, PRUNED)
    try:
        if now - os.path.getmtime(marker) < PRUNE_EVERY_S:
            return
    except OSError:
        pass  # never pruned
    append(marker, b"")
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


def _refresh_docs(store: Store, ctx: Context) -> None:
    """Index the project's doc files that changed, at session start (bounded reads).

    After the brief, which comes first: when this fails or the budget runs out, the brief is
    still printed (a file is indexed whole or not at all; the next call goes on).
    """
    import contextlib  # here, not at the top: a firing call never loads it

    from cairn.usecases import docs

    with contextlib.suppress(Exception):  # a hook never fails for the docs' sake
        docs.refresh_docs(store, ctx, max_reads=docs.START_READS, max_bytes=docs.START_BYTES)


def _decide(
    store: CallStore,
    ctx: Context,
    call: Call,
    session: SessionRow,
    entries: list[Entry] | None,
    *,
    lessons: bool,
    gates: bool,
) -> Decision:
    """The lessons (and gates) for a call, recorded in the session's ledger.

    Writes only what changed: the session row when it is new or changed, the offers only
    when something fires (both in one transaction when both are due). A call that fires
    nothing writes nothing: no commit, no fsync.
    """
    if session.id and store.session_changes(session):
        with store.transaction():
            store.write_session(session)
            return lessons_for(store, ctx, call, entries, lessons=lessons, gates=gates)
    return lessons_for(store, ctx, call, entries, lessons=lessons, gates=gates)


def _hook_store(home: str, held: str) -> HookStore | None:
    """The hook's own reader of the store, when the trigger list's candidates stand: the list
    holds the store's trigger generation (`held`) and the reader can open the store. Else None:
    the full store opens, checks the list and repairs it."""
    from cairn.core.lessons.prefilter import token

    store = HookStore.open(home, HOOK_BUSY_MS)
    if store is None:
        return None
    try:
        if held == token(*store.trigger_generation()):
            return store
    except BaseException:
        store.close()
        raise
    store.close()
    return None


def _checked(
    home: str, store: Store, data: bytes, entries: list[Entry] | None, held: str
) -> list[Entry] | None:
    """The candidates to use once the trigger list is checked against the store.

    When the fast path read a list holding the store's generation (`held`), its candidates
    stand: one query, and `cairn.io.triggerlist` is not even imported. Else the list is checked
    and repaired when stale (`cairn.io.triggerlist.ensure`), and the candidates are read again
    from it; None (every trigger, from the store) while a writer holds the list, or when it
    cannot be written.
    """
    if entries is not None and held:
        from cairn.core.lessons.prefilter import token

        if held == token(*store.trigger_generation()):
            return entries
    from cairn.hooks.fastpath import call_part, candidates
    from cairn.io.triggerlist import ensure

    try:
        state = ensure(store)
    except (OSError, StoreError):  # a list or store that cannot be written: ask the store
        return None
    if state == "busy":
        return None
    return candidates(home, call_part(data))[0]


def run(
    agent: str,
    event: str,
    data: bytes,
    entries: list[Entry] | None,
    home: str,
    held: str = "",
    deadline: float | None = None,
) -> tuple[str, int]:
    """What to print for this hook call ('' for nothing), and how many memories fired.

    `entries` are the trigger-list lines the fast path let through (None: every trigger, from
    the store), `held` the generation token of the list they came from, `deadline` when the
    call's budget ends (`time.perf_counter`), which bounds a database's connect and statements.
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
    # A tool call whose candidates the trigger list gave (the list holds the store's
    # generation) reads through the hook's own reader; anything else opens the full store.
    store: CallStore | None = None
    if ev.kind == "tool" and entries is not None and held:
        store = _hook_store(home, held)
    if store is None:
        from cairn.io.store.backends import open_store

        # A tool call trusts this machine's note that the database's schema was checked (a
        # session's start and end, and every CLI or MCP open, check it again).
        within = None if deadline is None else max(0.001, deadline - time.perf_counter())
        full = open_store(
            home,
            create=False,
            busy_ms=HOOK_BUSY_MS,
            trust_checked=ev.kind == "tool",
            within_s=within,
        )
        store = full
        try:
            if ev.kind == "tool":
                entries = _checked(home, full, data, entries, held)
            else:
                _checked(home, full, data, None, "")
        except BaseException:
            full.close()
            raise
    try:
        root = project_dir(cwd)
        key = project_key(root)
        # Until a command, the MCP server or the app moves what the store holds under this
        # folder to the key (cairn.usecases.rekey: the hook never writes that much in its budget),
        # the
        # hook answers for the folder, so no lesson kept under it stops firing meanwhile.
        if key != root and store.holds_project(root):
            key = root
        ctx = Context(
            project=key,
            root=root,
            cwd=cwd,
            tool=module.AGENT,
            session=ev.session,
            branch=current_branch(checkout_dir(cwd)),
        )
        now = ctx.now()
        session = SessionRow(ev.session, module.AGENT, ctx.project, ctx.branch, cwd, now, None)
        text = ""
        if ev.kind == "tool" and ev.call is not None:
            if not (ev.lessons or ev.gates):
                return "", 0
            gates = ev.gates and bool(ev.session)
            try:
                decision = _decide(
                    store, ctx, ev.call, session, entries, lessons=ev.lessons, gates=gates
                )
            except StoreError as exc:
                if exc.cause not in UNWRITABLE:
                    raise
                # The store reads but cannot be written (a read-only folder, a full disk,
                # another process's lock): the lessons still ride along, unrecorded (so a
                # later call of the session may show them again), and the failure is logged.
                # No gate: its once-per-session claim cannot be written, so it fails open.
                log_error(home, [agent, event], exc)
                decision = lessons_for(
                    store, ctx, ev.call, entries, record=False, lessons=ev.lessons, gates=False
                )
            if decision.gated:
                from cairn.usecases.gates import reason

                # Claimed (committed) in lessons_for: now the deny may be printed.
                return str(module.deny(ev, reason(decision.gated, ev.call))), len(decision.gated)
            fired = len(decision.fired)
            text = render(decision)
            given = [f.memory.ref for f in decision.fired] + [
                ref for ref, why in decision.skipped.items() if why == ALREADY_GIVEN
            ]
            if ev.session and given:
                try:
                    remember_given(home, ev.session, given)
                except OSError as exc:
                    log_error(home, [agent, event], exc)
            return (str(module.respond(ev, text)) if text else ""), fired
        assert not isinstance(store, HookStore)  # opened for tool calls alone
        writable = True
        if ev.session:
            try:
                store.upsert_session(session)
            except StoreError as exc:
                if exc.cause not in UNWRITABLE or ev.kind != "start":
                    raise
                log_error(home, [agent, event], exc)  # the brief is still worth giving
                writable = False
        if ev.kind == "start":
            from cairn.usecases.brief import session_brief

            try:
                text = session_brief(store, ctx, record=writable)
            except StoreError as exc:
                if exc.cause not in UNWRITABLE:
                    raise
                # Read, but its offers could not be recorded (another process's lock): given
                # unrecorded, as a tool call's lessons are.
                log_error(home, [agent, event], exc)
                text = session_brief(store, ctx, record=False)
            _refresh_docs(store, ctx)
        elif ev.kind == "end":
            from cairn.usecases.sessions import end_session

            end_session(store, ctx, ev.transcript)
        return (str(module.respond(ev, text)) if text else ""), 0
    finally:
        if isinstance(store, HookStore):
            store.leave_open()  # the entry's os._exit ends it: no checkpoint on close
        else:
            store.close()
