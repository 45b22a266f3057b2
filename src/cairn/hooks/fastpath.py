"""What the hook reads before it decides to open the store, and where it logs.

The trigger list's candidates for a call (`candidates`, read through `cairn.core.lessons.prefilter`
from the list beside the store), the file of lessons a session was already given, the call's
own part of the payload, and the error and timing logs beside the store. Standard library
only, like `cairn.hooks.entry`, which runs them on every call; `cairn.hooks.run`, the slow
path, uses them too.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # not `from typing import ...`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# The trigger list of a very large workspace (100,000 lessons) is a few MB.
TRIGGER_LIST_BYTES = 64 << 20
GIVEN_BYTES = 1 << 20
ERROR_LOG = "hook-errors.log"
ERROR_LOG_BYTES = 1_000_000
TIMING_LOG = "hook-timing.log"
TIMING_LOG_BYTES = 1_000_000


def candidates(where: str, data: bytes) -> tuple[list[Any] | None, str]:
    """Trigger-list entries that could match (the keys file first, the list only then), and
    the generation token the list holds ('' when it was not read).

    None when the list cannot be trusted as it is (`cairn.io.triggerlist`): the keys file is
    marked `!` (a write under way or cut short), missing while a database is there, in an
    older format or damaged, or the list disagrees with it. The slow path then answers from
    the store and repairs the list; with a token, it only compares it with the store's.
    """
    from cairn.core.lessons.prefilter import (
        candidates_from,
        keys_could_match,
        keys_settled,
        list_token,
    )
    from cairn.io.regularfile import read_bytes

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
        from cairn.io.workspace import checkout_dir, git_aliases

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


def all_given(where: str, data: bytes, refs: set[str]) -> bool:
    """Were all these refs already given to this session? Then the slow path can be skipped."""
    session = session_of(data)
    if not session:
        return False
    from cairn.io.regularfile import read_text

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
        from cairn.core.context import now_seconds

        return now_seconds()
    return time.time()


def log_timing(where: str, agent: str, event: str, started: float, fired: int, via: str) -> None:
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
    from cairn.io.regularfile import append

    path = os.path.join(where, name)
    if append(path, line.encode("utf-8", "replace")) > most:
        os.replace(path, path + ".1")
