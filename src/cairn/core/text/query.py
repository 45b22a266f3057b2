"""A query's words: the analyser of `cairn.core.text.analyse`, less the question and filler words.

    "can customers checkout without an account"  ->  custom, checkout, without, account
    "how should I name pre-production branches"  ->  name, pre, product, branch, preproduct

A word written with punctuation inside gives its parts and the parts joined (as the index
holds them); `Query.groups` remembers which, so a rule that asks whether a text holds "every
query word" can take the joined word for its parts, and the reverse.
"""

from __future__ import annotations

from cairn.core.text.analyse import _LINKED, _RUN, MAX_JOINED_PARTS, _has_letter, _stem, tokenize
from cairn.core.text.fold import fold
from cairn.core.text.stopwords import QUESTION_WORDS, STOPWORDS
from cairn.core.value import Value

__all__ = ["Query", "analyse_query"]


class Query(Value):
    """A query's distinct analysed terms, in order, and its joined words with their parts."""

    __slots__ = ("terms", "groups")  # noqa: RUF023
    terms: list[str]
    groups: dict[str, tuple[str, ...]]

    def __init__(self, terms: list[str], groups: dict[str, tuple[str, ...]] | None = None) -> None:
        self._assign(terms, {} if groups is None else groups)

    def units(self) -> list[tuple[str, ...]]:
        """What a text must hold to hold the whole query, one alternative set per unit: a
        plain term is held as itself; a joined word is held as itself or as all its parts
        (`(joined, *parts)`)."""
        in_group = {part for parts in self.groups.values() for part in parts}
        out: list[tuple[str, ...]] = [
            (t,) for t in self.terms if t not in in_group and t not in self.groups
        ]
        out.extend((joined, *parts) for joined, parts in self.groups.items())
        return out


def analyse_query(text: str) -> Query:
    """The query's terms: tokens without stopwords and question words, then its joined
    words, stemmed (English Snowball), each once. Question words stay when nothing else
    would."""
    tokens = tokenize(text)
    dropped = STOPWORDS | QUESTION_WORDS
    words = [t for t in tokens if t not in dropped]
    linked: list[tuple[str, list[str]]] = []
    if "-" in text or "." in text or "/" in text:
        for match in _LINKED.finditer(fold(text)):
            parts = _RUN.findall(match.group())
            if len(parts) <= MAX_JOINED_PARTS and all(_has_letter(p) for p in parts):
                linked.append(("".join(parts), [p for p in parts if p not in dropped]))
    if not words and not linked:
        words = [t for t in tokens if t not in STOPWORDS]
    if not words and not linked:
        return Query([])
    stems = _stem(words + [j for j, _ in linked] + [p for _, parts in linked for p in parts])
    terms = list(dict.fromkeys(stems[: len(words) + len(linked)]))
    groups: dict[str, tuple[str, ...]] = {}
    at = len(words) + len(linked)
    for k, (_, parts) in enumerate(linked):
        joined_stem = stems[len(words) + k]
        part_stems = tuple(stems[at : at + len(parts)])
        at += len(parts)
        if part_stems and joined_stem not in part_stems:
            groups[joined_stem] = part_stems
    return Query(terms, groups)
