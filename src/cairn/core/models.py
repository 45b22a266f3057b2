"""Cairn's value objects passed between the layers: immutable `Value` classes.

The hook's firing path does not import this module: it reads the few fields a firing call
needs into `cairn.core.firing`'s plain classes (`cairn.io.store.hookread`). A new `cairn recall
--json` process does import it, so these are `Value` classes rather than dataclasses (no
`dataclasses` import; `cairn.core.value`): equal and hashed by their fields, a repr, no
assignment after construction, `replace` (a copy with some fields changed) and `as_dict` (the
fields by name, in constructor order, not copied).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.core.firing import action_names
from cairn.core.value import Value

if TYPE_CHECKING:
    from typing import Literal

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


class Trigger(Value):
    """A lesson's `when`: a shell regex (`match`) or a read/edit glob (`path`)."""

    __slots__ = ("tool", "match", "path")  # noqa: RUF023
    tool: str
    match: str | None
    path: str | None

    def __init__(self, tool: str, match: str | None = None, path: str | None = None) -> None:
        self._assign(tool, match, path)

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
        self._assign(
            ref,
            text,
            kind,
            project,
            tags,
            reason,
            source_ref,
            when,
            scope,
            branch,
            pinned,
            tool,
            session,
            written,
            until,
            replaces,
            replaced_by,
            status,
            revision,
            last_touched,
            fingerprint,
            gate,
        )

    @property
    def is_current(self) -> bool:
        """Not replaced by a correction and not forgotten."""
        return self.until is None and self.status != "retired"

    def action_names(self) -> tuple[str, ...]:
        """Actions this memory is a rule for (tags `trigger:ACTION`)."""
        return action_names(self.tags)


class Citation(Value):
    """What a memory's source_ref says about the code now."""

    __slots__ = ("status", "path", "lines", "symbol", "note")  # noqa: RUF023
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
        self._assign(status, path, lines, symbol, note)


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
        # None is accepted, as before: no extra fields (a new dict per hit otherwise)
        extra = {} if extra is None else extra
        self._assign(ref, kind, line, score, weak, citation, path, heading, until, extra)

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

    __slots__ = ("eid", "ref", "event", "tool", "session", "at", "act", "detail")  # noqa: RUF023
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
        # None is accepted, as before: no detail (a new dict per event otherwise)
        detail = {} if detail is None else detail
        self._assign(eid, ref, event, tool, session, at, act, detail)
