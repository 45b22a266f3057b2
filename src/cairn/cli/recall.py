"""`cairn recall`: search memories and docs."""

from __future__ import annotations

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json, escape


@cli.command()
@click.argument("query")
@click.option("--also", multiple=True, help="Another phrasing, searched alone (up to 3).")
@click.option(
    "--as-of",
    help="What memory believed at the end of this UTC day (YYYY-MM-DD), or at a moment "
    "(2026-08-01T17:00+02:00; no zone means UTC).",
)
@click.option("--kind", help="'pages' for docs only, or a memory kind.")
@click.option("--limit", type=int, help="How many results (default 8, at most 25).")
@json_option
@pass_env
def recall(
    env: Env,
    query: str,
    also: tuple[str, ...],
    as_of: str | None,
    kind: str | None,
    limit: int | None,
    as_json: bool,
) -> None:
    """Search this project's memories and docs (local BM25)."""
    ws = env.cairn()
    ws.catch_up(docs=as_of is None)
    result = ws.recall(query, also=also, as_of=as_of, kind=kind, limit=limit)
    ws.note_recalled(result)
    if as_json:
        emit_json(result.to_dict())
        return
    from rich.table import Table

    if not result.hits:
        console().print("[dim]nothing found: memory has no answer to that[/]")
        return
    table = Table(header_style="bold")
    for name in ("ref", "kind", "result", "score", "citation"):
        table.add_column(name, no_wrap=name != "result")
    for hit in result.hits:
        line = escape(hit.line)
        if hit.kind == "doc":
            line = f"[dim]{escape(hit.path)} > {escape(hit.heading)}[/]  {line}"
        if hit.weak:
            line += " [yellow](weak)[/]"
        if hit.until:
            line += f" [dim](until {hit.until[:10]})[/]"
        citation = hit.citation if hit.kind not in ("doc", "brief") else ""
        if citation in ("changed", "gone"):
            citation = f"[red]{citation}[/]"
        table.add_row(f"[cyan]{escape(hit.ref)}[/]", hit.kind, line, f"{hit.score:.2f}", citation)
    console().print(table)
