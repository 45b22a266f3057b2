"""Matching a lesson's shell trigger against a command: what the hook runs when one could fire.

Kept apart from `cairn.core.lessons.triggers` (validation, with `re`, `json` and `dataclasses`) so
a hook call that fires a lesson imports little. Patterns are validated when a lesson is saved;
here they are compiled once per process and cached.

A pattern with no regex syntax at all (`git push`, `npm publish --tag`) is a literal: RE2's
search for it is a substring test, so it is matched with `in` and RE2 is not even imported
(~3 ms of the hook's start-up). A pattern made only of literal text, escaped punctuation,
groups, alternation and a leading `^` / trailing `$` (`^git (push|pull)`, `terraform
(apply|destroy)$`) stands for a small set of strings (`finite`): matched with `in`,
`startswith` and `endswith`, as RE2 would (property tests compare both). Such pieces joined by
`.*` or `.+` at the top level (`git push.*--force`, `^kubectl delete .*--all$`) are matched by
finding each piece after the previous one (`gapped`), on a command without a newline (which
`.` does not match). Everything else goes to RE2.
"""

from __future__ import annotations

from functools import lru_cache

from cairn.core.errors import TriggerError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "COMMAND_LIMIT",
    "PATTERN_LIMIT",
    "command_matches",
    "compile_re2",
    "compile_regex",
    "finite",
    "gapped",
    "is_literal",
    "shown",
]

COMMAND_LIMIT = 512
PATTERN_LIMIT = 1000  # for regexes and globs alike (cairn.core.lessons.glob reads it here)
CACHE_SIZE = 256
# RE2's syntax characters: a pattern holding none of them matches exactly its own text.
_SYNTAX = frozenset("\\.^$*+?()[]{}|")
FINITE_LIMIT = 64  # strings a finite pattern may stand for


def is_literal(pattern: str) -> bool:
    """True when `pattern` holds no regex syntax, so RE2 would search for its exact text.

    U+FFFD is left to RE2: a command's lone surrogates reach RE2 as U+FFFD.
    """
    return bool(pattern) and _SYNTAX.isdisjoint(pattern) and "\ufffd" not in pattern


@lru_cache(maxsize=CACHE_SIZE)
def compile_regex(pattern: str) -> Any:
    """The RE2 regex for a `when.match`; TriggerError when empty, too long or not RE2."""
    _check(pattern)
    return _compile(pattern)


def command_matches(pattern: str, command: str) -> bool:
    """RE2 search of `pattern` in the first COMMAND_LIMIT characters of `command`; when the
    command is longer, those characters are not its end, so `$` does not match there.

    Raises TriggerError when `pattern` is not text or does not compile (a stored trigger
    saving never let through); the compiled regex is cached.
    """
    if not isinstance(pattern, str):
        raise TriggerError(f"`when.match` is {pattern!r}, not a regex as text")
    head = command[:COMMAND_LIMIT]
    # A command cut at the limit does not end there: `$` must not match at the cut.
    cut = len(command) > COMMAND_LIMIT
    if is_literal(pattern):
        _check(pattern)
        return pattern in head
    strings = finite(pattern)
    if strings is not None:
        _check(pattern)
        start, end, texts = strings
        if end and cut:
            return False
        if start and end:
            return head in texts
        if start:
            return head.startswith(texts)
        if end:
            return head.endswith(texts)
        return any(text in head for text in texts)
    pieces = gapped(pattern) if "\n" not in head else None
    if pieces is not None:
        _check(pattern)
        return not (pieces[1] and cut) and _search_gapped(head, *pieces)
    regex = compile_regex(pattern)
    # RE2 searches the first COMMAND_LIMIT characters with the whole command as context, so
    # `$` and `\b` see what follows the cut.
    text = command[: COMMAND_LIMIT + 1]
    try:
        return regex.search(text, 0, len(head)) is not None
    except UnicodeEncodeError:
        # A lone surrogate (from a JSON `\ud800`) cannot be encoded for RE2: make each one a
        # single U+FFFD (UTF-16 round trip), so `.` still matches it as one character.
        fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return regex.search(fixed, 0, len(head)) is not None


@lru_cache(maxsize=CACHE_SIZE)
def finite(pattern: str) -> tuple[bool, bool, tuple[str, ...]] | None:
    """(anchored at the start, anchored at the end, the strings) when `pattern` is literal
    text, escaped punctuation, `(...)` / `(?:...)` groups and `|`, with at most a leading `^`
    and a trailing `$` around a pattern without a top-level `|`; None for anything else or
    more than FINITE_LIMIT strings."""
    return _expand(pattern)


def _expand(pattern: str) -> tuple[bool, bool, tuple[str, ...]] | None:
    anchors = _anchors(pattern)
    if anchors is None:
        return None
    start, end, body = anchors
    parsed = _Reader(body).top(anchored=start or end)
    if parsed is None:
        return None
    return start, end, tuple(sorted(parsed))


def _anchors(pattern: str) -> tuple[bool, bool, str] | None:
    """(a leading `^`, a trailing unescaped `$`, what is between); None for no fast path."""
    if not pattern or "\ufffd" in pattern:
        return None
    start = pattern.startswith("^")
    body = pattern[1:] if start else pattern
    end = body.endswith("$") and not _escaped_at(body, len(body) - 1)
    return start, end, body[:-1] if end else body


Pieces = tuple[tuple[int, tuple[str, ...]], ...]


@lru_cache(maxsize=CACHE_SIZE)
def gapped(pattern: str) -> tuple[bool, bool, Pieces] | None:
    """(anchored at the start, anchored at the end, pieces) when `pattern` is finite pieces
    (see `finite`, each without a top-level `|`) joined by top-level `.*` or `.+`; each piece
    is (the fewest characters before it: 1 after `.+`, else 0, its strings). None for a
    pattern without such a gap, or anything else."""
    anchors = _anchors(pattern)
    if anchors is None:
        return None
    start, end, body = anchors
    split = _split_gaps(body)
    if split is None:
        return None
    pieces = []
    for gap, text in split:
        strings = _Reader(text).top(anchored=True)  # anchored: no `|` across a gap
        if strings is None:
            return None
        pieces.append((gap, tuple(sorted(strings))))
    return start, end, tuple(pieces)


def _split_gaps(body: str) -> list[tuple[int, str]] | None:
    """`body` cut at each top-level unescaped `.*` / `.+`, as (fewest gap characters before,
    piece); None without one. A `.` inside `[...]` may be cut at wrongly, but the piece keeping
    the `[` is then refused by the reader, so the pattern goes to RE2."""
    out: list[tuple[int, str]] = []
    depth, at, last, gap = 0, 0, 0, 0
    while at < len(body):
        char = body[at]
        if char == "\\":
            at += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "." and depth == 0 and body[at + 1 : at + 2] in ("*", "+"):
            out.append((gap, body[last:at]))
            gap = 1 if body[at + 1] == "+" else 0
            at += 2
            last = at
            continue
        at += 1
    if not out:
        return None
    out.append((gap, body[last:]))
    return out


def _search_gapped(head: str, start: bool, end: bool, pieces: Pieces) -> bool:
    """RE2's search of a `gapped` pattern in `head`, a text without a newline.

    Each piece takes the occurrence that ends first after the previous one (and its gap):
    any match has every piece ending there or later, so if this greedy choice fails, no
    choice succeeds.
    """
    pos = 0
    last = len(pieces) - 1
    for i, (gap, texts) in enumerate(pieces):
        pos += gap
        if i == 0 and start:
            ends = [len(t) for t in texts if head.startswith(t)]
        elif i == last and end:
            ends = [len(head) for t in texts if head.endswith(t) and len(head) - len(t) >= pos]
        else:
            ends = [at + len(t) for t in texts if (at := head.find(t, pos)) >= 0]
        if not ends:
            return False
        pos = min(ends)
    return True


def _escaped_at(text: str, at: int) -> bool:
    """Is text[at] escaped (an odd run of backslashes before it)?"""
    run = 0
    while at - run - 1 >= 0 and text[at - run - 1] == "\\":
        run += 1
    return run % 2 == 1


class _Reader:
    """Reads the finite subset of RE2's syntax into the set of strings it matches."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def top(self, anchored: bool) -> set[str] | None:
        strings = self.alternation(top=True, anchored=anchored)
        return strings if strings is not None and self.pos == len(self.text) else None

    def alternation(self, top: bool = False, anchored: bool = False) -> set[str] | None:
        out = self.sequence()
        while out is not None and self.pos < len(self.text) and self.text[self.pos] == "|":
            if top and anchored:
                return None  # `^a|b`: the anchor binds to one branch only
            self.pos += 1
            more = self.sequence()
            if more is None:
                return None
            out |= more
            if len(out) > FINITE_LIMIT:
                return None
        return out

    def sequence(self) -> set[str] | None:
        out = {""}
        text = self.text
        while self.pos < len(text) and text[self.pos] not in "|)":
            char = text[self.pos]
            if char == "(":
                self.pos += 3 if text.startswith("(?:", self.pos) else 1
                if text.startswith("?", self.pos):
                    return None  # a flag group or a named group
                inner = self.alternation()
                if inner is None or not text.startswith(")", self.pos):
                    return None
                self.pos += 1
                piece = inner
            elif char == "\\":
                nxt = text[self.pos + 1 : self.pos + 2]
                if not nxt or not nxt.isascii() or nxt.isalnum() or nxt.isspace() or nxt == "_":
                    return None  # \d, \n, \Q ... are not literal punctuation
                self.pos += 2
                piece = {nxt}
            elif char in _SYNTAX:
                return None
            else:
                self.pos += 1
                piece = {char}
            out = {a + b for a in out for b in piece}
            if len(out) > FINITE_LIMIT:
                return None
        return out


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


def compile_re2(source: str) -> Any:
    """Compile RE2 source without RE2 logging its parse errors to stderr; raises `re2.error`."""
    import re2  # lazily: matching is the only step that needs it

    options = re2.Options()
    options.log_errors = False
    return re2.compile(source, options)


def shown(pattern: str) -> str:
    """`pattern` as an error message quotes it: repr, cut to 80 characters."""
    return repr(pattern) if len(pattern) <= 80 else repr(pattern[:77]) + "..."
