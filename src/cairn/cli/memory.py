"""Commands that write and read memories: init, remember, correct, show, list, ..."""

from __future__ import annotations

import json
from typing import Any

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json, escape, memory_row, memory_table, show_memory
from cairn.core.errors import TriggerError
from cairn.core.models import KINDS


@cli.command()
@json_option
@pass_env
def init(env: Env, as_json: bool) -> None:
    """Create the workspace store (safe to run again)."""
    cairn = env.cairn()
    store, project = cairn.store.location, cairn.ctx.project
    count = cairn.store.count_memories(project)
    if as_json:
        emit_json({"store": store, "project": project, "memories": count})
    else:
        console().print(
            f"Cairn store ready at [cyan]{escape(store)}[/]\n"
            f"project [cyan]{escape(project)}[/]: {count} memories"
        )


def _when(value: str | None) -> Any:
    if value is None:
        return None
    try:
        loaded = json.loads(value)
    except ValueError as exc:
        raise TriggerError(
            f"refused: --when must be JSON such as "
            f'\'{{"tool": "shell", "match": "git push"}}\' ({exc})'
        ) from exc
    if loaded is None:  # `--when null` given on purpose is no trigger at all: say so
        raise TriggerError(
            "refused: --when null names no trigger; give an object such as "
            '\'{"tool": "shell", "match": "git push"}\', or leave --when out for a fact'
        )
    return loaded


@cli.command()
@click.argument("sentence")
@click.option(
    "--kind",
    type=click.Choice(KINDS),
    help="Kind of memory (default: fact, or lesson when --when is given).",
)
@click.option(
    "--tag",
    "tags",
    multiple=True,
    help="A tag (repeatable); trigger:ACTION makes an action rule, e.g. trigger:git-commit.",
)
@click.option("--reason", help="Why this was written (at most 4000 characters).")
@click.option("--source-ref", help="What it is about: path, path:10-24, path#Symbol, a commit.")
@click.option(
    "--when",
    "when",
    help='Trigger JSON: {"tool": "shell", "match": REGEX} or '
    '{"tool": "read"|"edit", "path": GLOB}; "gate": true makes it a gate.',
)
@click.option(
    "--gate/--no-gate",
    default=None,
    help="A gate: the first matching call of a session is stopped once, with this lesson or "
    "rule as the reason (needs --when or a trigger:ACTION tag; opt-in).",
)
@click.option("--scope", type=click.Choice(["project", "workspace"]), help="Who sees it.")
@click.option("--pinned", is_flag=True, default=None, help="Pin it.")
@click.option("--replaces", help="Ref of the claim this corrects.")
@click.option("--used", multiple=True, help="Ref of a memory that shaped this work (repeatable).")
@json_option
@pass_env
def remember(
    env: Env,
    sentence: str,
    kind: str | None,
    tags: tuple[str, ...],
    reason: str | None,
    source_ref: str | None,
    when: str | None,
    scope: str | None,
    pinned: bool | None,
    replaces: str | None,
    used: tuple[str, ...],
    gate: bool | None,
    as_json: bool,
) -> None:
    """Save one claim in one sentence."""
    result = env.cairn().remember(
        sentence,
        kind=kind,
        tags=tags or None,
        reason=reason,
        source_ref=source_ref,
        when=_when(when),
        scope=scope,
        pinned=pinned,
        replaces=replaces,
        used=used,
        gate=gate,
    )
    if as_json:
        emit_json(result.to_dict())
        return
    said = {
        "new": "remembered",
        "corrected": "corrected",
        "echo": "already remembered (echo)",
        "confirmed": "confirmed" if result.counted else "already confirmed this session",
    }
    console().print(f"[green]{said[result.outcome]}[/] [cyan]{result.ref}[/]")
    if result.unknown_used:
        console().print(f"[yellow]unknown refs in --used:[/] {' '.join(result.unknown_used)}")


@cli.command()
@click.argument("ref")
@click.argument("sentence")
@click.option("--reason", help="Why the claim changed.")
@json_option
@pass_env
def correct(env: Env, ref: str, sentence: str, reason: str | None, as_json: bool) -> None:
    """Supersede REF with a corrected SENTENCE (the old claim stays in history)."""
    result = env.cairn().correct(ref, sentence, reason=reason)
    if as_json:
        emit_json({**result.to_dict(), "replaces": ref})
    else:
        console().print(f"[green]corrected[/] {ref} -> [cyan]{result.ref}[/]")


@cli.command()
@click.argument("refs", nargs=-1, required=True)
@json_option
@pass_env
def show(env: Env, refs: tuple[str, ...], as_json: bool) -> None:
    """Everything known about memories: citation, evidence, history."""
    result = env.cairn().get_memory(refs)
    if as_json:
        emit_json(result)
        return
    for view in result["memories"]:
        show_memory(view)
    if result["unknown"]:
        console().print(f"[yellow]unknown:[/] {' '.join(result['unknown'])}")


@cli.command(name="list")
@click.option("--kind", type=click.Choice(KINDS))
@click.option("--tag")
@click.option("--status", type=click.Choice(["active", "superseded", "retired"]))
@click.option("--all-projects", is_flag=True, help="Every project of the workspace.")
@click.option("--limit", type=int, default=100, show_default=True)
@json_option
@pass_env
def list_(
    env: Env,
    kind: str | None,
    tag: str | None,
    status: str | None,
    all_projects: bool,
    limit: int,
    as_json: bool,
) -> None:
    """List memories, newest first."""
    cairn = env.cairn()
    memories = cairn.store.list_memories(
        project=None if all_projects else cairn.ctx.project,
        kind=kind,
        tag=tag,
        status=status,
        limit=limit,
    )
    if as_json:
        emit_json([memory_row(m) for m in memories])
    else:
        memory_table(memories, title=f"{len(memories)} memories")


def _one_ref_command(name: str, verb: str, doc: str) -> None:
    @cli.command(name=name, help=doc)
    @click.argument("ref")
    @json_option
    @pass_env
    def command(env: Env, ref: str, as_json: bool) -> None:
        memory = getattr(env.cairn(), verb)(ref)
        if as_json:
            emit_json(memory_row(memory))
        else:
            console().print(
                f"{name}: [cyan]{memory.ref}[/] is {memory.status}"
                + (", pinned" if memory.pinned else "")
            )


_one_ref_command("forget", "forget", "Retire a memory (soft; `cairn restore` undoes it).")
_one_ref_command("restore", "restore", "Bring a forgotten memory back.")
_one_ref_command("pin", "pin", "Pin a memory: always in the brief, never rests.")
_one_ref_command("unpin", "unpin", "Unpin a memory.")


@cli.command()
@click.argument("ref")
@json_option
@pass_env
def confirm(env: Env, ref: str, as_json: bool) -> None:
    """Confirm that a memory still holds (counts as the user's confirmation)."""
    cairn = env.cairn()
    counted = cairn.using(tool="user").confirm(ref)
    if as_json:
        emit_json({"ref": ref, "counted": counted})
    else:
        console().print(f"confirmed [cyan]{ref}[/]" + ("" if counted else " (already today)"))


@cli.command()
@click.argument("ref")
@json_option
@pass_env
def contradict(env: Env, ref: str, as_json: bool) -> None:
    """Say that a memory no longer holds (twice with no confirmation since puts it out)."""
    cairn = env.cairn()
    counted = cairn.using(tool="user").contradict(ref)
    if as_json:
        emit_json({"ref": ref, "counted": counted})
    else:
        console().print(f"contradicted [cyan]{ref}[/]" + ("" if counted else " (already today)"))
