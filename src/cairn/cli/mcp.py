"""`cairn mcp`: serve the MCP tools over stdio (the server lives in `cairn.mcp_server`)."""

from __future__ import annotations

import click
from click.core import ParameterSource

from cairn.cli.group import Env, cli, pass_env
from cairn.cli.launch import run_program


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
    # Entry points never import each other (docs/architecture.md): the server runs as its own
    # program on this interpreter (`cairn.cli.launch`), and `mcp` is loaded only there.
    raise SystemExit(run_program("cairn.mcp_server", argv))
