"""Indexing the project's own documentation (README, docs/, ADRs) for recall.

Each Markdown (or plain text / reStructuredText) file is split into pages at its headings; a
page is indexed with its heading as the title and its text as the body. Only files whose
content hash changed are re-indexed; files that disappeared leave the index.

Kept in step by itself: `refresh_docs` runs at session start (the hook) and before each
recall (`Cairn.recall`), so a new process (the CLI, the MCP server) indexes at its first
recall and an edited doc is noticed by the next one. It costs a few stats when nothing
changed: a `DocWatch`, held while the store is open, knows each doc folder's mtime (a file
added, removed or renamed changes it: that folder tree is listed again) and each file's stat
signature (inode, size, mtime, ctime: STATS_PER_CHECK files are stat'ed per call, in turn).
A file whose signature is the one recorded in the store is not read; a changed one is read,
and re-indexed only when its hash changed. Reading is bounded per call (RECALL_READS files,
RECALL_BYTES bytes); what is left is read by the next call. `cairn docs index` reads all.

Safety: the files come from a repository, which may hold anything git can carry.
- A symlink to a folder is never followed; a symlink to a file is followed only when it
  resolves to a regular file inside the project (`docs/setup.md -> ~/.aws/credentials` is
  skipped, `docs/index.md -> ../README.md` is read).
- Only regular files are read, at most MAX_DOC_BYTES of each, opened without blocking (a FIFO
  named `docs/x.md` is skipped, not waited on). The listing stops at MAX_DOC_FILES files and
  MAX_FOLDERS folders.
- A page holding a secret (`cairn.core.secretscan.find_secret`) is not indexed: recall never
  serves it. The file's other pages are; `Indexed.withheld` counts the pages left out.

Captured session docs (a `sessions/` folder, or front matter `captured: true`) are indexed so
their text is kept, but recall never returns them: they are a session's notes, not the
project's documentation.
"""

from __future__ import annotations

import os
import re
import stat
import time
from pathlib import Path
from weakref import WeakKeyDictionary

from cairn.core.context import Context
from cairn.core.errors import StoreError
from cairn.core.text import analyse_text
from cairn.core.value import Value
from cairn.io.store.protocol import Store

DOC_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt")
DOC_FOLDERS = ("docs", "doc", "adr", "adrs", "decisions", "architecture")
TOP_LEVEL_NAMES = ("readme", "contributing", "architecture", "adr")
MAX_DOC_BYTES = 2_000_000
MAX_DOC_FILES = 2000
MAX_FOLDERS = 200
STATS_PER_CHECK = 16
RECALL_READS = 16
RECALL_BYTES = 1_000_000
START_READS = 200
START_BYTES = 8_000_000
# A file changed within this long of being read may change again within the same timestamp
# tick, keeping its signature ("racy git"): its signature is not trusted, so it is read (and
# its hash compared) once more by the next call.
RACY_NS = 2_000_000_000
_READ_CHUNK = 1 << 16
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SKIP = {".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", ".tox"}
_TOP = "."  # the area of the top-level files, beside the doc folders


class Indexed(Value):
    """What `index_docs` or `refresh_docs` did."""

    __slots__ = ("files", "changed", "removed", "pages", "withheld", "pending")  # noqa: RUF023
    files: int
    changed: int
    removed: int
    pages: int
    withheld: int
    pending: int

    def __init__(
        self,
        files: int,
        changed: int,
        removed: int,
        pages: int,
        withheld: int = 0,
        pending: int = 0,
    ) -> None:
        self._assign(files, changed, removed, pages, withheld, pending)

    def to_dict(self) -> dict[str, int]:
        """Counts as printed by `cairn docs index --json`."""
        return self.as_dict()


def split_pages(text: str) -> list[tuple[str, str]]:
    """(heading, text) pages of a Markdown document, split at every heading.

    Text before the first heading is a page under the empty heading. Fenced code blocks are
    kept in their page and their `#` lines are not headings.
    """
    pages: list[tuple[str, str]] = []
    heading, fenced = "", False
    lines: list[str] = []
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match:
            if any(ln.strip() for ln in lines):
                pages.append((heading, "\n".join(lines).strip()))
            heading, lines = match.group(2).strip(), []
        else:
            lines.append(line)
    if any(ln.strip() for ln in lines) or (heading and not pages):
        pages.append((heading, "\n".join(lines).strip()))
    return pages


def is_captured(rel: str, text: str) -> bool:
    """A session's captured notes rather than project documentation."""
    if "sessions" in rel.split("/")[:-1]:
        return True
    head = text[:400]
    return head.startswith("---") and bool(re.search(r"(?m)^captured:\s*true\s*$", head))


def read_doc(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bytes | None:
    """The first MAX_DOC_BYTES of a doc file, or None when it is not one to read.

    None when the file (links resolved) is outside `root`, is not a regular file (a FIFO, a
    device, a folder), or cannot be opened. It is opened without blocking and checked with
    `fstat` on the open descriptor, so a file swapped for a FIFO after listing is not waited on.
    """
    real_root = os.path.realpath(root)
    try:
        real = os.path.realpath(path)
        if not _inside(real, real_root):
            return None
        flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
        fd = os.open(real, flags)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        left = MAX_DOC_BYTES
        while left > 0:
            chunk = os.read(fd, min(left, _READ_CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _signature(full: str, real_root: str) -> str | None:
    """The stat signature of a doc file, or None when it is not one to read (`read_doc`).

    A link's signature holds its target's and its own, so re-pointing it is a change.
    """
    try:
        own = os.lstat(full)
        if stat.S_ISREG(own.st_mode):
            return _stamp(own)
        if not stat.S_ISLNK(own.st_mode):
            return None
        real = os.path.realpath(full)
        if not _inside(real, real_root):
            return None
        target = os.stat(real)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(target.st_mode):
        return None
    return f"{_stamp(target)}>{own.st_ino}:{own.st_mtime_ns}"


def _stamp(st: os.stat_result) -> str:
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def _is_doc(name: str) -> bool:
    return os.path.splitext(name)[1].lower() in DOC_SUFFIXES


class DocWatch:
    """What this process knows of one project's doc files, to notice changes with few stats.

    `files` maps each doc file found (relative path) to its signature on disk; `folders` each
    area (the top level, or a doc folder) to the mtimes of its folders when it was listed;
    `indexed` the signatures the store recorded (read once, then kept in step). Kept state,
    changed in place, one per project root and open store: a plain class (no `dataclasses`
    import on a recall's path).
    """

    __slots__ = (  # noqa: RUF023
        "root",
        "real_root",
        "files",
        "folders",
        "area_of",
        "indexed",
        "unreadable",
        "order",
        "paths",
        "cursor",
        "pending",
    )

    def __init__(self, root: str) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self.files: dict[str, str] = {}
        self.folders: dict[str, dict[str, int]] = {}
        self.area_of: dict[str, str] = {}
        self.indexed: dict[str, str] | None = None
        self.unreadable: dict[str, str] = {}
        self.order: list[str] | None = None
        self.paths: dict[str, str] = {}
        self.cursor = 0
        self.pending = True  # files may differ from the index: compare them at the next call

    def areas(self) -> tuple[str, ...]:
        """The top level, then each doc folder."""
        return (_TOP, *DOC_FOLDERS)

    def moved(self, area: str) -> bool:
        """Has a folder of `area` changed (or the area never been listed)?"""
        known = self.folders.get(area)
        if known is None:
            return True
        top = self.root if area == _TOP else os.path.join(self.root, area)
        if top not in known:  # the folder was missing or a link when listed: is it now?
            return _folder_mtime(top) is not None
        return any(_folder_mtime(folder) != mtime for folder, mtime in known.items())

    def scan(self, area: str) -> None:
        """List `area` again: its doc files with their signatures, its folders' mtimes."""
        for rel in [rel for rel, a in self.area_of.items() if a == area]:
            del self.area_of[rel]
            self.files.pop(rel, None)
        self.order = None
        folders: dict[str, int] = {}
        room = MAX_DOC_FILES - len(self.files)
        pending = [self.root if area == _TOP else os.path.join(self.root, area)]
        while pending and len(folders) < MAX_FOLDERS and room > 0:
            folder = pending.pop()
            mtime = _folder_mtime(folder)
            if mtime is None:
                continue  # missing, or a link to a folder: never followed
            folders[folder] = mtime
            subfolders: list[str] = []
            for entry in _entries(folder):
                if room <= 0:
                    break
                if area == _TOP:  # the top level: only its README-like files
                    if _is_doc(entry.name) and entry.name.lower().startswith(TOP_LEVEL_NAMES):
                        room -= self._add(entry.name, area)
                elif entry.name in _SKIP:
                    continue
                elif _is_folder(entry):
                    subfolders.append(entry.path)
                elif _is_doc(entry.name):
                    rel = os.path.relpath(entry.path, self.root).replace(os.sep, "/")
                    room -= self._add(rel, area)
            pending.extend(reversed(subfolders))  # depth first, in name order
        self.folders[area] = folders

    def _add(self, rel: str, area: str) -> int:
        signature = _signature(os.path.join(self.root, rel), self.real_root)
        if signature is None:
            return 0
        self.files[rel] = signature
        self.area_of[rel] = area
        return 1

    def restat(self, n: int) -> bool:
        """Stat the next `n` known files in turn; a changed one gets its new signature.

        True when one changed (or is gone).
        """
        if self.order is None:
            self.order = sorted(self.files)
            self.paths = {rel: os.path.join(self.root, rel) for rel in self.order}
        rels = self.order
        if not rels:
            return False
        moved = False
        for k in range(min(n, len(rels))):
            rel = rels[(self.cursor + k) % len(rels)]
            known = self.files.get(rel)
            if known is None:
                continue
            signature = _signature(self.paths[rel], self.real_root)
            if signature != known:
                moved = True
                if signature is None:
                    del self.files[rel]
                    self.area_of.pop(rel, None)
                else:
                    self.files[rel] = signature
        self.cursor = (self.cursor + n) % len(rels)
        return moved


def _folder_mtime(path: str) -> int | None:
    """A real folder's mtime (not a link's target), None for anything else."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None
    return st.st_mtime_ns if stat.S_ISDIR(st.st_mode) else None


def _entries(folder: str) -> list[os.DirEntry[str]]:
    """A folder's entries in name order (none when it cannot be listed)."""
    try:
        with os.scandir(folder) as found:
            return sorted(found, key=lambda entry: entry.name)
    except (OSError, ValueError):
        return []


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """A real folder (a link to one is never followed)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


# Each open store's `DocWatch`es, by project and root, kept while the store is open.
_WATCHES: WeakKeyDictionary[Store, dict[str, DocWatch]] = WeakKeyDictionary()


def watch_of(store: Store, project: str, root: str) -> DocWatch:
    """The `DocWatch` of a project's docs read from `root`, held while the store is open."""
    watches = _WATCHES.setdefault(store, {})
    key = f"{project}\0{root}"
    watch = watches.get(key)
    if watch is None:
        watch = watches[key] = DocWatch(root)
    return watch


def refresh_docs(
    store: Store,
    ctx: Context,
    *,
    max_reads: int | None = RECALL_READS,
    max_bytes: int | None = RECALL_BYTES,
    rescan: bool = False,
    root: Path | None = None,
    wait: bool = False,
) -> Indexed:
    """Bring the project's doc index in step with its files, within a budget (module doc).

    `max_reads` / `max_bytes`: at most this many files (bytes) read in this call, the rest
    left for the next one (None: no bound). `rescan`: list every folder again. `root`: where
    the docs are read (default: the project folder). Unless `wait`, a store another process
    is writing to (or one that cannot be written: read-only, full) is not waited for: what is
    left is done by a later call, and the search goes on with the docs as they were indexed.
    """
    if wait:
        return _refresh(store, ctx, max_reads, max_bytes, rescan, root)
    import sqlite3

    before = store.set_busy_ms(0)
    try:
        return _refresh(store, ctx, max_reads, max_bytes, rescan, root)
    except (sqlite3.OperationalError, StoreError) as exc:
        if isinstance(exc, StoreError) and exc.cause not in ("locked", "read-only", "full"):
            raise
        # Locked, read-only or full: the next call goes on.
        watch = watch_of(store, ctx.project, str(root or ctx.project))
        watch.pending = True
        return Indexed(files=len(watch.files), changed=0, removed=0, pages=0, pending=1)
    finally:
        store.set_busy_ms(before)


def _refresh(
    store: Store,
    ctx: Context,
    max_reads: int | None,
    max_bytes: int | None,
    rescan: bool,
    root: Path | None,
) -> Indexed:
    watch = watch_of(store, ctx.project, str(root or ctx.project))
    for area in watch.areas():
        if rescan or watch.moved(area):
            watch.scan(area)
            watch.pending = True
    if watch.restat(STATS_PER_CHECK):
        watch.pending = True
    if watch.indexed is None:
        watch.indexed = store.doc_signatures(ctx.project)
    if not watch.pending:  # nothing moved since the index was last found in step
        return Indexed(files=len(watch.files), changed=0, removed=0, pages=0)
    indexed = watch.indexed

    removed = 0
    for rel in sorted(set(indexed) - set(watch.files)):
        store.replace_doc_file(ctx.project, rel, None, [])
        del indexed[rel]
        removed += 1
    stale = [
        rel
        for rel, signature in sorted(watch.files.items())
        if indexed.get(rel) != signature and watch.unreadable.get(rel) != signature
    ]
    changed = pages_written = withheld = reads = spent = 0
    for rel in stale:
        if (max_reads is not None and reads >= max_reads) or (
            max_bytes is not None and reads and spent >= max_bytes
        ):
            break
        signature = watch.files[rel]
        data = read_doc(os.path.join(watch.root, rel), watch.real_root)
        reads += 1
        if data is None:
            watch.unreadable[rel] = signature  # not tried again until its signature changes
            if rel in indexed:
                store.replace_doc_file(ctx.project, rel, None, [])
                del indexed[rel]
                removed += 1
            continue
        spent += len(data)
        watch.unreadable.pop(rel, None)
        recorded = "" if _racy(signature) else signature
        digest = _sha256(data)
        if store.doc_file_hash(ctx.project, rel) == digest:
            store.set_doc_signature(ctx.project, rel, recorded)
        else:
            pages, held_back = _pages(rel, data)
            store.replace_doc_file(ctx.project, rel, digest, pages, recorded)
            changed += 1
            pages_written += len(pages)
            withheld += held_back
        indexed[rel] = recorded
    # Still to compare next time: files left unread, or read too soon after a change.
    watch.pending = reads < len(stale) or any(indexed.get(rel) == "" for rel in watch.files)
    return Indexed(
        files=len(watch.files),
        changed=changed,
        removed=removed,
        pages=pages_written,
        withheld=withheld,
        pending=len(stale) - reads,
    )


def _sha256(data: bytes) -> str:
    import hashlib  # here: a recall that reads no doc file does not load it

    return hashlib.sha256(data).hexdigest()


def _pages(rel: str, data: bytes) -> tuple[list[tuple[str, str, str, str, bool]], int]:
    """The pages of a doc file to index, and how many were left out for holding a secret."""
    from cairn.core.secretscan import (
        find_secret,  # here: its patterns cost a recall that reads none
    )

    text = data.decode("utf-8", errors="replace")
    captured = is_captured(rel, text)
    pages: list[tuple[str, str, str, str, bool]] = []
    withheld = 0
    for heading, body in split_pages(text):
        if find_secret(f"{heading}\n{body}") is not None:
            withheld += 1
            continue
        pages.append((heading, body, analyse_text(heading), analyse_text(body), captured))
    return pages, withheld


def _racy(signature: str) -> bool:
    """Was the file modified too recently for its signature to be trusted (RACY_NS)?

    File times are the system clock's, so this reads the system clock, not Cairn's
    (`$CAIRN_NOW` says when things happen to memories, not what time the disk keeps).
    """
    try:
        mtime_ns = int(signature.split(">")[0].split(":")[2])
    except (IndexError, ValueError):
        return True
    return time.time_ns() - mtime_ns < RACY_NS


def index_docs(store: Store, ctx: Context, root: Path | None = None) -> Indexed:
    """Index (or re-index what changed of) the project's docs, every file, now."""
    return refresh_docs(
        store, ctx, max_reads=None, max_bytes=None, rescan=True, root=root, wait=True
    )
