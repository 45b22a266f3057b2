"""What a person reads from `cairn show REF` without --json about a memory's standing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cairn.cli import cli


@pytest.fixture
def run(home: Path, project: Path):  # type: ignore[no-untyped-def]
    runner = CliRunner()

    def _run(*args: str, session: str = "s1") -> Result:
        result = runner.invoke(
            cli,
            ["--project", str(project), *args],
            env={"COLUMNS": "200", "CAIRN_SESSION": session},
            catch_exceptions=False,
        )
        assert result.exit_code == 0, (result.stdout, result.stderr)
        return result

    return _run


def test_a_memory_put_out_by_contradictions_says_which_and_when(run, clock) -> None:  # type: ignore[no-untyped-def]
    ref = json.loads(run("remember", "We deploy with fly", "--json").stdout)["ref"]
    before = run("show", ref).stdout.splitlines()
    assert before[0].split()[:2] == [ref, "fact"]
    assert before[1].strip() == "We deploy with fly"
    run("contradict", ref, session="s1")
    clock.advance(days=1)
    run("contradict", ref, session="s2")
    view = json.loads(run("show", ref, "--json").stdout)["memories"][0]
    assert view["status"] == "out"
    lines = run("show", ref).stdout.splitlines()
    assert lines[0].split()[:3] == [ref, "fact", "out"]
    # The line under the sentence says why it is out: each contradiction, with its day.
    assert lines[2].strip() == view["why"]
    assert "contradicted on 2026-11-01" in lines[2] and "contradicted on 2026-11-02" in lines[2]
