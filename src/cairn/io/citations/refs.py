"""A memory's `source_ref`: what it cites, parsed, checked to stay inside the project, printed.

The forms, as the spec writes them::

    ""                      nothing cited
    src/app.py              the whole file
    src/app.py:10-24        lines 10 to 24 (1-based, inclusive); `src/app.py:10` is one line
    src/app.py#Store        a symbol: a function, class, type, ...
    src/app.py#Store.open   a dotted path: a method of a class (`Store::open` is read the same)
    3f9c2ab                 a commit: 7 to 40 hex digits, alone

A bare hex token with no `/` and no `.` is a commit; a file really named like that is cited as
`./3f9c2ab` (and printed that way). Paths are stored relative to the project root with `/`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cairn.core.errors import CitationError

__all__ = ["SourceRef", "cited_paths", "format_source_ref", "normalise", "parse_source_ref"]

_COMMIT = re.compile(r"[0-9a-fA-F]{7,40}")
# Identifier segments as the supported languages spell them (`$` for JavaScript); `\w` is
# Unicode-aware so non-ASCII Python and Java names are accepted.
_SEGMENT = r"(?:[^\W\d]|\$)(?:\w|\$)*"
_SYMBOL = re.compile(rf"{_SEGMENT}(?:\.{_SEGMENT})*")
# Digits are ASCII only: `int()` would also take Arabic-Indic digits, and the printed form must
# read back the same. Nine digits bound the work a hostile ref can cause.
_RANGE = re.compile(r"([0-9]{1,9})(?:\s*-\s*([0-9]{1,9}))?", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_MAX_LEN = 4096
_MAX_SYMBOL = 256

RefKind = Literal["none", "commit", "file", "lines", "symbol"]


@dataclass(frozen=True)
class SourceRef:
    """A parsed source_ref. At most one of (start/end, symbol) is set; commit excludes path."""

    path: str = ""
    start: int | None = None
    end: int | None = None
    symbol: str = ""
    commit: str = ""

    @property
    def kind(self) -> RefKind:
        """One of `none`, `commit`, `file`, `lines`, `symbol`."""
        if self.commit:
            return "commit"
        if not self.path:
            return "none"
        if self.symbol:
            return "symbol"
        return "lines" if self.start is not None else "file"


def parse_source_ref(text: str) -> SourceRef:
    """Parse a source_ref; raise `CitationError` saying what is wrong with a malformed one."""
    text = text.strip()
    if not text:
        return SourceRef()
    if len(text) > _MAX_LEN:
        raise CitationError(f"source_ref is {len(text)} characters; cite a path under {_MAX_LEN}")
    if _CONTROL.search(text):
        raise CitationError("source_ref must be one line of text without control characters")
    if _COMMIT.fullmatch(text):
        return SourceRef(commit=text.lower())

    path, symbol = text, ""
    if "#" in text:
        path, _, symbol = text.rpartition("#")
        symbol = symbol.strip().replace("::", ".")
        if not symbol:
            raise CitationError(f"{text!r} ends with '#'; write the symbol after it: path#Name")
        if len(symbol) > _MAX_SYMBOL or not _SYMBOL.fullmatch(symbol):
            raise CitationError(
                f"{symbol!r} is not a symbol name; cite path#Name or path#Class.method"
            )

    start = end = None
    path = _clean_path(path)
    head, colon, tail = path.rpartition(":")
    # A colon in the last path segment introduces a line range; a colon followed by more
    # folders (`C:/x`, `a:b/c.py`) is part of the path.
    if colon and "/" not in tail:
        start, end = _parse_range(tail.strip(), text)
        if symbol:
            raise CitationError(f"{text!r} cites both lines and a symbol; cite one of them")
        path = head

    path = _clean_path(path)
    if not path:
        raise CitationError(f"{text!r} names no file; cite a path such as src/app.py:10-24")
    return SourceRef(path=path, start=start, end=end, symbol=symbol)


def _parse_range(tail: str, text: str) -> tuple[int, int]:
    """`10` or `10-24` -> (start, end); anything else is refused."""
    match = _RANGE.fullmatch(tail)
    if match is None:
        raise CitationError(f"{text!r}: the line range must be N or N-M with whole numbers")
    start = int(match.group(1))
    end = int(match.group(2)) if match.group(2) is not None else start
    if start < 1:
        raise CitationError(f"{text!r}: lines are numbered from 1")
    if end < start:
        raise CitationError(f"{text!r}: the range ends before it starts; write {end}-{start}")
    return start, end


def _clean_path(path: str) -> str:
    """Drop empty and `.` segments so `./a//b/` and `a/b` are one path; keep `..` for normalise."""
    path = path.strip()
    absolute = path.startswith("/")
    while True:
        # Stripping can expose a new `.` segment (`a/. `), so clean until nothing changes.
        cleaned = "/".join(p for p in path.split("/") if p not in ("", ".")).strip()
        if cleaned == path:
            break
        path = cleaned
    return "/" + path if absolute else path


def format_source_ref(ref: SourceRef) -> str:
    """Print a ref in the form `parse_source_ref` reads back to the same ref."""
    if ref.commit:
        return ref.commit
    if not ref.path:
        return ""
    path = ref.path
    if ref.start is None and not ref.symbol and _COMMIT.fullmatch(path):
        # A file named like a commit needs a `./` to stay a file.
        path = "./" + path
    if ref.symbol:
        return f"{path}#{ref.symbol}"
    if ref.start is not None:
        end = ref.end if ref.end is not None else ref.start
        return f"{path}:{ref.start}" if end == ref.start else f"{path}:{ref.start}-{end}"
    return path


def normalise(ref: SourceRef, project_root: Path, cwd: Path | None = None) -> SourceRef:
    """Store the ref's path relative to its checkout root, with `/`; refuse one outside it.

    A relative path is read from `cwd` when that file exists there (an agent in a sub-folder),
    otherwise from the root of the checkout holding `cwd` (a worktree), otherwise from the
    project root. An absolute path must lie inside one of those roots. `..` that climbs out, an
    absolute path elsewhere, and a symlink whose target lies outside are refused.
    """
    if not ref.path:
        return ref
    project = Path(os.path.abspath(project_root))
    here = Path(os.path.abspath(cwd)) if cwd is not None else None
    roots = _roots(project, here)
    raw = Path(ref.path)
    if raw.is_absolute():
        candidate = Path(os.path.normpath(raw))
    else:
        candidate = Path(os.path.normpath(roots[0] / raw))
        if here is not None and any(_is_within(here, r) for r in roots):
            in_cwd = Path(os.path.normpath(here / raw))
            if _present(in_cwd):
                candidate = in_cwd
    found = _split(candidate, roots)
    if found is None:
        raise CitationError(
            f"{ref.path!r} is outside the project {project}; cite a file inside it, "
            "as a path relative to the project root"
        )
    root, relative = found
    if not relative.parts:
        raise CitationError(f"{ref.path!r} is the project folder itself; cite a file inside it")
    # Resolve symlinks only now: a link inside the project pointing elsewhere must not let a
    # memory cite (and later read) a file outside it.
    resolved = candidate.resolve()
    if not _is_within(resolved, root.resolve()):
        raise CitationError(
            f"{ref.path!r} is a symlink to {resolved}, outside the project; cite the file itself"
        )
    return SourceRef(path=relative.as_posix(), start=ref.start, end=ref.end, symbol=ref.symbol)


def _roots(project: Path, cwd: Path | None) -> list[Path]:
    """Roots a path may be relative to, most specific first: cwd's checkout, then the project.

    A checkout at or above the project root (a project inside a larger repository) is not a
    root of its own: paths stay relative to the project.
    """
    if cwd is not None:
        checkout = _checkout_root(cwd)
        if checkout is not None and not _is_within(project, checkout):
            return [checkout, project]
    return [project]


def _present(path: str | Path) -> bool:
    """The path exists (a dangling symlink counts); a name the system refuses does not."""
    try:
        os.lstat(path)  # one call: `exists() or is_symlink()` took two for a missing name
    except OSError:
        return False  # missing, or e.g. a name too long for the file system
    return True


def _checkout_root(cwd: Path) -> Path | None:
    """The nearest folder at or above `cwd` holding `.git` (a folder, or a worktree's file)."""
    # On the text of the (absolute, normalised) path: a Path per parent cost more than the
    # lstat that checks it, on every remember that cites a file.
    folder = str(cwd)
    while True:
        if _present(os.path.join(folder, ".git")):
            return Path(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _split(candidate: Path, roots: list[Path]) -> tuple[Path, Path] | None:
    """(root, path relative to it) for the first root holding `candidate`, or None.

    Compared as written first, then with symlinks resolved, so `/private/tmp/x` is found in a
    project opened as `/tmp/x` (macOS).
    """
    for root in roots:
        if _is_within(candidate, root):
            return root, candidate.relative_to(root)
    real = candidate.resolve()
    for root in roots:
        real_root = root.resolve()
        if _is_within(real, real_root):
            return root, real.relative_to(real_root)
    return None


def _is_within(path: Path, root: Path) -> bool:
    """`path == root or root in path.parents`, for the absolute, normalised paths compared
    here, on their text (building every parent took most of `normalise`'s time)."""
    inside, top = str(path), str(root)
    return inside == top or inside.startswith(top if top.endswith("/") else top + "/")


def cited_paths(ref: SourceRef | str) -> str | None:
    """The file a ref cites (as stored), or None for a commit, nothing, or a malformed ref.

    Takes the stored text too, and never raises, because the lessons hot path calls it for
    every memory that could ride on a file's tool call.
    """
    if isinstance(ref, str):
        try:
            ref = parse_source_ref(ref)
        except CitationError:
            return None
    return ref.path or None
