"""`cairn export-rules` and `cairn import-rules`: lessons to the files agents read natively."""

from __future__ import annotations

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json, escape
from cairn.usecases.rulesfiles import FORMATS, export_rules, import_rules


@cli.command(name="export-rules")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    required=True,
    help="claude-skill (SKILL.md), claude-rules (.claude/rules), cursor (.mdc), "
    "copilot (.instructions.md) or agents (an AGENTS.md section).",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    help="Folder to write into (default: the project folder).",
)
@click.option(
    "--ref",
    "refs",
    multiple=True,
    help="Export this memory (repeatable; default: every current lesson and "
    "preference of the project).",
)
@json_option
@pass_env
def export_rules_(
    env: Env, fmt: str, out: str | None, refs: tuple[str, ...], as_json: bool
) -> None:
    """Write lessons and preferences as rules files agents read natively."""
    exported = export_rules(env.cairn(), fmt, out, refs)
    if as_json:
        emit_json(exported.to_dict())
        return
    show = console()
    show.print(f"exported {len(exported.refs)} memories as {fmt}")
    for path in exported.files:
        show.print(f"  [green]wrote[/] {escape(path)}")
    for path in exported.removed:
        show.print(f"  [yellow]removed[/] {escape(path)}")


@cli.command(name="import-rules")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@json_option
@pass_env
def import_rules_(env: Env, paths: tuple[str, ...], as_json: bool) -> None:
    """Read rules files (SKILL.md, .claude/rules, .mdc, .instructions.md, CLAUDE.md,
    AGENTS.md, or folders of them) into memories."""
    imported = import_rules(env.cairn(), paths)
    if as_json:
        emit_json(imported.to_dict())
        return
    show = console()
    counts = imported.counts()
    show.print(
        "imported: "
        + (", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no bullets found")
    )
    for item in imported.items:
        if item.outcome == "refused":
            show.print(f"  [red]refused[/] {escape(item.text[:80])}: {escape(item.reason)}")
        elif item.outcome == "skipped":
            show.print(f"  [yellow]skipped[/] {escape(item.path)}: {escape(item.reason)}")
        elif item.reason and item.outcome == "new":
            show.print(f"  [yellow]note[/] {item.ref}: {escape(item.reason)}")
