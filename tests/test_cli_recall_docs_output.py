"""What a person reads without --json from `cairn recall` (a table of memories and doc
pages) and from `cairn docs index`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cairn.cli import cli


@pytest.fixture
def run(home: Path, project: Path):  # type: ignore[no-untyped-def]
    runner = CliRunner()

    def _run(*args: str) -> Result:
        result = runner.invoke(
            cli, ["--project", str(project), *args], env={"COLUMNS": "200"}, catch_exceptions=False
        )
        assert result.exit_code == 0, (result.stdout, result.stderr)
        return result

    return _run


def _rows(out: str) -> list[list[str]]:
    """The table's body rows, split on its column bars."""
    return [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in out.splitlines()
        if line.startswith("│") and "│ ref " not in line
    ]


def test_no_match_says_memory_has_no_answer(run) -> None:  # type: ignore[no-untyped-def]
    run("remember", "We deploy with Render")
    out = run("recall", "kubernetes helm chart").stdout
    assert out.strip() == "nothing found: memory has no answer to that"


def test_a_memory_is_a_row_with_its_ref_kind_and_sentence(run) -> None:  # type: ignore[no-untyped-def]
    ref = json.loads(
        run("remember", "We deploy with Render", "--kind", "decision", "--json").stdout
    )["ref"]
    rows = _rows(run("recall", "deploy").stdout)
    assert len(rows) == 1
    row_ref, kind, line, score, _citation = rows[0]
    assert (row_ref, kind, line) == (ref, "decision", "We deploy with Render")
    assert float(score) > 0


def test_a_doc_page_shows_its_file_and_heading(run, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / "README.md").write_text(
        "# Shop\n\n## Releasing\n\nReleases are tagged by the release bot every Tuesday.\n",
        encoding="utf-8",
    )
    rows = _rows(run("recall", "release bot tuesday").stdout)
    docs = [row for row in rows if row[1] == "doc"]
    assert docs, rows
    assert docs[0][2].startswith("README.md > Releasing")
    assert "release bot" in docs[0][2]
    assert docs[0][4] == ""  # a page has no citation column


def test_a_corrected_claim_seen_as_of_before_shows_until_when(run, clock) -> None:  # type: ignore[no-untyped-def]
    ref = json.loads(run("remember", "We deploy with fly", "--json").stdout)["ref"]
    clock.advance(days=2)
    run("correct", ref, "We deploy with Render")
    rows = _rows(run("recall", "deploy", "--as-of", "2026-11-01").stdout)
    assert [row[2] for row in rows] == ["We deploy with fly (until 2026-11-03)"]


def test_docs_index_says_what_it_read_and_what_it_left_out(run, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / "README.md").write_text("# Shop\n\nThe shop sells maps.\n", encoding="utf-8")
    (project / "docs").mkdir()
    (project / "docs" / "ops.md").write_text(
        "# Ops\n\nThe deploy token is ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + "\n",
        encoding="utf-8",
    )
    out = " ".join(run("docs", "index").stdout.split())
    assert (
        out
        == "2 doc files: 2 re-indexed (1 pages), 0 removed; 1 pages left out for holding a secret"
    )
    # Nothing changed: nothing is read again.
    again = " ".join(run("docs", "index").stdout.split())
    assert again.startswith("2 doc files: 0 re-indexed")
    assert "secret" not in again
