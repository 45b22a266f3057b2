"""The "nothing found" gate: whether the best keyword match answers the query at all.

Without a model, only part of the unanswerable questions can be told apart. The gate reads the
best match (by score) of a query, not every memory (a per-memory coverage filter threw most
answers away), and three things of it, from the keyword index and the memory's sentence:

- `held`: the idf the memory holds, the sum of idf(t) over the query terms t it holds (not
  divided by the query's length: a long question whose rare words the memory holds is
  answered as well as a short one), counted in `rare` words: the idf of a word one memory of
  the N visible from the project holds, ln(1 + (N - 0.5) / 1.5) (5.2 at N = 260, 8.8 at
  10,000, 11.1 at 100,000), so one rule serves every store size;
- `lead`: the idf of the query word the memory's sentence opens with (its first analysed
  word; 0 when the query does not hold it): where the decisive word sits. A memory that opens
  with a word of the query is about it (a dictionary entry's headword, a memory's subject);
  one holding it further in only mentions it. It counts LEAD_WEIGHT times more;
- `unknown`: how many of the query's words no visible memory holds; each is evidence that the
  question is about something the store does not know, and costs UNKNOWN_PENALTY rare words.

    support   = (held + LEAD_WEIGHT x lead) / rare - UNKNOWN_PENALTY x unknown
    threshold = MIN_SUPPORT + SIZE_SLOPE x ln(N / SIZE_REFERENCE)
    verdict = "answer"  when unknown = 0 and the memory holds every query word (`mass`, the
                        idf of all of them): a full match is never refused, however common
                        its words ("schema migration" in a store of migrations)
              "none"    when support < threshold
              "weak"    when support < WEAK_SUPPORT (a barely passing match)
              "answer"  otherwise

In words: in a store of 10,000 memories the best match must hold 0.57 of a rare word's idf
(a word it opens with counting twice), and 0.55 of a rare word more for each query word no
memory holds; the bar rises by 0.15 for each factor e of the store's size (0.02 at 262
memories, 0.92 at 100,000; under 224 memories it is below 0, and only query words no memory
holds refuse): the more memories, the likelier one holds a word of an unanswerable question
by chance. Any match is judged weak by the same formula of its own `held` and `lead`. One
rule for every store, chosen on four labelled sets at once (bench/gate_search.py,
docs/recall.md): the answerable targets are kept on all four with a point to spare (served
nDCG@10 >= 0.92 x plain BM25, at most 9% of answerable queries answered with nothing), and
past them it refuses as many unanswerable queries as it can: at least 20% on Ledgerly and
WordNet 10k, 17% on GCIDE and 14% on WordNet at 100,000 (the lexical frontier there: the
other senses of an asked word are in the store, and open with it too; no latent or structural
signal measured does better, docs/recall.md, "Issue 13, eighth round").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from cairn.core.value import Value

__all__ = [
    "LEAD_WEIGHT",
    "MIN_SUPPORT",
    "SIZE_REFERENCE",
    "SIZE_SLOPE",
    "UNKNOWN_PENALTY",
    "WEAK_SUPPORT",
    "GateVerdict",
    "Reading",
    "judge",
    "lead",
    "support",
    "threshold",
]

GateVerdict = Literal["answer", "weak", "none"]

MIN_SUPPORT = 0.57
"""Under this support (in rare words) the best match does not answer, in a store of
SIZE_REFERENCE memories: nothing is found."""

SIZE_SLOPE = 0.15
"""How much the bar rises for each factor e of the store's size."""

SIZE_REFERENCE = 10_000
"""The store size at which the bar is MIN_SUPPORT."""

WEAK_SUPPORT = 1.0
"""Under this support a match passes but is marked weak: one rare word's worth. On the labelled
sets a best match in that band was less often the right answer, and more often the best match
of an unanswerable query, than one above it (docs/recall.md, "weak")."""

LEAD_WEIGHT = 1.0
"""How much more the query word a memory opens with counts (1: twice in all)."""

UNKNOWN_PENALTY = 0.55
"""What a query word no memory holds costs, in rare words."""


class Reading(Value):
    """What the gate reads of one query's best match.

    `held`: idf the memory holds; `unknown`: query words no memory holds; `mass`: idf of all
    the query words some memory holds; `rare`: the idf of a word one memory holds; `n_docs`:
    the memories visible (N), SIZE_REFERENCE when not given; `lead`: the idf of the query word
    the memory's sentence opens with (`lead`), 0 when not given.
    """

    __slots__ = ("held", "unknown", "mass", "rare", "n_docs", "lead")  # noqa: RUF023
    held: float
    unknown: int
    mass: float
    rare: float
    n_docs: int
    lead: float

    def __init__(
        self,
        held: float,
        unknown: int,
        mass: float,
        rare: float,
        n_docs: int = SIZE_REFERENCE,
        lead: float = 0.0,
    ) -> None:
        self._assign(held, unknown, mass, rare, n_docs, lead)


def lead(words: Sequence[str], idf_of: Mapping[str, float]) -> float:
    """The idf of the query word a memory's sentence opens with: `words` its analysed words in
    order, `idf_of` the query terms' idf; 0 when its first word is not a query term."""
    return idf_of.get(words[0], 0.0) if words else 0.0


def support(reading: Reading, held: float | None = None, opening: float | None = None) -> float:
    """(held + LEAD_WEIGHT x lead) / rare - UNKNOWN_PENALTY x unknown, of the best match or of
    another match's `held` and `opening` (its `lead`)."""
    own = reading.held if held is None else held
    first = reading.lead if opening is None else opening
    return (own + LEAD_WEIGHT * first) / reading.rare - UNKNOWN_PENALTY * reading.unknown


def threshold(reading: Reading) -> float:
    """MIN_SUPPORT + SIZE_SLOPE x ln(N / SIZE_REFERENCE): the least support that answers."""
    return MIN_SUPPORT + SIZE_SLOPE * math.log(max(reading.n_docs, 1) / SIZE_REFERENCE)


def judge(reading: Reading, held: float | None = None, opening: float | None = None) -> GateVerdict:
    """The module formula: "answer", "weak" or "none" for the best match (or, given its
    `held` and `opening`, another match of the same query)."""
    own = reading.held if held is None else held
    if not reading.unknown and own >= reading.mass * (1 - 1e-9):
        return "answer"  # holds every word of the query
    value = support(reading, own, opening)
    if value < threshold(reading):
        return "none"
    if value < WEAK_SUPPORT:
        return "weak"
    return "answer"
