"""Matching a lesson's shell trigger against a command: what the hook runs when one could fire.

Kept apart from `cairn.lessons.triggers` (validation, with `re`, `json` and `dataclasses`) so
a hook call that fires a lesson imports little. Patterns are validated when a lesson is saved;
here they are compiled once per process and cached.

A pattern with no regex syntax at all (`git push`, `npm publish --tag`) is a literal: RE2's
search for it is a substring test, so it is matched with `in` and RE2 is not even imported
(~8 ms of the hook's start-up). Everything else goes to RE2.
"""

from __future__ import annotations

from cairn.errors import TriggerError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["COMMAND_LIMIT", "command_matches", "compile_regex", "is_literal"]

COMMAND_LIMIT = 512
PATTERN_LIMIT = 1000  # the same limit as globs (cairn.lessons.glob.PATTERN_LIMIT)
CACHE_SIZE = 256
# RE2's syntax characters: a pattern holding none of them matches exactly its own text.
_SYNTAX = frozenset("\\.^$*+?()[]{}|")
_compiled: dict[str, Any] = {}


def is_literal(pattern: str) -> bool:
    """True when `pattern` holds no regex syntax, so RE2 would search for its exact text.

    U+FFFD is left to RE2: a command's lone surrogates reach RE2 as U+FFFD.
    """
    return bool(pattern) and _SYNTAX.isdisjoint(pattern) and "\ufffd" not in pattern


def compile_regex(pattern: str) -> Any:
    """The RE2 regex for a `when.match`; TriggerError when empty, too long or not RE2."""
    regex = _compiled.get(pattern)
    if regex is None:
        _check(pattern)
        regex = _compile(pattern)
        if len(_compiled) >= CACHE_SIZE:
            _compiled.clear()
        _compiled[pattern] = regex
    return regex


def command_matches(pattern: str, command: str) -> bool:
    """RE2 search of `pattern` in the first COMMAND_LIMIT characters of `command`.

    Raises TriggerError when `pattern` does not compile; the compiled regex is cached.
    """
    head = command[:COMMAND_LIMIT]
    if is_literal(pattern):
        _check(pattern)
        return pattern in head
    regex = compile_regex(pattern)
    try:
        return regex.search(head) is not None
    except UnicodeEncodeError:
        # A lone surrogate (from a JSON `\ud800`) cannot be encoded for RE2: make each one a
        # single U+FFFD (UTF-16 round trip), so `.` still matches it as one character.
        fixed = head.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return regex.search(fixed) is not None


def _check(pattern: str) -> None:
    """The checks every pattern passes before it is used: not empty, not too long, text."""
    if not pattern:
        raise TriggerError(
            "`when.match` is empty; give the part of the command to watch for, like `git push`."
        )
    if len(pattern) > PATTERN_LIMIT:
        raise TriggerError(
            f"`when.match` is {len(pattern)} characters long; at most {PATTERN_LIMIT}. "
            "Match the part of the command that matters, like `git push`."
        )
    try:
        pattern.encode("utf-8")
    except UnicodeEncodeError:
        raise TriggerError(
            "`when.match` holds a lone surrogate, which is not text; send the regex as UTF-8."
        ) from None


def _compile(pattern: str) -> Any:
    import re2  # lazily: a literal pattern never needs it

    from cairn.lessons.glob import compile_re2, shown

    try:
        return compile_re2(pattern)
    except re2.error as exc:
        raw = exc.args[0] if exc.args else ""
        reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        raise TriggerError(
            f"`when.match` {shown(pattern)} is not a regular expression RE2 can run: {reason}. "
            "Cairn matches with RE2, which has no backreferences or lookarounds; rewrite "
            "the pattern without them."
        ) from None
