"""What recall derives from the store and keeps: postings of the memory index and the LSA fit.

Both are held in memory while the store is open and kept beside it (files in its folder), so
the next process reads them instead of computing them again (seconds at 100k memories). A
kept file that is missing, damaged, of another store or too old is computed afresh and
written again, never an error. Files are written whole, then renamed into place.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cairn import rank
from cairn.context import parse_stamp
from cairn.recall.mapped import RowIndex, Strings, Vocabulary, read_npz, write_npz
from cairn.store import SqliteStore

__all__ = ["KeywordCache", "LsaCache", "Segment", "keywords", "micros"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class LsaCache:
    """An LSA model of the workspace, fitted when first needed and refitted when the store grew.

    "Changed enough": more than REFIT_SHARE of the memories (at least REFIT_MIN) were written
    since the fit. Memories written after the fit get no lift until the next one.

    A fit is kept beside the store (FILE in its folder, with the store's state it was fitted
    at), so the next process, e.g. the next `cairn recall`, reads it instead of fitting again
    (seconds at 100k memories); a file that is missing, unreadable, of another store, or older
    than the rule above allows is fitted afresh (and written again), never an error.
    """

    REFIT_SHARE = 0.1
    REFIT_MIN = 20
    FILE = "recall-lsa.npz"

    def __init__(self) -> None:
        self.model: Any = None
        self.index: RowIndex | None = None
        self.fitted_at = -1

    def ready(self, store: SqliteStore) -> LsaCache | None:
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
        from cairn.rank.lsa import fit

        rows = store.current_index_fields()
        self.model = fit([text.split() for _, text in rows])
        self.index = _row_index([rowid for rowid, _ in rows])
        self.fitted_at = changes
        self._save(store, [rowid for rowid, _ in rows])
        return self

    def rerank(
        self, scored: Sequence[tuple[int, float]], terms: Sequence[str]
    ) -> list[tuple[int, float]]:
        """Keyword matches re-ordered by their latent closeness to the query (lift <= x2)."""
        ids = [i for i, _ in scored]
        at = self.index.positions(ids) if self.index is not None else [-1] * len(ids)
        hits = [(i, s, k) for (i, s), k in zip(scored, at, strict=True)]
        return rank.rerank(hits, self.model, terms)

    def _load(self, store: SqliteStore) -> bool:
        """Read the fit kept beside the store, if it is one of this store; True when read.

        The file is mapped, not read (`recall.mapped`): the vectors of the few documents and
        terms a query touches are what is read from disk.
        """
        arrays = read_npz(store.home / self.FILE)
        if arrays is None:
            return False
        try:
            fitted_at = int(arrays["fitted_at"])
            rowids = arrays["rowids"]
            if str(arrays["store"]) != _store_mark(store, fitted_at):
                return False
            model = _lsa_model(arrays)
        except Exception:  # any damage (missing or wrong arrays): fit afresh
            return False
        if rowids.ndim != 1 or rowids.shape[0] != model.n_docs:
            return False
        self.model, self.fitted_at = model, fitted_at
        self.index = RowIndex(rowids)
        return True

    def _save(self, store: SqliteStore, rowids: list[int]) -> None:
        """Keep this fit beside the store."""
        import numpy as np

        from cairn.rank.lsa import to_arrays

        _write_npz(
            store.home / self.FILE,
            {
                "fitted_at": np.int64(self.fitted_at),
                "store": np.str_(_store_mark(store, self.fitted_at)),
                "rowids": np.array(rowids, dtype=np.int64),
                **to_arrays(self.model),
            },
        )


def _store_mark(store: SqliteStore, last: int) -> str:
    """What tells this store from another at the same place: the refs of its first row and of
    row `last` (refs are random, so another store with as many rows has other ones)."""
    return " ".join(store.refs_at_rowids([1, last]))


def _row_index(rowids: Sequence[int]) -> RowIndex:
    import numpy as np

    return RowIndex(np.array(rowids, dtype=np.int64))


def _lsa_model(arrays: Mapping[str, Any]) -> Any:
    """The `rank.lsa.LsaModel` of `to_arrays`' arrays, as mapped: `from_arrays` checks, but
    the vocabulary is looked up in the terms array (`Vocabulary`), not made into a dict, and
    the vectors stay as stored (any float type; numpy widens them where they meet float64)."""
    from cairn.rank.lsa import LsaModel

    terms = arrays["terms"]
    idf = arrays["idf"]
    term_vectors = arrays["term_vectors"]
    doc_vectors = arrays["doc_vectors"]
    if terms.ndim != 1 or terms.dtype.kind != "U":
        raise ValueError("the terms are not strings")
    if not all(a.dtype.kind == "f" for a in (idf, term_vectors, doc_vectors)):
        raise ValueError("the vectors are not floats")
    n_terms = terms.shape[0]
    if (
        idf.shape != (n_terms,)
        or term_vectors.ndim != 2
        or doc_vectors.ndim != 2
        or term_vectors.shape[0] != n_terms
        or term_vectors.shape[1] != doc_vectors.shape[1]
    ):
        raise ValueError("the arrays do not make an LSA model")
    return LsaModel(Vocabulary(terms), idf, term_vectors, doc_vectors)


def micros(moment: datetime) -> int:
    """A moment as whole microseconds since the Unix epoch (exact, unlike a float)."""
    return (moment - _EPOCH) // timedelta(microseconds=1)


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


class KeywordCache:
    """The postings of the memory index (`rank.postings`), in memory while the store is open.

    The index only grows and a row's text never changes, so postings once built stay right:
    rows written since are read into a further segment; segments beyond the first are merged
    into one past MAX_SEGMENTS, and all are rebuilt once the newer rows outnumber
    REBUILD_SHARE of the first segment's (and REBUILD_MIN). A store whose rows went back
    (another file at the same place) is read afresh.

    From KEEP_FROM rows, a full build is also kept beside the store (FILE), so the next process
    reads it (and only the rows written since) instead of building again; a file that is
    missing, damaged or of another store is built afresh, never an error.
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

    def segments_for(self, store: SqliteStore) -> list[Segment]:
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
        base = self.segments[0].postings.n_rows if self.segments else 0
        newer = sum(seg.postings.n_rows for seg in self.segments[1:]) + last - self.last
        if not self.segments or newer > max(self.REBUILD_MIN, self.REBUILD_SHARE * base):
            self.segments = [_segment(store.index_rows_after(0))]
            if self.segments[0].postings.n_rows >= self.KEEP_FROM:
                _save_segment(store, store.home / self.FILE, self.segments[0])
        elif len(self.segments) >= self.MAX_SEGMENTS:
            first = self.segments[0]
            after = first.postings.last_rowid
            self.segments = [first, _segment(store.index_rows_after(after))]
        else:
            self.segments.append(_segment(store.index_rows_after(self.last)))
        # Rows committed by another process between the two reads are in the segment already.
        self.last = max(last, self.segments[-1].postings.last_rowid)
        return self.segments


def _save_segment(store: SqliteStore, target: Path, seg: Segment) -> None:
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


def _load_segment(store: SqliteStore, source: Path) -> Segment | None:
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


def keywords(store: SqliteStore) -> KeywordCache:
    cache = store.recall_cache.get("keywords")
    if not isinstance(cache, KeywordCache):
        cache = store.recall_cache["keywords"] = KeywordCache()
    return cache


def _segment(rows: Sequence[tuple[Any, ...]]) -> Segment:
    """A segment of rows read by `SqliteStore.index_rows_after`."""
    import numpy as np

    postings = rank.build_postings(
        (row[0], row[5:9], row[9], micros(parse_stamp(row[10]))) for row in rows
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
