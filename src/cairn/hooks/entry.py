"""`cairn-hook AGENT EVENT`: the entry point every agent's hook calls.

Fast path (standard library only): read stdin, read the trigger list beside the store, and
exit silently when no trigger could match the raw payload. Slow path: `cairn.hooks.run`, in
this process. The hook answers every call itself and starts no other process.

Fail open, always: whatever happens (junk input, a missing, locked or corrupt store, a slow
disk, a bug), the hook prints nothing it did not mean to, exits 0 within its time budget
(`CAIRN_HOOK_BUDGET` seconds, default 1), and never changes the agent's call. It stops a call
only for an opt-in gate (`cairn.usecases.gates`), once per session, and never on a failure.
Errors go to `hook-errors.log` beside the store.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# Events that need the store whatever the payload holds: the session brief and the end.
ALWAYS = frozenset({"sessionstart", "session-start", "start", "stop", "sessionend", "end"})
DEFAULT_BUDGET = 1.0
# A payload past this is not read: the largest tool call an agent sends (a whole file written)
# stays far below it, and reading and scanning it must fit in the budget.
MAX_PAYLOAD_BYTES = 16 << 20


def home() -> str:
    """The workspace folder, as `cairn.io.store.default_home` computes it (without pathlib)."""
    explicit = os.environ.get("CAIRN_HOME")
    if explicit:
        return os.path.expanduser(explicit)
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(os.path.expanduser(data), "cairn")


def main(argv: list[str] | None = None, *, exiting: bool = False) -> int:
    """Run one hook call; always returns 0.

    `exiting`: the process ends with `os._exit` right after (`console_main`), so the store's
    connection is left open rather than closed (`cairn.io.store.hookread`: no checkpoint on
    close); any other caller gets it closed before this returns.
    """
    started = time.perf_counter()
    # Imported here, not at the top: run as a file (`_run_as_file`), this module has no
    # package on sys.path until that function puts it there.
    from cairn.hooks.fastpath import all_given, call_part, candidates, log_error, log_timing

    args = sys.argv[1:] if argv is None else argv
    where = home()
    agent = event = "?"
    fired = 0
    via = "prefilter"  # `process` once the slow path runs: the timing log tells them apart
    try:
        # The budget covers the whole call, reading stdin and the trigger list included: a
        # writer that never closes stdin, or a FIFO in place of a file, ends with the alarm.
        budget = _budget()
        disarm = _arm(budget)
        try:
            if len(args) < 2:
                return 0
            agent, event = args[0].lower(), args[1].lower()
            data = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
            if len(data) > MAX_PAYLOAD_BYTES:
                raise ValueError(f"payload over {MAX_PAYLOAD_BYTES} bytes: not read")
            if not data.strip():
                return 0
            entries, held = None, ""
            if event not in ALWAYS:
                # None: the list cannot be trusted as it is; the slow path asks the store.
                entries, held = candidates(where, call_part(data))
                if entries is not None and (
                    not entries or all_given(where, data, {e.ref for e in entries})
                ):
                    return 0
            via = "process"
            from cairn.hooks.run import run

            out, fired = run(agent, event, data, entries, where, held, started + budget)
            if out:
                sys.stdout.write(out)
                sys.stdout.flush()
        finally:
            disarm()
    except BaseException as exc:
        log_error(where, args, exc)
    finally:
        if not exiting:
            _close_left_open(where, args)
        log_timing(where, agent, event, started, fired, via)
    return 0


def _close_left_open(where: str, args: list[str]) -> None:
    """Close the store connection the slow path left open, if it ran (never raises)."""
    hookread = sys.modules.get("cairn.io.store.hookread")
    if hookread is None:
        return
    try:
        hookread.close_left_open()
    except BaseException as exc:
        from cairn.hooks.fastpath import log_error

        log_error(where, args, exc)


class BudgetSpent(Exception):
    """The hook's time budget ran out."""


def _budget() -> float:
    """Seconds this call may take: `$CAIRN_HOOK_BUDGET`, else DEFAULT_BUDGET."""
    try:
        budget = float(os.environ.get("CAIRN_HOOK_BUDGET") or DEFAULT_BUDGET)
    except ValueError:
        return DEFAULT_BUDGET
    return budget if 0 < budget < 3600 else DEFAULT_BUDGET


def _arm(budget: float) -> Callable[[], None]:
    """Raise BudgetSpent in this thread after `budget` seconds; returns the disarm.

    SIGALRM interrupts a blocking read or open too (PEP 475 retries a call only when the
    handler returns). Outside the main thread no alarm can be set: the call runs unbounded
    (only the in-process tests do that).
    """
    # `_signal`, not `signal`: the wrapper module imports `enum` (~5 ms for the hook).
    import _signal

    def expire(signum: int, frame: object) -> None:
        raise BudgetSpent(f"hook budget of {budget}s spent")

    try:
        previous = _signal.signal(_signal.SIGALRM, expire)
        _signal.setitimer(_signal.ITIMER_REAL, budget)
    except (ValueError, OSError):  # not the main thread
        return _nothing

    def disarm() -> None:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _signal.signal(_signal.SIGALRM, previous)

    return disarm


def _nothing() -> None:
    pass


def console_main() -> None:
    """Console-script wrapper: run `main`, flush, and leave at once with its status (0).

    `os._exit`, not `sys.exit`: the hook's output is written and flushed, and tearing the
    interpreter down module by module would only add ~1 ms to every call. It also ends the
    store connection a firing call left open without closing it: SQLite recovers that as it
    recovers a crash, and the call does not pay the checkpoint closing runs
    (`cairn.io.store.hookread`).
    """
    status = main(exiting=True)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(status)


def _run_as_file() -> None:
    """`python -S /abs/cairn/hooks/entry.py AGENT EVENT`: the fastest start (no `site`).

    Without `site`, neither the package root nor site-packages is on sys.path: put the root
    holding `cairn` first, and the interpreter's site-packages (for sqlite3's neighbours re2
    and tree-sitter, needed only on the slow path) last.
    """
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.dirname(os.path.dirname(here)))
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    # `site` is what finds a venv (pyvenv.cfg beside bin/); without it, sys.prefix is the
    # base interpreter's, so look beside the executable first.
    venv = os.path.dirname(os.path.dirname(sys.executable))
    prefix = venv if os.path.exists(os.path.join(venv, "pyvenv.cfg")) else sys.prefix
    sys.path.append(os.path.join(prefix, "lib", version, "site-packages"))
    console_main()


if __name__ == "__main__":
    if __package__:
        console_main()
    else:
        _run_as_file()
