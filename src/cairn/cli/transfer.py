"""`cairn export` and `cairn import`: the workspace as JSON Lines."""

from __future__ import annotations

from typing import IO

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json

WRITE_LINES = 1_000


@cli.command()
@click.option(
    "-o",
    "--output",
    type=click.File("w", encoding="utf-8"),
    default="-",
    help="File to write (default: stdout).",
)
@json_option
@pass_env
def export(env: Env, output: IO[str], as_json: bool) -> None:
    """Write every memory (with history and evidence) as JSON Lines.

    The export itself is always JSON Lines; with --output FILE, --json also prints a summary.
    """
    count = 0
    lines: list[str] = []
    for line in env.cairn().export():
        lines.append(line)
        if len(lines) >= WRITE_LINES:  # one write a block of lines, not one a line
            output.write("\n".join(lines) + "\n")
            count += len(lines)
            lines.clear()
    if lines:
        output.write("\n".join(lines) + "\n")
        count += len(lines)
    if output.name != "<stdout>":
        if as_json:
            emit_json({"file": output.name, "records": count})
        else:
            console().print(f"exported {count} records to {output.name}")


@cli.command(name="import")
@click.argument("source", type=click.File("r", encoding="utf-8"), default="-")
@json_option
@pass_env
def import_(env: Env, source: IO[str], as_json: bool) -> None:
    """Load an export, all or nothing; records already present are skipped (idempotent).

    Every memory is checked as `cairn remember` checks one (sentence, kind, tags, reason,
    trigger, scope, secrets, citation) and every field of every record for its type; unknown
    keys are refused. A memory's source_ref is read relative to that memory's own project (the
    path in the export), so a citation climbing out of it is refused. When any record is
    refused, nothing is written and each refusal is listed on a line of its own, naming the
    line, the record type and its id (exit 3).
    """
    counts = env.cairn().import_(source)
    if as_json:
        emit_json(counts.to_dict())
    else:
        console().print("imported " + ", ".join(f"{v} {k}" for k, v in counts.to_dict().items()))
