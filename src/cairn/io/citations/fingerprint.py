"""What a citation looked like when the memory was saved, so `check` can tell if it changed.

`fingerprint(ref, root)` returns a JSON-ready dict. Every one has `v` (format version, 1) and
`kind`; the rest depends on the kind::

    {"v": 1, "kind": "none"}                              nothing cited
    {"v": 1, "kind": "commit", "commit": "3f9c2ab"}       a commit: nothing to compare
    {"v": 1, "kind": K, "missing": true}                  the file did not exist (K: file,
                                                          lines or symbol)
    {"v": 1, "kind": "dir", "missing": false}             a folder: nothing to compare
    {"v": 1, "kind": "file", "missing": false,
     "size": 1234, "sha256": HEX}                         the whole file's bytes
    {"v": 1, "kind": "lines", "missing": false,
     "start": 10, "end": 24, "sha256": HEX,
     "lines": [...], "above": [...], "below": [...]}      the cited lines, whitespace folded,
                                                          and up to 3 lines around them
    {"v": 1, "kind": "symbol", "missing": false,
     "symbol": "Store.open", "name_path": "Store.open",
     "node": "function_definition", "language": "python",
     "start": 40, "end": 58, "sha256": HEX}               the definition's text, folded
    {"v": 1, "kind": "symbol", "missing": false,
     "symbol": "Install", "unchecked": "no grammar ..."}  no grammar for the file's type

A commit is never compared: its content cannot change, and asking git whether it still exists
costs a subprocess on every recall, too slow for the recall page.
"""

from __future__ import annotations

import errno
import hashlib
import stat
from pathlib import Path
from typing import Any

from cairn.core.errors import CitationError
from cairn.io.citations.lines import (
    HASHED_FILE_BYTES,
    fold_line,
    hash_lines,
    read_lines,
    read_source,
    unreadable,
)
from cairn.io.citations.refs import SourceRef
from cairn.io.citations.symbols import definitions, find_symbol, language_for
from cairn.io.regularfile import FileTooLarge, kind_of, open_binary, size_text

__all__ = ["CONTEXT_LINES", "VERSION", "body_hash", "fingerprint", "hash_file"]

VERSION = 1
CONTEXT_LINES = 3


def fingerprint(ref: SourceRef, root: Path) -> dict[str, Any]:
    """Record the cited code as it is now under `root` (the checkout the memory is saved from).

    Raises `CitationError` when the ref cannot be right: lines past the end of the file, a
    symbol the file does not define, lines or a symbol in a folder.
    """
    kind = ref.kind
    if kind == "none":
        return {"v": VERSION, "kind": "none"}
    if kind == "commit":
        return {"v": VERSION, "kind": "commit", "commit": ref.commit}
    file = root / ref.path
    try:
        info = file.stat()
    except (FileNotFoundError, NotADirectoryError):
        return {"v": VERSION, "kind": kind, "missing": True}
    except OSError as error:
        raise CitationError(
            f"{ref.path} cannot be read ({error.strerror}); check the path"
        ) from None
    if stat.S_ISDIR(info.st_mode):
        if kind != "file":
            raise CitationError(f"{ref.path} is a folder; cite lines or a symbol of a file in it")
        return {"v": VERSION, "kind": "dir", "missing": False}
    if not stat.S_ISREG(info.st_mode):
        raise CitationError(
            f"{ref.path} is {kind_of(info.st_mode)}, not a regular file; cite a file"
        )
    if kind == "file":
        try:
            size, digest = hash_file(file)
        except OSError as error:
            raise CitationError(f"{ref.path} cannot be read ({unreadable(error)})") from None
        return {"v": VERSION, "kind": "file", "missing": False, "size": size, "sha256": digest}
    if kind == "lines":
        return _lines(ref, file)
    return _symbol(ref, file)


def hash_file(file: Path) -> tuple[int, str]:
    """(size, sha256 hex) of a regular file's bytes, read in blocks so a large file costs no
    memory; FileTooLarge past HASHED_FILE_BYTES, NotRegularFile for anything but a file."""
    digest = hashlib.sha256()
    size = 0
    with open_binary(file) as handle:
        while block := handle.read(1 << 16):
            digest.update(block)
            size += len(block)
            if size > HASHED_FILE_BYTES:
                raise FileTooLarge(
                    errno.EFBIG, f"larger than {size_text(HASHED_FILE_BYTES)}", str(file)
                )
    return size, digest.hexdigest()


def _lines(ref: SourceRef, file: Path) -> dict[str, Any]:
    assert ref.start is not None and ref.end is not None  # kind "lines" guarantees both
    try:
        raw = read_lines(file)
    except OSError as error:
        raise CitationError(
            f"{ref.path} cannot be read ({unreadable(error)}); cite a file Cairn can open"
        ) from None
    if ref.end > len(raw):
        raise CitationError(
            f"{ref.path} has {len(raw)} lines; the ref cites {ref.start}-{ref.end}. "
            "Cite lines that exist"
        )
    folded = [fold_line(line) for line in raw]
    cited = folded[ref.start - 1 : ref.end]
    return {
        "v": VERSION,
        "kind": "lines",
        "missing": False,
        "start": ref.start,
        "end": ref.end,
        "sha256": hash_lines(cited),
        "lines": cited,
        "above": folded[max(0, ref.start - 1 - CONTEXT_LINES) : ref.start - 1],
        "below": folded[ref.end : ref.end + CONTEXT_LINES],
    }


def _symbol(ref: SourceRef, file: Path) -> dict[str, Any]:
    language = language_for(file)
    if language is None:
        return {
            "v": VERSION,
            "kind": "symbol",
            "missing": False,
            "symbol": ref.symbol,
            "unchecked": f"no grammar for {file.suffix or 'extensionless'} files; "
            "the symbol is not compared",
        }
    try:
        source = read_source(file)
    except OSError as error:
        raise CitationError(
            f"{ref.path} cannot be read ({unreadable(error)}); check the path"
        ) from None
    found = definitions(source, language)
    best = find_symbol(found, ref.symbol)
    if not best:
        known = ", ".join(sorted({d.path for d in found if "." not in d.path})[:8])
        hint = f" (it defines {known})" if known else ""
        raise CitationError(f"{ref.path} defines no {ref.symbol!r}{hint}; check the name")
    d = best[0]
    return {
        "v": VERSION,
        "kind": "symbol",
        "missing": False,
        "symbol": ref.symbol,
        "name_path": d.path,
        "node": d.kind,
        "language": language,
        "start": d.start,
        "end": d.end,
        "sha256": body_hash(d.text),
    }


def body_hash(text: str) -> str:
    """sha256 of a definition's text with each line's whitespace folded."""
    return hash_lines([fold_line(line) for line in text.split("\n")])
