"""`cairn-hook AGENT EVENT`: the entry point every agent's hook calls.

Fast path (standard library only): read stdin, read the trigger list beside the store, and
exit silently when no trigger could match the raw payload. Slow path: `cairn.hooks.run`, in
this process. The hook answers every call itself and starts no other process.

Fail open, always: whatever happens (junk input, a missing, locked or corrupt store, a slow
disk, a bug), the hook prints nothing it did not mean to, exits 0 within its time budget
(`CAIRN_HOOK_BUDGET` seconds, default 1), and never changes the agent's call. It stops a call
only for an opt-in gate (`cairn.gates`), once per session, and never on a failure.
Errors go to `hook-errors.log` beside the store.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# Events that need the store whatever the payload holds: the session brief and the end.
ALWAYS = frozenset({"sessionstart", "session-start", "start", "stop", "sessionend", "end"})
DEFAULT_BUDGET = 1.0
# A payload past this is not read: the largest tool call an agent sends (a whole file written)
# stays far below it, and reading and scanning it must fit in the budget.
MAX_PAYLOAD_BYTES = 16 << 20
# The trigger list of a very large workspace (100,000 lessons) is a few MB.
TRIGGER_LIST_BYTES = 64 << 20
GIVEN_BYTES = 1 << 20
ERROR_LOG = "hook-errors.log"
ERROR_LOG_BYTES = 1_000_000
TIMING_LOG = "hook-timing.log"
TIMING_LOG_BYTES = 1_000_000


def home() -> str:
    """The workspace folder, as `cairn.store.default_home` computes it (without pathlib)."""
    explicit = os.environ.get("CAIRN_HOME")
    if explicit:
        return os.path.expanduser(explicit)
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(os.path.expanduser(data), "cairn")


def main(argv: list[str] | None = None) -> int:
    """Run one hook call; always returns 0."""
    started = time.perf_counter()
    args = sys.argv[1:] if argv is None else argv
    where = home()
    agent = event = "?"
    fired = 0
    via = "prefilter"  # `process` once the slow path runs: the timing log tells them apart
    try:
        # The budget covers the whole call, reading stdin and the trigger list included: a
        # writer that never closes stdin, or a FIFO in place of a file, ends with the alarm.
        disarm = _arm(_budget())
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
                    not entries or _all_given(where, data, {e.ref for e in entries})
                ):
                    return 0
            via = "process"
            from cairn.hooks.run import run

            out, fired = run(agent, event, data, entries, where, held)
            if out:
                sys.stdout.write(out)
                sys.stdout.flush()
        finally:
            disarm()
    except BaseException as exc:
        log_error(where, args, exc)
    finally:
        _time(where, agent, event, started, fired, via)
    return 0


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


def candidates(where: str, data: bytes) -> tuple[list[Any] | None, str]:
    """Trigger-list entries that could match (the keys file first, the list only then), and
    the generation token the list holds ('' when it was not read).

    None when the list cannot be trusted as it is (`cairn.triggerlist`): the keys file is
    marked `!` (a write under way or cut short), missing while a database is there, in an
    older format or damaged, or the list disagrees with it. The slow path then answers from
    the store and repairs the list; with a token, it only compares it with the store's.
    """
    from cairn.lessons.prefilter import candidates_from, keys_could_match, keys_settled, list_token
    from cairn.regularfile import read_bytes

    try:
        keys = read_bytes(os.path.join(where, "triggers.keys"), TRIGGER_LIST_BYTES, follow=False)
    except OSError:
        # No list: nothing can fire without a store; with one, the slow path writes the list.
        return (None if os.path.exists(os.path.join(where, "cairn.db")) else []), ""
    if not keys_settled(keys):
        return None, ""
    aliases = _aliases(data)
    if not keys_could_match(keys, data, aliases):
        return [], ""
    try:
        text = read_bytes(os.path.join(where, "triggers.tsv"), TRIGGER_LIST_BYTES, follow=False)
    except OSError:
        return None, ""
    held = list_token(keys, text)
    if held is None:
        return None, ""
    return candidates_from(keys, text.decode("utf-8", "surrogateescape"), data, aliases), held


def _aliases(data: bytes) -> Callable[[], dict[str, str]]:
    """The git aliases of the call's checkout, read when the prefilter asks (a git action's
    alias line, on a payload holding `git`): its `cwd`, else the hook's own folder."""

    def read() -> dict[str, str]:
        from cairn.workspace import checkout_dir, git_aliases

        value = _field(data, b'"cwd"')
        return git_aliases(checkout_dir(value or None))

    return read


_SESSION_KEYS = (b'"session_id"', b'"conversation_id"', b'"sessionID"')


def session_of(data: bytes) -> str:
    """The session id from a raw payload, without parsing JSON ('' when not found)."""
    for key in _SESSION_KEYS:
        value = _field(data, key, 200)
        if value:
            return value
    return ""


def _field(data: bytes, key: bytes, most: int = 4096) -> str:
    """The text value of `key` (quoted) in a raw payload, when it holds no escape; else ''."""
    at = data.find(key)
    if at < 0:
        return ""
    start = data.find(b'"', data.find(b":", at + len(key)) + 1)
    end = data.find(b'"', start + 1)
    value = data[start + 1 : end] if 0 <= start < end else b""
    if value and len(value) <= most and b"\\" not in value:
        return value.decode("utf-8", "replace")
    return ""


def given_path(where: str, session: str) -> str:
    """The file listing refs already given to a session (a cache of the store's ledger)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session)[:120]
    return os.path.join(where, "given", safe)


def _all_given(where: str, data: bytes, refs: set[str]) -> bool:
    """Were all these refs already given to this session? Then the slow path can be skipped."""
    session = session_of(data)
    if not session:
        return False
    from cairn.regularfile import read_text

    try:
        return refs <= set(read_text(given_path(where, session), GIVEN_BYTES, follow=False).split())
    except (OSError, ValueError):
        return False


def call_part(data: bytes) -> bytes:
    """The payload without the tool's output, which after-tool events carry.

    A command's output (an `ls` listing, a file's text) is not what triggers match, and its
    words would let unrelated lessons through the prefilter. Only cut when `tool_input` comes
    first, so the call itself is never cut away.
    """
    cut = data.find(b'"tool_response"')
    start = data.find(b'"tool_input"')
    return data[:cut] if 0 <= start < cut else data


def _now() -> float:
    """Unix time from Cairn's one clock (`$CAIRN_NOW` when set), cheaply when it is not."""
    if os.environ.get("CAIRN_NOW"):
        from cairn.context import now_seconds

        return now_seconds()
    return time.time()


def _time(where: str, agent: str, event: str, started: float, fired: int, via: str) -> None:
    """Append this call's wall time to the rolling timing log `cairn stats` reads.

    Line: unix time, agent, event, milliseconds, memories fired, and how it was answered
    (`prefilter`: the fast path alone, from the trigger list; `process`: the slow path ran
    the core too). The log is rotated to `hook-timing.log.1` past TIMING_LOG_BYTES.
    Never raises.
    """
    try:
        ms = (time.perf_counter() - started) * 1000
        line = f"{_now():.3f}\t{agent}\t{event}\t{ms:.2f}\t{fired}\t{via}\n"
        _append_log(where, TIMING_LOG, line, TIMING_LOG_BYTES)
    except BaseException:
        pass


def log_error(where: str, args: list[str], exc: BaseException) -> None:
    """Append one line to the hook error log (rotated like the timing log); never raise."""
    try:
        line = (
            f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} "
            f"{' '.join(args)[:80]} {type(exc).__name__}: {str(exc)[:300]}\n"
        )
        _append_log(where, ERROR_LOG, line, ERROR_LOG_BYTES)
    except BaseException:
        pass


def _append_log(where: str, name: str, line: str, most: int) -> None:
    """Append a line to a log in the workspace folder, moving it to `NAME.1` past `most` bytes.

    Only into a workspace that exists: a hook never creates one just to log. The log is
    appended without waiting (a FIFO in its place is refused) and made readable by its owner
    only.
    """
    if not os.path.isdir(where):
        return
    from cairn.regularfile import append

    path = os.path.join(where, name)
    if append(path, line.encode("utf-8", "replace")) > most:
        os.replace(path, path + ".1")


def console_main() -> None:
    """Console-script wrapper: run `main`, flush, and leave at once with its status (0).

    `os._exit`, not `sys.exit`: the hook's output is written and flushed, and tearing the
    interpreter down module by module would only add ~1 ms to every call.
    """
    status = main()
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
