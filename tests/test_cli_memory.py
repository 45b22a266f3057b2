"""The CLI's memory commands: human output, `--json`, and clean errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cairn.cli import cli
from tests import backends as sqlite_only


@pytest.fixture
def run(home: Path, project: Path):  # type: ignore[no-untyped-def]
    runner = CliRunner()

    def _run(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli, ["--project", str(project), *args], catch_exceptions=False)
        assert result.exit_code == code, (result.output, result.stderr)
        return result.stdout if code == 0 else result.stderr

    return _run


def test_remember_json_prints_the_ref(run) -> None:  # type: ignore[no-untyped-def]
    out = json.loads(run("remember", "We deploy with Render", "--json"))
    assert out["ref"].startswith("m-") and out["outcome"] == "new"


def test_remember_human_output(run) -> None:  # type: ignore[no-untyped-def]
    assert "remembered" in run("remember", "We deploy with Render")


def test_show_json_prints_get_memory_fields(run) -> None:  # type: ignore[no-untyped-def]
    ref = json.loads(run("remember", "We deploy with Render", "--reason", "ops", "--json"))["ref"]
    out = json.loads(run("show", ref, "m-000000", "--json"))
    assert out["unknown"] == ["m-000000"]
    view = out["memories"][0]
    assert view["reason"] == "ops" and view["citation"]["status"] == "unchecked"
    assert "history" in view and "evidence" in view


def test_correct_json_and_history(run) -> None:  # type: ignore[no-untyped-def]
    ref = json.loads(run("remember", "We deploy with fly", "--json"))["ref"]
    out = json.loads(run("correct", ref, "We deploy with render", "--json"))
    assert out["outcome"] == "corrected" and out["replaces"] == ref
    view = json.loads(run("show", out["ref"], "--json"))["memories"][0]
    assert view["history"]["replaced"][0]["ref"] == ref
    assert ref in run("show", out["ref"])


def test_list_json_filters(run) -> None:  # type: ignore[no-untyped-def]
    run(
        "remember",
        "Commit messages are one line",
        "--kind",
        "preference",
        "--tag",
        "trigger:git-commit",
    )
    run("remember", "Postgres 16 in prod")
    rows = json.loads(run("list", "--kind", "preference", "--json"))
    assert [r["text"] for r in rows] == ["Commit messages are one line"]
    rows = json.loads(run("list", "--tag", "trigger:git-commit", "--json"))
    assert len(rows) == 1
    assert "2 memories" in run("list")


@pytest.mark.parametrize("verb", ["forget", "restore", "pin", "unpin"])
def test_one_ref_commands_json(run, verb: str) -> None:  # type: ignore[no-untyped-def]
    ref = json.loads(run("remember", "Never force-push main", "--json"))["ref"]
    out = json.loads(run(verb, ref, "--json"))
    assert out["ref"] == ref
    expected = {"forget": "retired"}.get(verb, "active")
    assert out["status"] == expected
    assert out["pinned"] == (verb == "pin")


def test_confirm_json(run) -> None:  # type: ignore[no-untyped-def]
    ref = json.loads(run("remember", "Never force-push main", "--json"))["ref"]
    assert json.loads(run("confirm", ref, "--json")) == {"ref": ref, "counted": True}
    view = json.loads(run("show", ref, "--json"))["memories"][0]
    assert view["evidence"]["confirmed"]["tools"] == ["user"]


@sqlite_only.FILE
def test_init_json(run, home: Path) -> None:  # type: ignore[no-untyped-def]
    out = json.loads(run("init", "--json"))
    assert out["store"] == str(home / "cairn.db") and out["memories"] == 0


@sqlite_only.TWO_STORES
def test_export_then_import_json(run, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    run("remember", "We deploy with Render")
    dump = run("export")
    (tmp_path / "dump.jsonl").write_text(dump)
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "other"))
    out = json.loads(run("import", str(tmp_path / "dump.jsonl"), "--json"))
    assert out["memories"] == 1
    assert json.loads(run("import", str(tmp_path / "dump.jsonl"), "--json"))["memories"] == 0


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["remember", ""], 3, "empty"),
        (["remember", "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789"], 3, "GitHub token"),
        (["remember", "x", "--when", "not json"], 3, "--when must be JSON"),
        (["remember", "x", "--replaces", "m-abcdef"], 4, "m-abcdef"),
        (["show", "--json"], 2, "Missing argument"),
        (["forget", "m-abcdef"], 4, "no memory"),
    ],
)
def test_errors_are_one_clean_line(run, args: list[str], code: int, words: str) -> None:  # type: ignore[no-untyped-def]
    err = run(*args, code=code)
    assert words in err
    assert "Traceback" not in err
