"""Line and branch coverage of each module, and a floor no module may fall under.

`make coverage` (and so `make check`) runs the suite with coverage, writes coverage's JSON
report and runs this script on it: it prints one row per module of src/cairn (statements,
lines covered, branches, branches covered) and the total, then names every module whose
line coverage is under the floor (85% unless `--floor` says otherwise) and exits 1. A report
that cannot be read, or measured without branches, exits 2.

    python scripts/coverage_floor.py build/coverage.json [--floor 85]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FLOOR = 85.0


@dataclass(frozen=True)
class Row:
    """One module's numbers from coverage's JSON report."""

    module: str
    statements: int
    lines_covered: int
    branches: int
    branches_covered: int

    @property
    def lines(self) -> float:
        """Percent of statements run (100 for a module without any)."""
        return 100.0 * self.lines_covered / self.statements if self.statements else 100.0

    @property
    def lines_shown(self) -> str:
        """The line percent cut (not rounded) to one decimal: 84.96% shows as 84.9%, not 85.0%."""
        return f"{math.floor(self.lines * 10) / 10:.1f}%"

    @property
    def branch(self) -> float | None:
        """Percent of branches taken, or None for a module without any."""
        return 100.0 * self.branches_covered / self.branches if self.branches else None


class BadReport(Exception):
    """The file is not a coverage JSON report with branch data."""


def read(path: Path) -> list[Row]:
    """Every module of the report, in path order."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
        if not report["meta"]["branch_coverage"]:
            raise BadReport(f"{path}: measured without branches (set branch = true)")
        files: dict[str, Any] = report["files"]
        rows = [
            Row(
                module=name,
                statements=entry["summary"]["num_statements"],
                lines_covered=entry["summary"]["covered_lines"],
                branches=entry["summary"]["num_branches"],
                branches_covered=entry["summary"]["covered_branches"],
            )
            for name, entry in files.items()
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BadReport(f"{path}: not a coverage JSON report ({error!r})") from error
    return sorted(rows, key=lambda row: row.module)


def total(rows: list[Row]) -> Row:
    """The sums over every module."""
    return Row(
        module="TOTAL",
        statements=sum(row.statements for row in rows),
        lines_covered=sum(row.lines_covered for row in rows),
        branches=sum(row.branches for row in rows),
        branches_covered=sum(row.branches_covered for row in rows),
    )


def table(rows: list[Row], floor: float) -> str:
    """The report: one line per module, the total last; a module under the floor is marked."""
    width = max([len("TOTAL"), *(len(row.module) for row in rows)])
    head = f"{'Module':<{width}}  {'Stmts':>6}  {'Lines':>6}  {'Brs':>6}  {'Branches':>8}"
    out = [head, "-" * len(head)]
    for row in [*rows, total(rows)]:
        branch = "-" if row.branch is None else f"{row.branch:.1f}%"
        mark = f"  < {floor:g}%" if row.module != "TOTAL" and below(row, floor) else ""
        out.append(
            f"{row.module:<{width}}  {row.statements:>6}  {row.lines_shown:>6}"
            f"  {row.branches:>6}  {branch:>8}{mark}"
        )
    return "\n".join(out)


def below(row: Row, floor: float) -> bool:
    """Whether the module's line coverage is under the floor (exactly, not as rounded)."""
    return row.lines < floor


def main(argv: list[str] | None = None) -> int:
    """Print the table; 1 when a module is under the floor, 2 for an unreadable report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="coverage's JSON report (coverage json)")
    parser.add_argument("--floor", type=float, default=FLOOR, help="percent of lines, per module")
    args = parser.parse_args(argv)
    try:
        rows = read(args.report)
    except BadReport as error:
        print(f"coverage_floor: {error}", file=sys.stderr)
        return 2
    print(table(rows, args.floor))
    under = [row for row in rows if below(row, args.floor)]
    if under:
        names = ", ".join(f"{row.module} ({row.lines_shown})" for row in under)
        print(f"coverage_floor: {len(under)} under {args.floor:g}% lines: {names}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
