"""Blending: which matches are kept, how many of each kind, and in what order.

The spec's numbers live here, each with its rule:
- a memory under 0.7 of the best memory's score is left out; the best always stays (`cut_off`);
  the score is the match's strength saturated in rare words (`memory_score`);
- from 50 memories in a project, the "nothing found" gate judges the best match
  (`MIN_MEMORIES_FOR_GATE`; the gate itself is `cairn.core.rank.gate`);
- 8 results by default, 25 at most, 20 for docs-only (``kind: "pages"``) searches; memories
  take at most half of the limit, even when no doc matches, and docs the rest (`split_limit`,
  `fill`);
- ties go to the newer memory, then to the smaller ref, so an order never depends on chance
  (`sort_key`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import total_ordering
from typing import TypeVar

from cairn.core.value import Value

__all__ = [
    "CUTOFF",
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "MIN_MEMORIES_FOR_GATE",
    "PAGES_LIMIT",
    "cut_off",
    "fill",
    "memory_score",
    "memory_scores",
    "sort_key",
    "split_limit",
]

K = TypeVar("K")
M = TypeVar("M")
D = TypeVar("D")

CUTOFF = 0.7
"""A memory scoring under this share of the best memory's score is left out."""

MIN_MEMORIES_FOR_GATE = 50
"""The "nothing found" gate judges a query only from this many memories in the project: with
fewer, the idf of a word says little, and a thin answer beats none."""

DEFAULT_LIMIT = 8
"""Results returned when the caller names no limit."""

MAX_LIMIT = 25
"""The most results one recall returns."""

PAGES_LIMIT = 20
"""The most results of a docs-only (``kind: "pages"``) recall."""


def memory_score(strength: float, rare: float) -> float:
    """A memory's score: its strength saturated in rare words, strength / (strength + rare).

    `strength` is the match's BM25F with its lifts (recency, LSA, evidence: each multiplies
    it); `rare` the idf of a word one memory holds, the gate's unit (`cairn.core.rank.gate`). A
    match as strong as one rare word held once scores 0.5, two rare words 0.67, four 0.8; the
    score never reaches 1. BM25 saturates each word's count the same way, tf / (tf + k1): past
    a clear match, more of the same adds less. The spec's cut-off reads this score, so it
    separates clear matches from thin ones rather than clear matches from clearer ones: a
    memory holding one of the best memory's two rare words (score 0.5 against 0.67) stays, a
    memory holding only a common word the best also holds does not (docs/recall.md).
    """
    if strength < 0 or rare <= 0:
        raise ValueError(f"strength must be >= 0 and rare > 0, got {strength}, {rare}")
    return strength / (strength + rare)


def memory_scores(strengths: Sequence[float], rare: float) -> list[float]:
    """`memory_score` of each strength, checked once: the same floats (one list for recall's
    few hundred candidates, without a call per candidate)."""
    if (strengths and min(strengths) < 0) or rare <= 0:
        raise ValueError(f"strengths must be >= 0 and rare > 0, got {rare=}")
    return [strength / (strength + rare) for strength in strengths]


def cut_off(scored: Sequence[tuple[K, float]], ratio: float = CUTOFF) -> list[tuple[K, float]]:
    """Sorted best first (stable), without those scoring under `ratio` x the best score.

    The best always stays. Scores must be >= 0, higher better: FTS5's raw ``bm25()`` rank is
    negative and has to be negated first.
    """
    if not 0.0 <= ratio <= 1.0:
        raise ValueError(f"ratio must be within [0, 1], got {ratio}")
    if any(value < 0 for _, value in scored):
        raise ValueError("scores must be >= 0 (higher is better); negate FTS5's bm25() rank")
    ranked = sorted(scored, key=lambda item: item[1], reverse=True)
    if not ranked:
        return []
    floor = ratio * ranked[0][1]
    return [ranked[0], *(item for item in ranked[1:] if item[1] >= floor)]


def split_limit(limit: int) -> tuple[int, int]:
    """(most memories, most docs) for `limit` results: memories limit // 2, docs the rest.

    8 gives (4, 4) and 25 gives (12, 13). A limit of 1 gives (1, 0): the caller asked for the
    single best answer, and a memory is what recall is for.
    """
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    memories = max(1, limit // 2)
    return memories, limit - memories


def fill(memories: Sequence[M], docs: Sequence[D], limit: int) -> list[M | D]:
    """Memories first (at most their half of `limit`), then docs up to `limit`.

    Memories never take more than their half, even when no doc matched; docs take every slot
    the memories left, so a thin memory answer leaves room for the project's own docs.
    """
    max_memories, _ = split_limit(limit)
    taken: list[M | D] = list(memories[:max_memories])
    taken.extend(docs[: limit - len(taken)])
    return taken


@total_ordering
class _NewestFirst(Value):
    """A `written` timestamp that sorts newest first inside an ascending sort key."""

    __slots__ = ("written",)
    written: str

    def __init__(self, written: str) -> None:
        self._assign(written)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, _NewestFirst):
            return NotImplemented
        return self.written > other.written


def sort_key(score: float, written: str, ref: str) -> tuple[float, _NewestFirst, str]:
    """Ascending key for best-first order: higher score, then newer `written`, then `ref`.

    `written` is an ISO 8601 UTC timestamp (these sort as text); an empty one sorts oldest.
    """
    return (-score, _NewestFirst(written), ref)
