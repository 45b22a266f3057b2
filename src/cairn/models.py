"""Cairn's value objects: frozen dataclasses passed between the layers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

KINDS = ("fact", "decision", "preference", "lesson", "rule", "progress")
TRIGGER_TOOLS = ("shell", "read", "edit")
Scope = Literal["project", "workspace"]
CitationStatus = Literal["same", "changed", "gone", "unchecked"]


@dataclass(frozen=True)
class Trigger:
    """A lesson's `when`: a shell regex (`match`) or a read/edit glob (`path`)."""

    tool: str
    match: str | None = None
    path: str | None = None

    @property
    def pattern(self) -> str:
        """The regex or glob this trigger tests."""
        return self.match if self.match is not None else (self.path or "")

    def to_dict(self) -> dict[str, str]:
        """The `when` object as the spec writes it."""
        if self.tool == "shell":
            return {"tool": "shell", "match": self.match or ""}
        return {"tool": self.tool, "path": self.path or ""}


@dataclass(frozen=True)
class Memory:
    """One version of one claim. A correction writes a new Memory and closes this one."""

    ref: str
    text: str
    kind: str
    project: str
    tags: tuple[str, ...] = ()
    reason: str = ""
    source_ref: str = ""
    when: Trigger | None = None
    scope: Scope = "project"
    branch: str = ""
    pinned: bool = False
    tool: str = ""
    session: str = ""
    written: str = ""
    until: str | None = None
    replaces: str | None = None
    replaced_by: str | None = None
    status: str = "active"
    revision: int = 1
    last_touched: str = ""
    fingerprint: str = ""

    @property
    def is_current(self) -> bool:
        """Not replaced by a correction and not forgotten."""
        return self.until is None and self.status != "retired"

    @property
    def is_lesson(self) -> bool:
        """A memory with a trigger is a lesson, whatever its kind."""
        return self.when is not None

    def action_names(self) -> tuple[str, ...]:
        """Actions this memory is a rule for (tags `trigger:ACTION`)."""
        return tuple(t.split(":", 1)[1] for t in self.tags if t.startswith("trigger:"))


@dataclass(frozen=True)
class Citation:
    """What a memory's source_ref says about the code now."""

    status: CitationStatus = "unchecked"
    path: str = ""
    lines: tuple[int, int] | None = None
    symbol: str = ""
    note: str = ""


@dataclass(frozen=True)
class Hit:
    """One recall result: a memory or a doc page."""

    ref: str
    kind: str
    line: str
    score: float
    weak: bool = False
    citation: str = "unchecked"
    path: str = ""
    heading: str = ""
    until: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The result as the MCP tool and `--json` print it."""
        out: dict[str, Any] = {
            "ref": self.ref,
            "kind": self.kind,
            "line": self.line,
            "score": round(self.score, 4),
            "weak": self.weak,
            "citation": self.citation,
        }
        if self.kind == "doc":
            out["path"] = self.path
            out["heading"] = self.heading
        if self.until is not None:
            out["until"] = self.until
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class Event:
    """One evidence event on one memory (append-only)."""

    eid: str
    ref: str
    event: str
    tool: str
    session: str
    at: str
    act: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
