"""Cairn's value objects: frozen dataclasses passed between the layers.

The hook's firing path does not import this module: it reads the few fields a firing call
needs into `cairn.core.firing`'s plain classes (`cairn.io.store.hookread`), so these are
ordinary dataclasses. Each has `replace` (a copy with some fields changed) and `as_dict` (its
fields by name, in constructor order, not copied).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Literal, Self

from cairn.core.firing import action_names

if TYPE_CHECKING:
    Scope = Literal["project", "workspace"]
    CitationStatus = Literal["same", "changed", "gone", "unchecked"]
else:
    Scope = CitationStatus = str

MAX_REFS = 100  # refs in `used` or one get_memory
MAX_REF = 64  # a ref is `m-` and 6 hex digits: anything much longer names nothing

KINDS = ("fact", "decision", "preference", "lesson", "rule", "progress")
TRIGGER_TOOLS = ("shell", "read", "edit")

__all__ = [
    "KINDS",
    "MAX_REF",
    "MAX_REFS",
    "TRIGGER_TOOLS",
    "Citation",
    "Event",
    "Hit",
    "Memory",
    "Trigger",
]


class _Fields:
    """`replace` and `as_dict` for the dataclasses below."""

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        """The fields by name, in constructor order (values not copied)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]

    def replace(self, **changes: Any) -> Self:
        """A copy with some fields changed (`dataclasses.replace`)."""
        return replace(self, **changes)  # type: ignore[type-var]


@dataclass(frozen=True, slots=True)
class Trigger(_Fields):
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

    def problem(self) -> str:
        """Why this trigger's shape cannot be matched ('' when it can).

        Saving and importing validate every trigger (`cairn.core.lessons.triggers.parse_when`), but
        a store an older Cairn imported into, or one edited by hand, may hold, say, a list where
        the regex goes: such a trigger is
        skipped by the trigger list and the matchers, and never stops the others.
        """
        if not isinstance(self.tool, str) or self.tool not in TRIGGER_TOOLS:
            return f"`when.tool` is {self.tool!r}, not shell, read or edit"
        name, value = ("match", self.match) if self.tool == "shell" else ("path", self.path)
        if not isinstance(value, str) or not value:
            return f"`when.{name}` is {value!r}, not a regex or glob as text"
        return ""


@dataclass(frozen=True, slots=True)
class Memory(_Fields):
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
    gate: bool = False

    @property
    def is_current(self) -> bool:
        """Not replaced by a correction and not forgotten."""
        return self.until is None and self.status != "retired"

    def action_names(self) -> tuple[str, ...]:
        """Actions this memory is a rule for (tags `trigger:ACTION`)."""
        return action_names(self.tags)


@dataclass(frozen=True, slots=True)
class Citation(_Fields):
    """What a memory's source_ref says about the code now."""

    status: CitationStatus = "unchecked"
    path: str = ""
    lines: tuple[int, int] | None = None
    symbol: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class Hit(_Fields):
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

    def __post_init__(self) -> None:
        if self.extra is None:  # accepted, as before: no extra fields
            object.__setattr__(self, "extra", {})

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


@dataclass(frozen=True, slots=True)
class Event(_Fields):
    """One evidence event on one memory (append-only)."""

    eid: str
    ref: str
    event: str
    tool: str
    session: str
    at: str
    act: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.detail is None:  # accepted, as before: no detail
            object.__setattr__(self, "detail", {})
