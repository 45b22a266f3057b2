"""Codex CLI: hooks in `hooks.json`, the MCP server and hook trust in `config.toml`.

Files (`$CODEX_HOME` defaults to ~/.codex):

- hooks: `<proj>/.codex/hooks.json` (project) or `$CODEX_HOME/hooks.json` (user), the same
  JSON shape as Claude Code's, timeouts in seconds: PreToolUse (matcher `Bash|apply_patch`),
  SessionStart, Stop. Codex reads a project's hooks only when the project is trusted.
- MCP: `[mcp_servers.cairn]` in `$CODEX_HOME/config.toml`, at either scope: the server is
  started with this machine's interpreter, so it stays out of the project's committed files
  (a Cairn server an older setup put in `<proj>/.codex/config.toml` is taken out). The
  project's `hooks.json` runs the stable `cairn-hook` command, the same on every machine.
- trust: Codex silently skips a hook that is not trusted. Setup writes trust only when asked
  (`cairn setup codex --trust`); otherwise it says how to approve the hooks in Codex. Trust is
  `[hooks.state."<key>"] trusted_hash = "sha256:..."` in `$CODEX_HOME/config.toml`, where the
  key is `<hooks.json path as given>:<event label>:<group index>:<handler index>` and the hash is
  the SHA-256 of the compact, key-sorted JSON of the hook's normalised identity
  (`hook_hash` below). Checked against Codex 0.171.0 itself: `codex app-server` `hooks/list`
  reported these keys and hashes as `trusted`, and a `SessionStart` hook trusted this way ran in
  `codex exec`. Codex keys trust by position, so Cairn's groups keep their place on updates.

Cairn's TOML lives in one marked block per file (`cairn.usecases.install.files.BLOCK_BEGIN`); the
rest of the file is never rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from cairn.usecases.install.command import SERVER_NAME
from cairn.usecases.install.files import (
    Edit,
    InstallError,
    join_block,
    json_edit,
    parse_json,
    parse_toml,
    read_bytes,
    split_block,
    toml_tables,
)
from cairn.usecases.install.merge import cairn_handlers, command_groups, hooks_change
from cairn.usecases.install.plan import HOOK_TIMEOUT_S, HookSite, Installed, Plan, Target

AGENT = "codex"
EVENTS: dict[str, str | None] = {
    "PreToolUse": "Bash|apply_patch",
    "SessionStart": None,
    "Stop": None,
}
LABELS = {
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
    "PermissionRequest": "permission_request",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
}
NO_MATCHER = ("stop", "user_prompt_submit")
DEFAULT_TIMEOUT_S = 600
PROBE_EVENT = "PreToolUse"
TRUST_HELP = (
    "open the Codex TUI and trust Cairn's hooks under /hooks, or run `cairn setup codex "
    "--trust` to have Cairn write the trust entries"
)


def codex_home(target: Target) -> Path:
    """`$CODEX_HOME`, else ~/.codex (as Codex spells it: the path is not resolved)."""
    configured = os.environ.get("CODEX_HOME")
    return Path(os.path.abspath(configured)) if configured else target.user_home / ".codex"


def paths(target: Target) -> tuple[Path, Path, Path]:
    """(hooks.json, the config.toml holding the MCP server, the config.toml holding trust)."""
    user = codex_home(target)
    if target.scope == "project":
        return target.project / ".codex" / "hooks.json", user / "config.toml", user / "config.toml"
    return user / "hooks.json", user / "config.toml", user / "config.toml"


def groups(target: Target) -> dict[str, dict[str, Any]]:
    """Cairn's matcher group for each event."""
    return command_groups(target, AGENT, EVENTS, HOOK_TIMEOUT_S)


def hook_hash(event: str, group: dict[str, Any], handler: dict[str, Any]) -> str:
    """The `trusted_hash` Codex expects for one command handler (see the module docstring).

    The identity is `{"event_name": label, "matcher": ..., "hooks": [handler]}` where the
    handler is normalised to `async` (default false), `command`, `statusMessage` (when set),
    `timeout` (default 600 s, at least 1; SessionEnd clamps to 1..3) and `type`. The matcher is
    left out for Stop and UserPromptSubmit, and wherever it is unset.
    """
    label = LABELS.get(event, event)
    timeout = handler.get("timeout")
    seconds = int(timeout) if isinstance(timeout, int | float) else None
    if label == "session_end":
        seconds = min(max(seconds if seconds is not None else 1, 1), 3)
    else:
        seconds = max(seconds if seconds is not None else DEFAULT_TIMEOUT_S, 1)
    normal: dict[str, Any] = {
        "async": bool(handler.get("async", False)),
        "command": handler.get("command"),
        "timeout": seconds,
        "type": "command",
    }
    if isinstance(handler.get("statusMessage"), str):
        normal["statusMessage"] = handler["statusMessage"]
    limit = handler.get("additionalContextLimit")
    if (
        isinstance(limit, int)
        and limit != 2500
        and label
        in (
            "pre_tool_use",
            "post_tool_use",
            "session_start",
            "user_prompt_submit",
            "subagent_start",
        )
    ):
        normal["additionalContextLimit"] = limit
    identity: dict[str, Any] = {"event_name": label, "hooks": [normal]}
    matcher = group.get("matcher")
    if isinstance(matcher, str) and label not in NO_MATCHER:
        identity["matcher"] = matcher
    serial = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(serial.encode("utf-8")).hexdigest()


def trust_entries(hooks_file: Path, hooks: object) -> dict[str, str]:
    """key -> trusted_hash for every Cairn handler of a parsed `hooks` section."""
    out: dict[str, str] = {}
    for event, gi, hi, group, handler in cairn_handlers(hooks):
        if event in LABELS:
            out[f"{hooks_file}:{LABELS[event]}:{gi}:{hi}"] = hook_hash(event, group, handler)
    return out


def server(target: Target) -> dict[str, Any]:
    """Cairn's `[mcp_servers.cairn]` table."""
    argv = target.launch.server
    table: dict[str, Any] = {"command": argv[0], "args": list(argv[1:])}
    if target.launch.server_env:
        table["env"] = target.launch.server_env
    return table


# -- the TOML block ---------------------------------------------------------------------------
def _table(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    """A nested table of parsed TOML ({} where a key is missing or not a table)."""
    for key in keys:
        value = data.get(key)
        data = value if isinstance(value, dict) else {}
    return data


def _block_data(path: Path, body: str) -> tuple[dict[str, Any] | None, dict[str, dict[str, Any]]]:
    """(Cairn's MCP table, Cairn's trust tables) from the body of its block."""
    data = parse_toml(path, body)
    mcp = _table(data, "mcp_servers").get(SERVER_NAME)
    states = _table(data, "hooks", "state")
    return (
        mcp if isinstance(mcp, dict) else None,
        {k: v for k, v in states.items() if isinstance(v, dict)},
    )


def _render(mcp: dict[str, Any] | None, states: dict[str, dict[str, Any]]) -> str:
    tables = [(["mcp_servers", SERVER_NAME], mcp)] if mcp else []
    tables += [(["hooks", "state", key], values) for key, values in states.items()]
    return toml_tables(tables)


def toml_edit(
    path: Path,
    *,
    mcp: dict[str, Any] | bool | None = False,
    states: dict[str, str] | None = None,
    drop_prefix: str = "",
    notes: list[str] | None = None,
) -> Edit:
    """The edit of one config.toml: Cairn's block with `mcp` (False: keep it as it is; None:
    remove it) and its trust tables (those under `drop_prefix` replaced by `states`)."""
    raw = read_bytes(path)
    try:
        text = "" if raw is None else raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstallError(f"{path} is not UTF-8 text ({exc}); nothing was written") from exc
    parse_toml(path, text)
    outside, body = split_block(text)
    user = parse_toml(path, outside)
    old_mcp, old_states = _block_data(path, body)
    new_mcp = old_mcp if mcp is False or mcp is True else mcp
    if isinstance(new_mcp, dict) and SERVER_NAME in _table(user, "mcp_servers"):
        new_mcp = None
        if notes is not None and mcp:
            notes.append(f"{path} already has its own [mcp_servers.{SERVER_NAME}]; left as it is.")
    new_states = {
        k: v for k, v in old_states.items() if not (drop_prefix and k.startswith(drop_prefix))
    }
    theirs = _table(user, "hooks", "state")
    for key, digest in (states or {}).items():
        if isinstance(theirs.get(key), dict):
            if theirs[key].get("trusted_hash") != digest and notes is not None:
                notes.append(f"Codex holds an older trust entry for {key} in {path}: {TRUST_HELP}.")
            continue
        kept = dict(old_states.get(key, {}))
        kept["trusted_hash"] = digest
        new_states[key] = kept
    result = join_block(outside, _render(new_mcp, new_states))
    try:
        parse_toml(path, result)
    except InstallError as exc:
        raise InstallError(
            f"adding Cairn's tables would make {path} invalid ({exc}); nothing was written"
        ) from exc
    after = result.encode("utf-8")
    if after == raw:
        return Edit(path, raw, raw)
    if not result.strip():  # Cairn's block was all the file held: no backup of it
        return Edit(path, raw, None, backup=False)
    return Edit(path, raw, after)


# -- plan and inspection ----------------------------------------------------------------------
def plan(target: Target, uninstall: bool) -> Plan:
    """The edits that install (or remove) Cairn for Codex at the target's scope."""
    hooks_file, _, trust_file = paths(target)
    notes: list[str] = []
    wanted = {} if uninstall else groups(target)
    hooks_edit = json_edit(
        hooks_file, hooks_change(hooks_file, wanted), uninstall=uninstall, backups=target.backups
    )
    new_hooks = parse_json(hooks_file, hooks_edit.after).get("hooks")
    trusting = target.trust and not uninstall
    states = trust_entries(hooks_file, new_hooks) if trusting else {}
    # Uninstall drops Cairn's trust entries for this hooks file; setup without --trust keeps
    # what is there (the user's own approvals live in Codex's part of the file).
    prefix = f"{hooks_file}:" if uninstall or trusting else ""
    edits = [
        hooks_edit,
        toml_edit(
            trust_file,
            mcp=None if uninstall else server(target),
            states=states,
            drop_prefix=prefix,
            notes=notes,
        ),
    ]
    if target.scope == "project":
        legacy = target.project / ".codex" / "config.toml"  # where setup put the server before
        edits.append(toml_edit(legacy, mcp=None))
    if uninstall:
        old = parse_json(hooks_file, hooks_edit.before).get("hooks")
        moved = _moved_after_removal(old)
        if moved:
            notes.append(
                f"Codex keys hook trust by position: {moved} of your hooks in "
                f"{hooks_file.name} moved up and must be trusted again: {TRUST_HELP}."
            )
        return Plan(edits, notes)
    if trusting:
        notes.append(
            f"Cairn's hooks are trusted in {trust_file}, as you asked with --trust (Codex "
            f"skips untrusted hooks silently); `cairn doctor` checks it."
        )
    else:
        notes.append(
            f"Codex runs a hook only once you approve it, and skips it silently until then: "
            f"{TRUST_HELP}. `cairn doctor` checks it."
        )
    if target.scope == "project" and not project_trusted(trust_file, target.project):
        notes.append(
            f"Codex reads {hooks_file} only in a trusted project: trust {target.project} "
            f"when Codex asks."
        )
    return Plan(edits, notes)


def _moved_after_removal(hooks: object) -> int:
    """How many user groups stand after a Cairn group (their trust keys shift on removal)."""
    moved = 0
    if not isinstance(hooks, dict):
        return 0
    cairn = {(e, gi) for e, gi, _, _, _ in cairn_handlers(hooks)}
    for event, entries in hooks.items():
        if isinstance(entries, list):
            firsts = [gi for e, gi in cairn if e == event]
            if firsts:
                moved += sum(
                    1 for gi in range(min(firsts), len(entries)) if (event, gi) not in cairn
                )
    return moved


def project_trusted(config: Path, project: Path) -> bool:
    """True when config.toml marks the project `trust_level = "trusted"`."""
    raw = read_bytes(config)
    if raw is None:
        return False
    try:
        data = parse_toml(config, raw.decode("utf-8", errors="replace"))
    except InstallError:
        return False
    entry = _table(data, "projects").get(str(project))
    return isinstance(entry, dict) and entry.get("trust_level") == "trusted"


def trusted_hashes(config: Path) -> dict[str, str]:
    """key -> trusted_hash of every `[hooks.state]` entry in a config.toml."""
    raw = read_bytes(config)
    if raw is None:
        return {}
    data = parse_toml(config, raw.decode("utf-8", errors="replace"))
    states = _table(data, "hooks", "state")
    return {k: str(v.get("trusted_hash", "")) for k, v in states.items() if isinstance(v, dict)}


def installed(target: Target) -> Installed | None:
    """Cairn's hooks, trust entries and server in Codex's config at this scope, if any."""
    hooks_file, mcp_file, trust_file = paths(target)
    hooks = parse_json(hooks_file, read_bytes(hooks_file)).get("hooks")
    sites = []
    for event, gi, hi, group, handler in cairn_handlers(hooks):
        label = LABELS.get(event, event)
        sites.append(
            HookSite(
                event,
                command=str(handler.get("command")),
                timeout_s=float(handler.get("timeout") or DEFAULT_TIMEOUT_S),
                key=f"{hooks_file}:{label}:{gi}:{hi}",
                hash=hook_hash(event, group, handler),
            )
        )
    raw = read_bytes(mcp_file)
    data = parse_toml(mcp_file, "" if raw is None else raw.decode("utf-8", errors="replace"))
    entry = _table(data, "mcp_servers").get(SERVER_NAME)
    if not sites and entry is None:
        return None
    extra: dict[str, Any] = {"trust_file": trust_file, "trusted": trusted_hashes(trust_file)}
    if target.scope == "project":
        extra["project_trusted"] = project_trusted(trust_file, target.project)
    return Installed(
        AGENT,
        target.scope,
        hooks_file,
        tuple(sites),
        (PROBE_EVENT, probe(target)),
        entry if isinstance(entry, dict) else None,
        mcp_file,
        extra,
    )


def probe(target: Target) -> dict[str, Any]:
    """A harmless recorded-shape PreToolUse payload (a Bash `true`)."""
    return {
        "session_id": "cairn-doctor",
        "turn_id": "cairn-doctor",
        "transcript_path": "",
        "cwd": str(target.project),
        "hook_event_name": "PreToolUse",
        "model": "",
        "tool_name": "Bash",
        "tool_input": {"command": "true"},
        "tool_use_id": "cairn-doctor",
    }
