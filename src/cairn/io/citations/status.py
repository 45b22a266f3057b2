"""Is the cited code still what the memory saw? `check` answers same / changed / gone / unchecked.

The cited file is read in the first root that has it: the caller passes the session's checkout
first and the project folder second, so a worktree session checks against its own branch. A
line range or symbol is found again after edits above it. Results are cached per process by
(file, inode, mtime_ns, size, fingerprint), so a recall page re-checking the same citations
costs a few `stat` calls.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from cairn.core.models import Citation
from cairn.io.citations.fingerprint import VERSION, body_hash, hash_file
from cairn.io.citations.lines import (
    find_block,
    fold_line,
    read_lines,
    read_source,
    split_lines,
    unreadable,
)
from cairn.io.citations.refs import SourceRef
from cairn.io.citations.symbols import Definition, definitions, find_symbol, language_for
from cairn.io.regularfile import NotRegularFile, kind_of

__all__ = ["CACHE_SIZE", "check", "clear_cache", "edit_touches"]

CACHE_SIZE = 4096
# A file written less than this long ago may be written again within the same mtime tick
# (coarse kernel clocks, 2 s on FAT) with the same size: its status is computed, not cached.
_RACY_NS = 2_000_000_000


class _Lru:
    """A small thread-safe least-recently-used map."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[Hashable, Citation] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Citation | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Citation) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_cache = _Lru(CACHE_SIZE)


def clear_cache() -> None:
    """Forget every cached status (tests and benchmarks start cold with it)."""
    _cache.clear()


def check(ref: SourceRef, fp: dict[str, Any], roots: Sequence[Path]) -> Citation:
    """What the ref's fingerprint says about the code now, looked up in the first root with it.

    same: unchanged (a moved line range or symbol reports its new lines and `moved from`);
    changed: read the code first; gone: the file (or the symbol) is missing, a renamed file
    included; unchecked: nothing to compare (no citation, a commit, no grammar).
    """
    kind = ref.kind
    if kind == "none":
        return Citation("unchecked", note="nothing cited")
    if kind == "commit":
        return Citation("unchecked", note=f"commit {ref.commit}: nothing to compare")
    if not isinstance(fp, dict) or fp.get("v") != VERSION:
        return Citation("unchecked", path=ref.path, note="no fingerprint recorded when saved")
    found = _find(ref.path, roots)
    if found is None:
        lines = _recorded(ref, fp)
        return Citation("gone", ref.path, lines, ref.symbol, note="file missing")
    file, info = found
    key = (str(file), info.st_ino, info.st_mtime_ns, info.st_size, _fp_key(ref, fp))
    cached = _cache.get(key)
    if cached is not None:
        return cached
    result = _compare(ref, fp, file, info)
    if time.time_ns() - info.st_mtime_ns > _RACY_NS:
        _cache.put(key, result)
    return result


def _find(path: str, roots: Sequence[Path]) -> tuple[Path, os.stat_result] | None:
    for root in roots:
        file = root / path
        try:
            return file, file.stat()
        except (OSError, ValueError):
            continue  # not in this checkout (ValueError: a NUL in a hand-made path)
    return None


def _fp_key(ref: SourceRef, fp: dict[str, Any]) -> tuple[Hashable, ...]:
    """The parts of a ref and fingerprint that decide its status, made hashable."""
    fields = ("kind", "sha256", "start", "end", "missing", "unchecked", "name_path", "node")
    values = [fp.get(name) for name in fields]
    return (
        ref.start,
        ref.end,
        ref.symbol,
        *(v if isinstance(v, Hashable) else repr(v) for v in values),
    )


def _recorded(ref: SourceRef, fp: dict[str, Any]) -> tuple[int, int] | None:
    """The lines recorded at save time, or the ref's own."""
    start, end = fp.get("start"), fp.get("end")
    if isinstance(start, int) and isinstance(end, int):
        return start, end
    if ref.start is not None and ref.end is not None:
        return ref.start, ref.end
    return None


def _compare(ref: SourceRef, fp: dict[str, Any], file: Path, info: os.stat_result) -> Citation:
    path, symbol = ref.path, ref.symbol
    if fp.get("missing"):
        return Citation(
            "changed", path=path, symbol=symbol, note="the file did not exist when saved"
        )
    if not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
        note = f"now {kind_of(info.st_mode)}, not a regular file"
        return Citation("changed", path=path, symbol=symbol, note=note)
    if fp.get("kind") == "dir" or stat.S_ISDIR(info.st_mode):
        if fp.get("kind") == "dir":
            return Citation("unchecked", path=path, note="a folder: nothing to compare")
        return Citation("changed", path=path, symbol=symbol, note="now a folder")
    if "unchecked" in fp:
        return Citation("unchecked", path=path, symbol=symbol, note=str(fp["unchecked"]))
    kind = fp.get("kind")
    if kind == "file" and ref.kind == "file":
        return _compare_file(path, fp, file, info)
    if kind == "lines" and ref.kind == "lines":
        return _compare_lines(path, fp, file)
    if kind == "symbol" and ref.kind == "symbol":
        return _compare_symbol(ref, fp, file)
    return Citation("unchecked", path=path, note="the fingerprint does not match the source_ref")


def _compare_file(path: str, fp: dict[str, Any], file: Path, info: os.stat_result) -> Citation:
    # A different size settles it without reading the file.
    if info.st_size == fp.get("size"):
        try:
            if hash_file(file)[1] == fp.get("sha256"):
                return Citation("same", path=path)
        except OSError as error:
            return _unread(error, path)
    return Citation("changed", path=path, note="the file changed since this was saved")


def _unread(
    error: OSError, path: str, lines: tuple[int, int] | None = None, symbol: str = ""
) -> Citation:
    """The status of a cited file that could not be read: gone when it went missing, changed
    when something else (a FIFO, a device) took its place, else unchecked, saying why."""
    if isinstance(error, FileNotFoundError | NotADirectoryError):
        return Citation("gone", path, lines, symbol, note="file missing")
    if isinstance(error, NotRegularFile):
        return Citation("changed", path, lines, symbol, note=f"now {error.strerror}")
    return Citation("unchecked", path, lines, symbol, note=f"cannot be read ({unreadable(error)})")


class _Block(NamedTuple):
    """The cited lines a `lines` fingerprint recorded."""

    start: int
    end: int
    lines: list[str]
    above: list[str]
    below: list[str]


def _block(fp: dict[str, Any]) -> _Block | None:
    """The recorded block, or None when the fingerprint does not hold one of the right types."""
    start, end = fp.get("start"), fp.get("end")
    parts = [fp.get("lines"), fp.get("above", []), fp.get("below", [])]
    if not isinstance(start, int) or not isinstance(end, int):
        return None
    if not all(isinstance(p, list) and all(isinstance(x, str) for x in p) for p in parts):
        return None
    return _Block(start, end, *parts)


def _compare_lines(path: str, fp: dict[str, Any], file: Path) -> Citation:
    block = _block(fp)
    if block is None:
        return Citation("unchecked", path=path, note="the fingerprint is malformed")
    start, end = block.start, block.end
    try:
        raw = read_lines(file)
    except OSError as error:
        return _unread(error, path, lines=(start, end))
    folded = [fold_line(line) for line in raw]
    at = find_block(folded, block.lines, start, block.above, block.below)
    if at is None:
        return Citation(
            "changed", path=path, lines=(start, end), note=f"lines {start}-{end} changed"
        )
    new = (at, at + len(block.lines) - 1)
    note = "" if at == start else f"moved from {start}-{end}"
    return Citation("same", path=path, lines=new, note=note)


def _locate(ref: SourceRef, fp: dict[str, Any], source: bytes) -> list[Definition]:
    """Definitions the ref's symbol names in `source`, the recorded one first."""
    language = language_for(ref.path)
    if language is None:
        return []
    found = definitions(source, language)
    return find_symbol(found, ref.symbol, str(fp.get("name_path", "")), str(fp.get("node", "")))


def _compare_symbol(ref: SourceRef, fp: dict[str, Any], file: Path) -> Citation:
    path, symbol = ref.path, ref.symbol
    try:
        source = read_source(file)
    except OSError as error:
        return _unread(error, path, symbol=symbol)
    candidates = _locate(ref, fp, source)
    if not candidates:
        return Citation("gone", path=path, symbol=symbol, note=f"{symbol} not found in {path}")
    recorded = fp.get("sha256")
    same = next((d for d in candidates if body_hash(d.text) == recorded), None)
    d = same or candidates[0]
    moves = []
    if d.path != fp.get("name_path"):
        moves.append(f"was {fp.get('name_path')}")
    if (d.start, d.end) != (fp.get("start"), fp.get("end")):
        moves.append(f"moved from {fp.get('start')}-{fp.get('end')}")
    if same is None:
        note = "; ".join([f"the body of {d.path} changed", *moves])
        return Citation("changed", path=path, lines=(d.start, d.end), symbol=symbol, note=note)
    return Citation("same", path=path, lines=(d.start, d.end), symbol=symbol, note="; ".join(moves))


def edit_touches(ref: SourceRef, fp: dict[str, Any], root: Path, old_text: str) -> bool:
    """Does an edit replacing `old_text` in the cited file touch the cited lines or symbol?

    Meant for the moment before the edit is applied, while the file still holds `old_text`:
    each place it occurs is turned into a line span and compared with where the cited lines
    (or the symbol) are now. A bare file citation cites every line, so any edit touches it. If
    `old_text` is no longer in the file, its lines are compared with the cited ones instead
    (the recorded lines, or the symbol's text): one shared line with a letter or digit counts.
    """
    if ref.kind not in ("file", "lines", "symbol") or not old_text.strip():
        return False
    if ref.kind == "file":
        return True
    try:
        source = read_source(root / ref.path)
    except OSError:
        return False
    text = source.decode("utf-8", errors="replace")
    cited = _cited_now(ref, fp, source, text)
    if cited is None:
        return False
    (first, last), cited_lines = cited
    index = text.find(old_text)
    if index < 0:
        edited = {fold_line(line) for line in split_lines(old_text)}
        return any(line in edited and any(c.isalnum() for c in line) for line in cited_lines)
    span = len(split_lines(old_text)) or 1
    while index >= 0:
        begin = text.count("\n", 0, index) + 1
        if begin <= last and begin + span - 1 >= first:
            return True
        index = text.find(old_text, index + 1)
    return False


def _cited_now(
    ref: SourceRef, fp: dict[str, Any], source: bytes, text: str
) -> tuple[tuple[int, int], list[str]] | None:
    """Where the cited lines or symbol sit in the file now, and their folded lines."""
    if ref.kind == "symbol":
        candidates = _locate(ref, fp, source)
        if not candidates:
            return None
        d = candidates[0]
        return (d.start, d.end), [fold_line(line) for line in d.text.split("\n")]
    block = _block(fp)
    if block is None:
        return None
    folded = [fold_line(line) for line in split_lines(text)]
    at = find_block(folded, block.lines, block.start, block.above, block.below)
    if at is None:
        # The cited lines already changed: their recorded place is the best guess.
        return (block.start, block.end), block.lines
    return (at, at + len(block.lines) - 1), block.lines
