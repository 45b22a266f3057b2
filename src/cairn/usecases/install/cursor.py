"""Cursor (not verified: no Cursor build could be run here): hooks, MCP, and rules files.

Project scope writes `<proj>/.cursor/hooks.json` (the stable `cairn-hook` command, the same on
every machine) and the rules files of `cairn.usecases.install.cursor_rules`, and the MCP server
(this
machine's interpreter) into `~/.cursor/mcp.json`; user scope writes `~/.cursor/hooks.json` and
`~/.cursor/mcp.json` (Cursor has no user rules folder). Hooks are flat entries:

    {"version": 1, "hooks": {"sessionStart": [{"command": "... sessionStart"}],
                             "postToolUse": [{"command": "... postToolUse",
                                              "matcher": "Shell|Read|Edit|Write|StrReplace"}]}}

`sessionStart` and `postToolUse` are registered, the two events that take
`additional_context`, and `beforeShellExecution` for gates (opt-in, see `cairn.usecases.gates`):
there
the hook prints nothing (no "allow", which could skip the user's own approval) unless a gate
stops the command once with `{"permission": "deny", ...}`; it records no lesson there.
`afterFileEdit` takes no context and is not registered. NOT verified: no Cursor build runs
here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.usecases.install import cursor_rules
from cairn.usecases.install.command import SERVER_NAME
from cairn.usecases.install.files import Edit, json_edit, parse_json, read_bytes
from cairn.usecases.install.merge import cairn_handlers, hooks_change, server_change
from cairn.usecases.install.plan import HOOK_TIMEOUT_S, HookSite, Installed, Plan, Target

AGENT = "cursor"
EVENTS: dict[str, str | None] = {
    "sessionStart": None,
    "beforeShellExecution": None,
    "postToolUse": "Shell|Read|Edit|Write|StrReplace",
}
PROBE_EVENT = "postToolUse"


def paths(target: Target) -> tuple[Path, Path]:
    """(hooks.json, the mcp.json holding the server: the user's, at either scope)."""
    return target.base / ".cursor" / "hooks.json", target.user_home / ".cursor" / "mcp.json"


def entries(target: Target) -> dict[str, dict[str, Any]]:
    """Cairn's flat hook entry for each event."""
    out: dict[str, dict[str, Any]] = {}
    for event, matcher in EVENTS.items():
        entry: dict[str, Any] = {"command": target.launch.hook_command(AGENT, event)}
        if matcher:
            entry["matcher"] = matcher
        out[event] = entry
    return out


def server(target: Target) -> dict[str, Any]:
    """Cairn's MCP server entry."""
    argv = target.launch.server
    return {"command": argv[0], "args": list(argv[1:]), "env": target.launch.server_env}


def _empty(data: dict[str, Any]) -> bool:
    return not {k: v for k, v in data.items() if v not in ({}, []) and k != "version"}


def plan(target: Target, uninstall: bool) -> Plan:
    """The edits that install (or remove) Cairn for Cursor at the target's scope."""
    hooks_file, mcp_file = paths(target)
    edits: list[Edit] = [
        json_edit(
            hooks_file,
            hooks_change(
                hooks_file, {} if uninstall else entries(target), flat=True, defaults={"version": 1}
            ),
            uninstall=uninstall,
            backups=target.backups,
            empty=_empty,
        ),
        json_edit(
            mcp_file,
            server_change(
                mcp_file, "mcpServers", SERVER_NAME, None if uninstall else server(target)
            ),
            uninstall=uninstall,
            backups=target.backups,
        ),
    ]
    notes: list[str] = []
    if target.scope == "project":
        legacy = target.project / ".cursor" / "mcp.json"  # where setup put the server before
        edits.append(
            json_edit(
                legacy,
                server_change(legacy, "mcpServers", SERVER_NAME, None),
                uninstall=True,
                backups=target.backups,
            )
        )
        wanted = (
            {}
            if uninstall
            else cursor_rules.files(cursor_rules.lessons(target.store, target.project))
        )
        rules, skipped = cursor_rules.edits(target.project, wanted)
        edits += rules
        notes += [f"{p} is not Cairn's; left as it is." for p in skipped]
        if not uninstall:
            notes.append(
                f"Cursor reportedly does not show hook context to the model, so lessons also "
                f"go into {cursor_rules.rules_dir(target.project)} ({len(wanted)} rules files "
                f"from the current lessons): run `cairn setup cursor` again after adding "
                f"lessons."
            )
    elif not uninstall:
        notes.append(
            "Cursor has no user-level rules folder: run `cairn setup cursor` in each "
            "project to turn its lessons into rules files."
        )
    if not uninstall:
        notes.append(
            "Cursor support is unverified (no Cursor build could be tested): "
            "`cairn doctor` checks that the hook runs."
        )
    return Plan(edits, notes)


def installed(target: Target) -> Installed | None:
    """Cairn's hooks and server in Cursor's config at this scope, if any."""
    hooks_file, mcp_file = paths(target)
    data = parse_json(hooks_file, read_bytes(hooks_file))
    sites = tuple(
        HookSite(
            event,
            command=str(handler.get("command")),
            timeout_s=float(handler.get("timeout") or HOOK_TIMEOUT_S),
        )
        for event, _, _, _, handler in cairn_handlers(data.get("hooks"), flat=True)
    )
    servers = parse_json(mcp_file, read_bytes(mcp_file)).get("mcpServers")
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if not sites and entry is None:
        return None
    extra: dict[str, Any] = {}
    if target.scope == "project":
        folder = cursor_rules.rules_dir(target.project)
        extra["rules"] = (
            sorted(p.name for p in folder.glob("cairn-*.mdc") if cursor_rules.is_ours(p))
            if folder.is_dir()
            else []
        )
    return Installed(
        AGENT,
        target.scope,
        hooks_file,
        sites,
        (PROBE_EVENT, probe(target)),
        entry if isinstance(entry, dict) else None,
        mcp_file,
        extra,
    )


def probe(target: Target) -> dict[str, Any]:
    """A harmless postToolUse payload (a Shell `true`), in the documented shape."""
    return {
        "hook_event_name": "postToolUse",
        "conversation_id": "cairn-doctor",
        "generation_id": "cairn-doctor",
        "workspace_roots": [str(target.project)],
        "tool_name": "Shell",
        "tool_input": {"command": "true"},
    }
