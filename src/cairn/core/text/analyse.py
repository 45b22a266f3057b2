"""Words out of text: tokenize (fold and split) and analyse (drop stopwords, stem).

One analyser serves documents and queries, so a word is indexed and looked up in the same
form: ``refused`` and ``refusal`` both become ``refus``; ``préproduction`` becomes
``preproduct`` like ``preproduction``. (A query also loses its question and filler words:
`cairn.core.text.query`.)

A word written with punctuation inside it is indexed both split and joined: ``pre-production``
gives ``pre``, ``product`` and ``preproduct``, so ``preproduction`` finds it, and so do
``pre`` and ``production``; likewise ``e-mail``/``email``, ``Node.js``/``nodejs``,
``CI/CD``/``cicd``. Joined are two or three parts, each holding a letter, linked by one ``-``,
``.`` or ``/`` (so ``v1.2.3`` and a long path are not: no one types them joined).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from typing import TYPE_CHECKING

import Stemmer

from cairn.core.text.fold import fold
from cairn.core.text.stopwords import STOPWORDS

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "ANALYSER_VERSION",
    "analyse",
    "analyse_fields",
    "analyse_text",
    "joined",
    "tokenize",
    "words_of",
]

# A run of letters and digits. `[^\W_]` is `\w` without the underscore, so `snake_case` splits;
# `\w` covers every script's letters (CJK included), so a run of ideographs stays one token.
_RUN = re.compile(r"[^\W_]+")

# Parts of one written word linked by a hyphen, a dot or a slash: "pre-production", "CI/CD".
_LINKED = re.compile(r"[^\W_]+(?:[-./][^\W_]+)+")
MAX_JOINED_PARTS = 3
ANALYSER_VERSION = 2
"""Bumped whenever `analyse` gives other words for the same text: the analysed text a store
holds was made by this version (see the store's re-analysing migration), and files kept from
it carry it."""

# The Snowball stemmer keeps internal state and must not be called from two threads at once
# (PyStemmer's documentation); one shared instance keeps its word cache warm, the lock keeps it
# safe when the MCP server answers from worker threads.
_STEMMER = Stemmer.Stemmer("english")
_STEMMER_LOCK = threading.Lock()
# Stems already computed, by word: looking a memory's ~20 words up here takes ~1 us, against
# ~5 us through PyStemmer's own cache (a method call per word). Cleared when full.
_STEMS: dict[str, str] = {}
STEM_CACHE_SIZE = 100_000


def _is_mark(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


def tokenize(text: str) -> list[str]:
    """Fold `text`, then split it into runs of letters and digits (every script).

    Anything else separates words: ``git-commit`` gives ``git``, ``commit`` and ``src/app.py``
    gives ``src``, ``app``, ``py``. Combining marks stay inside the word they follow, because
    in scripts such as Devanagari a vowel sign is part of the word. No token is empty.
    """
    folded = fold(text)
    if folded.isascii():
        return _RUN.findall(folded)  # no combining marks in ASCII: the runs are the words
    tokens: list[str] = []
    end_of_last = -1
    for match in _RUN.finditer(folded):
        start, end = match.span()
        # Python's `\w` leaves out combining marks; take the ones that follow the run.
        while end < len(folded) and _is_mark(folded[end]):
            end += 1
        if start == end_of_last:
            # Only marks stood between this run and the last one: they are one word.
            tokens[-1] += folded[start:end]
        else:
            tokens.append(folded[start:end])
        end_of_last = end
    return tokens


def joined(text: str) -> list[str]:
    """The words written with punctuation inside (module docstring), each joined into one:
    ``"the pre-production e-mail"`` gives ``["preproduction", "email"]`` (folded, unstemmed)."""
    folded = fold(text)
    out: list[str] = []
    for match in _LINKED.finditer(folded):
        parts = _RUN.findall(match.group())
        if len(parts) <= MAX_JOINED_PARTS and all(_has_letter(p) for p in parts):
            out.append("".join(parts))
    return out


def _has_letter(part: str) -> bool:
    return not part.isdigit()  # a run of letters and digits: a letter unless all digits


def words_of(text: str) -> list[str]:
    """The words `analyse` stems: tokens without stopwords, then the joined words."""
    words = [token for token in tokenize(text) if token not in STOPWORDS]
    if "-" in text or "." in text or "/" in text:
        words.extend(joined(text))
    return words


def analyse(text: str) -> list[str]:
    """Tokenize, drop the short stopword list, add the joined words, then stem each word
    (English Snowball).

    The same analyser is used for documents and for queries (which drop more words first:
    `cairn.core.text.query`).
    """
    words = words_of(text)
    return _stem(words) if words else []


def analyse_text(text: str) -> str:
    """`analyse` joined by single spaces: the text stored in a full-text index column."""
    return " ".join(analyse(text))


def analyse_fields(fields: Sequence[str | tuple[Sequence[str], str]]) -> list[str]:
    """`analyse_text` of each field, stemming the words of all of them in one stemmer call.

    A field is a text, or a pair of the tokens `tokenize` made of it and the text (a caller
    that also needs the tokens tokenizes once). Same result as `[analyse_text(f) for f in
    fields]`, with one lock and one C loop instead of one per field: remember analyses four
    fields per memory.
    """
    kept = [words_of(f) if isinstance(f, str) else _words_of_tokens(*f) for f in fields]
    words = [w for group in kept for w in group]
    if not words:
        return [""] * len(kept)
    stems = _stem(words)
    out: list[str] = []
    start = 0
    for group in kept:
        end = start + len(group)
        out.append(" ".join(stems[start:end]))
        start = end
    return out


def _words_of_tokens(tokens: Sequence[str], text: str) -> list[str]:
    """`words_of(text)` from the tokens `tokenize(text)` gave."""
    words = [token for token in tokens if token not in STOPWORDS]
    if "-" in text or "." in text or "/" in text:
        words.extend(joined(text))
    return words


def _stem(words: list[str]) -> list[str]:
    """The English Snowball stem of each word, from the cache; the words not in it are
    stemmed (only those: a bulk import of 100k memories meets a new word in most of them)."""
    cache = _STEMS
    try:
        return [cache[w] for w in words]
    except KeyError:
        pass
    missing = [w for w in dict.fromkeys(words) if w not in cache]
    with _STEMMER_LOCK:
        stems: list[str] = _STEMMER.stemWords(missing)
    found = dict(zip(missing, stems, strict=True))
    out = [found[w] if w in found else cache[w] for w in words]
    if len(cache) >= STEM_CACHE_SIZE:
        cache.clear()
    cache.update(found)
    return out
