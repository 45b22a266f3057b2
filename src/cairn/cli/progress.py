"""`cairn progress`: log one step of the branch's mission (the MCP `log_mission_progress`)."""

from __future__ import annotations

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json, escape
from cairn.usecases.progress import STATUSES, log_mission_progress


@cli.command()
@click.argument("goal")
@click.argument("step")
@click.option(
    "--status",
    default="in_progress",
    show_default=True,
    help=f"One of {', '.join(STATUSES)} (case and '-' forgiven).",
)
@click.option("--used", multiple=True, help="Ref of a memory that shaped this step (repeatable).")
@json_option
@pass_env
def progress(
    env: Env, goal: str, step: str, status: str, used: tuple[str, ...], as_json: bool
) -> None:
    """Record STEP of the branch's GOAL; recall shows it in the branch brief."""
    cairn = env.cairn()
    result = log_mission_progress(cairn.store, cairn.ctx, goal, step, status, used)
    if as_json:
        emit_json(result)
        return
    out = console()
    where = f"branch [cyan]{escape(result['branch'])}[/]" if result["branch"] else "no branch"
    out.print(
        f"[green]logged[/] {escape(result['step'])} [magenta]{result['status']}[/] on {where}"
    )
    brief = result["brief"]
    out.print(f"  [dim]goal[/] {escape(brief['goal'])}")
    if brief["open"]:
        out.print(f"  [dim]open[/] {escape('; '.join(brief['open']))}")
    if brief["done"]:
        out.print(f"  [dim]done[/] {escape('; '.join(brief['done']))}")
    if result["unknown_used"]:
        out.print(f"[yellow]unknown refs in --used:[/] {' '.join(result['unknown_used'])}")
