"""Cursor hooks (NOT verified: no offline Cursor build could be run; from docs and 3rd parties).

Payloads (stdin) share `hook_event_name`, `conversation_id`, `generation_id`,
`workspace_roots`. `beforeShellExecution`: `command`, `cwd`. `beforeReadFile`: `file_path`,
`content`. `afterFileEdit`: `file_path`, `edits: [{old_string, new_string}]`. Newer builds:
`preToolUse` / `postToolUse` with `tool_name` (Shell, Read, Edit, Write) and `tool_input`;
`sessionStart`.

before* events expect a permission answer; Cairn never gives an "allow" (it could skip the
user's own approval), so it prints nothing there, except for a gate (opt-in,
`cairn.usecases.gates`) on
`beforeShellExecution`: `{"permission": "deny", "user_message": ..., "agent_message": TEXT}`
stops the command once, with the rule for the agent (Cursor's documented contract; NOT
verified, no Cursor build runs here). `postToolUse` and `sessionStart` take
`{"additional_context": TEXT}`, which third parties report is not shown to the model: Cursor
should also get its lessons through MCP and the generated `.cursor/rules/*.mdc`
(see docs/hooks.md).
"""

from __future__ import annotations

from cairn.core.codec import dumps
from cairn.hooks.event import HookEvent, text
from cairn.usecases.calls import Call

TYPE_CHECKING = False  # not typing: the hook imports this module
if TYPE_CHECKING:
    from typing import Any

AGENT = "cursor"
TOOLS = {"Shell": "shell", "Read": "read", "Edit": "edit", "Write": "edit", "StrReplace": "edit"}


def parse(event: str, payload: dict[str, Any]) -> HookEvent | None:
    """The normalised event, or None for a tool or event Cairn does not watch."""
    name = text(payload.get("hook_event_name")) or event
    low = name.lower()
    roots = payload.get("workspace_roots")
    cwd = text(payload.get("cwd")) or (text(roots[0]) if isinstance(roots, list) and roots else "")
    session = text(payload.get("conversation_id"))
    ev = HookEvent(AGENT, name, "tool", session=session, cwd=cwd, phase="")
    if low == "sessionstart":
        ev.kind = "start"
    elif low in ("stop", "sessionend"):
        ev.kind = "end"
    elif low == "beforeshellexecution":
        ev.call, ev.phase = Call("shell", command=text(payload.get("command"))), "before"
        ev.gates = True
    elif low == "beforereadfile":
        ev.call, ev.phase = Call("read", paths=(text(payload.get("file_path")),)), "before"
    elif low == "afterfileedit":
        edits = payload.get("edits")
        old = (
            "\n".join(text(e.get("old_string")) for e in edits if isinstance(e, dict))
            if isinstance(edits, list)
            else ""
        )
        ev.call = Call("edit", paths=(text(payload.get("file_path")),), old_text=old)
        ev.phase = "after"
    elif low in ("pretooluse", "posttooluse"):
        kind = TOOLS.get(text(payload.get("tool_name")))
        args = payload.get("tool_input")
        args = args if isinstance(args, dict) else {}
        ev.phase = "before" if low == "pretooluse" else "after"
        if kind == "shell":
            ev.call = Call("shell", command=text(args.get("command")))
        elif kind:
            path = text(args.get("file_path") or args.get("path"))
            ev.call = Call(kind, paths=(path,), old_text=text(args.get("old_string")))
        else:
            return None
    else:
        return None
    # Context reaches Cursor only on postToolUse and sessionStart (see above).
    ev.lessons = ev.kind != "tool" or low == "posttooluse"
    return ev


def respond(ev: HookEvent, context: str) -> str:
    """`additional_context` where Cursor accepts it; nothing on before* events."""
    if ev.kind == "end" or ev.phase == "before" or ev.name.lower() == "afterfileedit":
        return ""
    return dumps({"additional_context": context})


def deny(ev: HookEvent, reason: str) -> str:
    """Stop this beforeShellExecution call once, with `reason` (a gate); "" on other events."""
    if not (ev.gates and reason):
        return ""
    user = "Cairn stopped this command once to show the agent a project rule first."
    return dumps({"permission": "deny", "user_message": user, "agent_message": reason})
