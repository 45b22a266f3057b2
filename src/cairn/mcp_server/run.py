"""`python -m cairn.mcp_server` (what `cairn mcp` runs): the command line, the store opened
(or not: a broken store still serves, each call saying why), the sessions ended on exit."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import anyio
from mcp.server.mcpserver.exceptions import ToolError

from cairn.api import Cairn
from cairn.api import open as open_cairn
from cairn.io.store.backends import open_store
from cairn.mcp_server.server import build_server
from cairn.mcp_server.stdio import serve_stdio
from cairn.mcp_server.tools import Tools


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the tools over stdio until the client closes the connection."""
    parser = argparse.ArgumentParser(prog="cairn mcp", description="Cairn's MCP server over stdio.")
    parser.add_argument(
        "--home", help="Workspace folder (default: $CAIRN_HOME, else $XDG_DATA_HOME/cairn)."
    )
    parser.add_argument(
        "--project",
        help="Project for calls without cwd (default: $CAIRN_PROJECT, "
        "else the git root of the current folder).",
    )
    parser.add_argument(
        "--tool", help="Tool name to record (default: $CAIRN_TOOL, else the client's name)."
    )
    parser.add_argument(
        "--session",
        help="Session id to record (default: $CAIRN_SESSION, else a random one per project).",
    )
    args = parser.parse_args(argv)
    env = os.environ
    project = args.project or env.get("CAIRN_PROJECT") or None

    def opener() -> Cairn:
        return open_cairn(args.home, project=project, tool="mcp")

    tools = Tools(
        opener=opener,
        tool=args.tool or env.get("CAIRN_TOOL") or None,
        session=args.session or env.get("CAIRN_SESSION") or None,
    )
    try:
        _ = tools.base
    except ToolError as exc:  # a broken store: the server still starts; each call says so
        print(f"cairn mcp: {exc}", file=sys.stderr)
    try:
        anyio.run(serve_stdio, build_server(tools), lambda: open_store(tools.base.store.home))
    except KeyboardInterrupt:  # Ctrl-C in a terminal: stop quietly, like a closed stdin
        pass
    finally:
        try:
            tools.end_sessions()
        finally:
            tools.close()
