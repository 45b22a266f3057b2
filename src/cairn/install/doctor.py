"""`doctor()`: is Cairn installed for each agent, and does its hook actually run?

For every agent whose config (project or user scope) holds Cairn's hooks or MCP server:

- config    the file and the events registered (a warning names the events this Cairn
            registers that the install lacks, e.g. the before-tool hook gates need)
- hook      the registered command, run the way the agent runs it (`sh -c`, or the argv of
            the OpenCode plugin) on a harmless payload of the agent's shape (a shell `true`):
            exit 0 and stdout empty or JSON, and how long it took
- mcp       the `cairn` server's program exists
- store     the store the hook will read (its `CAIRN_HOME`, else the default) opens, and how
            many memories it holds
- triggers  the trigger list the hook reads first is the store's current one, line for line
- trust     (Codex) every Cairn hook is trusted: from `config.toml`, or from Codex itself
            (`codex app-server`, `hooks/list`) when a `codex` binary is found
- rules     (Cursor, project) the generated rules files
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from cairn.errors import StoreError
from cairn.install import codex
from cairn.install.apply import AGENTS, agent_name, target
from cairn.install.command import HOME_VAR, split_command
from cairn.install.files import InstallError
from cairn.install.plan import SCOPES, Installed, Target
from cairn.store import default_home
from cairn.store.backends import open_store
from cairn.store.failures import folder_trouble
from cairn.triggerlist import diagnose, lines_of, list_path

Status = Literal["ok", "warn", "fail"]
PROBE_TIMEOUT_S = 10.0
APP_SERVER_TIMEOUT_S = 15.0


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
            seen.add(found.config)
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
    if site is not None:
        if site.command:
            env.update(split_command(site.command)[0])
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
    out.append(_server_check(found))
    store = (
        Path(env[HOME_VAR])
        if env.get(HOME_VAR)
        else (Path(home).expanduser() if home else default_home())
    )
    out += _store_checks(a, s, store, where.project)
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


def _server_check(found: Installed) -> Check:
    a, s = found.agent, found.scope
    path = str(found.server_file or "")
    entry = found.server
    if entry is None:
        return Check(a, s, "mcp", "warn", "no `cairn` MCP server registered", path=path)
    program = entry.get("command")
    if not isinstance(program, str) or not program:
        return Check(a, s, "mcp", "fail", "the `cairn` server has no command", path=path)
    resolved = program if os.path.isabs(program) else shutil.which(program)
    if not resolved or not os.access(resolved, os.X_OK):
        return Check(a, s, "mcp", "fail", f"{program} is not an executable file", path=path)
    args = entry.get("args")
    words = [program, *(map(str, args) if isinstance(args, list) else [])]
    return Check(a, s, "mcp", "ok", " ".join(words), path=path)


def _store_checks(agent: str, scope: str, store: Path, project: Path) -> list[Check]:
    out: list[Check] = []
    triggers = list_path(store)
    try:
        opened = open_store(store, create=False)
    except StoreError as exc:
        out.append(Check(agent, scope, "store", "warn", f"{exc}", path=str(store)))
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
            here, total = opened.count_memories(str(project)), opened.count_memories()
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
        out.append(
            Check(
                a,
                s,
                "trust",
                "warn",
                f"{', '.join(bad)} (from {source}): Codex skips these hooks: {codex.TRUST_HELP}",
                path=trust_file,
            )
        )
    else:
        out.append(
            Check(
                a, s, "trust", "ok", f"{len(sites)} hooks trusted (from {source})", path=trust_file
            )
        )
    return out


def app_server_trust(
    program: str, cwd: Path, timeout: float = APP_SERVER_TIMEOUT_S
) -> dict[str, str] | None:
    """key -> trustStatus of every hook Codex sees from `cwd` (None when Codex cannot say).

    Speaks JSON-RPC lines to `codex app-server`: initialize, initialized, `hooks/list`.
    """
    messages = [
        {
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "cairn-doctor", "version": "1"}},
        },
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
    ]
    try:
        proc = subprocess.Popen(
            [program, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd if cwd.is_dir() else None,
            text=True,
        )
    except OSError:
        return None
    lines: queue.Queue[str] = queue.Queue()
    if proc.stdin is None or proc.stdout is None:  # not possible with PIPE; keeps mypy honest
        proc.kill()
        return None
    reader = threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True)
    reader.start()
    answer: dict[str, Any] | None = None
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while answer is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                break
            if not line:
                break
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == 2:
                answer = message
    except OSError:
        return None
    finally:
        proc.kill()
        proc.wait()
        with contextlib.suppress(OSError):
            proc.stdin.close()
        reader.join(timeout=1)
        proc.stdout.close()
    if answer is None or not isinstance(answer.get("result"), dict):
        return None
    told: dict[str, str] = {}
    for entry in answer["result"].get("data", []):
        for hook in entry.get("hooks", []) if isinstance(entry, dict) else []:
            if isinstance(hook, dict) and isinstance(hook.get("key"), str):
                told[hook["key"]] = str(hook.get("trustStatus", ""))
    return told


def _pump(stream: IO[str], lines: queue.Queue[str]) -> None:
    """Copy lines from the app server to the queue; '' marks the end."""
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put("")
