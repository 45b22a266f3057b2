"""Which word sets may overlap enough: a similarity join by prefix filtering, never all pairs.

`PrefixIndex(sets, threshold, at_least)` answers `partners(i)`: the sets j > i that may have a
Jaccard index |x & y| / |x | y| of at least `threshold` with set i while sharing at least
`at_least` words. Every such pair is among the partners (the filter is exact, not a guess like
MinHash); some partners fall short, and the caller scores them.

The filter (Chaudhuri, Ganti and Kaushik 2006, "A primitive operator for similarity joins";
Bayardo, Ma and Srikant 2007, "Scaling up all pairs similarity search"):

- Order every word by how many sets hold it, rarest first (ties by the word).
- A set x of n words reaches the threshold only with a set sharing at least
  a(x) = max(at_least, ceil(threshold * n)) of its words: J >= t means |x & y| >= t |x | y|
  >= t |x|.
- Its prefix is its first n - a(x) + 1 words in that order. Two sets sharing o >= a(x), a(y)
  words have a first shared word w; the o - 1 other shared words come after w in both sets, so
  w is within the first n - o + 1 <= n - a + 1 words of each: in both prefixes.
- Length: J >= t also means t |x| <= |y| <= |x| / t.

So only sets whose prefixes share a word are compared, and the prefixes hold each set's rarest
words: a word held by thousands of sets sits in few prefixes. The cost is the sum, over words,
of the square of the number of prefixes holding it, which for sentences of a store is close to
linear in their number. Float error only ever lengthens a prefix (`_SLACK`), so nothing is
missed at an exact boundary (3 of 5 words is 0.6).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence

__all__ = ["PrefixIndex", "prefix_length"]

_SLACK = 1e-9


def prefix_length(size: int, threshold: float, at_least: int = 1) -> int:
    """How many of a set's rarest words must be indexed so no pair reaching `threshold` is
    missed: size - max(at_least, ceil(threshold * size)) + 1 (0 when the set is too small)."""
    needed = max(at_least, math.ceil(threshold * size - _SLACK))
    return max(0, size - needed + 1)


class PrefixIndex:
    """The prefixes of `sets` under `threshold`, indexed word -> sets (ascending)."""

    def __init__(self, sets: Sequence[frozenset[str]], threshold: float, at_least: int = 1) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], not {threshold}")
        self.threshold = threshold
        self.sizes = [len(s) for s in sets]
        held: Counter[str] = Counter()
        for s in sets:
            held.update(s)
        self.prefixes: list[tuple[str, ...]] = []
        self.postings: dict[str, list[int]] = {}
        for i, s in enumerate(sets):
            keep = prefix_length(len(s), threshold, at_least)
            prefix = tuple(sorted(s, key=lambda w: (held[w], w))[:keep]) if keep else ()
            self.prefixes.append(prefix)
            for w in prefix:
                self.postings.setdefault(w, []).append(i)

    def partners(self, i: int) -> list[int]:
        """The sets j > i (ascending) sharing a prefix word with set i and of a size that may
        reach the threshold with it."""
        found: set[int] = set()
        for w in self.prefixes[i]:
            posting = self.postings[w]
            found.update(posting[bisect_right(posting, i) :])
        sizes, t = self.sizes, self.threshold
        size = sizes[i]
        low, high = t * size - _SLACK, size / t + _SLACK
        return sorted(j for j in found if low <= sizes[j] <= high)
