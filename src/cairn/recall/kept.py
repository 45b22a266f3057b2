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
from cairn.regularfile import open_binary
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
        self.index: dict[int, int] = {}
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
        self.index = {rowid: k for k, (rowid, _) in enumerate(rows)}
        self.fitted_at = changes
        self._save(store, [rowid for rowid, _ in rows])
        return self

    def rerank(
        self, scored: Sequence[tuple[int, float]], terms: Sequence[str]
    ) -> list[tuple[int, float]]:
        """Keyword matches re-ordered by their latent closeness to the query (lift <= x2)."""
        hits = [(i, s, self.index.get(i, -1)) for i, s in scored]
        return rank.rerank(hits, self.model, terms)

    def _load(self, store: SqliteStore) -> bool:
        """Read the fit kept beside the store, if it is one of this store; True when read."""
        import numpy as np

        from cairn.rank.lsa import from_arrays

        try:
            with (
                open_binary(store.home / self.FILE, follow=False) as raw,
                np.load(raw, allow_pickle=False) as arrays,
            ):
                fitted_at = int(arrays["fitted_at"])
                rowids = [int(i) for i in arrays["rowids"]]
                if str(arrays["store"]) != _store_mark(store, fitted_at):
                    return False
                model = from_arrays(arrays)
        except Exception:  # any damage (truncated, not a zip, wrong arrays): fit afresh
            return False
        if len(rowids) != model.n_docs:
            return False
        self.model, self.fitted_at = model, fitted_at
        self.index = {rowid: k for k, rowid in enumerate(rowids)}
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
        """One flag per row: visible from `project` (its own or workspace-wide), of `kind`."""
        flags = (self.project_of == self.projects.get(project, -1)) | self.workspace
        if kind:
            flags &= self.kind_of == self.kinds.get(kind, -1)
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
    """Keep a segment beside the store (written whole, then renamed into place)."""
    import numpy as np

    p = seg.postings
    arrays = {
        "store": np.str_(_store_mark(store, p.last_rowid)),
        "rowids": p.rowids,
        "lengths": p.lengths,
        "written_us": p.written_us,
        "terms": np.array(sorted(p.vocabulary, key=p.vocabulary.__getitem__), dtype=np.str_),
        "starts": p.starts,
        "rows_of": p.rows_of,
        "counts": p.counts,
        "refs": np.array(seg.refs, dtype=np.str_),
        "projects": np.array(sorted(seg.projects, key=seg.projects.__getitem__), dtype=np.str_),
        "project_of": seg.project_of,
        "workspace": seg.workspace,
        "kinds": np.array(sorted(seg.kinds, key=seg.kinds.__getitem__), dtype=np.str_),
        "kind_of": seg.kind_of,
    }
    _write_npz(target, arrays)


def _load_segment(store: SqliteStore, source: Path) -> Segment | None:
    """The segment `_save_segment` kept for this store, or None (missing, damaged, other)."""
    import numpy as np

    try:
        with open_binary(source, follow=False) as raw, np.load(raw, allow_pickle=False) as arrays:
            rowids = np.asarray(arrays["rowids"], dtype=np.int64)
            n = rowids.shape[0]
            if not n or str(arrays["store"]) != _store_mark(store, int(rowids[-1])):
                return None
            terms = arrays["terms"].tolist()
            starts = np.asarray(arrays["starts"], dtype=np.int64)
            rows_of = np.asarray(arrays["rows_of"], dtype=np.int32)
            counts = np.asarray(arrays["counts"])
            if counts.dtype not in (np.uint8, np.uint32):
                return None
            lengths = np.asarray(arrays["lengths"], dtype=np.float64)
            postings = rank.Postings(
                rowids=rowids,
                lengths=lengths,
                written_us=np.asarray(arrays["written_us"], dtype=np.int64),
                vocabulary={term: k for k, term in enumerate(terms)},
                starts=starts,
                rows_of=rows_of,
                counts=counts,
                tokens=int(lengths.sum()),
            )
            seg = Segment(
                postings=postings,
                refs=arrays["refs"].tolist(),
                projects={name: k for k, name in enumerate(arrays["projects"].tolist())},
                project_of=np.asarray(arrays["project_of"], dtype=np.int32),
                workspace=np.asarray(arrays["workspace"], dtype=np.bool_),
                kinds={name: k for k, name in enumerate(arrays["kinds"].tolist())},
                kind_of=np.asarray(arrays["kind_of"], dtype=np.int32),
            )
    except Exception:  # any damage (truncated, not a zip, missing arrays): build afresh
        return None
    sizes_agree = (
        postings.written_us.shape == lengths.shape == (n,)
        and len(seg.refs) == seg.project_of.shape[0] == seg.workspace.shape[0] == n
        and seg.kind_of.shape[0] == n
        and starts.shape == (len(terms) + 1,)
        and counts.shape == (rank.FIELD_COUNT, rows_of.shape[0])
        and int(starts[0]) == 0
        and int(starts[-1]) == rows_of.shape[0]
        and bool(np.all(np.diff(starts) >= 0))
        and (not rows_of.shape[0] or (int(rows_of.min()) >= 0 and int(rows_of.max()) < n))
    )
    return seg if sizes_agree else None


def _write_npz(target: Path, arrays: Mapping[str, Any]) -> None:
    """`numpy.savez` into a file beside `target`, renamed into place once whole; a folder
    that cannot be written to only means the next process computes again."""
    import numpy as np

    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
            np.savez(out, **arrays)
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
