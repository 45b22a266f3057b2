"""AGENTS.md: Cairn's lessons as one section between marker comments; the rest of the file is
kept as it is."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cairn.core.errors import QueryError
from cairn.core.models import Memory
from cairn.io.regularfile import read_text
from cairn.usecases.rulesfiles.disk import GENERATED, RULES_FILE_BYTES, read_failure
from cairn.usecases.rulesfiles.markdown import as_sections

AGENTS_BEGIN = "<!-- cairn:lessons:begin -->"


AGENTS_END = "<!-- cairn:lessons:end -->"


def agents_file(path: Path, memories: Sequence[Memory]) -> str:
    """AGENTS.md with Cairn's section written in (replaced between its markers, else added)."""
    section = "\n".join(
        [
            AGENTS_BEGIN,
            GENERATED,
            "",
            "## Lessons from Cairn",
            *as_sections(memories, "###"),
            "",
            AGENTS_END,
        ]
    )
    try:
        old = read_text(path, RULES_FILE_BYTES)
    except FileNotFoundError:
        old = ""
    except (OSError, UnicodeDecodeError) as exc:
        raise QueryError(f"cannot update {path}: {read_failure(exc)}") from exc
    start, end = old.find(AGENTS_BEGIN), old.find(AGENTS_END)
    if start != -1 and end > start:
        return old[:start] + section + old[end + len(AGENTS_END) :]
    if not old.strip():
        return section + "\n"
    return old.rstrip("\n") + "\n\n" + section + "\n"
