"""The one normalised event every adapter turns its agent's payload into."""

from __future__ import annotations

from cairn.calls import Call


class HookEvent:
    """A tool call, a session start or a session end, as Cairn needs it.

    `kind` is "tool", "start" or "end"; `phase` is "before" or "after" for tool calls.
    """

    __slots__ = ("agent", "call", "cwd", "kind", "name", "phase", "session", "transcript")

    def __init__(
        self,
        agent: str,
        name: str,
        kind: str,
        *,
        session: str = "",
        cwd: str = "",
        call: Call | None = None,
        phase: str = "before",
        transcript: str = "",
    ) -> None:
        self.agent, self.name, self.kind = agent, name, kind
        self.session, self.cwd, self.call = session, cwd, call
        self.phase, self.transcript = phase, transcript

    def __repr__(self) -> str:
        return (
            f"HookEvent({self.agent}/{self.name} {self.kind} session={self.session!r} "
            f"cwd={self.cwd!r} call={self.call!r})"
        )


def text(value: object) -> str:
    """A payload field as text ('' when missing or not a string)."""
    return value if isinstance(value, str) else ""
