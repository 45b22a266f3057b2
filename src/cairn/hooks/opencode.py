"""OpenCode (verified against 1.18.33): a generated JS plugin calls this hook.

OpenCode has no stdout hook protocol: its plugin (written by `cairn setup opencode`) runs in
`tool.execute.after`, pipes this JSON to `cairn-hook opencode after`, and appends what the hook
prints to `output.output`, the tool result the model reads next:

    {"tool": "bash", "sessionID": "…", "callID": "…", "directory": "/work/app",
     "args": {"command": "git push"}}

Tools: bash (`command`), read (`filePath`), edit / write (`filePath`, `oldString`),
apply_patch / patch (`patchText` or `patch`). `event` = "start" for a session's first call
(the plugin sends it once per session). The response is plain text.

`event` = "before" comes from `tool.execute.before`, with the same payload, for gates only
(opt-in, `cairn.usecases.gates`; OpenCode has no channel for context before a call): the hook prints
the reason only when a gate stops the call, and the plugin throws it as an Error, which
OpenCode returns to the model as the call's result; the call made again runs (verified
against 1.18.33). On "before" the hook prints nothing else, ever.
"""

from __future__ import annotations

from cairn.hooks.codex import patch_files
from cairn.hooks.event import HookEvent, text
from cairn.usecases.calls import Call

TYPE_CHECKING = False  # not typing: the hook imports this module
if TYPE_CHECKING:
    from typing import Any

AGENT = "opencode"


def parse(event: str, payload: dict[str, Any]) -> HookEvent | None:
    """The normalised event, or None for a tool Cairn does not watch."""
    before = event.lower() == "before"
    ev = HookEvent(
        AGENT,
        event,
        "tool",
        session=text(payload.get("sessionID")),
        cwd=text(payload.get("directory")),
        phase="before" if before else "after",
    )
    if event.lower() in ("start", "sessionstart"):
        ev.kind = "start"
        return ev
    ev.lessons, ev.gates = not before, before
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
    """Plain text, appended by the plugin to the tool's output ("" on "before")."""
    return "" if ev.kind == "end" or ev.phase == "before" else "\n\n" + context


def deny(ev: HookEvent, reason: str) -> str:
    """The reason, which the plugin throws from `tool.execute.before` (a gate); "" else."""
    return reason if ev.gates and reason else ""
