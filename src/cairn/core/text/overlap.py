"""Which word sets may overlap enough: a similarity join by prefix filtering, never all pairs.

`Rows(sets).candidate_pairs(threshold, at_least)` returns pairs (i, j), i < j, in ascending
order, among which is every pair whose Jaccard index |x & y| / |x | y| is at least `threshold` while
sharing at least `at_least` words. The filters are exact (nothing reaching the threshold is
left out, unlike MinHash); some pairs returned fall short, and the caller scores them.

The filters (Chaudhuri, Ganti and Kaushik 2006, "A primitive operator for similarity joins";
Xiao, Wang, Lin and Yu 2008, "Efficient similarity joins for near duplicate detection"):

- Order every word by how many sets hold it, rarest first (ties by the word), and each set's
  words in that order.
- Overlap: J >= t means |x & y| >= t / (1 + t) * (|x| + |y|); with `at_least`, the pair needs
  a(x, y) = max(at_least, ceil(t / (1 + t) * (|x| + |y|))) shared words. Alone, a set of n
  words needs a(x) = max(at_least, ceil(t * n)) shared with any partner (J >= t means
  |x & y| >= t |x | y| >= t |x|).
- Prefix: a set's prefix is its first n - a(x) + 1 words. Two sets sharing o >= a(x), a(y)
  words have a first shared word w; the o - 1 others come after w in both sets, so w is within
  the first n - o + 1 <= n - a + 1 words of each: in both prefixes. Only sets whose prefixes
  share a word are paired.
- Position: at that first shared word, at 0-based positions p in x and q in y, the sets share
  at most 1 + min(|x| - p - 1, |y| - q - 1) words. A pair is kept from a shared prefix word
  only when that bound reaches a(x, y): a pair reaching the threshold is kept from its first
  shared word at least. (Kept from several words, it is listed once.)
- Length: J >= t also means t |x| <= |y| <= |x| / t.

The prefixes hold each set's rarest words, so a word held by thousands of sets sits in few
prefixes. The pairs sharing a prefix word are formed with numpy, a batch at a time (at most
`BATCH` pairs in memory besides those kept); `Rows.shared` then counts the words each pair
shares exactly, with scipy's sparse rows, so the caller scores few pairs one by one. Float
error only ever lengthens a prefix or lowers a bound (`_SLACK`), so nothing is missed at an
exact boundary (3 of 5 words is 0.6).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = ["BATCH", "Rows", "distinct", "prefix_length"]

_SLACK = 1e-9
BATCH = 2_000_000


def prefix_length(size: int, threshold: float, at_least: int = 1) -> int:
    """How many of a set's rarest words must be indexed so no pair reaching `threshold` is
    missed: size - max(at_least, ceil(threshold * size)) + 1 (0 when the set is too small)."""
    needed = max(at_least, math.ceil(threshold * size - _SLACK))
    return max(0, size - needed + 1)


def distinct(keys: Any) -> Any:
    """The distinct values of an integer array, ascending (`np.unique` hashes first, and took
    seconds for millions of keys)."""
    import numpy as np

    keys = np.sort(keys)
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys


class Rows:
    """Word sets as rows of word numbers, each row in ascending order: rarest word first (by how
    many of the sets hold it, then by the word)."""

    def __init__(self, sets: Sequence[frozenset[str]]) -> None:
        import numpy as np

        seen: dict[str, int] = {}  # word -> the order it was first met in
        self.n = len(sets)
        lengths = np.fromiter((len(s) for s in sets), np.int64, self.n)
        met = np.fromiter(
            (seen.setdefault(w, len(seen)) for s in sets for w in s), np.int64, int(lengths.sum())
        )
        held = np.bincount(met, minlength=len(seen))
        spelled = np.empty(len(seen), dtype=np.int64)
        spelled[[seen[w] for w in sorted(seen)]] = np.arange(len(seen))
        rank = np.empty(len(seen), dtype=np.int64)
        rank[np.lexsort((spelled, held))] = np.arange(len(seen))  # rarest first, then by word
        self.number = dict(zip(seen, rank.tolist(), strict=True))  # seen: numbered 0, 1, ...
        words = rank[met] if len(met) else met
        owner = np.repeat(np.arange(self.n, dtype=np.int64), lengths)
        order = np.lexsort((words, owner))
        self._set(owner[order], words[order])

    def _set(self, owner: Any, words: Any) -> None:
        import numpy as np

        self.owner, self.words = owner, words
        self.lengths = np.bincount(owner, minlength=self.n).astype(np.int64)
        self.starts = np.r_[0, np.cumsum(self.lengths)][:-1]
        self.place = np.arange(len(words), dtype=np.int64) - self.starts[owner]

    def without(self, words: Iterable[str]) -> Rows:
        """The same sets without `words`, in the same order of words."""
        import numpy as np

        drop = np.zeros(len(self.number) + 1, dtype=bool)
        drop[[self.number[w] for w in words if w in self.number]] = True
        keep = ~drop[self.words]
        out = object.__new__(Rows)
        out.number, out.n = self.number, self.n
        out._set(self.owner[keep], self.words[keep])
        return out

    def candidate_pairs(
        self,
        threshold: float,
        at_least: int = 1,
        progress: Callable[[int, int], None] | None = None,
    ) -> Any:
        """Pairs that may reach `threshold` with `at_least` shared words (the module docstring),
        as one ascending numpy array of keys i * n + j, i < j. `progress(done, total)` is told
        between batches."""
        import numpy as np

        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], not {threshold}")
        n, sizes = self.n, self.lengths
        needed = np.maximum(at_least, np.ceil(threshold * sizes - _SLACK)).astype(np.int64)
        keep = np.maximum(0, sizes - needed + 1)
        prefix = self.place < keep[self.owner]
        owner, place, word = self.owner[prefix], self.place[prefix], self.words[prefix]
        if not len(owner):
            return np.zeros(0, dtype=np.int64)
        order = np.lexsort((owner, word))  # by word, then by set: postings in set order
        owner, place, word = owner[order], place[order], word[order]
        starts = np.flatnonzero(np.r_[True, word[1:] != word[:-1]])
        counts = np.diff(np.r_[starts, len(word)])
        share = threshold / (1.0 + threshold)
        kept: list[Any] = []
        # Postings of one length share one pattern of pairs: formed once, applied to each.
        lengths = sorted({int(m) for m in counts.tolist() if m >= 2})
        total = sum(m * (m - 1) // 2 * int((counts == m).sum()) for m in lengths)
        done = 0
        for m in lengths:
            first, second = np.triu_indices(m, 1)
            group = starts[counts == m]
            per = max(1, BATCH // len(first))
            for g in range(0, len(group), per):
                base = group[g : g + per, None]
                a, b = (base + first).ravel(), (base + second).ravel()
                x, y = owner[a], owner[b]
                sx, sy = sizes[x], sizes[y]
                need = np.maximum(at_least, np.ceil(share * (sx + sy) - _SLACK))
                bound = 1 + np.minimum(sx - place[a] - 1, sy - place[b] - 1)
                fits = (bound >= need) & (
                    np.minimum(sx, sy) >= threshold * np.maximum(sx, sy) - _SLACK
                )
                kept.append(x[fits] * n + y[fits])
                done += len(a)
                if progress is not None:
                    progress(done, total)
        return distinct(np.concatenate(kept)) if kept else np.zeros(0, dtype=np.int64)

    def shared(self, x: Any, y: Any) -> Any:
        """How many words sets x[k] and y[k] share, for each k: a numpy array, counted exactly
        (elementwise products of sparse rows, `BATCH` words at a time)."""
        import numpy as np
        from scipy import sparse

        x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
        out = np.zeros(len(x), dtype=np.int64)
        if not len(x) or not len(self.words):
            return out
        matrix = sparse.csr_matrix(
            (
                np.ones(len(self.words), dtype=np.int32),
                self.words,
                np.r_[self.starts, len(self.words)],
            ),
            shape=(self.n, len(self.number) + 1),
        )
        step = max(1, BATCH // max(1, int(self.lengths.max())))
        for lo in range(0, len(x), step):
            both = matrix[x[lo : lo + step]].multiply(matrix[y[lo : lo + step]])
            out[lo : lo + step] = np.asarray(both.sum(axis=1)).ravel()
        return out
