"""What recall derives from the store and keeps: postings of the memory index (the LSA fit
is kept the same way, by `recall.lsa`).

Both are held in memory while the store is open and kept beside it (files in its folder), so
the next process reads them instead of computing them again (seconds at 100k memories). A
kept file that is missing, damaged, of another store or too old is computed afresh and
written again, never an error. Files are written whole, then renamed into place.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from cairn.core import rank
from cairn.core.context import parse_stamp
from cairn.core.text import ANALYSER_VERSION
from cairn.io.store.protocol import Store
from cairn.usecases.recall.mapped import Strings, Vocabulary, raw_npz, read_npz, write_npz

if TYPE_CHECKING:
    pass

__all__ = ["KeywordCache", "Segment", "View", "kept_reach", "keywords", "micros"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _store_mark(store: Store, last: int) -> str:
    """What tells this store from another at the same place: the refs of its first row and of
    row `last` (refs are random, so another store with as many rows has other ones), and the
    analyser that made the words (a store re-analysed by a migration keeps its refs)."""
    return " ".join([*store.refs_at_rowids([1, last]), f"analyser-{ANALYSER_VERSION}"])


def micros(moment: datetime) -> int:
    """A moment as whole microseconds since the Unix epoch (exact, unlike a float)."""
    return (moment - _EPOCH) // timedelta(microseconds=1)


class View:
    """The rows of a segment visible from one project: its own and the workspace-wide ones.

    Recall counts rarity among them (N, each df, the mean length): a word common in another
    project's memories is still rare here. (`View` and `Segment` are plain classes, not
    dataclasses: defining a dataclass costs a new `cairn recall` process a millisecond.)
    """

    __slots__ = ("counted", "mask", "rows", "tokens")

    COUNTED = 65536  # df kept per view (a segment's rows never change, so neither do they)

    def __init__(self, mask: Any, rows: int, tokens: float) -> None:
        self.mask = mask  # NDArray[np.bool_], one flag per row
        self.rows = rows
        self.tokens = tokens
        self.counted: dict[str, int] = {}

    def df(self, postings: rank.Postings, term: str) -> int:
        """Visible rows holding `term`."""
        if self.rows == postings.n_rows:  # every row is visible: the postings' own df
            return postings.df(term)
        known = self.counted.get(term)
        if known is not None:
            return known
        found = postings.postings(term)
        df = 0 if found is None else int(self.mask[found[0]].sum())
        if len(self.counted) >= self.COUNTED:
            self.counted.clear()
        self.counted[term] = df
        return df


class Segment:
    """Postings of some rows of the memory index, with what never changes of each row: its
    ref, project, scope and kind (so visibility from a project is decided in memory; only
    whether a version is still current has to be asked of the store)."""

    def __init__(
        self,
        postings: rank.Postings,
        refs: Sequence[str],
        projects: dict[str, int],
        project_of: Any,  # NDArray[np.int32]: index into `projects`
        workspace: Any,  # NDArray[np.bool_]: scope 'workspace' (visible from every project)
        kinds: dict[str, int],
        kind_of: Any,  # NDArray[np.int32]: index into `kinds`
    ) -> None:
        self.postings = postings
        self.refs = refs
        self.projects = projects
        self.project_of = project_of
        self.workspace = workspace
        self.kinds = kinds
        self.kind_of = kind_of
        self.views: dict[str, View] = {}
        self.memo: dict[tuple[Any, ...], Any] = {}  # `rank.bm25f`'s addends of these postings

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
    they are held as a chain of segments, each covering the rows after the last one's, and a
    segment is never changed, only merged with others (numpy only, no word read again:
    `rank.merge_postings`).

    From KEEP_FROM rows the chain is kept beside the store, so a new process reads it (mapped)
    instead of building it: the first segment in FILE, the others in `recall-postings.A-B.npz`
    (the rows after rowid A up to B). Indexing happens where rows are written
    (`KeywordCache.keep_up`, the step every write ends with): once SEGMENT_ROWS rows are not
    in the chain, they become a further segment; past MAX_SEGMENTS further segments, these are
    merged into one, and once they hold more rows than REBUILD_SHARE of the first's (and
    REBUILD_MIN), all are merged into the first. So no recall indexes more than SEGMENT_ROWS
    rows itself (the tail, held in memory): a store written one memory at a time is indexed
    a segment at a time, never all at once by the next recall. A bulk write (an import into an
    empty store) indexes its rows PAGE_ROWS at a time, each page read into a segment and the
    pages merged (numpy only): its peak memory is one page's rows as Python objects, not all
    of them (an import of 100k memories peaked at 340 MB, over issue 21's 300 MB; 241 MB with
    pages). A recall that finds more rows
    outside the chain (written by a Cairn that did not index, or in a folder it cannot write
    to) indexes them as the writer would have.

    A kept file that is missing, damaged or of another store is left out of the chain (and
    deleted, so the next writer indexes its rows again), never an error; a store whose rows
    went back (another file at the same place) is read afresh.
    """

    SEGMENT_ROWS = 2000
    MAX_SEGMENTS = 8
    REBUILD_SHARE = 0.1
    REBUILD_MIN = 1000
    KEEP_FROM = 5000
    PAGE_ROWS = 20_000
    FILE = "recall-postings.npz"

    def __init__(self) -> None:
        self.chain: list[tuple[int, Segment]] = []  # (rows after this rowid, segment)
        self.tail: Segment | None = None  # the rows after the chain's, in memory only
        self.segments: list[Segment] = []
        self.last = 0
        self.looked = False

    @property
    def covered(self) -> int:
        """The last rowid the chain covers (0: none)."""
        return self.chain[-1][1].postings.last_rowid if self.chain else 0

    def segments_for(self, store: Store) -> list[Segment]:
        """Segments covering every row of the memory index now."""
        last = store.change_count()
        if last == self.last:
            return self.segments
        if last < self.last:
            self.chain, self.tail, self.looked = [], None, False
        if not self.looked or last - self.covered > self.SEGMENT_ROWS:
            self.looked = True
            self._pick_up(store)
        if last - self.covered > self.SEGMENT_ROWS or (not self.chain and last >= self.KEEP_FROM):
            self._index(store)
        covered = self.covered
        tail = self.tail
        if (
            tail is not None
            and tail.postings.rowids.shape[0]
            and (int(tail.postings.rowids[0]) <= covered or tail.postings.last_rowid > last)
        ):
            tail = None  # the chain grew over it
        if tail is None:
            rows = store.index_rows_after(covered)
            tail = _segment(rows) if rows else None
        elif tail.postings.last_rowid < last:
            rows = store.index_rows_after(tail.postings.last_rowid)
            if rows:
                tail = _merged([tail, _segment(rows)])
        self.tail = tail
        self.segments = [seg for _, seg in self.chain] + ([tail] if tail is not None else [])
        # Rows committed by another process between the two reads are in the segments already.
        self.last = max(last, self.segments[-1].postings.last_rowid if self.segments else 0)
        return self.segments

    def keep_up(self, store: Store, *, every: bool = False) -> bool:
        """The indexing step a write ends with: the rows outside the kept chain become a
        further segment once they are SEGMENT_ROWS (with `every`, as a bulk write asks: any
        row). Cheap when there is nothing to do: the chain's reach is read from the files'
        names and the first's last rowid. True when it indexed."""
        last = store.change_count()
        if last < self.KEEP_FROM:
            return False
        reach = kept_reach(store.home)
        if last - reach < (1 if every else self.SEGMENT_ROWS):
            return False
        self._pick_up(store)
        if last > self.covered:
            self._index(store)
        self.looked = True
        self.segments_for(store)
        return True

    def _pick_up(self, store: Store) -> None:
        """Extend the chain with the kept files that follow it (a damaged one is deleted)."""
        home = store.home
        if not self.chain:
            first = _load_segment(store, home / self.FILE)
            if first is None:
                return
            self.chain = [(0, first)]
        for after, path in _chain_files(home, self.covered):
            seg = _load_segment(store, path, after)
            if seg is None:
                with contextlib.suppress(OSError):
                    path.unlink()
                return
            self.chain.append((after, seg))

    def _index(self, store: Store) -> None:
        """The rows after the chain as a further segment, kept (from KEEP_FROM rows), then
        merged as the class docstring says."""
        after = self.covered
        seg = _segment_after(store, after, self.PAGE_ROWS)
        if seg is None:
            return
        self.chain.append((after, seg))
        self.tail = None
        if len(self.chain) == 1:
            self._keep_first(store)
            return
        self._keep_segment(store, after, seg)
        first = self.chain[0][1].postings.n_rows
        newer = sum(s.postings.n_rows for _, s in self.chain[1:])
        if newer > max(self.REBUILD_MIN, self.REBUILD_SHARE * first):
            self.chain = [(0, _merged([s for _, s in self.chain]))]
            self._keep_first(store)
        elif len(self.chain) - 1 > self.MAX_SEGMENTS:
            start = self.chain[1][0]
            merged = _merged([s for _, s in self.chain[1:]])
            self.chain = [self.chain[0], (start, merged)]
            self._keep_segment(store, start, merged)
        self._tidy(store)

    def _keep_first(self, store: Store) -> None:
        first = self.chain[0][1]
        if store.change_count() >= self.KEEP_FROM or first.postings.n_rows >= self.KEEP_FROM:
            _save_segment(store, store.home / self.FILE, first)
            self._tidy(store)

    def _keep_segment(self, store: Store, after: int, seg: Segment) -> None:
        if (store.home / self.FILE).exists():
            name = f"recall-postings.{after}-{seg.postings.last_rowid}.npz"
            _save_segment(store, store.home / name, seg)

    def _tidy(self, store: Store) -> None:
        """Delete the kept segment files that are not in the chain (merged into another)."""
        keep = {
            f"recall-postings.{after}-{seg.postings.last_rowid}.npz"
            for after, seg in self.chain[1:]
        }
        for name in _segment_names(store.home):
            if name not in keep:
                with contextlib.suppress(OSError):
                    (store.home / name).unlink()


_SEGMENT_NAME = re.compile(r"recall-postings\.(\d{1,18})-(\d{1,18})\.npz")


def _segment_names(home: Path) -> list[str]:
    """Names of the kept segment files (after the first) in the folder."""
    try:
        names = os.listdir(home)
    except OSError:
        return []
    return [n for n in names if _SEGMENT_NAME.fullmatch(n)]


def _chain_files(home: Path, covered: int) -> list[tuple[int, Path]]:
    """The kept segment files that continue a chain covering rows up to `covered`, in order
    (where two start at the same row, the longer)."""
    starts: dict[int, int] = {}
    for name in _segment_names(home):
        match = _SEGMENT_NAME.fullmatch(name)
        assert match is not None
        after, last = int(match[1]), int(match[2])
        if last > after:
            starts[after] = max(starts.get(after, 0), last)
    out: list[tuple[int, Path]] = []
    while covered in starts:
        last = starts.pop(covered)
        out.append((covered, home / f"recall-postings.{covered}-{last}.npz"))
        covered = last
    return out


def kept_reach(home: Path) -> int:
    """The last rowid the kept files cover, from the first's rowids (read with the standard
    library: a write that has nothing to index imports no numpy) and the others' names."""
    raw = raw_npz(home / KeywordCache.FILE, only="rowids")
    if raw is None or "rowids" not in raw:
        return 0
    try:
        rowids = raw["rowids"].items()
        reach = int(rowids[-1]) if len(rowids) else 0
    except (ValueError, TypeError, IndexError):
        return 0
    chain = _chain_files(home, reach)
    return int(chain[-1][1].name.split("-")[-1].split(".")[0]) if chain else reach


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


def _load_segment(store: Store, source: Path, after: int = 0) -> Segment | None:
    """The segment `_save_segment` kept for this store, or None (missing, damaged, other);
    its rows must come after rowid `after` (and end at the one its file's name says).

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
        named = _SEGMENT_NAME.fullmatch(source.name)
        if int(rowids[0]) <= after or (named and int(named[2]) != int(rowids[-1])):
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
        from cairn.usecases.recall.checked import CheckedPostings

        postings = CheckedPostings(
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
            refs=Strings(arrays["refs"]),
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


def _segment_after(store: Store, after: int, page: int) -> Segment | None:
    """The rows after rowid `after` as one segment (None: no row), read and analysed `page`
    rows at a time, the pages merged: the same postings as one `_segment` of all the rows,
    holding at most one page's rows as Python objects."""
    pages: list[Segment] = []
    while True:
        rows = store.index_rows_after(after, page)
        if rows:
            pages.append(_segment(rows))
            after = rows[-1][0]
        if len(rows) < page:
            break
    return _merged(pages) if pages else None


def _segment(rows: Sequence[tuple[Any, ...]]) -> Segment:
    """A segment of rows read by `Store.index_rows_after`."""
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
