"""`cairn gate`: make a lesson or rule a gate, for one memory or for an action's rules."""

from __future__ import annotations

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json, escape, memory_row


@cli.group()
def gate() -> None:
    """Gates: a lesson or rule that stops the first matching call of a session once.

    The agent gets the rule as the reason, before the call runs, and runs it again; later
    matching calls of the session pass. Opt-in: nothing is a gate unless made one. A TARGET
    is a memory's ref (a lesson with `when`, or a rule tagged trigger:ACTION), or
    trigger:ACTION for every rule of that action in this project (the committed file
    .cairn/gates, so the whole team gets it).
    """


def _switch(env: Env, targets: tuple[str, ...], on: bool, as_json: bool) -> None:
    cairn = env.cairn()
    memories, actions = [], []
    for target in targets:
        if target.startswith("trigger:"):
            listed = cairn.gate_action(target, on)
            actions.append({"action": target.removeprefix("trigger:"), "gated": listed})
        else:
            memories.append(cairn.gate(target, on))
    if as_json:
        emit_json(
            {
                "memories": [memory_row(m) for m in memories],
                "actions": [a["action"] for a in actions],
                "gated_actions": sorted(cairn.gated_actions()),
            }
        )
        return
    word = "gate" if on else "no longer a gate"
    for m in memories:
        console().print(f"[cyan]{m.ref}[/] is {word}: {escape(m.text)}")
    for a in actions:
        console().print(
            f"rules of [magenta]{escape(str(a['action']))}[/] "
            f"{'are gates' if on else 'are no longer gates'} in this project "
            f"(.cairn/gates; commit it to share)"
        )


@gate.command(name="on")
@click.argument("targets", nargs=-1, required=True, metavar="TARGET...")
@json_option
@pass_env
def gate_on(env: Env, targets: tuple[str, ...], as_json: bool) -> None:
    """Make TARGET a gate. TARGET is a ref or trigger:ACTION (see `cairn gate --help`)."""
    _switch(env, targets, True, as_json)


@gate.command(name="off")
@click.argument("targets", nargs=-1, required=True, metavar="TARGET...")
@json_option
@pass_env
def gate_off(env: Env, targets: tuple[str, ...], as_json: bool) -> None:
    """Make TARGET an ordinary lesson or rule again (a ref or trigger:ACTION)."""
    _switch(env, targets, False, as_json)


@gate.command(name="list")
@json_option
@pass_env
def gate_list(env: Env, as_json: bool) -> None:
    """The gates of this project: memories marked so, and the actions listed in .cairn/gates."""
    cairn = env.cairn()
    gated = cairn.list(limit=None, gate=True)
    actions = sorted(cairn.gated_actions())
    if as_json:
        emit_json({"memories": [memory_row(m) for m in gated], "actions": actions})
        return
    if not gated and not actions:
        console().print("[dim]no gates in this project[/]")
    for m in gated:
        console().print(f"[cyan]{m.ref}[/] ({m.kind}) {escape(m.text)}")
    for action in actions:
        console().print(f"every rule of [magenta]{escape(action)}[/] (.cairn/gates)")
