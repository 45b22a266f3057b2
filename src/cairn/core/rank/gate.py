"""The "nothing found" gate: whether the best keyword match answers the query at all.

Without a model, only part of the unanswerable questions can be told apart. The gate reads the
best match (by score) of a query, not every memory (a per-memory coverage filter threw most
answers away), and two things of it, both from the keyword index:

- `held`: the idf the memory holds, the sum of idf(t) over the query terms t it holds (not
  divided by the query's length: a long question whose rare words the memory holds is
  answered as well as a short one), counted in `rare` words: the idf of a word one memory of
  the N visible from the project holds, ln(1 + (N - 0.5) / 1.5) (5.2 at N = 260, 8.8 at
  10,000, 11.1 at 100,000), so one rule serves every store size;
- `unknown`: how many of the query's words no visible memory holds; each is evidence that the
  question is about something the store does not know, and costs UNKNOWN_PENALTY rare words.

    support   = held / rare - UNKNOWN_PENALTY * unknown
    threshold = MIN_SUPPORT + SIZE_SLOPE * ln(N / SIZE_REFERENCE)
    verdict = "answer"  when unknown = 0 and the memory holds every query word (`mass`, the
                        idf of all of them): a full match is never refused, however common
                        its words ("schema migration" in a store of migrations)
              "none"    when support < threshold
              "weak"    when support < WEAK_SUPPORT (a barely passing match)
              "answer"  otherwise

In words: in a store of 10,000 memories the best match must hold 0.57 of a rare word's idf,
and 0.3 of a rare word more for each query word no memory holds; the bar rises by 0.05 for
each factor e of the store's size (0.39 at 262 memories, 0.69 at 100,000): the more memories,
the likelier one holds a word of an unanswerable question by chance. Any match is judged weak
by the same formula of its own `held`. One rule for every store, chosen on four labelled sets
at once (bench/gate_search.py, docs/recall.md): the answerable targets are kept on all four
(served nDCG@10 >= 0.90 x plain BM25, at most 10% of answerable queries answered with
nothing), and past them it refuses as many unanswerable queries as it can: at least 20% on
Ledgerly and WordNet 10k, 16% on GCIDE and 11% on WordNet at 100,000 (the lexical frontier
there: the other senses of an asked word are in the store).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "MIN_SUPPORT",
    "SIZE_REFERENCE",
    "SIZE_SLOPE",
    "UNKNOWN_PENALTY",
    "WEAK_SUPPORT",
    "GateVerdict",
    "Reading",
    "judge",
    "support",
    "threshold",
]

GateVerdict = Literal["answer", "weak", "none"]

MIN_SUPPORT = 0.57
"""Under this support (in rare words) the best match does not answer, in a store of
SIZE_REFERENCE memories: nothing is found."""

SIZE_SLOPE = 0.05
"""How much the bar rises for each factor e of the store's size."""

SIZE_REFERENCE = 10_000
"""The store size at which the bar is MIN_SUPPORT."""

WEAK_SUPPORT = 1.0
"""Under this support a match passes but is marked weak: on the labelled sets such a best
match was the right answer 12-14% of the time, against 26-67% above it, and half to two
thirds of the queries it answered were unanswerable ones (docs/recall.md)."""

UNKNOWN_PENALTY = 0.3
"""What a query word no memory holds costs, in rare words."""


@dataclass(frozen=True)
class Reading:
    """What the gate reads of one query's best match.

    `held`: idf the memory holds; `unknown`: query words no memory holds; `mass`: idf of all
    the query words some memory holds; `rare`: the idf of a word one memory holds; `n_docs`:
    the memories visible (N), SIZE_REFERENCE when not given.
    """

    held: float
    unknown: int
    mass: float
    rare: float
    n_docs: int = SIZE_REFERENCE


def support(reading: Reading, held: float | None = None) -> float:
    """held / rare - UNKNOWN_PENALTY x unknown, of the best match or of another `held`."""
    own = reading.held if held is None else held
    return own / reading.rare - UNKNOWN_PENALTY * reading.unknown


def threshold(reading: Reading) -> float:
    """MIN_SUPPORT + SIZE_SLOPE x ln(N / SIZE_REFERENCE): the least support that answers."""
    return MIN_SUPPORT + SIZE_SLOPE * math.log(max(reading.n_docs, 1) / SIZE_REFERENCE)


def judge(reading: Reading, held: float | None = None) -> GateVerdict:
    """The module formula: "answer", "weak" or "none" for the best match (or, given its
    `held`, another match of the same query)."""
    own = reading.held if held is None else held
    if not reading.unknown and own >= reading.mass * (1 - 1e-9):
        return "answer"  # holds every word of the query
    value = support(reading, own)
    if value < threshold(reading):
        return "none"
    if value < WEAK_SUPPORT:
        return "weak"
    return "answer"
