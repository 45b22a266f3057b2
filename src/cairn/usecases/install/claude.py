"""Claude Code: hooks in `.claude/settings.json`, the MCP server in the user's `~/.claude.json`.

Project scope writes the hooks into `<proj>/.claude/settings.json`, the file a team commits,
with the stable command (`cairn.usecases.install.command.PORTABLE`): the same bytes on every
machine.
What is machine-specific goes where Claude Code keeps personal settings: the MCP server (the
absolute interpreter) into `~/.claude.json` under `projects.<proj>.mcpServers` (Claude Code's
"local" scope: this user, this project, no approval prompt), and an explicit store folder into
`<proj>/.claude/settings.local.json` as `env.CAIRN_HOME`. A Cairn server an older setup put in
`<proj>/.mcp.json` is taken out. User scope writes `~/.claude/settings.json` and
`~/.claude.json` (`mcpServers`). Shape written (timeouts in seconds):

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Read|Edit|Write|MultiEdit",
                               "hooks": [{"type": "command", "command": "... PreToolUse",
                                          "timeout": 5}]}],
               "SessionStart": [{"hooks": [...]}], "Stop": [...], "SessionEnd": [...]}}
    {"mcpServers": {"cairn": {"type": "stdio", "command": "...", "args": ["mcp"], "env": {}}}}

PostToolUse is not registered: a lesson given on PreToolUse is recorded as given, so a second
hook on the same call could only repeat nothing and cost another start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cairn.usecases.install.command import HOME_VAR, SERVER_NAME
from cairn.usecases.install.files import Edit, JsonObject, json_edit, parse_json, read_bytes
from cairn.usecases.install.merge import (
    cairn_handlers,
    command_groups,
    hooks_change,
    nested_server_change,
    server_change,
)
from cairn.usecases.install.plan import HOOK_TIMEOUT_S, HookSite, Installed, Plan, Target

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
        return target.project / ".claude" / "settings.json", target.user_home / ".claude.json"
    return target.user_home / ".claude" / "settings.json", target.user_home / ".claude.json"


def server_keys(target: Target) -> list[str]:
    """Where in `~/.claude.json` the server lives: this project's entry, or the top level."""
    if target.scope == "project":
        return ["projects", str(target.project), "mcpServers"]
    return ["mcpServers"]


def local_env_change(home: str | None) -> Callable[[JsonObject], None]:
    """A change for settings.local.json: `env.CAIRN_HOME` set to `home`, or removed (None)."""

    def change(data: JsonObject) -> None:
        env = data.get("env")
        if home is None:
            if isinstance(env, dict) and HOME_VAR in env:
                del env[HOME_VAR]
                if not env:
                    del data["env"]
            return
        data.setdefault("env", {})
        if isinstance(data["env"], dict):
            data["env"][HOME_VAR] = home

    return change


def groups(target: Target) -> dict[str, dict[str, Any]]:
    """Cairn's matcher group for each event."""
    return command_groups(target, AGENT, EVENTS, HOOK_TIMEOUT_S)


def server(target: Target) -> dict[str, Any]:
    """Cairn's MCP server entry."""
    argv = target.launch.server
    return {
        "type": "stdio",
        "command": argv[0],
        "args": list(argv[1:]),
        "env": target.launch.server_env,
    }


def plan(target: Target, uninstall: bool) -> Plan:
    """The edits that install (or remove) Cairn for Claude Code at the target's scope."""
    settings, mcp = paths(target)
    wanted = {} if uninstall else groups(target)
    entry = None if uninstall else server(target)
    edits: list[Edit] = [
        json_edit(
            settings,
            hooks_change(settings, wanted),
            uninstall=uninstall,
            backups=target.backups,
        ),
        json_edit(
            mcp,
            nested_server_change(mcp, server_keys(target), SERVER_NAME, entry),
            uninstall=uninstall,
            backups=target.backups,
        ),
    ]
    notes: list[str] = []
    if target.scope == "project":
        legacy = target.project / ".mcp.json"  # where setup put the server before
        edits.append(
            json_edit(
                legacy,
                server_change(legacy, "mcpServers", SERVER_NAME, None),
                uninstall=True,
                backups=target.backups,
            )
        )
        local = settings.with_name("settings.local.json")
        home = None if uninstall else target.launch.home
        edits.append(
            json_edit(local, local_env_change(home), uninstall=uninstall, backups=target.backups)
        )
        if home is not None:
            notes.append(
                f"The store folder is set for this project in {local} (personal; keep it out "
                f"of git)."
            )
    if not uninstall:
        notes.append(
            "Claude Code reads lessons on PreToolUse from version 2.1.9 (2.1.110 when "
            "the tool fails); they arrive with the tool's result."
        )
        if target.scope == "project":
            notes.append(
                f"{settings} runs `cairn-hook` from PATH and is the same on every machine: "
                f"commit it. The MCP server is yours alone, in {mcp} (this project only)."
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
    servers: object = parse_json(mcp, read_bytes(mcp))
    for key in server_keys(target):
        servers = servers.get(key) if isinstance(servers, dict) else None
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if entry is None and target.scope == "project":
        legacy = target.project / ".mcp.json"
        old = parse_json(legacy, read_bytes(legacy)).get("mcpServers")
        entry = old.get(SERVER_NAME) if isinstance(old, dict) else None
        mcp = legacy if entry is not None else mcp
    extra: dict[str, Any] = {}
    if target.scope == "project":
        local = settings.with_name("settings.local.json")
        env = parse_json(local, read_bytes(local)).get("env")
        if isinstance(env, dict) and isinstance(env.get(HOME_VAR), str):
            extra["env"] = {HOME_VAR: env[HOME_VAR]}
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
        extra,
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
