"""A cited file's lines: read, compared with whitespace folded, and found again after edits.

Lines are compared after folding whitespace (ends stripped, inner runs made one space), so a
re-indented block or a CRLF checkout still counts as the same code.

A cited file is read only when it is a regular file, without blocking, and only up to
CITED_FILE_BYTES for its lines or symbols (parsed in memory) or HASHED_FILE_BYTES for a whole
file's hash (read in blocks): a FIFO, a link to /dev/zero or a huge generated file in its
place is reported, never waited on or read to the end.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from cairn.io.regularfile import read_bytes

__all__ = [
    "CITED_FILE_BYTES",
    "HASHED_FILE_BYTES",
    "find_block",
    "fold_line",
    "hash_lines",
    "read_lines",
    "read_source",
    "split_lines",
    "unreadable",
]

CITED_FILE_BYTES = 16 << 20
HASHED_FILE_BYTES = 256 << 20


def read_source(path: Path) -> bytes:
    """A cited file's bytes; OSError when it is missing, unreadable, not a regular file
    (NotRegularFile) or over CITED_FILE_BYTES (FileTooLarge)."""
    return read_bytes(path, CITED_FILE_BYTES)


def read_lines(path: Path) -> list[str]:
    """The file's lines as text (undecodable bytes replaced); OSError as `read_source`."""
    return split_lines(read_source(path).decode("utf-8", errors="replace"))


def unreadable(error: OSError) -> str:
    """Why a cited file could not be read, in a few words ("a FIFO, not a regular file")."""
    return error.strerror or type(error).__name__


def split_lines(text: str) -> list[str]:
    """Split on `\\n` only, as editors number lines; a final newline opens no extra line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def fold_line(line: str) -> str:
    """One line with its whitespace folded: ends stripped, inner runs made one space."""
    return " ".join(line.split())


def hash_lines(folded: Sequence[str]) -> str:
    """sha256 (hex) of folded lines joined with `\\n`."""
    return hashlib.sha256("\n".join(folded).encode("utf-8", errors="surrogatepass")).hexdigest()


def find_block(
    folded: Sequence[str],
    block: Sequence[str],
    start: int,
    above: Sequence[str] = (),
    below: Sequence[str] = (),
) -> int | None:
    """1-based line where `block` occurs in `folded`, nearest to `start`, or None.

    The nearest occurrence wins because an edit above a cited block moves it a little; at equal
    distance (a block repeated above and below) the one whose surrounding lines still match
    the recorded context wins.
    """
    n = len(block)
    if n == 0 or n > len(folded):
        return None
    first = block[0]
    best: tuple[int, int, int] | None = None
    for i in range(len(folded) - n + 1):
        if folded[i] != first or list(folded[i : i + n]) != list(block):
            continue
        line = i + 1
        key = (abs(line - start), -_context_score(folded, i, n, above, below), line)
        if best is None or key < best:
            best = key
    return None if best is None else best[2]


def _context_score(
    folded: Sequence[str], i: int, n: int, above: Sequence[str], below: Sequence[str]
) -> int:
    """How many recorded context lines still sit right above and below the block at `i`."""
    score = 0
    for k, text in enumerate(reversed(above), start=1):
        if i - k >= 0 and folded[i - k] == text:
            score += 1
    for k, text in enumerate(below):
        if i + n + k < len(folded) and folded[i + n + k] == text:
            score += 1
    return score
