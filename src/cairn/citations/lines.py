"""A cited file's lines: read, compared with whitespace folded, and found again after edits.

Lines are compared after folding whitespace (ends stripped, inner runs made one space), so a
re-indented block or a CRLF checkout still counts as the same code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

__all__ = ["find_block", "fold_line", "hash_lines", "read_lines", "split_lines"]


def read_lines(path: Path) -> list[str] | None:
    """The file's lines as text (undecodable bytes replaced), or None when it cannot be read."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return split_lines(data.decode("utf-8", errors="replace"))


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
