"""`cairn setup AGENT` and `cairn doctor`: thin shells over `cairn.usecases.install`."""

from __future__ import annotations

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json, escape

AGENT_NAMES = ("claude-code", "codex", "gemini", "cursor", "opencode")
STYLE = {"ok": "green", "warn": "yellow", "fail": "red"}


@cli.command()
@click.argument("agent", type=click.Choice(AGENT_NAMES, case_sensitive=False))
@click.option(
    "--project",
    "scope",
    flag_value="project",
    default=True,
    help="Write the project's config files (default).",
)
@click.option("--user", "scope", flag_value="user", help="Write the user's config files.")
@click.option(
    "--project-dir",
    type=click.Path(file_okay=False),
    help="The project folder (default: the git root of the current folder).",
)
@click.option("--uninstall", is_flag=True, help="Remove what Cairn added, nothing else.")
@click.option(
    "--trust",
    is_flag=True,
    help="Codex: approve Cairn's hooks in ~/.codex/config.toml (else approve them under /hooks).",
)
@click.option("--dry-run", is_flag=True, help="Print the changes as diffs; write nothing.")
@json_option
@pass_env
def setup(
    env: Env,
    agent: str,
    scope: str,
    project_dir: str | None,
    uninstall: bool,
    trust: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Register Cairn's hooks and MCP server in AGENT's own config files."""
    from cairn.usecases.install import setup as install

    result = install(
        agent,
        "user" if scope == "user" else "project",
        project_dir or env.project,
        uninstall=uninstall,
        dry_run=dry_run,
        home=env.home,
        trust=trust,
    )
    if as_json:
        emit_json(result.to_dict())
        return
    out = console()
    verb = "would" if dry_run else ""
    for change in result.changes:
        if change.action == "unchanged":
            continue
        said = f"{verb} {change.action}".strip()
        line = f"[cyan]{said}[/] {escape(str(change.path))}"
        if change.backup:
            line += f" [dim](backup: {escape(str(change.backup))})[/]"
        out.print(line)
        if dry_run:
            click.echo(change.diff, nl=False)
    if not uninstall:
        click.echo(f"hook command: {result.hook_command}")
    for note in result.notes:
        out.print(f"[yellow]note:[/] {escape(note)}")


@cli.command()
@click.option(
    "--project-dir",
    type=click.Path(file_okay=False),
    help="The project folder (default: the git root of the current folder).",
)
@click.option("--no-codex", is_flag=True, help="Do not ask a `codex` binary about hook trust.")
@json_option
@pass_env
def doctor(env: Env, project_dir: str | None, no_codex: bool, as_json: bool) -> None:
    """Check each agent's Cairn install: config, hook run and timing, store, trust."""
    from cairn.usecases.install import doctor as diagnose

    checks = diagnose(
        project_dir or env.project, home=env.home, codex_bin=False if no_codex else None
    )
    failed = any(c.status == "fail" for c in checks)
    if as_json:
        emit_json({"ok": not failed, "checks": [c.to_dict() for c in checks]})
    elif not checks:
        console().print(
            "[yellow]Cairn is not installed for any agent here:[/] run "
            "`cairn setup AGENT` (claude-code, codex, gemini, cursor, opencode)."
        )
    else:
        from rich.table import Table

        table = Table(header_style="bold")
        for name in ("agent", "scope", "check", "status", "detail", "ms"):
            table.add_column(name, no_wrap=name not in ("detail",))
        for c in checks:
            table.add_row(
                c.agent,
                c.scope,
                c.name,
                f"[{STYLE[c.status]}]{c.status}[/]",
                escape(c.detail + (f"\n{c.path}" if c.path else "")),
                "" if c.ms is None else f"{c.ms:.0f}",
            )
        console().print(table)
    if failed:
        click.get_current_context().exit(1)
