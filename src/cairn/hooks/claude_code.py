"""Claude Code hooks (verified against 2.1.332; PreToolUse context needs >= 2.1.9).

Payload (stdin), trimmed:

    {"session_id": "…", "transcript_path": "/…/x.jsonl", "cwd": "/work/app",
     "hook_event_name": "PreToolUse", "tool_name": "Bash",
     "tool_input": {"command": "git push", "description": "…"}, "tool_use_id": "…"}

`tool_name` Bash (`command`), Read (`file_path`), Edit / Write / MultiEdit (`file_path`,
`old_string` for Edit). PostToolUse adds `tool_response`; PostToolUseFailure adds `error`.
SessionStart has `source` (startup/resume/clear/compact); Stop and SessionEnd end a turn or
the session. Context goes back as
`{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": TEXT}}`; it reaches the
model with the tool's result, after the call ran. A gate (opt-in, `cairn.usecases.gates`) stops a
PreToolUse call once with
`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
"permissionDecisionReason": TEXT}}`: the call does not run and the reason comes back to the
model as its result (`is_error`); the same call made again runs (verified against 2.1.332).
Claude Code keeps at most 2,000 characters and 20 lines of a reason.
"""

from __future__ import annotations

from cairn.hooks.event import HookEvent, additional_context, claude_shaped, permission_deny, text
from cairn.usecases.calls import Call

TYPE_CHECKING = False  # not typing: the hook imports this module
if TYPE_CHECKING:
    from typing import Any

AGENT = "claude-code"
SHELL = {"Bash"}
READ = {"Read"}
EDIT = {"Edit", "Write", "MultiEdit", "NotebookEdit"}
EVENTS = {
    "pretooluse": ("tool", "before"),
    "posttooluse": ("tool", "after"),
    "posttoolusefailure": ("tool", "after"),
    "sessionstart": ("start", ""),
    "stop": ("end", ""),
    "sessionend": ("end", ""),
}


def tool_call(name: str, tool_input: dict[str, Any]) -> Call | None:
    """The normalised call of a Claude Code tool (also used by Cursor's preToolUse)."""
    if name in SHELL:
        return Call("shell", command=text(tool_input.get("command")))
    path = text(tool_input.get("file_path") or tool_input.get("notebook_path"))
    if name in READ and path:
        return Call("read", paths=(path,))
    if name in EDIT and path:
        old = text(tool_input.get("old_string"))
        edits = tool_input.get("edits")
        if isinstance(edits, list):  # MultiEdit
            old = "\n".join(text(e.get("old_string")) for e in edits if isinstance(e, dict))
        return Call("edit", paths=(path,), old_text=old)
    return None


def parse(event: str, payload: dict[str, Any]) -> HookEvent | None:
    """The normalised event, or None for a tool or event Cairn does not watch."""
    ev = claude_shaped(AGENT, EVENTS, event, payload)
    if ev is None:
        return None
    kind = ev.kind
    if kind == "tool":
        tool_input = payload.get("tool_input")
        ev.call = tool_call(
            text(payload.get("tool_name")), tool_input if isinstance(tool_input, dict) else {}
        )
        if ev.call is None:
            return None
    return ev


def respond(ev: HookEvent, context: str) -> str:
    """Add `context` to what the model sees next."""
    return additional_context(ev, context)


def deny(ev: HookEvent, reason: str) -> str:
    """Stop this PreToolUse call once, with `reason` (a gate); "" on any other event."""
    return permission_deny(ev, reason)
