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
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from cairn.core.errors import StoreError
from cairn.io.store import DB_NAME, default_home
from cairn.io.store.backends import open_store
from cairn.io.store.failures import folder_trouble
from cairn.io.triggerlist import diagnose, lines_of, list_path
from cairn.io.workspace import project_key
from cairn.usecases.install.apply import AGENTS, agent_name, target
from cairn.usecases.install.command import HOME_VAR, split_command
from cairn.usecases.install.files import InstallError
from cairn.usecases.install.plan import SCOPES, HookSite, Installed, Target
from cairn.usecases.install.rpc import MCP_TIMEOUT_S, app_server_trust, list_tools

Status = Literal["ok", "warn", "fail"]
PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Check:
    """One line of the doctor's report."""

    agent: str
    scope: str
    name: str
    status: Status
    detail: str
    ms: float | None = None
    path: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The check as `--json` prints it."""
        return {
            "agent": self.agent,
            "scope": self.scope,
            "check": self.name,
            "status": self.status,
            "detail": self.detail,
            "ms": None if self.ms is None else round(self.ms, 1),
            "path": self.path,
        }


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
    server_env = _server_env(found.server)
    chosen = env.get(HOME_VAR) or server_env.get(HOME_VAR)
    store = Path(chosen) if chosen else (Path(home).expanduser() if home else default_home())
    # The store first: starting the MCP server below opens it (creating a missing one, and
    # repairing the trigger list), which would hide what the hooks meet.
    out += _store_checks(a, s, store, where.project)
    if site is not None:
        out.append(
            _run_probe(
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
        out.append(_other_hooks(found, others, where.project, env))
    out.append(_server_check(found, where.project))
    if a == "codex":
        out += _trust_checks(found, where, codex_bin)
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


def _run_probe(
    agent: str,
    scope: str,
    command: str,
    argv: tuple[str, ...],
    payload: dict[str, Any],
    cwd: Path,
    timeout: float,
    env: dict[str, str],
    *,
    plain: bool,
) -> Check:
    """Run one hook like its agent does and judge the result."""
    data = json.dumps(payload).encode()
    run_env = {**os.environ, **env}
    started = time.perf_counter()
    try:
        if argv:
            done = subprocess.run(
                list(argv),
                input=data,
                capture_output=True,
                env=run_env,
                cwd=cwd if cwd.is_dir() else None,
                timeout=timeout,
                check=False,
            )
        else:
            done = subprocess.run(
                ["/bin/sh", "-c", command],
                input=data,
                capture_output=True,
                env=run_env,
                cwd=cwd if cwd.is_dir() else None,
                timeout=timeout,
                check=False,
            )
    except subprocess.TimeoutExpired:
        return Check(
            agent,
            scope,
            "hook",
            "fail",
            f"no answer within {timeout:g} s",
            (time.perf_counter() - started) * 1000,
        )
    except OSError as exc:
        return Check(
            agent,
            scope,
            "hook",
            "fail",
            f"cannot run {argv[0] if argv else command}: {exc.strerror or exc}",
            (time.perf_counter() - started) * 1000,
        )
    ms = (time.perf_counter() - started) * 1000
    shown = command or " ".join(argv)
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        why = f": {err[-1][:200]}" if err else ""
        return Check(agent, scope, "hook", "fail", f"exit {done.returncode}{why} ({shown})", ms)
    out = done.stdout.decode("utf-8", errors="replace").strip()
    if out and not plain:
        try:
            json.loads(out)
        except ValueError:
            return Check(
                agent,
                scope,
                "hook",
                "fail",
                f"printed text that is not JSON: {out[:120]!r} ({shown})",
                ms,
            )
    said = "no output" if not out else f"{len(out)} chars of output"
    return Check(agent, scope, "hook", "ok", f"exit 0, {said} ({shown})", ms)


def _other_hooks(found: Installed, sites: list[HookSite], cwd: Path, env: dict[str, str]) -> Check:
    """Run each non-tool hook on `{}` (records nothing): all must exit 0, printing only JSON."""
    a, s = found.agent, found.scope
    results = [
        _run_probe(
            a,
            s,
            site.command,
            site.argv,
            {},
            cwd,
            min(site.timeout_s, PROBE_TIMEOUT_S),
            {**env, **split_command(site.command)[0]} if site.command else env,
            plain=a == "opencode",
        )
        for site in sites
    ]
    bad = [(site, r) for site, r in zip(sites, results, strict=True) if r.status != "ok"]
    ms = sum(r.ms or 0 for r in results)
    if bad:
        detail = "; ".join(f"{site.event}: {r.detail}" for site, r in bad)
        return Check(a, s, "hooks", "fail", detail, ms, path=str(found.config))
    names = ", ".join(site.event for site in sites)
    return Check(a, s, "hooks", "ok", f"{names}: exit 0", ms, path=str(found.config))


def _server_env(entry: dict[str, Any] | None) -> dict[str, str]:
    """The environment an MCP server entry sets (`env`, or OpenCode's `environment`)."""
    if not entry:
        return {}
    value = entry.get("env", entry.get("environment"))
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _server_check(found: Installed, cwd: Path) -> Check:
    """Start the registered `cairn` server as the agent would and ask it for its tools."""
    a, s = found.agent, found.scope
    path = str(found.server_file or "")
    entry = found.server
    if entry is None:
        return Check(a, s, "mcp", "warn", "no `cairn` MCP server registered", path=path)
    program = entry.get("command")
    if not isinstance(program, str) or not program:
        return Check(a, s, "mcp", "fail", "the `cairn` server has no command", path=path)
    args = entry.get("args")
    argv = [program, *(map(str, args) if isinstance(args, list) else [])]
    resolved = program if os.path.isabs(program) else shutil.which(program)
    if not resolved or not os.access(resolved, os.X_OK):
        return Check(
            a,
            s,
            "mcp",
            "fail",
            f"{program} is not an executable file: run `cairn setup {a}` again",
            path=path,
        )
    started = time.perf_counter()
    tools = list_tools(argv, cwd, {**os.environ, **_server_env(entry)})
    ms = (time.perf_counter() - started) * 1000
    shown = " ".join(argv)
    if tools is None:
        return Check(
            a,
            s,
            "mcp",
            "fail",
            f"the server did not list its tools within {MCP_TIMEOUT_S:g} s ({shown}): "
            f"run `cairn mcp` in a terminal to see why, then `cairn setup {a}` again",
            ms,
            path,
        )
    return Check(a, s, "mcp", "ok", f"{len(tools)} tools ({', '.join(tools)}): {shown}", ms, path)


def _store_checks(agent: str, scope: str, store: Path, project: Path) -> list[Check]:
    out: list[Check] = []
    triggers = list_path(store)
    if store.exists() and not store.is_dir():
        detail = (
            f"{store} is a file, where Cairn's store folder should be: the hooks stay silent "
            f"and every MCP call fails. Move it aside (`mv {store} {store}.moved`), then run "
            f"`cairn init`"
        )
        return [Check(agent, scope, "store", "fail", detail, path=str(store))]
    try:
        opened = open_store(store, create=False)
    except StoreError as exc:
        if (store / DB_NAME).exists():  # there, but cannot be opened: damaged, unreadable
            return [Check(agent, scope, "store", "fail", str(exc), path=str(store))]
        detail = f"no store yet at {store}: the first `cairn remember` (or `cairn init`) makes it"
        out.append(Check(agent, scope, "store", "warn", detail, path=str(store)))
        out.append(
            Check(
                agent,
                scope,
                "triggers",
                "warn",
                "no store, so no trigger list: the hook stays silent until a memory is saved",
                path=str(triggers),
            )
        )
    else:
        try:
            here, total = opened.count_memories(project_key(project)), opened.count_memories()
            read_only = opened.read_only
            wrong = diagnose(opened)
        finally:
            opened.close()
        counted = f"{here} memories for {project} ({total} in the store)"
        trouble = folder_trouble(str(store))
        if read_only or trouble:
            # The hook still shows lessons from such a store, but records nothing (so they
            # repeat within a session) and cannot log why: this check is where it shows.
            why = "its disk is full" if trouble == "full" else "it cannot be written"
            out.append(
                Check(
                    agent,
                    scope,
                    "store",
                    "fail",
                    f"{counted}, but {why}: lessons are shown unrecorded and nothing is "
                    "logged; free space or make the folder writable",
                    path=str(store),
                )
            )
        else:
            out.append(Check(agent, scope, "store", "ok", counted, path=str(store)))
        out.append(_triggers_check(agent, scope, triggers, wrong))
    return out


def _triggers_check(agent: str, scope: str, triggers: Path, wrong: str) -> Check:
    """Is the trigger list the store's current one, line for line (`triggerlist.diagnose`)?"""
    if wrong:
        detail = (
            f"{wrong}: lessons saved since may not fire until a `cairn` command or a hook call "
            "that opens the store repairs it; run `cairn lessons rebuild`"
        )
        return Check(agent, scope, "triggers", "warn", detail, path=str(triggers))
    lines = len(lines_of(triggers.parent))
    detail = f"{lines} trigger lines, in step with the store"
    return Check(agent, scope, "triggers", "ok", detail, path=str(triggers))


def _trust_checks(found: Installed, where: Target, codex_bin: str | bool | None) -> list[Check]:
    a, s = found.agent, found.scope
    out: list[Check] = []
    trust_file = str(found.extra.get("trust_file", ""))
    if s == "project" and not found.extra.get("project_trusted", False):
        out.append(
            Check(
                a,
                s,
                "project",
                "warn",
                f"{where.project} is not marked trusted in {trust_file}: Codex reads "
                f"its .codex/hooks.json only in a trusted project (trust it when Codex "
                f"asks)",
                path=trust_file,
            )
        )
    sites = [site for site in found.hooks if site.key]
    if not sites:
        return out
    if codex_bin is False:
        program = None
    elif codex_bin is None or codex_bin is True:
        program = shutil.which("codex")
    else:
        program = codex_bin
    told = app_server_trust(program, where.project) if program else None
    written: dict[str, str] = found.extra.get("trusted", {})
    states: list[str] = []
    for site in sites:
        if told is not None and site.key in told:
            states.append(told[site.key])
        elif written.get(site.key) == site.hash:
            states.append("trusted")
        else:
            states.append("modified" if site.key in written else "untrusted")
    source = "Codex's hooks/list" if told is not None else "config.toml"
    bad = [
        f"{site.event} {state}"
        for site, state in zip(sites, states, strict=True)
        if state not in ("trusted", "managed")
    ]
    if bad:
        flag = "" if s == "project" else " --user"
        detail = (
            f"{', '.join(bad)} (from {source}): Codex skips these hooks without a word. Run "
            f"`cairn setup codex{flag} --trust`, or approve them under /hooks in the Codex TUI"
        )
        out.append(Check(a, s, "trust", "fail", detail, path=trust_file))
    else:
        out.append(
            Check(
                a, s, "trust", "ok", f"{len(sites)} hooks trusted (from {source})", path=trust_file
            )
        )
    return out
