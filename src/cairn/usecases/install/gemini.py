"""Gemini CLI: hooks and the MCP server in `.gemini/settings.json`.

Project scope writes the hooks into `<proj>/.gemini/settings.json` with the stable `cairn-hook`
command (the same bytes on every machine) and the MCP server, which names this machine's
interpreter, into the user's `~/.gemini/settings.json`; user scope writes both there.
Timeouts are in milliseconds. Lessons go out on AfterTool, appended to the tool's result:
BeforeTool ignores added context. BeforeTool is registered for gates (opt-in, see
`cairn.usecases.gates`), the only way to put a rule in front of the model before the call runs;
with no
gate it costs one hook start-up per call, which exits on the trigger list alone.

    {"hooks": {"BeforeTool": [
        {"matcher": "run_shell_command|read_file|read_many_files|replace|write_file",
         "hooks": [{"type": "command", "command": "... BeforeTool", "timeout": 5000,
                    "name": "cairn"}]}],
               "AfterTool": [... "... AfterTool" ...],
               "SessionStart": [...], "SessionEnd": [...]},
     "mcpServers": {"cairn": {"command": "...", "args": ["mcp"]}}}

Gemini runs hooks only in a trusted folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.usecases.install.command import SERVER_NAME
from cairn.usecases.install.files import json_edit, parse_json, read_bytes
from cairn.usecases.install.merge import (
    both,
    cairn_handlers,
    command_groups,
    hooks_change,
    server_change,
)
from cairn.usecases.install.plan import HOOK_TIMEOUT_S, HookSite, Installed, Plan, Target

AGENT = "gemini"
TOOLS = "run_shell_command|read_file|read_many_files|replace|write_file"
EVENTS: dict[str, str | None] = {
    "BeforeTool": TOOLS,
    "AfterTool": TOOLS,
    "SessionStart": None,
    "SessionEnd": None,
}
PROBE_EVENT = "AfterTool"
DEFAULT_TIMEOUT_MS = 60_000


def settings_path(target: Target) -> Path:
    """The settings file holding both the hooks and the MCP server."""
    return target.base / ".gemini" / "settings.json"


def groups(target: Target) -> dict[str, dict[str, Any]]:
    """Cairn's matcher group for each event (timeouts in ms)."""
    return command_groups(target, AGENT, EVENTS, HOOK_TIMEOUT_S * 1000, name=SERVER_NAME)


def server(target: Target) -> dict[str, Any]:
    """Cairn's MCP server entry."""
    argv = target.launch.server
    entry: dict[str, Any] = {"command": argv[0], "args": list(argv[1:])}
    if target.launch.server_env:
        entry["env"] = target.launch.server_env
    return entry


def user_settings(target: Target) -> Path:
    """The user's settings file, which holds the MCP server at either scope."""
    return target.user_home / ".gemini" / "settings.json"


def plan(target: Target, uninstall: bool) -> Plan:
    """The edits that install (or remove) Cairn for Gemini CLI at the target's scope."""
    path = settings_path(target)
    entry = None if uninstall else server(target)
    hooks = hooks_change(path, {} if uninstall else groups(target))
    mine = user_settings(target)
    if path == mine:
        edits = [
            json_edit(
                path,
                both(hooks, server_change(path, "mcpServers", SERVER_NAME, entry)),
                uninstall=uninstall,
                backups=target.backups,
                comments=True,
            )
        ]
    else:  # the project's file: hooks only (a server an older setup put there goes)
        legacy = server_change(path, "mcpServers", SERVER_NAME, None)
        edits = [
            json_edit(
                path,
                both(hooks, legacy),
                uninstall=uninstall,
                backups=target.backups,
                comments=True,
            ),
            json_edit(
                mine,
                server_change(mine, "mcpServers", SERVER_NAME, entry),
                uninstall=uninstall,
                backups=target.backups,
                comments=True,
            ),
        ]
    notes: list[str] = []
    if not uninstall:
        where = target.project if target.scope == "project" else "each project"
        notes.append(
            f"Gemini CLI runs hooks only in a trusted folder: trust {where} when "
            f"Gemini asks (headless runs: GEMINI_CLI_TRUST_WORKSPACE=true)."
        )
    return Plan(edits, notes)


def installed(target: Target) -> Installed | None:
    """Cairn's hooks and server in Gemini's settings at this scope, if any."""
    path = settings_path(target)
    data = parse_json(path, read_bytes(path), comments=True)
    sites = tuple(
        HookSite(
            event,
            command=str(handler.get("command")),
            timeout_s=float(handler.get("timeout") or DEFAULT_TIMEOUT_MS) / 1000,
        )
        for event, _, _, _, handler in cairn_handlers(data.get("hooks"))
    )
    server_file = path
    servers = data.get("mcpServers")
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if entry is None and path != user_settings(target):
        server_file = user_settings(target)
        servers = parse_json(server_file, read_bytes(server_file), comments=True).get("mcpServers")
        entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if not sites and (entry is None or server_file != path):
        return None
    return Installed(
        AGENT,
        target.scope,
        path,
        sites,
        (PROBE_EVENT, probe(target)),
        entry if isinstance(entry, dict) else None,
        server_file,
    )


def probe(target: Target) -> dict[str, Any]:
    """A harmless recorded-shape AfterTool payload (a `true` shell command)."""
    return {
        "session_id": "cairn-doctor",
        "transcript_path": "",
        "cwd": str(target.project),
        "hook_event_name": "AfterTool",
        "timestamp": "",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "true", "description": "cairn doctor probe"},
        "tool_response": {"llmContent": "", "returnDisplay": ""},
    }
