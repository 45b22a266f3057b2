"""`doctor()`: is Cairn installed for each agent, and does what the agent runs actually work?

For every agent whose config (project or user scope) holds Cairn's hooks or MCP server:

- config    the file and the events registered (a warning names the events this Cairn
            registers that the install lacks, e.g. the before-tool hook gates need)
- hook      the tool-call hook, run the way the agent runs it (`sh -c`, or the argv of the
            OpenCode plugin) on a harmless payload of the agent's shape (a shell `true`):
            exit 0 and stdout empty or JSON, and how long it took
- hooks     every other registered hook command (session start, stop, end), run on an empty
            payload (`{}`, which records nothing): each must exit 0 with nothing but JSON
- mcp       the registered `cairn` server, started as the agent starts it, answers
            `initialize` and lists its tools
- store     the store the hook and server read (their `CAIRN_HOME`, else the default) opens
            for real: a file where the folder should be, or a damaged database, fails with
            the steps that fix it; no store yet is a warning (the first memory creates it)
- triggers  the trigger list the hook reads first is the store's current one, line for line
- trust     (Codex) every Cairn hook is trusted: from `config.toml`, or from Codex itself
            (`codex app-server`, `hooks/list`) when a `codex` binary is found; a hook that is
            not fails, with the command that trusts it
- rules     (Cursor, project) the generated rules files

`cairn doctor` exits 1 when any check fails.

The checks live beside this module: `probes` (hooks and the MCP server run as the agent runs
them), `storecheck` (the store and its trigger list), `trustcheck` (Codex's trust), each a
line of the `report`.
"""

from __future__ import annotations

import os
from pathlib import Path

from cairn.io.store import default_home
from cairn.usecases.install.apply import AGENTS, agent_name, target
from cairn.usecases.install.command import HOME_VAR, split_command
from cairn.usecases.install.files import InstallError
from cairn.usecases.install.plan import SCOPES, Installed, Target
from cairn.usecases.install.probes import (
    PROBE_TIMEOUT_S,
    other_hooks,
    run_probe,
    server_check,
    server_environment,
)
from cairn.usecases.install.report import Check, Status
from cairn.usecases.install.storecheck import store_checks
from cairn.usecases.install.trustcheck import trust_checks

__all__ = ["Check", "Status", "doctor"]


def doctor(
    project_dir: str | os.PathLike[str] | None = None,
    *,
    home: str | os.PathLike[str] | None = None,
    agents: list[str] | None = None,
    codex_bin: str | bool | None = None,
) -> list[Check]:
    """Check every agent with Cairn installed, at project and user scope.

    `codex_bin`: a Codex binary to ask about hook trust (None: `codex` on PATH; False: never
    run Codex, read config.toml only).
    """
    names = [agent_name(a) for a in agents] if agents else list(AGENTS)
    checks: list[Check] = []
    seen: set[Path] = set()
    servers: set[Path] = set()
    for name in names:
        for scope in SCOPES:
            where = target(scope, project_dir, home)
            try:
                found = AGENTS[name].installed(where)
            except InstallError as exc:
                checks.append(Check(name, scope, "config", "fail", str(exc)))
                continue
            if found is None or found.config in seen:
                continue
            # A project install keeps its MCP server in the user's file: not a second install.
            if not found.hooks and found.server_file in servers:
                continue
            seen.add(found.config)
            if found.server_file is not None and found.server is not None:
                servers.add(found.server_file)
            checks += _agent_checks(found, where, home, codex_bin)
    return checks


def _agent_checks(
    found: Installed,
    where: Target,
    home: str | os.PathLike[str] | None,
    codex_bin: str | bool | None,
) -> list[Check]:
    a, s = found.agent, found.scope
    events = ", ".join(site.event for site in found.hooks) or "none"
    have = {site.event for site in found.hooks}
    missing = [e for e in getattr(AGENTS[a], "EVENTS", {}) if e not in have] if have else []
    detail = f"hooks: {events}" + ("" if found.hooks else " (MCP server only)")
    if missing:
        detail += (
            f"; missing {', '.join(missing)} (installed by an older Cairn; gates need the "
            f"before-tool hook): run `cairn setup {a}` again"
        )
    out = [
        Check(
            a,
            s,
            "config",
            "ok" if found.hooks and not missing else "warn",
            detail,
            path=str(found.config),
        )
    ]
    site = found.tool_hook()
    env: dict[str, str] = dict(found.extra.get("env", {}))
    if site is not None and site.command:
        env.update(split_command(site.command)[0])
    server_env = server_environment(found.server)
    chosen = env.get(HOME_VAR) or server_env.get(HOME_VAR)
    store = Path(chosen) if chosen else (Path(home).expanduser() if home else default_home())
    # The store first: starting the MCP server below opens it (creating a missing one, and
    # repairing the trigger list), which would hide what the hooks meet.
    out += store_checks(a, s, store, where.project)
    if site is not None:
        out.append(
            run_probe(
                a,
                s,
                site.command,
                site.argv,
                found.probe[1],
                where.project,
                min(site.timeout_s, PROBE_TIMEOUT_S),
                env,
                plain=a == "opencode",
            )
        )
    others = [other for other in found.hooks if other is not site]
    if others:
        out.append(other_hooks(found, others, where.project, env))
    out.append(server_check(found, where.project))
    if a == "codex":
        out += trust_checks(found, where, codex_bin)
    if a == "cursor" and s == "project":
        rules = found.extra.get("rules", [])
        out.append(
            Check(
                a,
                s,
                "rules",
                "ok" if rules else "warn",
                f"{len(rules)} Cairn rules files"
                if rules
                else "no Cairn rules files (no lessons when setup ran): run `cairn setup "
                "cursor` again after adding lessons",
            )
        )
    return out
