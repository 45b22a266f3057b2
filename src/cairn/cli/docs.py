"""`cairn docs index`: index the project's documentation for recall."""

from __future__ import annotations

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json


@cli.group()
def docs() -> None:
    """The project's own documentation, searched by recall next to memories.

    Recall and session start index changed doc files by themselves, a few at a time; `index`
    does all of them now. Links leaving the project, special files and pages holding a secret
    are never indexed.
    """


@docs.command(name="index")
@json_option
@pass_env
def index(env: Env, as_json: bool) -> None:
    """Index README, docs/ and ADR folders now (only files that changed are re-read)."""
    result = env.cairn().index_docs()
    if as_json:
        emit_json(result.to_dict())
        return
    line = (
        f"{result.files} doc files: {result.changed} re-indexed "
        f"({result.pages} pages), {result.removed} removed"
    )
    if result.withheld:
        line += f"; {result.withheld} pages left out for holding a secret"
    console().print(line)
