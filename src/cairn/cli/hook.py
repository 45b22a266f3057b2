"""`cairn hook AGENT EVENT`: the agent hook, run through the CLI (for trying a payload by hand).

Agents are registered with the faster `cairn-hook` entry (docs/hooks.md); this runs the very
same module as its own program (`cairn.cli.launch`), so it reads the payload on stdin, prints
what the agent would get, and exits 0.
"""

from __future__ import annotations

import sys

import click

from cairn.cli.group import cli
from cairn.cli.launch import run_program


@cli.command()
@click.argument("agent")
@click.argument("event")
def hook(agent: str, event: str) -> None:
    """Run AGENT's EVENT hook on the JSON payload on stdin (prints what the agent gets)."""
    # Entry points never import each other (docs/architecture.md): run it as a program.
    sys.exit(run_program("cairn.hooks.entry", [agent, event]))
