"""Spotting secrets before they are written to memory.

A memory is read back into every agent session, so a key written into one would leak into
transcripts for good. `find_secret` returns a description of the first secret-looking thing in
a text, or None. The rule set is small and tested (tests/test_secretscan.py): provider token
shapes, private key blocks, credentials in URLs, password/secret assignments, and long
high-entropy strings standing next to key/secret/token words.

We do not use detect-secrets: its entropy plugins flag every git sha in a `source_ref`, and its
plugin machinery costs ~150 ms of import on each `remember`.
"""

from __future__ import annotations

import math
import re
from collections import Counter

# (description, hints, pattern). Each pattern is specific enough to name the provider in the
# message. The hints are literal substrings every match of the pattern contains (a test draws
# matches of each pattern and checks): text holding none of them cannot match, and most text
# holds none, so `find_secret` skips the regex scan, which tries every pattern at every position.
_TOKEN_SHAPES: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (name, hints, re.compile(pattern))
    for name, hints, pattern in (
        (
            "a private key block",
            ("-----BEGIN ",),
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        ),
        (
            "an AWS access key id",
            ("AKIA", "ASIA", "ABIA", "ACCA"),
            r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
        ),
        (
            "a GitHub token",
            ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
            r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})",
        ),
        ("a GitLab token", ("glpat-",), r"\bglpat-[A-Za-z0-9_-]{20,}"),
        ("an Anthropic API key", ("sk-ant-",), r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
        ("an OpenAI API key", ("sk-",), r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}"),
        ("a Stripe key", ("_live_", "_test_"), r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("a Slack token", ("xox",), r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        (
            "a Slack webhook",
            ("hooks.slack.com/services/T",),
            r"hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/\w+",
        ),
        ("a Google API key", ("AIza",), r"\bAIza[0-9A-Za-z_-]{35}"),
        ("an npm token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("a PyPI token", ("pypi-AgE",), r"\bpypi-AgE[A-Za-z0-9_-]{20,}"),
        ("a Hugging Face token", ("hf_",), r"\bhf_[A-Za-z0-9]{30,}\b"),
        ("a SendGrid key", ("SG.",), r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
        ("a Twilio key", ("SK",), r"\bSK[0-9a-fA-F]{32}\b"),
        (
            "a JSON web token",
            ("eyJ",),
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        ),
        (
            "a password in a URL",
            ("://",),
            r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@]+:[^\s/@]{3,}@[^\s/]+",
        ),
    )
)

# All shapes in one alternation: one scan of the text instead of one per provider.
_ANY_SHAPE = re.compile(
    "|".join(f"(?P<s{i}>{pattern.pattern})" for i, (_, _, pattern) in enumerate(_TOKEN_SHAPES))
)
# Every hint in one alternation of literals, which the regex engine scans for in C: ~1 us for
# a 50-character field, against ~25 us for `_ANY_SHAPE`.
_ANY_HINT = re.compile(
    "|".join(re.escape(hint) for _, hints, _ in _TOKEN_SHAPES for hint in sorted(hints))
)

_SECRET_WORD = (
    r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key|"
    r"private[_-]?key|client[_-]?secret|auth[_-]?key|credentials?)"
)
# `password = hunter22`, `DB_PASSWORD: "x9!..."`, `token=abc...` (quoted or bare value).
_ASSIGNMENT = re.compile(
    rf"(?i)\b\w*{_SECRET_WORD}\w*\s*(?:=|:|\bis\b)\s*(?P<q>['\"]?)(?P<value>[^\s'\"`]{{6,}})(?P=q)"
)
_NEAR_WORD = re.compile(rf"(?i){_SECRET_WORD}")
# The same words matched case-sensitively, for ASCII text already lowered: on ASCII, `(?i)` is
# exactly ASCII case-folding, and the case-sensitive pattern lets the engine skip ahead in C to
# the letters a secret word starts with (~8x faster than `_NEAR_WORD`).
_NEAR_WORD_LOWER = re.compile(_SECRET_WORD)
_LONG_TOKEN = re.compile(r"[A-Za-z0-9+/_=.-]{24,}")
# Values that stand for a secret without being one.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\*+|x{3,}|\.{3,}|"
    r"(?:your|my|the|some|example|dummy|fake|placeholder|redacted|changeme|env|none|null|"
    r"true|false|required|optional|secret|password|token)[\w-]*|"
    r"os\.environ.*|process\.env.*|getenv.*|env\(.*|vault:.*|op://.*|ssm:.*)$"
)
ENTROPY_BITS = 3.5


def shannon_entropy(text: str) -> float:
    """Shannon entropy in bits per character: -sum(p * log2 p) over character frequencies."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def find_secret(text: str) -> str | None:
    """Describe the first secret-looking thing in `text`, or None."""
    shape = _ANY_SHAPE.search(text) if _ANY_HINT.search(text) else None
    if shape is not None and shape.lastgroup:
        return _TOKEN_SHAPES[int(shape.lastgroup[1:])][0]
    # Both rules below need a key/secret/token word (an assignment's name holds one).
    if not _has_secret_word(text):
        return None
    for m in _ASSIGNMENT.finditer(text):
        value = m.group("value").rstrip(".,;)")
        # A quoted value is a literal; an unquoted lowercase word is usually prose
        # ("the password is stored_in_vault").
        prose = not m.group("q") and _is_plain_word(value)
        if len(value) >= 6 and not _PLACEHOLDER.match(value) and not prose:
            return "a password or secret assignment"
    for m in _LONG_TOKEN.finditer(text):
        token = m.group(0)
        if _looks_random(token):
            return "a high-entropy string next to a key/secret/token word"
    return None


def may_hold_secret(text: str) -> bool:
    """False when `find_secret` would surely find nothing: no hint of a token shape and no
    key/secret/token word. Exact as a filter for several texts joined by newlines (no hint
    or word spans a newline), which `remember` checks in one call before field by field."""
    return _ANY_HINT.search(text) is not None or _has_secret_word(text)


def _has_secret_word(text: str) -> bool:
    """Does `text` hold a key/secret/token word (any case)?"""
    if text.isascii():
        return _NEAR_WORD_LOWER.search(text.lower()) is not None
    return _NEAR_WORD.search(text) is not None


def _is_plain_word(value: str) -> bool:
    """A lowercase word or path-like value (`stored_in_vault`, `config/app.yml`) is prose."""
    return bool(re.fullmatch(r"[a-z][a-z_./-]*", value))


def _looks_random(token: str) -> bool:
    """Long, mixed-class and high-entropy: how generated keys look, unlike words or paths."""
    if "/" in token and token.count("/") > 2:
        return False  # a path
    classes = sum(bool(re.search(p, token)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
    if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", token):
        return False  # a git sha or content hash: public, and cited all the time
    return classes >= 2 and shannon_entropy(token) >= ENTROPY_BITS
