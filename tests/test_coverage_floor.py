"""`scripts/coverage_floor.py`: `make check` fails when a module is under 85% of its lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "coverage_floor.py"


def _module(statements: int, covered: int, branches: int, taken: int) -> dict[str, Any]:
    return {
        "summary": {
            "num_statements": statements,
            "covered_lines": covered,
            "num_branches": branches,
            "covered_branches": taken,
        }
    }


def _plant(tmp_path: Path, files: dict[str, Any], branch: bool = True) -> Path:
    report = tmp_path / "coverage.json"
    meta = {"format": 3, "version": "7.17.5", "branch_coverage": branch}
    report.write_text(json.dumps({"meta": meta, "files": files}), encoding="utf-8")
    return report


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _row(stdout: str, module: str) -> list[str]:
    (line,) = [line for line in stdout.splitlines() if line.startswith(module + " ")]
    return line.split()


def test_every_module_shows_line_and_branch_percent_and_the_total(tmp_path: Path) -> None:
    report = _plant(
        tmp_path,
        {
            "src/cairn/a.py": _module(200, 180, 40, 30),
            "src/cairn/b.py": _module(100, 100, 0, 0),
        },
    )
    done = _run(report)
    assert done.returncode == 0, done.stderr
    assert _row(done.stdout, "src/cairn/a.py") == ["src/cairn/a.py", "200", "90.0%", "40", "75.0%"]
    # A module without branches shows "-" for its branch percent, not 0% or 100%.
    assert _row(done.stdout, "src/cairn/b.py") == ["src/cairn/b.py", "100", "100.0%", "0", "-"]
    assert _row(done.stdout, "TOTAL") == ["TOTAL", "300", "93.3%", "40", "75.0%"]
    assert done.stderr == ""


def test_a_module_under_the_floor_fails_and_is_named(tmp_path: Path) -> None:
    report = _plant(
        tmp_path,
        {
            "src/cairn/ok.py": _module(100, 85, 10, 1),
            "src/cairn/low.py": _module(100, 84, 10, 10),
        },
    )
    done = _run(report, "--floor", "85")
    assert done.returncode == 1
    assert _row(done.stdout, "src/cairn/low.py")[-3:] == ["100.0%", "<", "85%"]
    # Exactly 85% is not under the floor, however poor its branches are.
    assert "<" not in _row(done.stdout, "src/cairn/ok.py")
    assert done.stderr.strip() == "coverage_floor: 1 under 85% lines: src/cairn/low.py (84.0%)"


def test_just_under_the_floor_fails_and_never_shows_as_the_floor(tmp_path: Path) -> None:
    # 84.96% would round to 85.0%: it is under the floor, and shown cut to 84.9%.
    report = _plant(tmp_path, {"src/cairn/edge.py": _module(2500, 2124, 0, 0)})
    done = _run(report)
    assert done.returncode == 1
    assert _row(done.stdout, "src/cairn/edge.py")[2] == "84.9%"
    assert "src/cairn/edge.py (84.9%)" in done.stderr


def test_the_floor_is_85_unless_told(tmp_path: Path) -> None:
    report = _plant(tmp_path, {"src/cairn/m.py": _module(100, 80, 0, 0)})
    assert _run(report).returncode == 1
    assert _run(report, "--floor", "80").returncode == 0


def test_a_report_without_branches_or_not_a_report_exits_2(tmp_path: Path) -> None:
    lines_only = _plant(tmp_path, {"src/cairn/m.py": _module(10, 10, 0, 0)}, branch=False)
    done = _run(lines_only)
    assert done.returncode == 2
    assert "measured without branches" in done.stderr
    garbage = tmp_path / "garbage.json"
    garbage.write_text("<html>", encoding="utf-8")
    done = _run(garbage)
    assert done.returncode == 2
    assert (
        done.stderr.startswith("coverage_floor: ") and "not a coverage JSON report" in done.stderr
    )
    assert _run(tmp_path / "missing.json").returncode == 2


def test_make_coverage_runs_the_floor_on_the_json_report() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    target = makefile.split("\ncoverage:", 1)[1].split("\n\n", 1)[0]
    assert "--cov-report=json:$(COVERAGE_JSON)" in target
    assert "scripts/coverage_floor.py $(COVERAGE_JSON) --floor 85" in target
    assert "check: lint coverage" in makefile
