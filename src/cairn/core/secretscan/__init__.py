"""Spotting secrets before they are written to memory.

A memory is read back into every agent session, so a key written into one would leak into
transcripts for good. `find_secret` returns a description of the first secret-looking thing in
a text, or None; `may_hold_secret` is the quick check that lets most text skip it. The rules,
each in its module (docs/secrets.md lists the shapes covered and the known gaps):

1. `shapes`: provider token prefixes, private keys in any case, JSON web tokens, a password
   in a URL, an `Authorization: Bearer|Basic` value, a password on a command line;
2. `values`: a value given to a secret name (`DB_PASSWORD=...`, "the Datadog API key is ...",
   "the admin password is swordfish"), judged by what the name is and what the value looks
   like, so that `SESSION_TOKEN_TTL=86400s` and "the password is rotated monthly" pass;
3. `randomness`: a bare random string of 32 or more characters (an AWS secret key, a private
   key's body), unless it is public by its kind (a hash, an SSH public key, an id in a URL).

A regex in a trigger is read with its escapes undone (`SG\\.abc` is `SG.abc`). The quick check
is one RE2 set match (a DFA pass, linear in the text) that also tells which rules have
something to look at; only those run. We do not use detect-secrets: its entropy plugins flag
every git sha in a `source_ref`, and its plugin machinery costs ~150 ms of import on each
`remember`.
"""

from __future__ import annotations

import re
from typing import Any

import re2

from cairn.core.secretscan.randomness import RUN_CHARS, RUN_LENGTH, find_random_run
from cairn.core.secretscan.shapes import (
    AUTH_HEADER,
    COMMAND_LINE,
    SHAPE_SOURCES,
    URL_CREDENTIALS,
    find_auth_header,
    find_command_line,
    find_shape,
    find_url_credential,
)
from cairn.core.secretscan.values import WORD_ANCHOR, find_named_value

__all__ = ["find_secret", "may_hold_secret"]

# The anchor of each rule: what every match of the rule holds (tests draw texts to check).
# The random-run rule has two, both needed: a long run, and a run mixing upper case with
# digits (most long runs are lower-case paths). No anchor spans a newline, so the quick check
# is exact for several fields joined by newlines.
_SHAPE, _URL, _HEADER, _COMMAND, _NAMED, _RUN, _MIXED = range(7)
_ANCHORS = (
    "|".join(re.escape(hint) for _, hints, _ in SHAPE_SOURCES for hint in sorted(hints)),
    URL_CREDENTIALS,
    AUTH_HEADER,
    COMMAND_LINE,
    WORD_ANCHOR,
    f"[{RUN_CHARS}]{{{RUN_LENGTH}}}",
    f"[A-Z][{RUN_CHARS}]*[0-9]|[0-9][{RUN_CHARS}]*[A-Z]",
)
_RULES = (
    (_SHAPE, find_shape),
    (_URL, find_url_credential),
    (_HEADER, find_auth_header),
    (_COMMAND, find_command_line),
    (_NAMED, find_named_value),
    (_RUN, find_random_run),
)
# A regex in a trigger: `\.` `\+` `\/` stand for the character, `\s+` for a space.
_ESCAPE = re.compile(r"\\s[*+?]?|\\([^\w\s])")


def _compile_anchors() -> Any:
    options = re2.Options()
    options.log_errors = False
    # Room for the DFA of a long text: a set match that ran out of memory would report nothing.
    options.max_mem = 64 << 20
    anchors = re2.Set.SearchSet(options)
    for index, source in enumerate(_ANCHORS):
        if anchors.Add(source) != index:  # pragma: no cover - the sources are fixed
            raise RuntimeError(f"secret scan anchor {index} did not compile")
    anchors.Compile()
    return anchors


_QUICK = _compile_anchors()


def find_secret(text: str) -> str | None:
    """Describe the first secret-looking thing in `text`, or None."""
    if "\\" in text:
        text = _unescape(text)
    anchors = _anchors(text)
    for anchor, rule in _RULES:
        if anchor in anchors:
            found = rule(text)
            if found:
                return found
    return None


def may_hold_secret(text: str) -> bool:
    """False when `find_secret` would surely find nothing. Exact as a filter for several texts
    joined by newlines, which `remember` checks in one call before field by field."""
    return bool(_anchors(_unescape(text) if "\\" in text else text))


def _anchors(text: str) -> frozenset[int]:
    """The rules with something to look at in `text` (the run rule needs both its anchors)."""
    matched = _QUICK.Match(text)
    if not matched:
        return frozenset()
    found = frozenset(matched)
    if _RUN in found and _MIXED not in found:
        return found - {_RUN, _MIXED}
    return found - {_MIXED}


def _unescape(text: str) -> str:
    """A regex's escapes undone: `SG\\.abc` reads `SG.abc`, `Bearer\\s+x` reads `Bearer x`."""
    return _ESCAPE.sub(lambda m: m.group(1) or " ", text)
