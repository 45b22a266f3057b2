"""`cairn stats`: what memory handed out, what was used, what the hooks cost."""

from __future__ import annotations

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json, escape
from cairn.usecases.stats import Stats, bar, sparkline, stats

SHOWN = 20


@cli.command(name="stats")
@click.option("--since", metavar="DAY", help="Count from this UTC day on (YYYY-MM-DD).")
@json_option
@pass_env
def stats_(env: Env, since: str | None, as_json: bool) -> None:
    """Offers, citations and hit rates per memory; fires per lesson; denials and retries per
    gate; hook latency per agent."""
    result = stats(env.cairn(), since)
    if as_json:
        emit_json(result.to_dict())
        return
    _show(result)


def _show(result: Stats) -> None:
    from rich.table import Table

    out = console()
    store = result.store
    weeks = [n for _, n in store.growth]
    out.print(
        f"[bold]store[/] {escape(store.path)}  {_human(store.bytes)}  "
        f"{store.memories} current memories" + (f"  since {result.since}" if result.since else "")
    )
    if weeks:
        out.print(
            f"  new per week [cyan]{sparkline(weeks)}[/]  {sum(weeks)} in {len(weeks)} "
            f"weeks ({store.growth[0][0]} to {store.growth[-1][0]})"
        )

    if result.agents:
        table = Table(title="agents", header_style="bold", title_justify="left")
        for name in ("agent", "sessions", "hook calls", "fires", "p50 ms", "p95 ms", ""):
            table.add_column(name, justify="left" if name == "agent" else "right")
        top = max((a.p95_ms or 0 for a in result.agents), default=0)
        for a in result.agents:
            table.add_row(
                a.agent,
                str(a.sessions),
                str(a.hook_calls),
                str(a.fires),
                _ms(a.p50_ms),
                _ms(a.p95_ms),
                f"[yellow]{bar(a.p95_ms or 0, top, 12)}[/]",
            )
        out.print(table)

    if result.memories:
        table = Table(
            title=f"memories (top {min(SHOWN, len(result.memories))} by offers)",
            header_style="bold",
            title_justify="left",
        )
        for name in ("ref", "brief", "recall", "lesson", "cited", "hit rate", "", "memory"):
            table.add_column(
                name,
                justify="right"
                if name in ("brief", "recall", "lesson", "cited", "hit rate")
                else "left",
            )
        for m in result.memories[:SHOWN]:
            rate = m.hit_rate
            table.add_row(
                f"[cyan]{m.ref}[/]",
                str(m.offered["brief"]),
                str(m.offered["recall"]),
                str(m.offered["lesson"]),
                str(m.cited),
                "-" if rate is None else f"{rate:.0%}",
                f"[green]{bar(rate or 0, 1, 10)}[/]",
                escape(m.text[:60]),
            )
        out.print(table)
    else:
        out.print("[dim]no memory was offered or cited yet[/]")

    if result.lessons:
        table = Table(title="lessons on tool calls", header_style="bold", title_justify="left")
        for name in ("ref", "fires", "", "by agent", "lesson"):
            table.add_column(name, justify="right" if name == "fires" else "left")
        top = max(x.fires for x in result.lessons)
        for x in result.lessons[:SHOWN]:
            agents = ", ".join(f"{a} {n}" for a, n in x.by_agent.items())
            table.add_row(
                f"[cyan]{x.ref}[/]",
                str(x.fires),
                f"[magenta]{bar(x.fires, top, 12)}[/]",
                escape(agents),
                escape(x.text[:50]),
            )
        out.print(table)

    if result.gates:
        table = Table(
            title="gates (denials: calls stopped once; retries: made again; changed: retried "
            "differently)",
            header_style="bold",
            title_justify="left",
        )
        for name in ("ref", "denials", "retries", "changed", "by agent", "gate"):
            table.add_column(
                name, justify="left" if name in ("ref", "by agent", "gate") else "right"
            )
        for g in result.gates[:SHOWN]:
            agents = ", ".join(f"{a} {n}" for a, n in g.by_agent.items())
            table.add_row(
                f"[cyan]{g.ref}[/]",
                str(g.denials),
                str(g.retries),
                str(g.differed),
                escape(agents),
                escape(g.text[:50]),
            )
        out.print(table)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"
