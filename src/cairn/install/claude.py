"""Claude Code: hooks in `.claude/settings.json`, the MCP server in `.mcp.json`.

Project scope writes `<proj>/.claude/settings.json` and `<proj>/.mcp.json`; user scope writes
`~/.claude/settings.json` and `~/.claude.json` (`mcpServers`). Shape written (timeouts in
seconds):

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Read|Edit|Write|MultiEdit",
                               "hooks": [{"type": "command", "command": "... PreToolUse",
                                          "timeout": 5}]}],
               "SessionStart": [{"hooks": [...]}], "Stop": [...], "SessionEnd": [...]}}
    {"mcpServers": {"cairn": {"type": "stdio", "command": "...", "args": ["mcp"], "env": {}}}}

PostToolUse is not registered: a lesson given on PreToolUse is recorded as given, so a second
hook on the same call could only repeat nothing and cost another start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.install.command import SERVER_NAME
from cairn.install.files import Edit, json_edit, parse_json, read_bytes
from cairn.install.merge import cairn_handlers, command_groups, hooks_change, server_change
from cairn.install.plan import HOOK_TIMEOUT_S, HookSite, Installed, Plan, Target

AGENT = "claude-code"
EVENTS: dict[str, str | None] = {
    "PreToolUse": "Bash|Read|Edit|Write|MultiEdit",
    "SessionStart": None,
    "Stop": None,
    "SessionEnd": None,
}
PROBE_EVENT = "PreToolUse"


def paths(target: Target) -> tuple[Path, Path]:
    """(the settings file holding the hooks, the file holding the MCP server)."""
    if target.scope == "project":
        return target.project / ".claude" / "settings.json", target.project / ".mcp.json"
    return target.user_home / ".claude" / "settings.json", target.user_home / ".claude.json"


def groups(target: Target) -> dict[str, dict[str, Any]]:
    """Cairn's matcher group for each event."""
    return command_groups(target, AGENT, EVENTS, HOOK_TIMEOUT_S)


def server(target: Target) -> dict[str, Any]:
    """Cairn's MCP server entry."""
    argv = target.launch.server
    return {"type": "stdio", "command": argv[0], "args": list(argv[1:]), "env": target.launch.env}


def plan(target: Target, uninstall: bool) -> Plan:
    """The edits that install (or remove) Cairn for Claude Code at the target's scope."""
    settings, mcp = paths(target)
    wanted = {} if uninstall else groups(target)
    edits: list[Edit] = [
        json_edit(
            settings, hooks_change(settings, wanted), uninstall=uninstall, backups=target.backups
        ),
        json_edit(
            mcp,
            server_change(mcp, "mcpServers", SERVER_NAME, None if uninstall else server(target)),
            uninstall=uninstall,
            backups=target.backups,
        ),
    ]
    notes: list[str] = []
    if not uninstall:
        notes.append(
            "Claude Code reads lessons on PreToolUse from version 2.1.9 (2.1.110 when "
            "the tool fails); they arrive with the tool's result."
        )
        if target.scope == "project":
            notes.append(
                f"Claude Code asks to approve project MCP servers: approve `cairn` "
                f"from {mcp.name} when asked (or under /mcp)."
            )
    return Plan(edits, notes)


def installed(target: Target) -> Installed | None:
    """Cairn's hooks and server in Claude Code's config at this scope, if any."""
    settings, mcp = paths(target)
    data = parse_json(settings, read_bytes(settings))
    sites = tuple(
        HookSite(
            event,
            command=str(handler.get("command")),
            timeout_s=float(handler.get("timeout") or 600),
        )
        for event, _, _, _, handler in cairn_handlers(data.get("hooks"))
    )
    servers = parse_json(mcp, read_bytes(mcp)).get("mcpServers")
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if not sites and entry is None:
        return None
    return Installed(
        AGENT,
        target.scope,
        settings,
        sites,
        (PROBE_EVENT, probe(target)),
        entry if isinstance(entry, dict) else None,
        mcp,
    )


def probe(target: Target) -> dict[str, Any]:
    """A harmless recorded-shape PreToolUse payload (a Bash `true`)."""
    return {
        "session_id": "cairn-doctor",
        "transcript_path": "",
        "cwd": str(target.project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "true", "description": "cairn doctor probe"},
        "tool_use_id": "cairn-doctor",
    }
