"""Recall's answer as hits: a ranked memory or doc page as the agent reads it."""

from __future__ import annotations

from typing import Any

from cairn.core.context import Context
from cairn.core.models import Hit
from cairn.usecases.describe import citation_of
from cairn.usecases.recall.scored import Scored

LINE_CHARS = 240


def memory_hit(s: Scored, ctx: Context, end: str | None) -> Hit:
    memory = s.memory
    assert memory is not None
    citation = citation_of(memory, ctx)
    extra: dict[str, Any] = {}
    if citation.status in ("changed", "gone"):
        extra["note"] = "read the cited code before relying on this"
    if citation.lines:
        extra["lines"] = f"{citation.lines[0]}-{citation.lines[1]}"
    return Hit(
        ref=memory.ref,
        kind=memory.kind,
        line=one_line(memory.text),
        score=s.score,
        weak=s.weak,
        citation=citation.status,
        until=memory.until if end else None,
        extra=extra,
    )


def doc_hit(s: Scored) -> Hit:
    page = s.doc
    first = one_line(page.text)
    return Hit(
        ref=f"doc:{page.path}#{page.ordinal}",
        kind="doc",
        line=first,
        score=s.score,
        path=page.path,
        heading=page.heading,
    )


def one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"
