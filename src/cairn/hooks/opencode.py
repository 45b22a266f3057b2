"""OpenCode (verified against 1.18.33): a generated JS plugin calls this hook.

OpenCode has no stdout hook protocol: its plugin (written by `cairn setup opencode`) runs in
`tool.execute.after`, pipes this JSON to `cairn-hook opencode after`, and appends what the hook
prints to `output.output`, the tool result the model reads next:

    {"tool": "bash", "sessionID": "…", "callID": "…", "directory": "/work/app",
     "args": {"command": "git push"}}

Tools: bash (`command`), read (`filePath`), edit / write (`filePath`, `oldString`),
apply_patch / patch (`patchText` or `patch`). `event` = "start" for a session's first call
(the plugin sends it once per session). The response is plain text.
"""

from __future__ import annotations

from cairn.calls import Call
from cairn.hooks.codex import patch_files
from cairn.hooks.event import HookEvent, text

TYPE_CHECKING = False  # not typing: the hook imports this module
if TYPE_CHECKING:
    from typing import Any

AGENT = "opencode"


def parse(event: str, payload: dict[str, Any]) -> HookEvent | None:
    """The normalised event, or None for a tool Cairn does not watch."""
    ev = HookEvent(
        AGENT,
        event,
        "tool",
        session=text(payload.get("sessionID")),
        cwd=text(payload.get("directory")),
        phase="after",
    )
    if event.lower() in ("start", "sessionstart"):
        ev.kind = "start"
        return ev
    tool = text(payload.get("tool")).lower()
    args = payload.get("args")
    args = args if isinstance(args, dict) else {}
    if tool == "bash":
        ev.call = Call("shell", command=text(args.get("command")))
    elif tool == "read":
        ev.call = Call("read", paths=(text(args.get("filePath")),))
    elif tool in ("edit", "write"):
        ev.call = Call(
            "edit", paths=(text(args.get("filePath")),), old_text=text(args.get("oldString"))
        )
    elif tool in ("apply_patch", "patch"):
        files, removed = patch_files(text(args.get("patchText") or args.get("patch")))
        if not files:
            return None
        ev.call = Call("edit", paths=files, old_text=removed)
    else:
        return None
    return ev


def respond(ev: HookEvent, context: str) -> str:
    """Plain text, appended by the plugin to the tool's output."""
    return "" if ev.kind == "end" else "\n\n" + context
