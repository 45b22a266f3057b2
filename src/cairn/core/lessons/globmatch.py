"""Matching a glob of literal text, `*` and at most one `**` without RE2: the hook's read and
edit lessons.

`cairn.core.lessons.glob` parses the full grammar (sets, braces, `?`) and compiles it to RE2;
loading RE2 costs a hook call ~3 ms, and so does importing that parser. Most lesson globs
(`packages/db/**`, `db/migrations/*.sql`, `src/**/*.ts`) need neither: `simple` recognises
them by their characters alone and `glob_matches` matches them with string operations,
exactly as their RE2 pattern would (property tests compare both). Anything else, including
every glob the grammar refuses, goes to `cairn.core.lessons.glob.re2_matches`.
"""

from __future__ import annotations

from functools import lru_cache

from cairn.core.errors import TriggerError
from cairn.core.lessons.globpath import glob_body, strip_dot_slash
from cairn.core.lessons.match import PATTERN_LIMIT

__all__ = ["glob_body", "glob_matches", "simple", "strip_dot_slash"]

CACHE_SIZE = 256
# Characters of the grammar's sets, braces and `?` (and escapes, which it refuses).
_SYNTAX = frozenset("[]{}?,\\")


def glob_matches(glob: str, path: str) -> bool:
    """True when `path` (whole, a leading `./` ignored) matches `glob`; raises TriggerError
    (from the full grammar) for a glob it refuses, or one that is not text."""
    if not isinstance(glob, str):
        raise TriggerError(f"`when.path` is {glob!r}, not a glob as text")
    fast = simple(glob)
    if fast is not None:
        stripped = strip_dot_slash(path)
        if stripped.isascii():
            return fast.matches(stripped.lower())
    from cairn.core.lessons.glob import re2_matches

    return re2_matches(glob, path)


@lru_cache(maxsize=CACHE_SIZE)
def simple(glob: str) -> _Simple | None:
    """The glob as a `_Simple`, or None when it needs the full grammar: a set, a brace, `?`,
    a backslash, non-ASCII text, more than one `**`, a `**` in a glob without `/`, or a
    glob the grammar would refuse (empty, too long)."""
    return _recognise(glob)


def _recognise(glob: str) -> _Simple | None:
    text, anchored = glob_body(glob)
    if not text or len(glob) > PATTERN_LIMIT or not glob.isascii() or not _SYNTAX.isdisjoint(glob):
        return None
    anywhere = not anchored
    sides: list[list[str]] = [[""]]
    globstar = dirs = False
    i = 0
    while i < len(text):
        if text.startswith("**", i):
            if globstar:
                return None  # two `**`: the grammar refuses it, with its own message
            # `**/` at the start or after `/` is zero or more whole folders.
            dirs = (i == 0 or text[i - 1] == "/") and text.startswith("/", i + 2)
            globstar = True
            sides.append([""])
            i += 3 if dirs else 2
        elif text[i] == "*":
            sides[-1].append("")
            i += 1
        else:
            sides[-1][-1] += text[i].lower()
            i += 1
    if globstar and anywhere:
        return None  # `(.*/)?` before a `**`: left to RE2
    return _Simple(sides[0], sides[-1], globstar, dirs, anywhere)


class _Simple:
    """A glob of literal text, `*` and at most one `**`, matched without RE2.

    Each side of the `**` is `L0 * L1 * ... * Ln`: literal runs (`pre` / `post`) with a `*`
    (any run of characters but `/`) between each two. Without a `**`, `pre` is the whole
    glob. `dirs` marks a `**/` (zero or more whole folders), `anywhere` a glob without `/`
    (it matches the last part of the path). Glob and path are compared in lowercase ASCII,
    which is what RE2's `(?i)` does on ASCII text.
    """

    __slots__ = ("anywhere", "dirs", "globstar", "post", "pre")

    def __init__(
        self,
        pre: list[str],
        post: list[str],
        globstar: bool,
        dirs: bool,
        anywhere: bool,
    ) -> None:
        self.pre, self.post = pre, post
        self.globstar, self.dirs, self.anywhere = globstar, dirs, anywhere

    def matches(self, path: str) -> bool:
        if not self.globstar:
            if self.anywhere:
                path = path[path.rfind("/") + 1 :]
            return _full(self.pre, path)
        end = _prefix_end(self.pre, path)
        if end is None:
            return False
        if not self.dirs:  # `**` matches anything: the rest must end with a `post` match
            start = _suffix_start(self.post, path)
            return start is not None and start >= end
        # `**/`: `post` matches from the start of some folder at or after `end`.
        return any(_full(self.post, path[start:]) for start in _segment_starts(path, end))


def _full(pieces: list[str], text: str) -> bool:
    """Does `L0 * L1 ... * Ln` match all of `text`, no `*` taking a `/`?"""
    if len(pieces) == 1:
        return text == pieces[0]
    first, last = pieces[0], pieces[-1]
    if len(text) < len(first) + len(last) or not text.startswith(first):
        return False
    if not text.endswith(last):
        return False
    end = _leftmost(pieces[1:-1], text, len(first), len(text) - len(last))
    return end is not None and "/" not in text[end : len(text) - len(last)]


def _leftmost(middle: list[str], text: str, pos: int, limit: int) -> int | None:
    """Place each middle piece at its leftmost spot in text[pos:limit], in order, each gap
    (a `*`) free of `/`; the end of the last one, or None. Leftmost is never worse: a later
    spot leaves less room and a longer gap, holding any `/` the earlier gap held."""
    for piece in middle:
        found = text.find(piece, pos, limit)
        if found < 0 or "/" in text[pos:found]:
            return None
        pos = found + len(piece)
    return pos


def _prefix_end(pieces: list[str], text: str) -> int | None:
    """The smallest p with `pieces` matching all of text[:p] (a trailing `*` taking nothing)."""
    if not text.startswith(pieces[0]):
        return None
    return _leftmost(pieces[1:], text, len(pieces[0]), len(text))


def _suffix_start(pieces: list[str], text: str) -> int | None:
    """The largest q with `pieces` matching all of text[q:] (`_prefix_end`, mirrored)."""
    end = _prefix_end([p[::-1] for p in reversed(pieces)], text[::-1])
    return None if end is None else len(text) - end


def _segment_starts(path: str, start: int) -> list[int]:
    """Where a folder or file name begins in `path`, at or after `start`."""
    if start and path[start - 1] != "/":
        first = path.find("/", start) + 1
        if not first:
            return []
        start = first
    out = [start]
    at = path.find("/", start)
    while at >= 0:
        out.append(at + 1)
        at = path.find("/", at + 1)
    return out
