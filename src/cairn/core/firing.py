"""What a firing hook call reads of a memory and of its events, and nothing more.

The hook reads its candidates' rows itself (`cairn.io.store.hookread`), so that it never
imports `cairn.core.models` (dataclasses) or the whole store. These classes hold exactly the
fields `cairn.usecases.calls.lessons_for`, `cairn.core.lifecycle.state_of`, `render` and the
gates read, under the names `models.Memory`, `models.Trigger` and `models.Event` give them: a
`lessons_for` on the full store gets those, on the hook's reader these, and behaves the same.
"""

from __future__ import annotations

from cairn.core.value import Value

__all__ = ["FiringEvent", "FiringMemory", "FiringTrigger"]

_set = object.__setattr__


class FiringTrigger(Value):
    """A lesson's `when` as the matchers read it: a shell regex (`match`) or a glob (`path`)."""

    __slots__ = ("tool", "match", "path")  # noqa: RUF023 - constructor order
    tool: str
    match: str | None
    path: str | None

    def __init__(self, tool: str, match: str | None = None, path: str | None = None) -> None:
        _set(self, "tool", tool)
        _set(self, "match", match)
        _set(self, "path", path)


class FiringMemory(Value):
    """The fields of one stored memory version that deciding and rendering a firing call read."""

    __slots__ = (  # noqa: RUF023 - constructor order
        "ref",
        "text",
        "kind",
        "project",
        "scope",
        "tags",
        "reason",
        "source_ref",
        "when",
        "pinned",
        "written",
        "until",
        "status",
        "last_touched",
        "fingerprint",
        "gate",
    )
    ref: str
    text: str
    kind: str
    project: str
    scope: str
    tags: tuple[str, ...]
    reason: str
    source_ref: str
    when: FiringTrigger | None
    pinned: bool
    written: str
    until: str | None
    status: str
    last_touched: str
    fingerprint: str
    gate: bool

    def __init__(
        self,
        ref: str,
        text: str,
        kind: str,
        project: str,
        scope: str,
        tags: tuple[str, ...],
        reason: str,
        source_ref: str,
        when: FiringTrigger | None,
        pinned: bool,
        written: str,
        until: str | None,
        status: str,
        last_touched: str,
        fingerprint: str,
        gate: bool,
    ) -> None:
        _set(self, "ref", ref)
        _set(self, "text", text)
        _set(self, "kind", kind)
        _set(self, "project", project)
        _set(self, "scope", scope)
        _set(self, "tags", tags)
        _set(self, "reason", reason)
        _set(self, "source_ref", source_ref)
        _set(self, "when", when)
        _set(self, "pinned", pinned)
        _set(self, "written", written)
        _set(self, "until", until)
        _set(self, "status", status)
        _set(self, "last_touched", last_touched)
        _set(self, "fingerprint", fingerprint)
        _set(self, "gate", gate)

    @property
    def is_current(self) -> bool:
        """Not replaced by a correction and not forgotten (as `Memory.is_current`)."""
        return self.until is None and self.status != "retired"

    def action_names(self) -> tuple[str, ...]:
        """Actions this memory is a rule for (as `Memory.action_names`)."""
        return action_names(self.tags)


class FiringEvent(Value):
    """One evidence event as the lifecycle reads it: which memory, what, and when."""

    __slots__ = ("ref", "event", "at")  # noqa: RUF023 - constructor order
    ref: str
    event: str
    at: str

    def __init__(self, ref: str, event: str, at: str) -> None:
        _set(self, "ref", ref)
        _set(self, "event", event)
        _set(self, "at", at)


def action_names(tags: tuple[str, ...]) -> tuple[str, ...]:
    """The actions `trigger:ACTION` tags name (the prefix in any case), each once, in order."""
    names = (t.split(":", 1)[1].strip().lower() for t in tags if t[:8].lower() == "trigger:")
    return tuple(dict.fromkeys(name for name in names if name))
