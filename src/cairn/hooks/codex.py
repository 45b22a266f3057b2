"""Codex CLI hooks (verified against 0.171.0; hooks run only once trusted).

Payload (stdin), trimmed:

    {"session_id": "…", "turn_id": "…", "transcript_path": "…", "cwd": "/work/app",
     "hook_event_name": "PreToolUse", "model": "gpt-5.5", "tool_name": "Bash",
     "tool_input": {"command": "git commit -m x"}, "tool_use_id": "…"}

The shell tool is always `Bash` with `tool_input.command` a string. `apply_patch` carries the
whole patch in `tool_input.command`; its files are the `*** Update File:`, `*** Add File:`,
`*** Delete File:` and `*** Move to:` lines. Context goes back as Claude's:
`{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": TEXT}}`, delivered as a
developer message placed before the call's output but first sent with it (after the call ran).
A gate (opt-in, `cairn.usecases.gates`) stops a PreToolUse call once with Claude's shape,
`"permissionDecision": "deny"` and a non-empty `"permissionDecisionReason"`: the reason is the
call's output, and the call made again runs. Codex takes no explicit `allow` (it logs
"PreToolUse hook returned unsupported permissionDecision:allow"): to let a call run, the hook
prints nothing (both verified against 0.171.0).
"""

from __future__ import annotations

from cairn.hooks.event import HookEvent, additional_context, claude_shaped, permission_deny, text
from cairn.usecases.calls import Call

TYPE_CHECKING = False  # not typing: the hook imports this module
if TYPE_CHECKING:
    from typing import Any

AGENT = "codex"
PATCH_MARKERS = ("*** Update File:", "*** Add File:", "*** Delete File:", "*** Move to:")
EVENTS = {
    "pretooluse": ("tool", "before"),
    "posttooluse": ("tool", "after"),
    "sessionstart": ("start", ""),
    "stop": ("end", ""),
}


def patch_files(patch: str) -> tuple[tuple[str, ...], str]:
    """The files an apply_patch touches, and the lines it removes (for cited-lines checks)."""
    files: list[str] = []
    removed: list[str] = []
    for line in patch.splitlines():
        for marker in PATCH_MARKERS:
            if line.startswith(marker):
                files.append(line[len(marker) :].strip())
                break
        else:
            if line.startswith("-") and not line.startswith("---"):
                removed.append(line[1:])
    return tuple(dict.fromkeys(f for f in files if f)), "\n".join(removed)


def parse(event: str, payload: dict[str, Any]) -> HookEvent | None:
    """The normalised event, or None for a tool or event Cairn does not watch."""
    ev = claude_shaped(AGENT, EVENTS, event, payload)
    if ev is None:
        return None
    kind = ev.kind
    if kind != "tool":
        return ev
    name = text(payload.get("tool_name"))
    tool_input = payload.get("tool_input")
    raw = tool_input.get("command") if isinstance(tool_input, dict) else tool_input
    if isinstance(raw, list):  # older builds: argv list
        raw = " ".join(str(part) for part in raw)
    command = text(raw)
    if name in ("Bash", "shell", "exec_command", "local_shell"):
        ev.call = Call("shell", command=command)
    elif name == "apply_patch":
        files, removed = patch_files(command)
        if not files:
            return None
        ev.call = Call("edit", paths=files, old_text=removed)
    else:
        return None
    return ev


def respond(ev: HookEvent, context: str) -> str:
    """Add `context` as a developer message."""
    return additional_context(ev, context)


def deny(ev: HookEvent, reason: str) -> str:
    """Stop this PreToolUse call once, with `reason` (a gate); "" on any other event."""
    return permission_deny(ev, reason)
