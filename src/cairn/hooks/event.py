"""The one normalised event every adapter turns its agent's payload into."""

from __future__ import annotations

from cairn.core.codec import dumps
from cairn.usecases.calls import Call


class HookEvent:
    """A tool call, a session start or a session end, as Cairn needs it.

    `kind` is "tool", "start" or "end"; `phase` is "before" or "after" for tool calls.
    `lessons`: context added here reaches the model (False where the agent ignores it, e.g.
    Gemini's BeforeTool); `gates`: the agent lets the hook deny this call with a reason (its
    adapter's `deny` prints that answer), set on before-tool events only.
    """

    __slots__ = (
        "agent",
        "call",
        "cwd",
        "gates",
        "kind",
        "lessons",
        "name",
        "phase",
        "session",
        "transcript",
    )

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
        self.lessons, self.gates = True, False

    def __repr__(self) -> str:
        return (
            f"HookEvent({self.agent}/{self.name} {self.kind} session={self.session!r} "
            f"cwd={self.cwd!r} call={self.call!r})"
        )


def text(value: object) -> str:
    """A payload field as text ('' when missing or not a string)."""
    return value if isinstance(value, str) else ""


def claude_shaped(
    agent: str, events: dict[str, tuple[str, str]], event: str, payload: dict[str, object]
) -> HookEvent | None:
    """The event of a Claude-shaped payload (Claude Code, Codex, Gemini share the fields:
    `hook_event_name`, `session_id`, `cwd`, `transcript_path`); None for an unwatched event.
    The adapter fills in `call` for tool events."""
    kind, phase = events.get(event.replace("_", "").lower(), ("", ""))
    if not kind:
        return None
    ev = HookEvent(
        agent,
        text(payload.get("hook_event_name")) or event,
        kind,
        session=text(payload.get("session_id")),
        cwd=text(payload.get("cwd")),
        phase=phase,
        transcript=text(payload.get("transcript_path")),
    )
    ev.gates = kind == "tool" and phase == "before"
    return ev


def permission_deny(ev: HookEvent, reason: str) -> str:
    """`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
    "permissionDecisionReason": REASON}}`: how Claude Code and Codex let a PreToolUse hook
    stop a call ("" on any other event; neither takes an explicit allow from Cairn)."""
    if not (ev.gates and reason):
        return ""
    return dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    )


def additional_context(ev: HookEvent, context: str) -> str:
    """`{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": TEXT}}`: how
    Claude Code, Codex and Gemini take added context; nothing at a session's end."""
    if ev.kind == "end":
        return ""
    return dumps({"hookSpecificOutput": {"hookEventName": ev.name, "additionalContext": context}})
