"""`cairn lessons`: see what would ride along on a tool call, and why."""

from __future__ import annotations

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json, escape
from cairn.usecases.calls import Call


@cli.group()
def lessons() -> None:
    """Lessons and action rules: memory that arrives on the tool call."""


@lessons.command(name="test")
@click.option("--shell", "command", help="A shell command, as the agent would run it.")
@click.option("--read", "read_path", help="A file the agent reads.")
@click.option("--edit", "edit_path", help="A file the agent edits.")
@json_option
@pass_env
def test(
    env: Env, command: str | None, read_path: str | None, edit_path: str | None, as_json: bool
) -> None:
    """Show what would fire on a call, or which gate would stop it (nothing is recorded).

    A gate stops the first matching call of a session; what it would print is shown as the
    agent would read it.
    """
    given = [x for x in (command, read_path, edit_path) if x is not None]
    if len(given) != 1:
        raise click.UsageError("give exactly one of --shell, --read or --edit")
    if command is not None:
        call = Call("shell", command=command)
    elif read_path is not None:
        call = Call("read", paths=(read_path,))
    else:
        call = Call("edit", paths=(str(edit_path),))
    decision = env.cairn().lessons_for(call, record=False, gates=True)
    if as_json:
        emit_json(decision.to_dict())
        return
    out = console()
    if decision.actions:
        out.print("actions: " + ", ".join(f"[magenta]{a}[/]" for a in decision.actions))
    if not decision.matched:
        out.print("[dim]nothing would fire on this call[/]")
    for f in decision.matched:
        if f in decision.gated:
            state = "[red]gate: stops the first such call of a session[/]"
        elif f in decision.fired:
            state = "[green]fires[/]"
        else:
            state = f"[yellow]held back[/] ({escape(decision.skipped.get(f.memory.ref, ''))})"
        out.print(f"[cyan]{f.memory.ref}[/] {state} — {escape(f.why)}\n  {escape(f.memory.text)}")
    if decision.gated:
        from cairn.usecases.gates import reason

        out.print("[bold]the agent would read, instead of the call's result:[/]")
        out.print(escape(reason(decision.gated, call)))


@lessons.command(name="rebuild")
@json_option
@pass_env
def rebuild(env: Env, as_json: bool) -> None:
    """Rewrite the trigger list the hooks read first, from the store."""
    n = env.cairn().rebuild_triggers()
    if as_json:
        emit_json({"lines": n})
    else:
        console().print(f"trigger list rewritten: {n} lines")


@cli.command()
@click.argument("action", required=False)
@click.option("-k", "k", type=int, default=6, show_default=True, help="How many rules.")
@click.option(
    "--list",
    "listing",
    is_flag=True,
    help="List the actions a rule can name (trigger:ACTION), and the commands that run them.",
)
@json_option
@pass_env
def rules(env: Env, action: str | None, k: int, listing: bool, as_json: bool) -> None:
    """The rules for an ACTION (e.g. git-commit, pr-create), newest first; the hook gives the
    same ones on a command that performs it."""
    if listing:
        from cairn.core.shell.actions import action_programs

        forms = action_programs()
        if as_json:
            emit_json(forms)
            return
        for form, spelled in forms.items():
            console().print(f"[magenta]{escape(form)}[/]  {escape(spelled)}")
        return
    if action is None:
        raise click.UsageError("give an ACTION (like git-commit), or --list")
    found = env.cairn().recall_for_action(action, k)
    if as_json:
        emit_json([{"ref": m.ref, "text": m.text, "written": m.written} for m in found])
        return
    if not found:
        console().print(f"[dim]no rules for {escape(action)}[/]")
    for m in found:
        console().print(f"[cyan]{m.ref}[/] {escape(m.text)}")
