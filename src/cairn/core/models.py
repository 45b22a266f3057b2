"""Cairn's value objects: immutable plain classes passed between the layers.

Plain classes with `__slots__`, not dataclasses: the hook builds these on a call that fires a
lesson, and `dataclasses` (which imports `inspect`) plus `typing` cost that call ~20 ms of
imports. `Value` gives each class what `@dataclass(frozen=True)` gave: equality and hashing
by fields, a repr, `replace`, and no assignment after construction.
"""

from __future__ import annotations

from cairn.core.value import Value

MAX_REFS = 100  # refs in `used` or one get_memory
MAX_REF = 64  # a ref is `m-` and 6 hex digits: anything much longer names nothing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Scope = Literal["project", "workspace"]
    CitationStatus = Literal["same", "changed", "gone", "unchecked"]

KINDS = ("fact", "decision", "preference", "lesson", "rule", "progress")
TRIGGER_TOOLS = ("shell", "read", "edit")

_set = object.__setattr__


class Trigger(Value):
    """A lesson's `when`: a shell regex (`match`) or a read/edit glob (`path`)."""

    # Field order is the constructor order (and the repr's), so not sorted.
    __slots__ = (  # noqa: RUF023
        "tool",
        "match",
        "path",
    )
    tool: str
    match: str | None
    path: str | None

    def __init__(self, tool: str, match: str | None = None, path: str | None = None) -> None:
        _set(self, "tool", tool)
        _set(self, "match", match)
        _set(self, "path", path)

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


class Memory(Value):
    """One version of one claim. A correction writes a new Memory and closes this one."""

    # Field order is the constructor order (and the repr's), so not sorted.
    __slots__ = (  # noqa: RUF023
        "ref",
        "text",
        "kind",
        "project",
        "tags",
        "reason",
        "source_ref",
        "when",
        "scope",
        "branch",
        "pinned",
        "tool",
        "session",
        "written",
        "until",
        "replaces",
        "replaced_by",
        "status",
        "revision",
        "last_touched",
        "fingerprint",
        "gate",
    )
    ref: str
    text: str
    kind: str
    project: str
    tags: tuple[str, ...]
    reason: str
    source_ref: str
    when: Trigger | None
    scope: Scope
    branch: str
    pinned: bool
    tool: str
    session: str
    written: str
    until: str | None
    replaces: str | None
    replaced_by: str | None
    status: str
    revision: int
    last_touched: str
    fingerprint: str
    gate: bool

    def __init__(
        self,
        ref: str,
        text: str,
        kind: str,
        project: str,
        tags: tuple[str, ...] = (),
        reason: str = "",
        source_ref: str = "",
        when: Trigger | None = None,
        scope: Scope = "project",
        branch: str = "",
        pinned: bool = False,
        tool: str = "",
        session: str = "",
        written: str = "",
        until: str | None = None,
        replaces: str | None = None,
        replaced_by: str | None = None,
        status: str = "active",
        revision: int = 1,
        last_touched: str = "",
        fingerprint: str = "",
        gate: bool = False,
    ) -> None:
        _set(self, "ref", ref)
        _set(self, "text", text)
        _set(self, "kind", kind)
        _set(self, "project", project)
        _set(self, "tags", tags)
        _set(self, "reason", reason)
        _set(self, "source_ref", source_ref)
        _set(self, "when", when)
        _set(self, "scope", scope)
        _set(self, "branch", branch)
        _set(self, "pinned", pinned)
        _set(self, "tool", tool)
        _set(self, "session", session)
        _set(self, "written", written)
        _set(self, "until", until)
        _set(self, "replaces", replaces)
        _set(self, "replaced_by", replaced_by)
        _set(self, "status", status)
        _set(self, "revision", revision)
        _set(self, "last_touched", last_touched)
        _set(self, "fingerprint", fingerprint)
        _set(self, "gate", gate)

    @property
    def is_current(self) -> bool:
        """Not replaced by a correction and not forgotten."""
        return self.until is None and self.status != "retired"

    def action_names(self) -> tuple[str, ...]:
        """Actions this memory is a rule for (tags `trigger:ACTION`)."""
        names = (t.split(":", 1)[1].strip().lower() for t in self.tags if _is_action_tag(t))
        return tuple(dict.fromkeys(name for name in names if name))


class Citation(Value):
    """What a memory's source_ref says about the code now."""

    # Field order is the constructor order (and the repr's), so not sorted.
    __slots__ = (  # noqa: RUF023
        "status",
        "path",
        "lines",
        "symbol",
        "note",
    )
    status: CitationStatus
    path: str
    lines: tuple[int, int] | None
    symbol: str
    note: str

    def __init__(
        self,
        status: CitationStatus = "unchecked",
        path: str = "",
        lines: tuple[int, int] | None = None,
        symbol: str = "",
        note: str = "",
    ) -> None:
        _set(self, "status", status)
        _set(self, "path", path)
        _set(self, "lines", lines)
        _set(self, "symbol", symbol)
        _set(self, "note", note)


class Hit(Value):
    """One recall result: a memory or a doc page."""

    # Field order is the constructor order (and the repr's), so not sorted.
    __slots__ = (  # noqa: RUF023
        "ref",
        "kind",
        "line",
        "score",
        "weak",
        "citation",
        "path",
        "heading",
        "until",
        "extra",
    )
    ref: str
    kind: str
    line: str
    score: float
    weak: bool
    citation: str
    path: str
    heading: str
    until: str | None
    extra: dict[str, Any]

    def __init__(
        self,
        ref: str,
        kind: str,
        line: str,
        score: float,
        weak: bool = False,
        citation: str = "unchecked",
        path: str = "",
        heading: str = "",
        until: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        _set(self, "ref", ref)
        _set(self, "kind", kind)
        _set(self, "line", line)
        _set(self, "score", score)
        _set(self, "weak", weak)
        _set(self, "citation", citation)
        _set(self, "path", path)
        _set(self, "heading", heading)
        _set(self, "until", until)
        _set(self, "extra", {} if extra is None else extra)

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


class Event(Value):
    """One evidence event on one memory (append-only)."""

    # Field order is the constructor order (and the repr's), so not sorted.
    __slots__ = (  # noqa: RUF023
        "eid",
        "ref",
        "event",
        "tool",
        "session",
        "at",
        "act",
        "detail",
    )
    eid: str
    ref: str
    event: str
    tool: str
    session: str
    at: str
    act: str | None
    detail: dict[str, Any]

    def __init__(
        self,
        eid: str,
        ref: str,
        event: str,
        tool: str,
        session: str,
        at: str,
        act: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        _set(self, "eid", eid)
        _set(self, "ref", ref)
        _set(self, "event", event)
        _set(self, "tool", tool)
        _set(self, "session", session)
        _set(self, "at", at)
        _set(self, "act", act)
        _set(self, "detail", {} if detail is None else detail)


def _is_action_tag(tag: str) -> bool:
    """Is `tag` a `trigger:ACTION` tag (the prefix in any case)?"""
    return tag[:8].lower() == "trigger:"
