"""Gemini CLI hooks (verified against 0.61.0; hooks run only in a trusted folder).

Payload (stdin), trimmed:

    {"session_id": "…", "transcript_path": "…", "cwd": "/work/app",
     "hook_event_name": "AfterTool", "timestamp": "…", "tool_name": "run_shell_command",
     "tool_input": {"command": "git push", "dir_path": "."},
     "tool_response": {"llmContent": "…", "returnDisplay": "…"}}

Tools: run_shell_command (`command`), read_file / read_many_files (`file_path`, `paths`),
replace (`file_path`, `old_string`), write_file (`file_path`). BeforeTool ignores added
context, so lessons go out on AfterTool, appended to the tool's result as
`{"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": TEXT}}`.
SessionStart takes the same shape. BeforeTool is for gates only (opt-in, `cairn.usecases.gates`):
`{"decision": "deny", "reason": TEXT}` stops the call once, and the model gets
"Tool execution blocked: TEXT" as its error; the call made again runs (verified against
0.61.0). Gemini shows any other stdout to the user as a warning, so the hook prints exactly
one of those JSON objects or nothing.
"""

from __future__ import annotations

from cairn.core.codec import dumps
from cairn.hooks.event import HookEvent, additional_context, claude_shaped, text
from cairn.usecases.calls import Call

TYPE_CHECKING = False  # not typing: the hook imports this module
if TYPE_CHECKING:
    from typing import Any

AGENT = "gemini"
EVENTS = {
    "aftertool": ("tool", "after"),
    "beforetool": ("tool", "before"),
    "sessionstart": ("start", ""),
    "sessionend": ("end", ""),
}


def parse(event: str, payload: dict[str, Any]) -> HookEvent | None:
    """The normalised event, or None for a tool or event Cairn does not watch."""
    ev = claude_shaped(AGENT, EVENTS, event, payload)
    if ev is None:
        return None
    if ev.kind != "tool":
        return ev
    ev.lessons = ev.phase == "after"  # BeforeTool context is ignored: gates only there
    name = text(payload.get("tool_name"))
    args = payload.get("tool_input")
    args = args if isinstance(args, dict) else {}
    if name == "run_shell_command":
        ev.call = Call("shell", command=text(args.get("command")))
    elif name in ("read_file", "read_many_files"):
        paths = [text(args.get("file_path"))]
        many = args.get("paths")
        if isinstance(many, list):
            paths += [text(p) for p in many]
        ev.call = Call("read", paths=tuple(p for p in paths if p))
    elif name in ("replace", "write_file", "edit"):
        ev.call = Call(
            "edit", paths=(text(args.get("file_path")),), old_text=text(args.get("old_string"))
        )
    else:
        return None
    if not ev.call.command and not ev.call.paths:
        return None
    return ev


def respond(ev: HookEvent, context: str) -> str:
    """Append `context` to the tool result (AfterTool) or the first prompt (SessionStart)."""
    return additional_context(ev, context)


def deny(ev: HookEvent, reason: str) -> str:
    """Stop this BeforeTool call once, with `reason` (a gate); "" on any other event."""
    if not (ev.gates and reason):
        return ""
    return dumps({"decision": "deny", "reason": reason})
