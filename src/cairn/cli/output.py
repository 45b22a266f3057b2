"""Printing for the CLI: JSON for machines, rich tables for people, clean errors."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any

import click

from cairn.core.models import Memory


def emit_json(value: Any) -> None:
    """Print one JSON document on stdout."""
    click.echo(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False))


def console() -> Any:
    """A rich console on stdout (imported here: rich is for people, not for hooks)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


def memory_row(m: Memory) -> dict[str, Any]:
    """The short form of a memory for `list --json`."""
    return {
        "ref": m.ref,
        "kind": m.kind,
        "text": m.text,
        "tags": list(m.tags),
        "status": m.status,
        "pinned": m.pinned,
        "gate": m.gate,
        "written": m.written,
        "source_ref": m.source_ref,
        "when": m.when.to_dict() if m.when else None,
    }


def memory_table(memories: Sequence[Memory], title: str = "") -> None:
    """A table of memories, one line each."""
    from rich.table import Table

    table = Table(title=title or None, show_lines=False, header_style="bold")
    table.add_column("ref", style="cyan", no_wrap=True)
    table.add_column("kind", style="magenta")
    table.add_column("memory")
    table.add_column("tags", style="dim")
    table.add_column("written", style="dim", no_wrap=True)
    for m in memories:
        flags = (
            (" [yellow]pinned[/]" if m.pinned else "")
            + (" [red]gate[/]" if m.gate else "")
            + (f" [red]{m.status}[/]" if m.status != "active" else "")
        )
        table.add_row(m.ref, m.kind, escape(m.text) + flags, " ".join(m.tags), m.written[:10])
    console().print(table)


def escape(text: str) -> str:
    """Text safe to print through rich markup."""
    from rich.markup import escape as rich_escape

    return str(rich_escape(text))


def show_memory(view: dict[str, Any]) -> None:
    """A readable card of one get_memory record."""
    out = console()
    out.print(
        f"[bold cyan]{view['ref']}[/]  [magenta]{view['kind']}[/]  {view['status']}"
        + ("  [yellow]pinned[/]" if view["pinned"] else "")
        + ("  [red]gate[/]" if view.get("gate") else "")
    )
    out.print(f"  {escape(view['text'])}")
    if view.get("why"):
        out.print(f"  [yellow]{escape(view['why'])}[/]")
    rows = [
        ("reason", view["reason"]),
        ("source", view["source_ref"]),
        (
            "citation",
            view["citation"]["status"]
            + (f" (lines {view['citation']['lines']})" if "lines" in view["citation"] else ""),
        ),
        ("tags", " ".join(view["tags"])),
        ("when", json.dumps(view["when"]) if view["when"] else ""),
        ("written", f"{view['written']} by {view['tool'] or '?'}"),
        ("until", view["until"] or ""),
        ("cited", f"{view['cited']['count']}x, last {view['cited']['last'] or 'never'}"),
    ]
    ev = view["evidence"]
    rows.append(
        (
            "evidence",
            ", ".join(
                f"{name} {ev[name]['count']}"
                + (f" ({', '.join(ev[name]['tools'])})" if ev[name]["tools"] else "")
                for name in ("confirmed", "cited", "contradicted")
            ),
        )
    )
    for label, value in rows:
        if value:
            out.print(f"  [dim]{label:>9}[/] {escape(str(value))}")
    for act in ev.get("acts", []):
        out.print(
            f"  [dim]{'code act':>9}[/] {escape(str(act.get('act')))} of "
            f"{escape(str(act.get('branch', '')))} at {escape(str(act.get('at', '')))}"
        )
    for label, key in (("replaced", "replaced"), ("replaced by", "replaced_by")):
        for v in view["history"][key]:
            out.print(
                f"  [dim]{label:>9}[/] {v['ref']} {escape(v['text'])} [dim](until {v['until']})[/]"
            )


class ProgressBar:
    """A rich progress bar on stderr for a long step, drawn once it has run `AFTER` seconds
    (`$CAIRN_PROGRESS_AFTER` overrides it; 0 draws it at once).

    Drawn only when asked (`show`; not for --json) and when stderr is a terminal, so piped or
    machine-read output never holds it. `report(step, done, total)` moves it; leaving the
    `with` block (at the end, on an error or on Ctrl-C) takes it off the screen and gives the
    cursor back.
    """

    AFTER = 1.0

    def __init__(self, show: bool = True) -> None:
        self.show = show and sys.stderr.isatty()
        try:
            self.after = float(os.environ.get("CAIRN_PROGRESS_AFTER", self.AFTER))
        except ValueError:
            self.after = self.AFTER
        # Elapsed time for the display only: no "now" is read here (`cairn.core.context` owns that).
        self.started = time.monotonic()
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def report(self, step: str, done: int, total: int) -> None:
        """Show how far `step` is, once the work has run long enough to be worth a bar."""
        if not self.show:
            return
        if self.bar is None:
            if time.monotonic() - self.started < self.after:
                return
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(step, total=total)
        self.bar.update(self.task, description=step, completed=done, total=total)
