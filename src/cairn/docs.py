"""Indexing the project's own documentation (README, docs/, ADRs) for recall.

Each Markdown (or plain text / reStructuredText) file is split into pages at its headings; a
page is indexed with its heading as the title and its text as the body. Only files whose
content hash changed are re-indexed; files that disappeared leave the index.

Captured session docs (a `sessions/` folder, or front matter `captured: true`) are indexed so
their text is kept, but recall never returns them: they are a session's notes, not the
project's documentation.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from cairn.context import Context
from cairn.store import SqliteStore
from cairn.text import analyse_text

DOC_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt")
DOC_FOLDERS = ("docs", "doc", "adr", "adrs", "decisions", "architecture")
MAX_DOC_BYTES = 2_000_000
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SKIP = {".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", ".tox"}


@dataclass(frozen=True)
class Indexed:
    """What `index_docs` did."""

    files: int
    changed: int
    removed: int
    pages: int

    def to_dict(self) -> dict[str, int]:
        """Counts as printed by `cairn docs index --json`."""
        return dict(self.__dict__)


def doc_files(root: Path) -> list[Path]:
    """The project's doc files: top-level README*/ADR files, and every doc under doc folders."""
    found: set[Path] = set()
    for child in root.iterdir() if root.is_dir() else ():
        if (
            child.is_file()
            and child.suffix.lower() in DOC_SUFFIXES
            and (child.name.lower().startswith(("readme", "contributing", "architecture", "adr")))
        ):
            found.add(child)
    for name in DOC_FOLDERS:
        folder = root / name
        if folder.is_dir():
            for path in folder.rglob("*"):
                if (
                    path.is_file()
                    and path.suffix.lower() in DOC_SUFFIXES
                    and not _SKIP.intersection(path.relative_to(root).parts)
                ):
                    found.add(path)
    return sorted(found)


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


def index_docs(store: SqliteStore, ctx: Context, root: Path | None = None) -> Indexed:
    """Index (or re-index what changed of) the project's docs."""
    root = root or Path(ctx.project)
    files = doc_files(root)
    seen: set[str] = set()
    changed = pages_written = 0
    for path in files:
        rel = path.relative_to(root).as_posix()
        try:
            data = path.read_bytes()[:MAX_DOC_BYTES]
        except OSError:
            continue
        seen.add(rel)
        digest = hashlib.sha256(data).hexdigest()
        if store.doc_file_hash(ctx.project, rel) == digest:
            continue
        text = data.decode("utf-8", errors="replace")
        captured = is_captured(rel, text)
        pages = [
            (heading, body, analyse_text(heading), analyse_text(body), captured)
            for heading, body in split_pages(text)
        ]
        store.replace_doc_file(ctx.project, rel, digest, pages)
        changed += 1
        pages_written += len(pages)
    removed = 0
    for rel in store.doc_paths(ctx.project):
        if rel not in seen:
            store.replace_doc_file(ctx.project, rel, None, [])
            removed += 1
    return Indexed(files=len(files), changed=changed, removed=removed, pages=pages_written)
