"""Recall for a new process without numpy: the kept files read with the standard library.

A new `cairn recall --json` process spent most of its time importing numpy (and click), to
score one query whose terms touch a few thousand postings. `Lean` reads the same kept files
(`recall-postings*.npz`, `recall-lsa.npz`) through `mapped.raw_npz` (a `memoryview` of the
mapping, no copy) and computes steps 1 and 2 (`Lean.matched`, `matching.match_keywords`'s
contract) and the LSA lift (`Lean.rerank`, `LsaCache.rerank`'s) in plain Python, with the
operations of `rank.bm25f`, `rank.near_ties` and `rank.lsa.rerank` in their order, so the
answer is the one the numpy path gives (tests/test_recall_lean.py compares them query by query).

It serves only what it can read as is: `Lean.open` is None (and the caller takes the numpy
path, which also indexes and fits) when a row of the memory index is in no kept file, a kept
file is missing, damaged or of another store, or the LSA fit is due. Everything else (the
gate, the cut-off, evidence, currency, the final order) is `recall`'s own code.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Sequence
from itertools import chain
from typing import Any

from cairn.core import rank
from cairn.core.context import Context, parse_stamp
from cairn.core.rank.bm25 import K1, B
from cairn.core.text.query import Query
from cairn.io.store.protocol import Store
from cairn.usecases.recall.kept import KeywordCache, _chain_files, _store_mark, micros
from cairn.usecases.recall.lsa import LsaCache
from cairn.usecases.recall.mapped import Raw, raw_npz

__all__ = ["FIELDS", "Lean"]

FIELDS = 4  # `rank.postings.FIELD_COUNT` (a test pins them equal): not imported, as that
# module defines dataclasses a new process would pay a millisecond each for

_NUMBERS = {
    "rowids": ("<i8",),
    "lengths": ("<f8",),
    "written_us": ("<i8",),
    "starts": ("<i8",),
    "rows_of": ("<i4",),
    "counts": ("|u1", "<u4"),
    "project_of": ("<i4",),
    "kind_of": ("<i4",),
    "workspace": ("|b1",),
}


class _Strings:
    """A sorted strings array searched by bisection, item by item (no list of them all)."""

    def __init__(self, raw: Raw) -> None:
        if len(raw.shape) != 1:
            raise ValueError("not a list of strings")
        self.n = raw.shape[0]
        self.size = 4 * raw.width  # UTF-32 characters, padded with NULs
        self.data = raw.data
        self.asked: dict[str, int] = {}
        self.items: dict[int, str] = {}  # the items read so far (bisections share the first)

    def item(self, k: int) -> str:
        found = self.items.get(k)
        if found is None:
            size = self.size
            found = self.items[k] = str(self.data[k * size : (k + 1) * size], "utf-32-le")
            found = self.items[k] = found.rstrip("\0")
        return found

    def find(self, term: str) -> int:
        """The position of `term`, -1 when absent."""
        known = self.asked.get(term)
        if known is None:
            lo, hi = 0, self.n
            while lo < hi:
                mid = (lo + hi) // 2
                if self.item(mid) < term:
                    lo = mid + 1
                else:
                    hi = mid
            known = lo if lo < self.n and self.item(lo) == term else -1
            self.asked[term] = known
        return known


class _Rows:
    """Rows of the memory index with their postings: a kept file or the rows after them."""

    n: int
    lengths: Any
    projects: list[str]
    project_of: Any
    workspace: Any
    view: tuple[str, Any, int, float] | None = None

    def seen_from(self, project: str) -> tuple[Any, int, float]:
        """(flag per row or None for all, rows, tokens) visible from `project`."""
        if self.view is not None and self.view[0] == project:
            return self.view[1:]
        p = self.projects.index(project) if project in self.projects else -1
        if all(k == p for k in range(len(self.projects))):
            flags: Any = None  # every row is the project's own
            rows, tokens = self.n, float(sum(self.lengths))
        else:
            of, ws = self.project_of, self.workspace
            flags = [of[r] == p or ws[r] for r in range(self.n)]
            rows = sum(flags)
            tokens = float(sum(x for x, f in zip(self.lengths, flags, strict=True) if f))
        self.view = (project, flags, rows, tokens)
        return flags, rows, tokens


class _Segment(_Rows):
    """One kept postings file, read as `kept._load_segment` reads it (the same checks)."""

    def __init__(self, store: Store, raw: dict[str, Raw], after: int) -> None:
        for name, descrs in _NUMBERS.items():
            if raw[name].descr not in descrs:
                raise ValueError(f"{name} is {raw[name].descr}")
        self.rowids = raw["rowids"].items()
        n = len(self.rowids)
        if not n or str(raw["store"].string(0)) != _store_mark(store, self.rowids[-1]):
            raise ValueError("of another store")
        if self.rowids[0] <= after:
            raise ValueError("rows out of order")
        self.lengths = raw["lengths"].items()
        self.written = raw["written_us"].items()
        self.terms = _Strings(raw["terms"])
        self.starts = raw["starts"].items()
        self.rows_of = raw["rows_of"].items()
        counts = raw["counts"]
        self.counts = counts.items()
        m = len(self.rows_of)
        if counts.shape != (FIELDS, m):
            raise ValueError("counts do not fit")
        self.fortran = counts.fortran
        # Posting j's four one-byte counts side by side are one little-endian 32-bit key
        # (`raw_npz` takes little-endian machines only), read without a tuple per posting.
        self.packed = counts.data.cast("I") if self.fortran and counts.descr == "|u1" else None
        self.refs = raw["refs"]
        self.projects = [raw["projects"].string(k) for k in range(len(raw["projects"]))]
        self.kinds = [raw["kinds"].string(k) for k in range(len(raw["kinds"]))]
        self.project_of = raw["project_of"].items()
        self.workspace = raw["workspace"].items()
        self.kind_of = raw["kind_of"].items()
        sizes = (len(self.lengths), len(self.written), len(self.refs), len(self.project_of))
        if set(sizes) != {n} or len(self.workspace) != n or len(self.kind_of) != n:
            raise ValueError("arrays of different lengths")
        if len(self.starts) != self.terms.n + 1 or self.starts[0] != 0 or self.starts[-1] != m:
            raise ValueError("starts do not fit")
        self.n = n

    def postings(self, term: str) -> tuple[int, int] | None:
        """(start, end) of `term`'s postings, None when absent or out of range (as
        `kept._CheckedPostings` reads a term whose rows do not fit)."""
        k = self.terms.find(term)
        if k < 0:
            return None
        lo, hi = self.starts[k], self.starts[k + 1]
        if not 0 <= lo <= hi <= len(self.rows_of):
            return None
        rows = self.rows_of[lo:hi]
        if hi > lo and (min(rows) < 0 or max(rows) >= self.n):
            return None
        return lo, hi

    def rows(self, lo: int, hi: int) -> list[int]:
        """The rows of postings lo to hi."""
        found: list[int] = self.rows_of[lo:hi].tolist()
        return found

    def ref(self, row: int) -> str:
        """The ref of a row."""
        return self.refs.string(row)

    def count_keys(self, lo: int, hi: int) -> list[Any]:
        """A key of each of postings lo to hi's four counts, for `unpack`."""
        if self.packed is not None:
            keys: list[int] = self.packed[lo:hi].tolist()
            return keys
        return list(self.field_counts(lo, hi))

    def unpack(self, key: Any) -> tuple[int, ...]:
        """The four counts of a `count_keys` key."""
        if isinstance(key, int):
            return (key & 255, (key >> 8) & 255, (key >> 16) & 255, key >> 24)
        counts: tuple[int, ...] = key
        return counts

    def field_counts(self, lo: int, hi: int) -> Any:
        """The four counts (one per field) of each of postings lo to hi, as tuples."""
        fields = FIELDS
        if self.fortran:  # posting j's four counts side by side
            flat = iter(self.counts[lo * fields : hi * fields].tolist())
            return zip(*([flat] * fields), strict=True)
        m = len(self.rows_of)
        return zip(
            *[self.counts[f * m + lo : f * m + hi].tolist() for f in range(fields)], strict=True
        )


class _Tail(_Rows):
    """The rows after the kept files' (at most KeywordCache.SEGMENT_ROWS, or a store under
    KEEP_FROM), read from the store and indexed here as `rank.build_postings` does: each
    field's space-separated tokens counted, rows in rowid order."""

    def __init__(self, rows: Sequence[tuple[Any, ...]]) -> None:
        self.n = len(rows)
        self.rowids = [row[0] for row in rows]
        self.refs: list[str] = [str(row[1]) for row in rows]
        self.projects = list(dict.fromkeys(row[2] for row in rows))
        at = {name: k for k, name in enumerate(self.projects)}
        self.project_of = [at[row[2]] for row in rows]
        self.workspace = [row[3] == "workspace" for row in rows]
        self.kinds = list(dict.fromkeys(row[4] for row in rows))
        kind_at = {name: k for k, name in enumerate(self.kinds)}
        self.kind_of = [kind_at[row[4]] for row in rows]
        self.lengths = [float(row[9]) for row in rows]
        self.written = [micros(parse_stamp(row[10])) for row in rows]
        counts: dict[str, dict[int, list[int]]] = {}
        for r, row in enumerate(rows):
            for f in range(FIELDS):
                for token in row[5 + f].split():
                    entry = counts.setdefault(token, {}).get(r)
                    if entry is None:
                        entry = counts[token][r] = [0] * FIELDS
                    entry[f] += 1
        self.spans: dict[str, tuple[int, int]] = {}
        self.rows_of: list[int] = []
        self.counts: list[tuple[int, ...]] = []
        for term, by_row in counts.items():
            start = len(self.rows_of)
            self.rows_of.extend(by_row)  # rows in the order first seen: ascending
            self.counts.extend(tuple(c) for c in by_row.values())
            self.spans[term] = (start, len(self.rows_of))

    def postings(self, term: str) -> tuple[int, int] | None:
        """(start, end) of `term`'s postings, None when absent."""
        return self.spans.get(term)

    def rows(self, lo: int, hi: int) -> list[int]:
        """The rows of postings lo to hi."""
        return self.rows_of[lo:hi]

    def ref(self, row: int) -> str:
        """The ref of a row."""
        return self.refs[row]

    def field_counts(self, lo: int, hi: int) -> Any:
        """The four counts of each of postings lo to hi, as tuples."""
        return self.counts[lo:hi]

    def count_keys(self, lo: int, hi: int) -> list[tuple[int, ...]]:
        """A key of each of postings lo to hi's four counts: the counts."""
        return self.counts[lo:hi]

    def unpack(self, key: tuple[int, ...]) -> tuple[int, ...]:
        """The four counts of a `count_keys` key."""
        return key


class Lean:
    """Steps 1-3 of recall from the kept files, for a process that has not imported numpy."""

    def __init__(self, segments: Sequence[Any], lsa: dict[str, Raw] | None) -> None:
        self.segments = segments
        self.lsa = lsa
        self._vocabulary = _Strings(lsa["terms"]) if lsa is not None else None

    @classmethod
    def open(cls, store: Store) -> Lean | None:
        """The kept files of `store` when they cover every row and the LSA fit serves as is;
        None otherwise (the numpy path indexes and fits what is missing)."""
        home = store.home
        segments: list[Any] = []
        covered = 0
        try:
            first = raw_npz(home / KeywordCache.FILE)
            if first is not None:
                segments.append(_Segment(store, first, 0))
                covered = segments[0].rowids[-1]
                for after, path in _chain_files(home, covered):
                    raw = raw_npz(path)
                    if raw is None:
                        return None
                    segments.append(_Segment(store, raw, after))
                    covered = segments[-1].rowids[-1]
            waiting = store.change_count() - covered
            # Rows the numpy path would index and keep itself: left to it.
            if waiting > KeywordCache.SEGMENT_ROWS and (
                segments or waiting >= KeywordCache.KEEP_FROM
            ):
                return None
            if waiting > 0:
                rows = store.index_rows_after(covered)
                if rows:
                    segments.append(_Tail(rows))
            lsa = _lsa_arrays(store)
        except (KeyError, ValueError, TypeError, IndexError, UnicodeDecodeError):
            return None
        if lsa is False:
            return None
        return cls(segments, lsa if isinstance(lsa, dict) else None)

    # -- steps 1 and 2 (`matching.match_keywords`) ------------------------------------------
    def matched(
        self, store: Store, ctx: Context, query: Query, kind: str | None, steps: Any
    ) -> Any:
        """`recall.matching.match_keywords`, read from the kept files in plain Python."""
        from cairn.usecases.recall.matching import (
            CANDIDATES,
            UNWEIGHTED,
            WEIGHTS,
            Matched,
            newer_first,
        )

        terms = query.terms
        seen = [seg.seen_from(ctx.project) for seg in self.segments]
        n_docs = sum(v[1] for v in seen)
        if not n_docs:
            return None
        avg_len = sum(v[2] for v in seen) / n_docs
        spans = [{t: seg.postings(t) for t in terms} for seg in self.segments]
        df_of = {t: 0 for t in terms}
        for seg, (flags, _, _), span in zip(self.segments, seen, spans, strict=True):
            for t in terms:
                at = span[t]
                if at is not None:
                    rows = seg.rows(*at)
                    df_of[t] += len(rows) if flags is None else sum(1 for r in rows if flags[r])
        idf_of = {t: rank.idf(n_docs, df_of[t]) for t in terms}
        weights = WEIGHTS if "weights" in steps else UNWEIGHTED
        mass = max(
            sum(i for t, i in idf_of.items() if df_of[t]), 1e-12
        )  # as recall.matching.match_keywords: the idf of the words some memory holds
        # The score of each match visible from the project (of `kind`), by segment.
        scored: list[tuple[dict[int, float], list[tuple[float, dict[int, float]]]]] = []
        for seg, (flags, _, _), span in zip(self.segments, seen, spans, strict=True):
            scores, held = _bm25f(seg, terms, [idf_of[t] for t in terms], weights, avg_len, span)
            wanted_kind = seg.kinds.index(kind) if kind and kind in seg.kinds else -1
            if flags is not None or kind:
                kinds = seg.kind_of
                scores = {
                    row: score
                    for row, score in scores.items()
                    if (flags is None or flags[row]) and (not kind or kinds[row] == wanted_kind)
                }
            scored.append((scores, held))
        # A match under the CANDIDATES-th best score cannot come into the CANDIDATES best
        # (step 2 only re-orders the best of them).
        floor = -1.0
        if sum(len(scores) for scores, _ in scored) > CANDIDATES:
            best = heapq.nlargest(CANDIDATES, chain.from_iterable(sc.values() for sc, _ in scored))
            floor = best[-1] * (1 - 1e-9)
        found = [  # value, written, id, held, segment, row
            (
                score,
                self.segments[s].written[row],
                self.segments[s].rowids[row],
                _held(held, row),
                s,
                row,
            )
            for s, (scores, held) in enumerate(scored)
            for row, score in scores.items()
            if score >= floor
        ]
        if not found:
            return Matched(n_docs, df_of, idf_of, [], {}, {}, {}, None)
        pool = heapq.nsmallest(CANDIDATES, found, key=lambda f: (-f[0], -f[1], -f[2]))
        if "recency" in steps:
            # Step 2, `matching.newer_first`'s.
            moved, values = newer_first(
                pool,
                [f[0] for f in pool],
                [f[1] for f in pool],
                [f[2] for f in pool],
                [f[3] >= mass * (1 - 1e-9) for f in pool],
                micros(ctx.clock()),
            )
            pool = [(v, *f[1:]) for v, f in zip(values, moved, strict=True)]
        where = {f[2]: (f[4], f[5]) for f in pool}
        segments = self.segments

        def refs_of(ids: Sequence[int]) -> list[str]:
            return [segments[where[i][0]].ref(where[i][1]) for i in ids]

        return Matched(
            n_docs,
            df_of,
            idf_of,
            [f[2] for f in pool],
            {f[2]: f[0] for f in pool},
            {f[2]: f[3] for f in pool},
            {f[2]: f[1] for f in pool},
            refs_of,
        )

    # -- step 3 (`LsaCache.ready` and `rerank`) ---------------------------------------------
    def ready(self, store: Store) -> Lean | None:
        """Self when the LSA step applies (the fit was read at `open`), as `LsaCache.ready`."""
        return self if self.lsa is not None else None

    def rerank(
        self, store: Store, scored: Sequence[tuple[int, float]], terms: Sequence[str]
    ) -> list[tuple[int, float]]:
        """`rank.lsa.rerank` of the matches, in plain Python."""
        from cairn.core.rank.lsa import LIFT_POWER, LIFT_SHARE, QUERY_IDF_POWER

        assert self.lsa is not None and self._vocabulary is not None
        words = store.index_words([i for i, _ in scored])
        docs = [Counter(words.get(i, "").split()) for i, _ in scored]
        vectors = self.lsa["term_vectors"]
        dims = vectors.shape[1] if len(vectors.shape) == 2 else 0
        lifts = [1.0] * len(docs)
        vocabulary = self._vocabulary
        asked = [t for t in dict.fromkeys(terms) if vocabulary.find(t) >= 0]
        if docs and dims and asked:
            idf = self.lsa["idf"].items()
            flat = vectors.items()

            vectors_read: dict[int, list[float]] = {}

            def vector(row: int) -> list[float]:
                found = vectors_read.get(row)
                if found is None:
                    found = vectors_read[row] = flat[row * dims : (row + 1) * dims].tolist()
                return found

            rows = [vocabulary.find(t) for t in asked]
            if QUERY_IDF_POWER == 2.0:
                scale = [idf[r] * idf[r] for r in rows]  # numpy squares for a power of 2
            else:
                scale = [idf[r] ** QUERY_IDF_POWER for r in rows]
            weighted = [[w * x for x in vector(r)] for w, r in zip(scale, rows, strict=True)]
            asked_set = set(asked)
            for k, doc in enumerate(docs):
                query = [0.0] * dims
                for a, t in enumerate(asked):
                    if t not in doc:
                        query = [q + 1.0 * w for q, w in zip(query, weighted[a], strict=True)]
                rest = [0.0] * dims
                for t, c in doc.items():
                    if t in asked_set:
                        continue
                    row = vocabulary.find(t)
                    if row >= 0:
                        w = (1.0 + math.log(c)) * idf[row]
                        rest = [x + w * v for x, v in zip(rest, vector(row), strict=True)]
                rest_norm = math.sqrt(sum(x * x for x in rest))
                if rest_norm != 0.0:
                    rest = [x / rest_norm for x in rest]
                norm = math.sqrt(sum(q * q for q in query))
                dot = sum(x * q for x, q in zip(rest, query, strict=True))
                sim = dot / norm if norm > 0.0 else 0.0
                clipped = min(sim, 1.0) if sim > 0.0 else 0.0
                lifts[k] = 1.0 + LIFT_SHARE * clipped**LIFT_POWER
        lifted = [(i, value * lift) for (i, value), lift in zip(scored, lifts, strict=True)]
        return sorted(lifted, key=lambda item: item[1], reverse=True)


class _Values(dict[Any, float]):
    """A posting's BM25F value by its key (its counts' key, its row's length), computed on the
    first sight of the key (`__missing__`): most postings share a few keys, so the postings'
    values are looked up in C (`map`) rather than computed in a Python loop per posting."""

    __slots__ = ("formula",)

    def __init__(self, formula: Any) -> None:
        super().__init__()
        self.formula = formula

    def __missing__(self, key: tuple[Any, float]) -> float:
        value: float = self.formula(key)
        self[key] = value
        return value


def _bm25f(
    seg: Any,
    terms: Sequence[str],
    idf: Sequence[float],
    weights: Sequence[float],
    avg_len: float,
    span: dict[str, tuple[int, int] | None],
) -> tuple[dict[int, float], list[tuple[float, dict[int, float]]]]:
    """`rank.bm25f` of one segment (every term required): the score by row, with its
    operations in its order (tf summed over the fields in order, then the formula; a row's
    terms summed in query order), and each term found with its idf and its rows, from which
    `_held` sums the idf a row holds (for the rows that need it, not every posting)."""
    scores: dict[int, float] = {}
    found: list[tuple[float, dict[int, float]]] = []
    lengths = seg.lengths
    unpack = seg.unpack
    w0, w1, w2, w3 = weights
    k1_plus = K1 + 1.0
    one_b = 1.0 - B
    for k, term in enumerate(terms):
        at = span[term]
        if at is None:
            continue
        lo, hi = at
        rows = seg.rows(lo, hi)
        weight = idf[k]

        def formula(key: tuple[Any, float], weight: float = weight) -> float:
            a, b, c, d = unpack(key[0])
            tf: float = a * w0
            tf = tf + b * w1
            tf = tf + c * w2
            tf = tf + d * w3
            norm = one_b + B * key[1] / avg_len
            return weight * tf * k1_plus / (tf + K1 * norm)

        keys = zip(seg.count_keys(lo, hi), map(lengths.__getitem__, rows), strict=True)
        values = dict(zip(rows, map(_Values(formula).__getitem__, keys), strict=True))
        found.append((weight, values))
        if not scores:  # the first term found: no sum yet (0.0 + x is x)
            scores = dict(values)
            continue
        # A row this term adds gets its value (0.0 + x is x); a row already scored, the sum
        # in the same order as before (earlier terms' sum + this term's value). `update`
        # keeps the rows already there in place and appends the new ones in postings order.
        summed = dict(values)
        for row in scores.keys() & summed.keys():
            summed[row] = scores[row] + summed[row]
        scores.update(summed)
    return scores, found


def _held(found: list[tuple[float, dict[int, float]]], row: int) -> float:
    """The idf of the terms `row` holds, summed in query order as `rank.bm25f` sums it."""
    held = 0.0
    first = True
    for weight, rows in found:
        if row in rows:
            held = weight if first else held + weight
            first = False
    return held


def _lsa_arrays(store: Store) -> dict[str, Raw] | bool:
    """The kept LSA fit when it serves as `LsaCache.ready` would take it; True when LSA does
    not apply (too few memories), False when a fit is due (missing, stale or damaged)."""
    n = store.count_memories()
    if not rank.use_lsa(n):
        return True
    raw = raw_npz(store.home / LsaCache.FILE)
    if raw is None:
        return False
    fitted_at = raw["fitted_at"].items()[0]
    if raw["store"].string(0) != _store_mark(store, fitted_at):
        return False
    limit = max(LsaCache.REFIT_MIN, LsaCache.REFIT_SHARE * n)
    if not 0 <= store.change_count() - fitted_at <= limit:
        return False
    terms, idf, vectors = raw["terms"], raw["idf"], raw["term_vectors"]
    n_terms = len(terms)
    if len(terms.shape) != 1 or idf.shape != (n_terms,) or len(vectors.shape) != 2:
        return False
    if vectors.shape[0] != n_terms or vectors.fortran or idf.descr[1] != "f":
        return False
    if vectors.descr[1] != "f":
        return False
    return raw
