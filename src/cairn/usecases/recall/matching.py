"""Steps 1 and 2 of recall (BM25F candidates, newer near-ties first) from the postings in memory
(numpy), and the matches' reach: which of them a later lift could still bring into view."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cairn.core import rank
from cairn.core.context import Context
from cairn.core.text.query import Query
from cairn.io.store.protocol import Store
from cairn.usecases.recall.kept import Segment, keywords, micros

FIELDS = ("sentence", "tags", "citation", "reason")
WEIGHTS = tuple(rank.FIELD_WEIGHTS[f] for f in FIELDS)
UNWEIGHTED = (1.0, 1.0, 1.0, 1.0)
CANDIDATES = 400
CHECK_CHUNK = 16


class SegmentMatches:
    """One segment's matches within reach of the pool: `positions`
    in the segment's postings, and for each its `scores`, `written` (microseconds) and the
    idf it `held` (numpy arrays, aligned). (A plain class: see `Matched`.)"""

    __slots__ = ("held", "positions", "scores", "segment", "written")

    def __init__(self, segment: Segment, positions: Any, scores: Any, written: Any, held: Any):
        self.segment = segment
        self.positions = positions
        self.scores = scores
        self.written = written
        self.held = held


class Matched:
    """Steps 1 and 2 of one phrasing: the CANDIDATES best matches (best first; ties: newer,
    then the later version) with what the later steps read of each, and the rarity counts.

    `pool` are index rowids; `value_of` their score after step 2 (a newer near-tie on the
    same subject raised to the older match it ties: `rank.near_ties`), `held_of` the idf each
    holds (what the gate reads), `written_of` its write time in microseconds; `refs_of` gives
    the refs of some of them (asked only for those shown). (A plain class: a dataclass costs
    a new `cairn recall` process a millisecond to define.)
    """

    __slots__ = (
        "df_of",
        "held_of",
        "idf_of",
        "n_docs",
        "pool",
        "refs_of",
        "value_of",
        "written_of",
    )

    def __init__(
        self,
        n_docs: int,
        df_of: dict[str, int],
        idf_of: dict[str, float],
        pool: list[int],
        value_of: dict[int, float],
        held_of: dict[int, float],
        written_of: dict[int, int],
        refs_of: Any,  # Callable[[Sequence[int]], list[str]]
    ) -> None:
        self.n_docs = n_docs
        self.df_of = df_of
        self.idf_of = idf_of
        self.pool = pool
        self.value_of = value_of
        self.held_of = held_of
        self.written_of = written_of
        self.refs_of = refs_of


def match_keywords(
    store: Store, ctx: Context, query: Query, kind: str | None, steps: frozenset[str]
) -> Matched | None:
    """Steps 1 and 2 from the postings in memory (numpy): None when no row is visible."""
    import numpy as np

    terms = query.terms
    segments = keywords(store).segments_for(store)
    # N, the mean length and each df among the rows visible from the project (one snapshot
    # of the index), df counting the rows whose fields hold the term as the tf below does.
    seen = [seg.seen_from(ctx.project) for seg in segments]
    n_docs = sum(v.rows for v in seen)
    if not n_docs:
        return None
    avg_len = sum(v.tokens for v in seen) / n_docs
    df_of = {
        t: sum(v.df(seg.postings, t) for seg, v in zip(segments, seen, strict=True)) for t in terms
    }
    idf_of = {t: rank.idf(n_docs, df_of[t]) for t in terms}
    weights = WEIGHTS if "weights" in steps else UNWEIGHTED
    idf = [idf_of[t] for t in terms]
    mass = max(sum(i for t, i in idf_of.items() if df_of[t]), 1e-12)  # idf of the known words
    now_us = micros(ctx.clock())

    # Step 1 for every version visible from the project (of `kind`) holding a term: BM25F,
    # and the idf each one holds (what the gate and step 2 read).
    bm25: list[tuple[Segment, Any]] = []  # (segment, its rank.Matches)
    for seg, view in zip(segments, seen, strict=True):
        if kind:
            within = view.mask & (seg.kind_of == seg.kinds.get(kind, -1))
        else:  # every row visible: no flags to apply
            within = None if view.rows == seg.postings.n_rows else view.mask
        matches = rank.bm25f(
            seg.postings, terms, idf, weights, avg_len, terms, within, memo=seg.memo
        )
        if matches.positions.shape[0]:
            bm25.append((seg, matches))
    # A match under the CANDIDATES-th best BM25F cannot come into the pool (step 2 only
    # re-orders the best of it): the rest of step 1 skips it. Fewer to read, same pool.
    floor = reach([m.scores for _, m in bm25], 1.0)
    found: list[SegmentMatches] = []
    for seg, matches in bm25:
        at, values = matches.positions, matches.scores
        if floor is not None:
            near = np.flatnonzero(values >= floor)
            at, values, held = at[near], values[near], matches.held_at(near)
        else:
            held = matches.held
        written = seg.postings.written_us[at]
        found.append(SegmentMatches(seg, at, values, written, held))
    if not found:
        return Matched(n_docs, df_of, idf_of, [], {}, {}, {}, None)
    all_values = np.concatenate([f.scores for f in found])
    all_written = np.concatenate([f.written for f in found])
    all_ids = np.concatenate([f.segment.postings.rowids[f.positions] for f in found])
    all_held = np.concatenate([f.held for f in found])
    if all_ids.shape[0] > CANDIDATES:
        # The CANDIDATES best (ties: newer, then the later version).
        cut = np.partition(all_values, all_values.shape[0] - CANDIDATES)[-CANDIDATES]
        top = np.flatnonzero(all_values >= cut)
    else:
        top = np.arange(all_ids.shape[0])
    pool = top[np.lexsort((-all_ids[top], -all_written[top], -all_values[top]))[:CANDIDATES]]
    values = all_values[pool].tolist()
    if "recency" in steps:
        # Step 2: a newer near-tie on the same subject (holding every query word a memory
        # holds) comes first.
        moved, values = newer_first(
            pool.tolist(),
            values,
            all_written[pool].tolist(),
            all_ids[pool].tolist(),
            (all_held[pool] >= mass * (1 - 1e-9)).tolist(),
            now_us,
        )
        pool = np.asarray(moved, dtype=np.int64)
    pool_ids = all_ids[pool].tolist()
    position_of = dict(zip(pool_ids, pool.tolist(), strict=True))

    def refs_of(ids: Sequence[int]) -> list[str]:
        return refs_at(found, [position_of[i] for i in ids])

    return Matched(
        n_docs,
        df_of,
        idf_of,
        pool_ids,
        dict(zip(pool_ids, values, strict=True)),
        dict(zip(pool_ids, all_held[pool].tolist(), strict=True)),
        dict(zip(pool_ids, all_written[pool].tolist(), strict=True)),
        refs_of,
    )


def newer_first(
    pool: list[Any],
    values: list[float],
    written: list[int],
    ids: list[int],
    whole: list[bool],
    now_us: int,
) -> tuple[list[Any], list[float]]:
    """Step 2 on the pool (best first, ties: newer, then the later version; aligned lists):
    each newer near-tie on the same subject raised to the older match it ties
    (`rank.near_ties`), and the pool in that order again (only its first `NEAR_TIES` move)."""
    raised = rank.near_ties(values, written, whole, now_us)
    if raised == values:
        return pool, values
    order = sorted(range(len(pool)), key=lambda k: (-raised[k], -written[k], -ids[k]))
    return [pool[k] for k in order], [raised[k] for k in order]


def reach(scores: Sequence[Any], most: float) -> float | None:
    """The least BM25F that a lift of at most `most` can bring to the CANDIDATES-th best
    (None: there are no more matches than CANDIDATES, all are in the pool)."""
    import numpy as np

    total = sum(int(s.shape[0]) for s in scores)
    if total <= CANDIDATES:
        return None
    kth = rank.kth_largest(np.concatenate(scores), CANDIDATES)
    return kth / most * (1 - 1e-9)


def within_reach(
    scored: list[tuple[int, float]],
    keyword: Mapping[int, float],
    keep: int,
    checked: dict[int, bool],
    check: Any,
) -> list[tuple[int, float]]:
    """The matches (in keyword order) that the LSA lift could bring into the first `keep`
    current ones: a match under the `keep`-th current one's score divided by the largest
    lift cannot pass it (the lift never lowers one). Fewer for LSA to weigh, same answer."""
    most = rank.lsa_lift(1.0)
    current = 0
    for start in range(0, len(scored), CHECK_CHUNK):
        chunk = [i for i, _ in scored[start : start + CHECK_CHUNK]]
        check([i for i in chunk if i not in checked])
        for i in chunk:
            current += checked[i]
            if current == keep:
                floor = keyword[i] / most * (1 - 1e-9)
                # `scored` runs in keyword order (best first): those reaching the floor lead.
                reaching = next(
                    (k for k, (j, _) in enumerate(scored) if keyword[j] < floor), len(scored)
                )
                return scored[:reaching]
    return scored


def refs_at(found: Sequence[SegmentMatches], indexes: Sequence[int]) -> list[str]:
    """The refs of the matches at these indexes of the segments' matches laid end to end."""
    import numpy as np

    at = np.asarray(indexes, dtype=np.int64)
    out: list[str] = [""] * at.shape[0]
    start = 0
    for f in found:
        positions = f.positions
        end = start + positions.shape[0]
        inside = np.flatnonzero((at >= start) & (at < end))
        if inside.shape[0]:
            rows = positions[at[inside] - start].tolist()
            for k, row in zip(inside.tolist(), rows, strict=True):
                out[k] = f.segment.refs[row]
        start = end
    return out
