"""Keyword postings held in memory: BM25F of every memory holding a query word, at once.

FTS5 finds the rows holding a word cheaply, but ranking thousands of them through its
``bm25()`` cost ~10 ms at 100k memories, and scoring each match in Python ~10 us more. A
`Postings` holds, for each analysed term, the rows holding it and the term's count in each of
the four fields (sentence, tags, citation, reason), plus each row's length and write time, so
that `bm25f` scores every row holding a query term in a few numpy operations, through the
one formula `cairn.core.rank.bm25.saturated` (the same floats as `bm25.term_score` summed term by
term): tf~ is summed over the fields in their order, and the terms are added in query order.

Rows are never taken out of the memory index and their text never changes, so postings built
once stay right for the rows they cover; newer rows go into further `Postings` (segments).

numpy is imported inside the functions that need it, as in `cairn.core.rank.lsa`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any

from cairn.core.rank.bm25 import K1, B, length_norm, saturated, saturated_by

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "FIELD_COUNT",
    "Matches",
    "Postings",
    "bm25f",
    "build_postings",
    "in_order_sums",
    "kth_largest",
    "merge_postings",
]

FIELD_COUNT = 4
"""Fields of a memory in the index: sentence, tags, citation, reason."""


@dataclass(frozen=True, eq=False)
class Postings:
    """Rows (ascending rowids) with their length and write time, and each term's postings.

    The postings of term id k are `rows_of[starts[k]:starts[k + 1]]` (row positions,
    ascending), with `counts[f, same slice]` the term's count in field f.
    """

    rowids: NDArray[np.int64]
    lengths: NDArray[np.float64]
    written_us: NDArray[np.int64]
    vocabulary: Mapping[str, int]
    starts: NDArray[np.int64]
    rows_of: NDArray[np.int32]
    counts: NDArray[np.unsignedinteger[Any]]
    tokens: int

    @property
    def n_rows(self) -> int:
        """Rows (memory versions) covered."""
        return int(self.rowids.shape[0])

    @property
    def total_length(self) -> int:
        """Tokens over all rows (the sum of their lengths)."""
        return self.tokens

    def df(self, term: str) -> int:
        """Rows holding `term` in some field."""
        span = self.span(term)
        return 0 if span is None else span[1] - span[0]

    @property
    def last_rowid(self) -> int:
        """The largest rowid covered (0 when empty)."""
        return int(self.rowids[-1]) if self.n_rows else 0

    def span(self, term: str) -> tuple[int, int] | None:
        """Where the postings of `term` are (`rows_of[lo:hi]`), None when no row holds it."""
        k = self.vocabulary.get(term)
        if k is None:
            return None
        return int(self.starts[k]), int(self.starts[k + 1])

    def postings(
        self, term: str
    ) -> tuple[NDArray[np.int32], NDArray[np.unsignedinteger[Any]]] | None:
        """(row positions, counts per field) of the rows holding `term`, None when none."""
        span = self.span(term)
        if span is None:
            return None
        lo, hi = span
        return self.rows_of[lo:hi], self.counts[:, lo:hi]


def build_postings(rows: Iterable[tuple[int, Sequence[str], int, int]]) -> Postings:
    """Postings of rows given as (rowid, the four analysed fields, length, written in us).

    Rows must come in ascending rowid order. Terms are the fields' space-separated tokens, as
    recall counts them.
    """
    import numpy as np

    rows = list(rows)
    n_rows = len(rows)
    span = max(n_rows, 1)
    vocabulary: dict[str, int] = {}
    keys_of: list[NDArray[np.int64]] = []
    counts_of: list[NDArray[np.int64]] = []
    for f in range(FIELD_COUNT):
        tokens = [row[1][f].split() for row in rows]
        flat = list(chain.from_iterable(tokens))
        for term in dict.fromkeys(flat):
            if term not in vocabulary:
                vocabulary[term] = len(vocabulary)
        # One key per token, term id x rows + row position; equal keys counted once sorted.
        keys = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64, count=len(flat))
        keys *= span
        keys += np.repeat(np.arange(n_rows, dtype=np.int64), [len(t) for t in tokens])
        unique, count = _counted(keys)
        keys_of.append(unique)
        counts_of.append(count)
    all_keys, _ = _counted(np.concatenate(keys_of))
    # Counts of a word in one field of one memory are small: one byte each unless one is not.
    most = max((int(c.max()) for c in counts_of if c.shape[0]), default=0)
    counts = np.zeros((FIELD_COUNT, all_keys.shape[0]), dtype=np.uint8 if most < 256 else np.uint32)
    for f in range(FIELD_COUNT):
        counts[f, np.searchsorted(all_keys, keys_of[f])] = counts_of[f]
    term_of = all_keys // span
    starts = np.searchsorted(term_of, np.arange(len(vocabulary) + 1, dtype=np.int64))
    lengths = [row[2] for row in rows]
    return Postings(
        rowids=np.array([row[0] for row in rows], dtype=np.int64),
        lengths=np.array(lengths, dtype=np.float64),
        written_us=np.array([row[3] for row in rows], dtype=np.int64),
        vocabulary=vocabulary,
        starts=starts.astype(np.int64),
        rows_of=(all_keys % span).astype(np.int32),
        counts=counts,
        tokens=sum(lengths),
    )


def merge_postings(first: Postings, then: Postings) -> Postings:
    """One `Postings` of the rows of `first` followed by those of `then` (all of whose rowids
    are larger): the same arrays `build_postings` gives for all the rows, built from the two
    without reading a word again (numpy only: a stable sort of the entries by term)."""
    import numpy as np

    n_first = first.n_rows
    # A kept vocabulary (`recall.mapped.Vocabulary`) numbers its terms by their position:
    # listed in order, not looked up one by one.
    vocabulary = (
        dict(first.vocabulary)
        if isinstance(first.vocabulary, dict)
        else {term: k for k, term in enumerate(first.vocabulary)}
    )
    for term in then.vocabulary:
        if term not in vocabulary:
            vocabulary[term] = len(vocabulary)
    then_terms = sorted(then.vocabulary, key=then.vocabulary.__getitem__)
    remap = np.fromiter(
        map(vocabulary.__getitem__, then_terms), dtype=np.int64, count=len(then_terms)
    )
    term_first = np.repeat(np.arange(len(first.vocabulary), dtype=np.int64), np.diff(first.starts))
    term_then = np.repeat(remap, np.diff(then.starts))
    terms = np.concatenate([term_first, term_then])
    # Stable: within a term, the entries of `first` (smaller rows) stay before those of `then`.
    order = np.argsort(terms, kind="stable")
    rows_of = np.concatenate([first.rows_of, then.rows_of.astype(np.int64) + n_first])[order]
    dtype = np.uint32 if np.uint32 in (first.counts.dtype, then.counts.dtype) else np.uint8
    counts = np.concatenate([first.counts.astype(dtype), then.counts.astype(dtype)], axis=1)
    starts = np.searchsorted(terms[order], np.arange(len(vocabulary) + 1, dtype=np.int64))
    return Postings(
        rowids=np.concatenate([first.rowids, then.rowids]),
        lengths=np.concatenate([first.lengths, then.lengths]),
        written_us=np.concatenate([first.written_us, then.written_us]),
        vocabulary=vocabulary,
        starts=starts.astype(np.int64),
        rows_of=rows_of.astype(np.int32),
        counts=counts[:, order],
        tokens=first.tokens + then.tokens,
    )


def _counted(keys: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The distinct keys, ascending, and how often each occurs (a sort, not a hash)."""
    import numpy as np

    ordered = np.sort(keys)
    if not ordered.shape[0]:
        return ordered, np.zeros(0, dtype=np.int64)
    first = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    count = np.diff(np.append(first, ordered.shape[0]))
    return ordered[first], count.astype(np.int64)


MEMO_ENTRIES = 2_000_000
"""Postings whose addends `bm25f` keeps in a memo (16 MB of floats): the common words a
store's queries share, scored once."""

_DERIVED = ("derived",)  # the memo's entry of what `_derived` keeps


def _remember(memo: dict[tuple[Any, ...], Any], key: tuple[Any, ...], addend: Any) -> None:
    """Keep one term's addends; a full memo is emptied of them first (older entries are as
    likely stale: a new avgdl or idf after a write makes new keys)."""
    size = memo.get(("size",), 0) + int(addend.shape[0])
    if size > MEMO_ENTRIES:
        derived = memo.get(_DERIVED)
        memo.clear()
        if derived is not None:
            memo[_DERIVED] = derived
        size = int(addend.shape[0])
    memo[key] = addend
    memo[("size",)] = size


def _derived(memo: dict[tuple[Any, ...], Any], key: tuple[Any, ...], make: Any) -> Any:
    """What the memo keeps of its postings beside the addends, under `key` (made once by
    `make()`): the rows' length norms of one avgdl, only the latest avgdl's (a write moves
    it)."""
    derived: dict[tuple[Any, ...], Any] = memo.setdefault(_DERIVED, {})
    value = derived.get(key)
    if value is None:
        derived.clear()
        value = derived[key] = make()
    return value


def _addend(
    postings: Postings,
    span: tuple[int, int],
    idf: float,
    weights: Sequence[float],
    avg_len: float,
    k1: float,
    b: float,
    memo: dict[tuple[Any, ...], Any] | None,
) -> NDArray[np.float64]:
    """One term's BM25 addend for each row holding it (`bm25.saturated`, the same floats).

    tf~ is summed over the fields in their order; a field without the term adds 0.0 (no
    change), and a count is a whole number, exact as a float, so weight x count is
    `bm25.term_score`'s. With a memo, every row's length norm for this avgdl is computed once
    (a tenth of a millisecond at 100,000 rows) and kept: a term's are looked up, not computed.
    """
    lo, hi = span
    rows = postings.rows_of[lo:hi]
    counts = postings.counts[:, lo:hi]
    tf = counts[0] * weights[0]
    for f in range(1, FIELD_COUNT):
        tf = tf + counts[f] * weights[f]
    if memo is None:
        return saturated(tf, postings.lengths[rows], avg_len, idf, k1, b)
    norms = _derived(
        memo, ("norms", avg_len, k1, b), lambda: length_norm(postings.lengths, avg_len, k1, b)
    )
    return saturated_by(tf, norms[rows], idf, k1)  # type: ignore[no-any-return]


def in_order_sums(bins: Any, weights: Any, n: int) -> NDArray[np.float64]:
    """The sum of each bin's `weights` (of `n` bins at least), added from 0.0 one by one in the
    order given: `np.bincount` runs over its input once, adding each weight to its bin, so a
    bin's sum is the running sum of its weights in their order (not a pairwise sum)."""
    import numpy as np

    sums: NDArray[np.float64] = np.bincount(bins, weights=weights, minlength=n).astype(
        np.float64, copy=False
    )
    return sums


@dataclass(frozen=True, eq=False)
class Matches:
    """The rows of one `Postings` holding a required term, scored.

    `positions` index the postings' rows; `held_at` gives the idf some of them hold, the sum
    of `idf[k]` over the query terms k each holds (what the "nothing found" gate reads), and
    `held` that of all.
    """

    positions: NDArray[np.int64]
    scores: NDArray[np.float64]
    found: Sequence[tuple[NDArray[np.int32], float]] = ()  # (a term's rows, its idf), in order
    n_rows: int = 0  # rows of the postings
    laid: NDArray[np.int32] | None = None  # the rows of `found` end to end (None: not laid)

    @property
    def held(self) -> NDArray[np.float64]:
        """The idf each matched row holds."""
        import numpy as np

        return self.held_at(np.arange(self.positions.shape[0]))

    def held_at(self, at: NDArray[np.int64]) -> NDArray[np.float64]:
        """The idf the matched rows `at` (indexes into `positions`) hold: the idf of each term
        a row holds, added in query order to 0.0 (`np.bincount` adds each row's weights in
        the order given, the terms' postings end to end in query order)."""
        import numpy as np

        if not self.found:
            return np.zeros(at.shape[0], dtype=np.float64)
        laid = self.laid if self.laid is not None else np.concatenate([r for r, _ in self.found])
        idf = np.repeat(
            np.array([value for _, value in self.found], dtype=np.float64),
            [rows.shape[0] for rows, _ in self.found],
        )
        n = max(self.n_rows, int(laid.max()) + 1 if laid.shape[0] else 0)
        return in_order_sums(laid, idf, n)[self.positions[at]]


def bm25f(
    postings: Postings,
    terms: Sequence[str],
    idf: Sequence[float],
    weights: Sequence[float],
    avg_len: float,
    required: Iterable[str],
    within: NDArray[np.bool_] | None = None,
    k1: float = K1,
    b: float = B,
    memo: dict[tuple[Any, ...], Any] | None = None,
) -> Matches:
    """BM25F (module formula) of the rows holding at least one `required` term (and marked
    True in `within`, one flag per row, when given).

    `idf[k]` is the idf of `terms[k]`; `weights` the four fields' weights. The operations are
    those of `bm25.term_score` in its order, and terms are added in query order to a running
    score per row (a row without the term adds nothing, as term_score's 0.0 changes no sum),
    so each score is the float `bm25.score` gives for the same row. Only the rows holding a
    term are touched for it.

    `memo` (a dict the caller keeps with these postings) holds each term's per-row addend,
    keyed by everything it is computed from (term, idf, weights, avgdl, k1, b): the same
    floats, computed once while they hold; at most MEMO_ENTRIES postings are kept in it. It
    also keeps every row's length norm for the latest avgdl (`_addend`).
    """
    import numpy as np

    n = postings.n_rows
    required = set(required)
    # With every term required and every field weighing something, a row holds a required
    # term exactly when its score is above 0 (each addend is: idf > 0, tf > 0): no flags to
    # set term by term.
    by_score = required.issuperset(terms) and min(weights) > 0
    wanted = None if by_score else np.zeros(n, dtype=np.bool_)
    found_terms: list[tuple[NDArray[np.int32], float]] = []
    addends: list[NDArray[np.float64]] = []
    for k, term in enumerate(terms):
        span = postings.span(term)
        if span is None:
            continue
        if not found_terms and avg_len <= 0:
            raise ValueError(f"avg_len must be > 0 when a term occurs, got {avg_len}")
        rows = postings.rows_of[span[0] : span[1]]
        found_terms.append((rows, idf[k]))
        key = (term, idf[k], tuple(weights), avg_len, k1, b)
        addend = None if memo is None else memo.get(key)
        if addend is None:
            addend = _addend(postings, span, idf[k], weights, avg_len, k1, b, memo)
            if memo is not None:
                _remember(memo, key, addend)
        addends.append(addend)
        if wanted is not None and term in required:
            wanted[rows] = True
    # Each row's addends summed in query order from 0.0: `np.bincount` adds its weights to
    # their bins one by one in the order given (terms laid end to end in query order), the
    # running sum term by term, in one pass.
    laid = np.concatenate([rows for rows, _ in found_terms]) if found_terms else None
    if laid is not None:
        scores = in_order_sums(laid, np.concatenate(addends), n)
    else:
        scores = np.zeros(n, dtype=np.float64)
    if wanted is None:
        wanted = scores > 0.0
    if within is not None:
        wanted &= within
    positions = np.flatnonzero(wanted).astype(np.int64)
    return Matches(positions, scores[positions], found_terms, n, laid)


KTH_STRIDE = 16
"""`kth_largest` reads every KTH_STRIDE-th value first."""


def kth_largest(values: NDArray[np.float64], k: int) -> float:
    """The k-th largest of `values` (1 <= k <= len), the float `np.partition` puts there.

    Partitioning tens of thousands of matches for the 400th best is most of the cost; the
    values at or above the 2k/KTH_STRIDE-th largest of every KTH_STRIDE-th value are usually
    a few more than k. When at least k are, the k largest are all among them (each is at
    least the k-th largest, which is at least that threshold), so the k-th largest of those
    few is the k-th largest of all. Otherwise all are partitioned.
    """
    import numpy as np

    n = int(values.shape[0])
    if not 1 <= k <= n:
        raise ValueError(f"k must be from 1 to {n}, not {k}")
    sample = values[::KTH_STRIDE]
    r = 2 * k // KTH_STRIDE
    if 1 <= r < sample.shape[0]:
        threshold = np.partition(sample, sample.shape[0] - r)[sample.shape[0] - r]
        above = values[values >= threshold]
        if above.shape[0] >= k:
            return float(np.partition(above, above.shape[0] - k)[above.shape[0] - k])
    return float(np.partition(values, n - k)[n - k])
