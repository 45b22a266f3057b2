"""`cairn mcp`: serve the MCP tools over stdio (the server lives in `cairn.mcp_server`)."""

from __future__ import annotations

import runpy

import click
from click.core import ParameterSource

from cairn.cli.app import Env, cli, pass_env


@cli.command()
@pass_env
def mcp(env: Env) -> None:
    """Serve Cairn's MCP tools to an agent over stdio.

    The tools are recall, get_memory, remember, log_mission_progress and get_action_rules (see
    docs/mcp.md). Register it with the agent, e.g. `claude mcp add cairn -- cairn mcp`. The
    agent's name is read from its initialize request unless --tool is given.
    """
    root = click.get_current_context().find_root()
    argv: list[str] = []
    if env.home:
        argv += ["--home", env.home]
    if env.project:
        argv += ["--project", env.project]
    if root.get_parameter_source("tool") is not ParameterSource.DEFAULT:
        argv += ["--tool", env.tool]
    if env.session:
        argv += ["--session", env.session]
    # Entry points never import each other (docs/architecture.md), so the server module is run
    # by name rather than imported. runpy, not os.execv: it keeps this process and its stdio
    # pipes on every platform (on Windows execv spawns a new process and the agent would see
    # its server exit), and `mcp` is loaded only when this command runs.
    runpy.run_module("cairn.mcp_server", run_name="cairn.mcp_server")["main"](argv)
