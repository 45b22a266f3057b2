"""The stopwords `analyse` drops: a deliberately short English list.

Only words that carry no subject are listed: articles, auxiliaries, pronouns and the question
words of a query ("how do we deploy" searches for ``deploy``). Dropping them matters beyond
ranking: a doc matches only when it holds every query word, and coverage weighs each query
word, so a stray ``the`` would count against a good match.

Never listed, because they change what a sentence says about code: negations (``not``, ``no``,
``never``), order (``before``, ``after``, ``first``, ``last``), and direction or state words
that are also commands and flags (``up``, ``down``, ``on``, ``off``, ``in``, ``out``, ``all``,
``only``, ``without``). `KEPT` names them so a test can hold the list to it.
"""

from __future__ import annotations

__all__ = ["KEPT", "STOPWORDS"]

STOPWORDS: frozenset[str] = frozenset(
    {
        # articles and conjunctions
        "a", "an", "the", "and", "or", "if",
        # prepositions that never carry the subject
        "of", "to", "for", "with", "as", "at", "by", "from",
        # auxiliaries
        "is", "are", "was", "were", "be", "been",
        "do", "does", "did", "has", "have",
        # pronouns and determiners
        "it", "its", "this", "that", "i", "we", "you", "they", "our", "your", "their",
        # question words, as queries are asked
        "what", "which", "who", "how", "why", "where",
        # the possessive `'s` split off by tokenize
        "s",
    }
)  # fmt: skip

KEPT: frozenset[str] = frozenset(
    {
        "not", "no", "never", "before", "after", "first", "last",
        "up", "down", "on", "off", "in", "out", "all", "only", "without",
    }
)  # fmt: skip
