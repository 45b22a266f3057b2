"""What recall derives from the store and keeps: postings of the memory index and the LSA fit.

Both are held in memory while the store is open and kept beside it (files in its folder), so
the next process reads them instead of computing them again (seconds at 100k memories). A
kept file that is missing, damaged, of another store or too old is computed afresh and
written again, never an error. Files are written whole, then renamed into place.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from cairn import rank
from cairn.context import parse_stamp
from cairn.recall.mapped import Strings, Vocabulary, read_npz, write_npz
from cairn.store.protocol import Store
from cairn.text import ANALYSER_VERSION

__all__ = ["KeywordCache", "LsaCache", "Segment", "View", "keywords", "micros"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class LsaCache:
    """An LSA model of the workspace, fitted in bounded time when the store changed enough.

    "Changed enough": more than REFIT_SHARE of the memories (at least REFIT_MIN) were written
    since the fit. A fit reads at most `rank.lsa.FIT_SAMPLE` memories and the df of their words
    from the keyword postings, so it costs the same at 10,000 or 100,000 memories (well
    under a second; bench/quality.py --latency times it). Every memory is folded in when it
    is a candidate (its words through the model), so one written after the fit is lifted at
    once; a refit only brings new words into the model.

    A fit is kept beside the store (FILE in its folder, with the store's state it was fitted
    at), so the next process reads it instead of fitting again; a file that is missing,
    unreadable, of another store, or older than the rule above allows is fitted afresh (and
    written again), never an error.
    """

    # Every memory is folded in at once, so a refit only brings new words into the model:
    # once the store grew by half (a refit after each 10% cost a bulk load of 100k memories
    # one more fit per 10,000, bench/quality.py --latency).
    REFIT_SHARE = 0.5
    REFIT_MIN = 20
    FILE = "recall-lsa.npz"

    def __init__(self) -> None:
        self.model: Any = None
        self.fitted_at = -1

    def ready(self, store: Store) -> LsaCache | None:
        """This cache, fitted and fresh, or None below MIN_MEMORIES_FOR_LSA memories."""
        n = store.count_memories()
        if not rank.use_lsa(n):
            return None
        changes = store.change_count()
        limit = max(self.REFIT_MIN, self.REFIT_SHARE * n)
        if self.model is not None and changes - self.fitted_at <= limit:
            return self
        if self._load(store) and 0 <= changes - self.fitted_at <= limit:
            return self
        self._fit(store, changes)
        return self

    def rerank(
        self, store: Store, scored: Sequence[tuple[int, float]], terms: Sequence[str]
    ) -> list[tuple[int, float]]:
        """Keyword matches re-ordered by their latent closeness to the query (rank.rerank)."""
        words = store.index_words([i for i, _ in scored])
        hits = [(i, s, Counter(words.get(i, "").split())) for i, s in scored]
        return rank.rerank(hits, self.model, terms)

    def _fit(self, store: Store, changes: int) -> None:
        """Fit on an even sample of the current memories, df from the keyword postings."""
        from cairn.rank.lsa import FIT_SAMPLE, fit

        # One row in `every` (by rowid) is read, then evenly thinned to FIT_SAMPLE.
        current = store.current_rowids(max(1, store.count_memories() // FIT_SAMPLE))
        if len(current) > FIT_SAMPLE:
            step = len(current) / FIT_SAMPLE
            current = [current[int(k * step)] for k in range(FIT_SAMPLE)]
        words = store.index_words(current)
        docs = [Counter(words[i].split()) for i in current if i in words]
        segments = keywords(store).segments_for(store)
        vocabulary = {t for doc in docs for t in doc}
        df = {t: sum(seg.postings.df(t) for seg in segments) for t in vocabulary}
        n_docs = sum(seg.postings.n_rows for seg in segments)
        self.model = fit(docs, df, n_docs)
        self.fitted_at = changes
        self._save(store)

    def _load(self, store: Store) -> bool:
        """Read the fit kept beside the store, if it is one of this store; True when read.

        The file is mapped, not read (`recall.mapped`): the vectors of the few terms a query
        and its candidates hold are what is read from disk.
        """
        arrays = read_npz(store.home / self.FILE)
        if arrays is None:
            return False
        try:
            fitted_at = int(arrays["fitted_at"])
            if str(arrays["store"]) != _store_mark(store, fitted_at):
                return False
            model = _lsa_model(arrays)
        except Exception:  # any damage (missing or wrong arrays): fit afresh
            return False
        self.model, self.fitted_at = model, fitted_at
        return True

    def _save(self, store: Store) -> None:
        """Keep this fit beside the store."""
        import numpy as np

        from cairn.rank.lsa import to_arrays

        _write_npz(
            store.home / self.FILE,
            {
                "fitted_at": np.int64(self.fitted_at),
                "store": np.str_(_store_mark(store, self.fitted_at)),
                **to_arrays(self.model),
            },
        )


def _store_mark(store: Store, last: int) -> str:
    """What tells this store from another at the same place: the refs of its first row and of
    row `last` (refs are random, so another store with as many rows has other ones), and the
    analyser that made the words (a store re-analysed by a migration keeps its refs)."""
    return " ".join([*store.refs_at_rowids([1, last]), f"analyser-{ANALYSER_VERSION}"])


def _lsa_model(arrays: Mapping[str, Any]) -> Any:
    """The `rank.lsa.LsaModel` of `to_arrays`' arrays, as mapped: `from_arrays` checks, but
    the vocabulary is looked up in the terms array (`Vocabulary`), not made into a dict, and
    the vectors stay as stored (any float type; numpy widens them where they meet float64)."""
    from cairn.rank.lsa import LsaModel

    terms = arrays["terms"]
    idf = arrays["idf"]
    term_vectors = arrays["term_vectors"]
    if terms.ndim != 1 or terms.dtype.kind != "U":
        raise ValueError("the terms are not strings")
    if not all(a.dtype.kind == "f" for a in (idf, term_vectors)):
        raise ValueError("the vectors are not floats")
    n_terms = terms.shape[0]
    if idf.shape != (n_terms,) or term_vectors.ndim != 2 or term_vectors.shape[0] != n_terms:
        raise ValueError("the arrays do not make an LSA model")
    return LsaModel(Vocabulary(terms), idf, term_vectors)


def micros(moment: datetime) -> int:
    """A moment as whole microseconds since the Unix epoch (exact, unlike a float)."""
    return (moment - _EPOCH) // timedelta(microseconds=1)


@dataclass(frozen=True, eq=False)
class View:
    """The rows of a segment visible from one project: its own and the workspace-wide ones.

    Recall counts rarity among them (N, each df, the mean length): a word common in another
    project's memories is still rare here.
    """

    mask: Any  # NDArray[np.bool_], one flag per row
    rows: int
    tokens: float

    def df(self, postings: rank.Postings, term: str) -> int:
        """Visible rows holding `term`."""
        found = postings.postings(term)
        return 0 if found is None else int(self.mask[found[0]].sum())


@dataclass(frozen=True, eq=False)
class Segment:
    """Postings of some rows of the memory index, with what never changes of each row: its
    ref, project, scope and kind (so visibility from a project is decided in memory; only
    whether a version is still current has to be asked of the store)."""

    postings: rank.Postings
    refs: list[str]
    projects: dict[str, int]
    project_of: Any  # NDArray[np.int32]: index into `projects`
    workspace: Any  # NDArray[np.bool_]: scope 'workspace' (visible from every project)
    kinds: dict[str, int]
    kind_of: Any  # NDArray[np.int32]: index into `kinds`
    views: dict[str, View] = field(default_factory=dict, compare=False, repr=False)

    def visible(self, project: str, kind: str | None) -> Any:
        """One flag per row: visible from `project` (its own or workspace-wide), of `kind`.

        Kept per (project, kind), read-only: a segment's rows never change, and at 100k rows
        the flags cost ~0.2 ms to compute, a tenth of a warm recall.
        """
        masks: dict[tuple[str, str | None], Any] = self.__dict__.setdefault("_masks", {})
        flags = masks.get((project, kind))
        if flags is None:
            flags = (self.project_of == self.projects.get(project, -1)) | self.workspace
            if kind:
                flags &= self.kind_of == self.kinds.get(kind, -1)
            flags.flags.writeable = False
            if len(masks) >= 16:
                masks.clear()
            masks[(project, kind)] = flags
        return flags

    def seen_from(self, project: str) -> View:
        """The rows visible from `project`, counted once per segment and project."""
        view = self.views.get(project)
        if view is None:
            mask = self.visible(project, None)
            view = View(mask, int(mask.sum()), float(self.postings.lengths[mask].sum()))
            self.views[project] = view
        return view


class KeywordCache:
    """The postings of the memory index (`rank.postings`), in memory while the store is open.

    The index only grows and a row's text never changes, so postings once built stay right:
    rows written since are read into a further segment, and segments are merged (numpy only,
    no word read again: `rank.merge_postings`): the newer ones into one past MAX_SEGMENTS, and
    all into the first once the newer rows outnumber REBUILD_SHARE of the first segment's
    (and REBUILD_MIN). So a recall after a bulk load reads only the rows loaded. A store whose
    rows went back (another file at the same place) is read afresh.

    From KEEP_FROM rows, the first segment is also kept beside the store (FILE) whenever it is
    built or merged, so the next process reads it (and only the rows written since) instead of
    building again; a file that is missing, damaged or of another store is built afresh,
    never an error.
    """

    MAX_SEGMENTS = 8
    REBUILD_SHARE = 0.1
    REBUILD_MIN = 1000
    KEEP_FROM = 5000
    FILE = "recall-postings.npz"

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.last = 0
        self.looked = False

    def segments_for(self, store: Store) -> list[Segment]:
        """Segments covering every row of the memory index now."""
        last = store.change_count()
        if last == self.last:
            return self.segments
        if not self.looked:
            self.looked = True
            kept = _load_segment(store, store.home / self.FILE)
            if kept is not None and kept.postings.last_rowid <= last:
                self.segments, self.last = [kept], kept.postings.last_rowid
                if last == self.last:
                    return self.segments
        if last < self.last:
            self.segments, self.last = [], 0
        if not self.segments:
            self.segments = [_segment(store.index_rows_after(0))]
            self._keep(store)
        else:
            self.segments.append(_segment(store.index_rows_after(self.last)))
            base = self.segments[0].postings.n_rows
            newer = sum(seg.postings.n_rows for seg in self.segments[1:])
            if newer > max(self.REBUILD_MIN, self.REBUILD_SHARE * base):
                self.segments = [_merged(self.segments)]
                self._keep(store)
            elif len(self.segments) > self.MAX_SEGMENTS:
                self.segments = [self.segments[0], _merged(self.segments[1:])]
        # Rows committed by another process between the two reads are in the segment already.
        self.last = max(last, self.segments[-1].postings.last_rowid)
        return self.segments

    def _keep(self, store: Store) -> None:
        first = self.segments[0]
        if first.postings.n_rows >= self.KEEP_FROM:
            _save_segment(store, store.home / self.FILE, first)


def _merged(segments: Sequence[Segment]) -> Segment:
    """One segment of the rows of `segments`, in order (each one's rows after the last's)."""
    import numpy as np

    out = segments[0]
    for seg in segments[1:]:
        projects = dict(out.projects)
        kinds = dict(out.kinds)
        project_map = np.array(
            [projects.setdefault(name, len(projects)) for name in seg.projects], dtype=np.int32
        )
        kind_map = np.array(
            [kinds.setdefault(name, len(kinds)) for name in seg.kinds], dtype=np.int32
        )
        out = Segment(
            postings=rank.merge_postings(out.postings, seg.postings),
            refs=[*out.refs, *seg.refs],
            projects=projects,
            project_of=np.concatenate(
                [out.project_of, project_map[seg.project_of] if seg.projects else seg.project_of]
            ).astype(np.int32),
            workspace=np.concatenate([out.workspace, seg.workspace]),
            kinds=kinds,
            kind_of=np.concatenate(
                [out.kind_of, kind_map[seg.kind_of] if seg.kinds else seg.kind_of]
            ).astype(np.int32),
        )
    return out


def _save_segment(store: Store, target: Path, seg: Segment) -> None:
    """Keep a segment beside the store (written whole, then renamed into place).

    Terms are written in sorted order, their postings with them, so that a reader finds a
    term by binary search in the mapped terms array (`recall.mapped.Vocabulary`).
    """
    import numpy as np

    p = seg.postings
    by_id = np.array(sorted(p.vocabulary, key=p.vocabulary.__getitem__), dtype=np.str_)
    order = np.argsort(by_id, kind="stable")
    sizes = np.diff(p.starts)[order]
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    # The postings of term order[k] move from p.starts[order[k]] to starts[k].
    moved = np.repeat(p.starts[order] - starts[:-1], sizes) + np.arange(int(starts[-1]))
    arrays = {
        "store": np.str_(_store_mark(store, p.last_rowid)),
        "rowids": p.rowids,
        "lengths": p.lengths,
        "written_us": p.written_us,
        "terms": by_id[order],
        "starts": starts,
        "rows_of": p.rows_of[moved],
        "counts": p.counts[:, moved],
        "refs": np.array(list(seg.refs), dtype=np.str_),
        "projects": np.array(sorted(seg.projects, key=seg.projects.__getitem__), dtype=np.str_),
        "project_of": seg.project_of,
        "workspace": seg.workspace,
        "kinds": np.array(sorted(seg.kinds, key=seg.kinds.__getitem__), dtype=np.str_),
        "kind_of": seg.kind_of,
    }
    _write_npz(target, arrays)


def _load_segment(store: Store, source: Path) -> Segment | None:
    """The segment `_save_segment` kept for this store, or None (missing, damaged, other).

    The file is mapped, not read (`recall.mapped`): a query reads the postings of its terms.
    """
    import numpy as np

    arrays = read_npz(source)
    if arrays is None:
        return None
    try:
        rowids = arrays["rowids"]
        n = rowids.shape[0]
        if rowids.dtype != np.int64 or not n:
            return None
        if str(arrays["store"]) != _store_mark(store, int(rowids[-1])):
            return None
        terms = arrays["terms"]
        starts = arrays["starts"]
        rows_of = arrays["rows_of"]
        counts = arrays["counts"]
        lengths = arrays["lengths"]
        dtypes_agree = (
            terms.dtype.kind == "U"
            and starts.dtype == np.int64
            and rows_of.dtype == np.int32
            and counts.dtype in (np.uint8, np.uint32)
            and lengths.dtype == np.float64
            and arrays["written_us"].dtype == np.int64
            and arrays["project_of"].dtype == arrays["kind_of"].dtype == np.int32
            and arrays["workspace"].dtype == np.bool_
        )
        if not dtypes_agree:
            return None
        postings = _CheckedPostings(
            rowids=rowids,
            lengths=lengths,
            written_us=arrays["written_us"],
            vocabulary=Vocabulary(terms),
            starts=starts,
            rows_of=rows_of,
            counts=counts,
            tokens=int(lengths.sum()),
        )
        seg = Segment(
            postings=postings,
            refs=Strings(arrays["refs"]),  # type: ignore[arg-type]
            projects={name: k for k, name in enumerate(arrays["projects"].tolist())},
            project_of=arrays["project_of"],
            workspace=arrays["workspace"],
            kinds={name: k for k, name in enumerate(arrays["kinds"].tolist())},
            kind_of=arrays["kind_of"],
        )
    except Exception:  # any damage (missing or malformed arrays): build afresh
        return None
    sizes_agree = (
        postings.written_us.shape == lengths.shape == (n,)
        and len(seg.refs) == seg.project_of.shape[0] == seg.workspace.shape[0] == n
        and seg.kind_of.shape[0] == n
        and terms.ndim == 1
        and starts.shape == (len(terms) + 1,)
        and counts.shape == (rank.FIELD_COUNT, rows_of.shape[0])
        and int(starts[0]) == 0
        and int(starts[-1]) == rows_of.shape[0]
        and bool(np.all(np.diff(starts) >= 0))
    )
    return seg if sizes_agree else None


class _CheckedPostings(rank.Postings):
    """Postings read from a kept file: the rows of each term are checked to lie within the
    segment the first time the term is read (a check of all of them would read them all)."""

    def postings(self, term: str) -> Any:
        """As `rank.Postings.postings`; a term whose rows do not fit reads as absent."""
        found = super().postings(term)
        if found is None:
            return None
        checked: set[str] = self.__dict__.setdefault("_checked", set())
        if term not in checked:
            rows = found[0]
            if rows.shape[0] and (int(rows.min()) < 0 or int(rows.max()) >= self.n_rows):
                return None
            checked.add(term)
        return found


def _write_npz(target: Path, arrays: Mapping[str, Any]) -> None:
    """An npz file (`recall.mapped.write_npz`: `numpy.savez`'s, each array aligned for mapping)
    beside `target`, renamed into place once whole; a folder that cannot be written to only
    means the next process computes again."""
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
            write_npz(out, arrays)
        os.replace(partial, target)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def _written_micros(stamps: Sequence[str]) -> list[int]:
    """Each stored `written` as microseconds since the epoch: numpy reads the form `stamp`
    writes (`2026-11-29T13:21:12.123456Z`) at once; any other form is read one by one."""
    import numpy as np

    if all(len(t) == 27 and t[-1] == "Z" and t[10] == "T" for t in stamps):
        try:
            parsed = np.array([t[:-1] for t in stamps], dtype="datetime64[us]")
            out: list[int] = parsed.astype(np.int64).tolist()
            return out
        except ValueError:
            pass  # a malformed one: read each below
    return [micros(parse_stamp(t)) for t in stamps]


# Each open store's postings, kept by recall (not by the store) while the store is open.
_KEYWORDS: WeakKeyDictionary[Store, KeywordCache] = WeakKeyDictionary()


def keywords(store: Store) -> KeywordCache:
    """The postings recall keeps for this open store."""
    cache = _KEYWORDS.get(store)
    if cache is None:
        cache = _KEYWORDS[store] = KeywordCache()
    return cache


def _segment(rows: Sequence[tuple[Any, ...]]) -> Segment:
    """A segment of rows read by `SqliteStore.index_rows_after`."""
    import numpy as np

    written = _written_micros([row[10] for row in rows])
    postings = rank.build_postings(
        (row[0], row[5:9], row[9], when) for row, when in zip(rows, written, strict=True)
    )
    projects: dict[str, int] = {}
    kinds: dict[str, int] = {}
    return Segment(
        postings=postings,
        refs=[row[1] for row in rows],
        projects=projects,
        project_of=np.array(
            [projects.setdefault(row[2], len(projects)) for row in rows], dtype=np.int32
        ),
        workspace=np.array([row[3] == "workspace" for row in rows], dtype=np.bool_),
        kinds=kinds,
        kind_of=np.array([kinds.setdefault(row[4], len(kinds)) for row in rows], dtype=np.int32),
    )
