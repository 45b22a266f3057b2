"""Lesson globs: the spec's grammar, compiled by hand to an anchored RE2 pattern.

    *          any run of characters inside one folder (never `/`)
    **         any run across folders, at most one per glob: `a/**/b` matches `a/b` and
               `a/x/y/b`, `**/x` matches `x` at any depth, `a/**` everything under `a/`
    ?          one character, never `/`
    [a-z]      one character from the set (`[!a-z]` or `[^a-z]`: one not in it), never `/`,
               OR the bracket text itself, so `app/[slug]/page.tsx` matches that route folder;
               a `]` right after `[` or `[!` belongs to the set, as in fnmatch
    {ts,tsx}   one of at most 32 comma-separated choices; a choice may hold `*`, `?`, `[..]`
               and `**`, but not another `{..}` (refused: write the choices out in one brace)

Case is ignored. A glob holding no `/` matches the file name at any depth (`*.sql` matches
`db/migrations/001.sql`); otherwise the path is tested whole, from the project root. A leading
`/` or `./` on the glob anchors it at the project root (`/Makefile` is the root's only,
`/src/*.py` matches `src/a.py`); a leading `./` on the path is ignored; paths use `/`.

Refused, each with its own message, so a saved lesson can always fire: an empty glob, one over
1,000 characters, a backslash, more than one `**`, an unclosed `{` or `[`, more than 32 choices,
nested braces, a backwards range such as `[z-a]`.

The hook imports this module on every watched call, so it needs only the standard library;
`re2` is imported inside `compile_re2`, the one function that runs a pattern.
"""

from __future__ import annotations

from functools import lru_cache

from cairn.core.errors import TriggerError
from cairn.core.lessons.globpath import glob_body, strip_dot_slash
from cairn.core.lessons.match import PATTERN_LIMIT, compile_re2, shown
from cairn.core.value import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CHOICE_LIMIT",
    "PATTERN_LIMIT",
    "compile_glob",
    "compile_re2",
    "glob_literals",
    "literal_char",
    "shown",
]

CHOICE_LIMIT = 32

# Characters a required literal may hold: printable ASCII that no JSON encoder escapes, so the
# hook can look for the literal in the raw payload bytes. `"` and `\` are always escaped, and
# Go's encoder escapes `<`, `>` and `&`.
_LITERAL_CHARS = frozenset(chr(code) for code in range(0x20, 0x7F)) - frozenset('"\\<>&')
# Under RE2's case folding `k` also matches the Kelvin sign and `s` the long s, whose lowercase
# is not `k` or `s`; a case-insensitive literal holding them could miss a real match.
_FOLDS_BEYOND_ASCII = frozenset("ks")
# `string.punctuation`, without importing `string` (which imports `re`).
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


class _Wild:
    """A wildcard token; the four below are the only ones (compared by identity).

    Plain classes here and below, not enum and dataclasses: a hook call that matches a glob
    would pay their imports (~15 ms) on top of RE2's.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"_Wild({self.text!r})"


_STAR = _Wild("*")
_QMARK = _Wild("?")
_GLOBSTAR = _Wild("**")
_DIRS = _Wild("**/")  # a `**/` at the start or after `/`: zero or more whole folders


class _Set(Value):
    __slots__ = ("negated", "ranges", "text")
    negated: bool
    ranges: tuple[tuple[str, str], ...]
    text: str  # the bracket as written, which the set also matches literally

    def __init__(self, negated: bool, ranges: tuple[tuple[str, str], ...], text: str) -> None:
        object.__setattr__(self, "negated", negated)
        object.__setattr__(self, "ranges", ranges)
        object.__setattr__(self, "text", text)


class _Brace(Value):
    __slots__ = ("choices",)
    choices: tuple[tuple[_Token, ...], ...]

    def __init__(self, choices: tuple[tuple[_Token, ...], ...]) -> None:
        object.__setattr__(self, "choices", choices)


_Token = str | _Wild | _Set | _Brace


def literal_char(char: str, ignore_case: bool) -> str | None:
    """`char` lowercased if a required literal may hold it, else None (the literal breaks)."""
    if char not in _LITERAL_CHARS:
        return None
    lower = char.lower()
    if ignore_case and lower in _FOLDS_BEYOND_ASCII:
        return None
    return lower


def compile_glob(glob: str) -> str:
    """The anchored, case-insensitive RE2 source `glob` compiles to; raises TriggerError."""
    return _compile(glob)


def re2_matches(glob: str, path: str) -> bool:
    """`glob_matches` by the glob's RE2 pattern, whatever the glob; raises TriggerError."""
    regex = _compiled(glob)
    path = _strip_dot_slash(path)
    try:
        return regex.fullmatch(path) is not None
    except UnicodeEncodeError:
        # A lone surrogate (from a JSON `\ud800`) cannot be encoded for RE2; match the rest.
        return regex.fullmatch(_replace_surrogates(path)) is not None


def glob_literals(glob: str) -> tuple[str, ...] | None:
    """Lowercase texts every path matching `glob` holds; None when `glob` is refused.

    Only literal characters outside wildcards, sets and braces count (a brace's choices may
    share nothing); see `literal_char` for the characters a literal may hold.
    """
    try:
        tokens = _parse(glob)
    except TriggerError:
        return None
    runs: list[str] = []
    current: list[str] = []
    for token in tokens:
        char = literal_char(token, ignore_case=True) if isinstance(token, str) else None
        if char is not None:
            current.append(char)
            continue
        if current:
            runs.append("".join(current))
        current = []
    if current:
        runs.append("".join(current))
    return tuple(dict.fromkeys(runs))


@lru_cache(maxsize=256)
def _compile(glob: str) -> str:
    tokens = _parse(glob)
    body = "".join(_emit(token) for token in tokens)
    # `/` anywhere in the text (even inside a set or a brace), or a leading `/` or `./`,
    # anchors the glob at the root.
    anywhere = "" if glob_body(glob)[1] else "(?s:.*/)?"
    return f"(?i)^{anywhere}{body}$"


@lru_cache(maxsize=256)
def _compiled(glob: str) -> Any:
    import re2

    source = _compile(glob)
    try:
        return compile_re2(source)
    except re2.error as exc:  # pragma: no cover - the grammar only emits valid RE2
        raw = exc.args[0] if exc.args else ""
        reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        raise TriggerError(f"`when.path` {shown(glob)} cannot be compiled ({reason}).") from None


def _parse(glob: str) -> tuple[_Token, ...]:
    _check_text(glob)
    parser = _Parser(glob_body(glob)[0])
    tokens = parser.sequence(in_brace=False)
    if parser.globstars > 1:
        raise TriggerError(
            f"`when.path` {shown(glob)} holds {parser.globstars} `**`; a glob holds at most one. "
            "Use one `**` and `*` for single folders, like `packages/**/*.sql`."
        )
    return _fold_dirs(tokens)


def _check_text(glob: str) -> None:
    if not glob_body(glob)[0]:
        raise TriggerError(
            "`when.path` is empty; give the files to watch, like `packages/db/**` or `*.sql`."
        )
    if len(glob) > PATTERN_LIMIT:
        raise TriggerError(
            f"`when.path` is {len(glob)} characters long; at most {PATTERN_LIMIT}. "
            "Watch a folder (`packages/db/**`) instead of listing files."
        )
    if "\\" in glob:
        raise TriggerError(
            f"`when.path` {shown(glob)} holds a backslash; globs take no escapes and paths "
            "use `/`. Write `docs/api/*.md`, and `[*]` for a literal `*`."
        )
    try:
        glob.encode("utf-8")
    except UnicodeEncodeError:
        raise TriggerError(
            "`when.path` holds a lone surrogate, which is not text; send the glob as UTF-8."
        ) from None


class _Parser:
    """Reads the glob left to right into tokens; one instance per glob."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.globstars = 0

    def sequence(self, in_brace: bool) -> list[_Token]:
        text = self.text
        tokens: list[_Token] = []
        while self.pos < len(text):
            char = text[self.pos]
            if in_brace and char in ",}":
                return tokens
            if text.startswith("**", self.pos):
                self.globstars += 1
                tokens.append(_GLOBSTAR)
                self.pos += 2
                continue
            if char == "[":
                tokens.append(self.bracket())
                continue
            if char == "{":
                if in_brace:
                    raise TriggerError(
                        f"`when.path` {shown(text)} nests a `{{` inside another; write all the "
                        "choices in one brace, like `*.{ts,tsx,js}`."
                    )
                tokens.append(self.brace())
                continue
            tokens.append(_STAR if char == "*" else _QMARK if char == "?" else char)
            self.pos += 1
        return tokens

    def brace(self) -> _Brace:
        start = self.pos
        self.pos += 1
        choices: list[tuple[_Token, ...]] = []
        while True:
            choices.append(tuple(self.sequence(in_brace=True)))
            if self.pos >= len(self.text):
                raise TriggerError(
                    f"`when.path` {shown(self.text)} opens `{{` at character {start + 1} and never "
                    "closes it; end the choices with `}`, like `*.{ts,tsx}`."
                )
            closing = self.text[self.pos] == "}"
            self.pos += 1
            if closing:
                break
        if len(choices) > CHOICE_LIMIT:
            raise TriggerError(
                f"`when.path` {shown(self.text)} offers {len(choices)} choices in one `{{..}}`; "
                f"at most {CHOICE_LIMIT}. Watch a folder or a wider pattern instead."
            )
        return _Brace(tuple(choices))

    def bracket(self) -> _Set:
        text, start = self.text, self.pos
        first = start + 1
        negated = first < len(text) and text[first] in "!^"
        if negated:
            first += 1
        # A `]` right after the opening belongs to the set (fnmatch's rule), so `[]]` is `]`.
        end = text.find("]", first + 1)
        if end == -1:
            raise TriggerError(
                f"`when.path` {shown(text)} opens `[` at character {start + 1} and never "
                "closes it; end the set with `]`, like `[a-z]`, or drop the `[`."
            )
        body = text[first:end]
        ranges: list[tuple[str, str]] = []
        i = 0
        while i < len(body):
            if i + 2 < len(body) and body[i + 1] == "-":
                low, high = body[i], body[i + 2]
                if low > high:
                    raise TriggerError(
                        f"`when.path` {shown(text)} holds the range `{low}-{high}`, which runs "
                        f"backwards; write `{high}-{low}`."
                    )
                ranges.append((low, high))
                i += 3
            else:
                ranges.append((body[i], body[i]))
                i += 1
        self.pos = end + 1
        return _Set(negated, tuple(ranges), text[start : end + 1])


def _fold_dirs(tokens: list[_Token]) -> tuple[_Token, ...]:
    """Turn a top-level `**` followed by `/`, at the start or after `/`, into one DIRS token."""
    out: list[_Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        at_boundary = not out or out[-1] == "/"
        if token is _GLOBSTAR and at_boundary and i + 1 < len(tokens) and tokens[i + 1] == "/":
            out.append(_DIRS)
            i += 2
            continue
        out.append(token)
        i += 1
    return tuple(out)


_WILD_SOURCE = {
    _STAR: "[^/]*",
    _QMARK: "[^/]",
    _GLOBSTAR: "(?s:.*)",
    _DIRS: "(?s:.*/)?",
}


def _emit(token: _Token) -> str:
    if isinstance(token, str):
        return _escape(token)
    if isinstance(token, _Wild):
        return _WILD_SOURCE[token]
    if isinstance(token, _Brace):
        return "(?:" + "|".join("".join(map(_emit, choice)) for choice in token.choices) + ")"
    literal = "".join(map(_escape, token.text))
    cls = _char_class(token)
    return f"(?:{cls}|{literal})" if cls else literal


def _char_class(token: _Set) -> str:
    """The RE2 class for a set, never matching `/`; empty when the set holds only `/`."""
    parts: list[str] = []
    for low, high in token.ranges:
        # Split a range around `/` so that a positive set cannot cross into another folder.
        pieces = [(low, min(high, ".")), (max(low, "0"), high)] if low <= "/" <= high else []
        for a, b in pieces or [(low, high)]:
            if a <= b:
                parts.append(_escape(a) if a == b else f"{_escape(a)}-{_escape(b)}")
    if token.negated:
        return "[^" + "".join(parts) + "/]"
    return "[" + "".join(parts) + "]" if parts else ""


def _escape(char: str) -> str:
    # RE2 accepts a backslash before any ASCII punctuation, inside a class or out.
    if char in _PUNCTUATION:
        return "\\" + char
    if ord(char) < 0x20 or char == "\x7f":
        return f"\\x{{{ord(char):x}}}"
    return char


_strip_dot_slash = strip_dot_slash


def _replace_surrogates(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")  # one U+FFFD each
