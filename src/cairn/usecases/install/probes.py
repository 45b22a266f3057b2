"""The doctor's probes: each hook an agent registered, run the way the agent runs it, and the
`cairn` MCP server it registered, started and asked for its tools."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from cairn.usecases.install.command import split_command
from cairn.usecases.install.plan import HookSite, Installed
from cairn.usecases.install.report import Check
from cairn.usecases.install.rpc import MCP_TIMEOUT_S, list_tools

PROBE_TIMEOUT_S = 10.0


def run_probe(
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
        done = subprocess.run(
            list(argv) if argv else ["/bin/sh", "-c", command],
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


def other_hooks(found: Installed, sites: list[HookSite], cwd: Path, env: dict[str, str]) -> Check:
    """Run each non-tool hook on `{}` (records nothing): all must exit 0, printing only JSON."""
    a, s = found.agent, found.scope
    results = [
        run_probe(
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


def server_environment(entry: dict[str, Any] | None) -> dict[str, str]:
    """The environment an MCP server entry sets (`env`, or OpenCode's `environment`)."""
    if not entry:
        return {}
    value = entry.get("env", entry.get("environment"))
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def server_check(found: Installed, cwd: Path) -> Check:
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
    tools = list_tools(argv, cwd, {**os.environ, **server_environment(entry)})
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
