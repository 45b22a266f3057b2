"""`cairn tidy`: list tidy proposals, accept or decline them by id."""

from __future__ import annotations

import json
import sys

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import ProgressBar, console, emit_json, escape
from cairn.usecases.tidy import Proposal, accept, decline, proposals


@cli.group(invoke_without_command=True)
@click.option(
    "--project",
    "project",
    type=click.Path(file_okay=False),
    help="The project folder to tidy (default: the current one).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    help="Stop once this many proposals are found (the rest come in a later run).",
)
@json_option
@click.pass_context
@pass_env
def tidy(
    env: Env, ctx: click.Context, project: str | None, limit: int | None, as_json: bool
) -> None:
    """Proposals that keep memory small and true: merge, supersede, narrow, retire, unpin.

    On a terminal, a progress bar shows once tidy has run a second (never with --json or
    when stderr is not a terminal). Ctrl-C stops it with nothing half done (exit 130).
    """
    if project is not None:
        env.project = project
    if ctx.invoked_subcommand is not None:
        return
    with ProgressBar(show=not as_json) as bar:
        found = proposals(env.cairn(), limit=limit, progress=bar.report)
    if as_json:
        _emit_json(found)
        return
    styled = sys.stdout.isatty()
    if not found:
        _say("[dim]nothing to tidy[/]" if styled else "nothing to tidy", styled)
        return
    for proposal in found:
        _show(proposal, styled)
    tail = (
        f"{len(found)} proposal{'' if len(found) == 1 else 's'}: "
        "`cairn tidy accept ID` applies one, "
        "`cairn tidy decline ID` hides it until its facts change"
    )
    _say(f"[dim]{tail}[/]" if styled else tail, styled)


def _emit_json(found: list[Proposal]) -> None:
    """A JSON array, one proposal a line: the pretty printer took seconds at 100k memories."""
    out = sys.stdout
    out.write("[\n" if found else "[")
    for k, p in enumerate(found):
        out.write(("  " if k == 0 else ",\n  ") + json.dumps(p.to_dict(), ensure_ascii=False))
    out.write("\n]\n" if found else "]\n")


def _say(line: str, styled: bool) -> None:
    if styled:
        console().print(line)
    else:
        click.echo(line)


def _show(p: Proposal, styled: bool) -> None:
    """One proposal: rich on a terminal, plain text (fast at any size) otherwise."""

    def mark(text: str, style: str) -> str:
        return f"[{style}]{escape(text)}[/]" if styled else text

    def plain(text: str) -> str:
        return escape(text) if styled else text

    lines = [f"{mark(p.id, 'bold cyan')}  {mark(p.kind, 'magenta')}  -> {p.action}"]
    lines.append(f"  {plain(p.why)}")
    for ref, text in zip(p.refs, p.texts, strict=False):
        lines.append(f"  {mark(ref, 'cyan')} {plain(text)}")
    if p.text is not None:
        lines.append(f"  {mark('merged:', 'green')} {plain(p.text)}")
    if p.when is not None:
        lines.append(f"  {mark('new when:', 'green')} {plain(json.dumps(p.when))}")
    fired_in = p.detail.get("fired_in")
    if fired_in:
        sessions = ", ".join(
            f"{s['session']} ({s['tool']}{', ' + s['branch'] if s['branch'] else ''})"
            for s in fired_in
        )
        lines.append(f"  {mark('fired in ' + sessions, 'dim')}")
    _say("\n".join(lines), styled)


@tidy.command(name="accept")
@click.argument("pid", metavar="ID")
@json_option
@pass_env
def accept_(env: Env, pid: str, as_json: bool) -> None:
    """Apply proposal ID through the library (corrections keep their history)."""
    applied = accept(env.cairn(), pid)
    if as_json:
        emit_json(applied.to_dict())
        return
    parts = [
        f"wrote {' '.join(applied.written)}" if applied.written else "",
        f"retired {' '.join(applied.retired)}" if applied.retired else "",
        f"unpinned {' '.join(applied.unpinned)}" if applied.unpinned else "",
    ]
    console().print(
        f"[green]accepted[/] {applied.proposal.id}: " + ", ".join(p for p in parts if p)
    )


@tidy.command(name="decline")
@click.argument("pid", metavar="ID")
@json_option
@pass_env
def decline_(env: Env, pid: str, as_json: bool) -> None:
    """Decline proposal ID: it stays hidden until the facts it rests on change."""
    proposal = decline(env.cairn(), pid)
    if as_json:
        emit_json({"id": proposal.id, "declined": True})
    else:
        console().print(f"declined {proposal.id}")
