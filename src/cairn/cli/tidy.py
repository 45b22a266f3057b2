"""`cairn tidy`: list tidy proposals, accept or decline them by id."""

from __future__ import annotations

import json

import click

from cairn.cli.app import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json, escape
from cairn.tidy import Proposal, accept, decline, proposals


@cli.group(invoke_without_command=True)
@json_option
@click.pass_context
@pass_env
def tidy(env: Env, ctx: click.Context, as_json: bool) -> None:
    """Proposals that keep memory small and true: merge, supersede, narrow, retire, unpin."""
    if ctx.invoked_subcommand is not None:
        return
    found = proposals(env.cairn())
    if as_json:
        emit_json([p.to_dict() for p in found])
        return
    out = console()
    if not found:
        out.print("[dim]nothing to tidy[/]")
        return
    for proposal in found:
        _show(proposal)
    out.print(
        f"[dim]{len(found)} proposal{'' if len(found) == 1 else 's'}: "
        "`cairn tidy accept ID` applies one, "
        "`cairn tidy decline ID` hides it until its facts change[/]"
    )


def _show(p: Proposal) -> None:
    out = console()
    out.print(f"[bold cyan]{p.id}[/]  [magenta]{p.kind}[/]  -> {p.action}")
    out.print(f"  {escape(p.why)}")
    for ref, text in zip(p.refs, p.texts, strict=False):
        out.print(f"  [cyan]{ref}[/] {escape(text)}")
    if p.text is not None:
        out.print(f"  [green]merged:[/] {escape(p.text)}")
    if p.when is not None:
        out.print(f"  [green]new when:[/] {escape(json.dumps(p.when))}")
    fired_in = p.detail.get("fired_in")
    if fired_in:
        sessions = ", ".join(
            f"{s['session']} ({s['tool']}{', ' + s['branch'] if s['branch'] else ''})"
            for s in fired_in
        )
        out.print(f"  [dim]fired in {escape(sessions)}[/]")


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
