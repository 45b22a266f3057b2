"""What a memory cites, and whether that code changed.

Parse a `source_ref` (`parse_source_ref`), store it relative to the project (`normalise`),
record the cited code when the memory is saved (`fingerprint`), and on recall tell whether it
is the same, changed, gone or unchecked (`check`), finding a line range or symbol again after
edits above it. tree-sitter grammars are imported only when a symbol is looked up.
"""

from __future__ import annotations

from cairn.io.citations.fingerprint import fingerprint
from cairn.io.citations.refs import (
    SourceRef,
    cited_paths,
    format_source_ref,
    normalise,
    parse_source_ref,
)
from cairn.io.citations.status import check, edit_touches
from cairn.io.citations.symbols import locate_symbol

__all__ = [
    "SourceRef",
    "check",
    "cited_paths",
    "edit_touches",
    "fingerprint",
    "format_source_ref",
    "locate_symbol",
    "normalise",
    "parse_source_ref",
]
