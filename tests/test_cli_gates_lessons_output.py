"""What a person reads from `cairn gate`, `cairn lessons` and `cairn rules` without --json."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cairn.cli import cli

Run = Callable[..., Result]
PUSH = '{"tool": "shell", "match": "git push"}'


@pytest.fixture
def run(home: Path, project: Path) -> Run:
    runner = CliRunner()

    def _run(*args: str, code: int = 0) -> Result:
        result = runner.invoke(cli, ["--project", str(project), *args], catch_exceptions=False)
        assert result.exit_code == code, (result.stdout, result.stderr)
        return result

    return _run


def _remember(run: Run, text: str, *options: str) -> str:
    ref: str = json.loads(run("remember", text, *options, "--json").stdout)["ref"]
    return ref


def test_gate_on_and_off_say_what_changed_for_a_lesson(run: Run) -> None:
    ref = _remember(run, "Run the tests before a push", "--when", PUSH)
    on = run("gate", "on", ref).stdout
    assert on.strip() == f"{ref} is gate: Run the tests before a push"
    off = run("gate", "off", ref).stdout
    assert off.strip() == f"{ref} is no longer a gate: Run the tests before a push"


def test_gate_on_an_action_names_the_committed_file(run: Run, project: Path) -> None:
    out = " ".join(run("gate", "on", "trigger:git-commit").stdout.split())
    assert out == "rules of git-commit are gates in this project (.cairn/gates; commit it to share)"
    assert "git-commit" in (project / ".cairn" / "gates").read_text(encoding="utf-8")
    off = " ".join(run("gate", "off", "trigger:git-commit").stdout.split())
    assert off.startswith("rules of git-commit are no longer gates in this project")


def test_gate_list_says_when_there_are_none_then_lists_memories_and_actions(run: Run) -> None:
    assert run("gate", "list").stdout.strip() == "no gates in this project"
    ref = _remember(run, "Run the tests before a push", "--when", PUSH)
    run("gate", "on", ref, "trigger:pr-create")
    listed = run("gate", "list").stdout.splitlines()
    assert listed == [
        f"{ref} (lesson) Run the tests before a push",
        "every rule of pr-create (.cairn/gates)",
    ]


def test_gate_on_an_unknown_ref_is_one_line_and_a_nonzero_exit(run: Run) -> None:
    result = run("gate", "on", "m-000000", code=4)
    assert result.stdout == ""
    assert result.stderr.startswith("cairn: ") and "m-000000" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_lessons_test_takes_exactly_one_call(run: Run) -> None:
    none = run("lessons", "test", code=2)
    assert "give exactly one of --shell, --read or --edit" in none.stderr
    two = run("lessons", "test", "--shell", "ls", "--read", "a.py", code=2)
    assert "give exactly one of --shell, --read or --edit" in two.stderr


def test_lessons_test_says_when_nothing_would_fire(run: Run) -> None:
    _remember(run, "Run the tests before a push", "--when", PUSH)
    assert run("lessons", "test", "--shell", "ls -la").stdout.strip() == (
        "nothing would fire on this call"
    )
    assert "nothing would fire" in run("lessons", "test", "--edit", "src/app.py").stdout


def test_lessons_test_shows_a_lesson_firing_on_a_read(run: Run) -> None:
    ref = _remember(
        run,
        "The schema file is generated; edit schema.in",
        "--when",
        '{"tool": "read", "path": "db/schema.sql"}',
    )
    out = run("lessons", "test", "--read", "db/schema.sql").stdout
    first, text = out.splitlines()[:2]
    assert first.startswith(f"{ref} fires — ")
    assert text.strip() == "The schema file is generated; edit schema.in"
    # Nothing was recorded: the same call still fires (a lesson shown once a session would not).
    assert f"{ref} fires" in run("lessons", "test", "--read", "db/schema.sql").stdout


def test_lessons_test_shows_what_a_gate_makes_the_agent_read(run: Run) -> None:
    ref = _remember(run, "Run the tests before a push", "--when", PUSH)
    run("gate", "on", ref)
    out = run("lessons", "test", "--shell", "git push origin main").stdout
    assert "actions: git-push" in out
    assert f"{ref} gate: stops the first such call of a session" in out
    _, agent_reads = out.split("the agent would read, instead of the call's result:")
    assert "Run the tests before a push" in agent_reads


def test_lessons_rebuild_says_how_many_lines_it_wrote(run: Run) -> None:
    _remember(run, "Run the tests before a push", "--when", PUSH)
    out = run("lessons", "rebuild").stdout.strip()
    lines = json.loads(run("lessons", "rebuild", "--json").stdout)["lines"]
    assert lines >= 1
    assert out == f"trigger list rewritten: {lines} lines"


def test_rules_list_names_each_action_and_its_command(run: Run) -> None:
    forms = json.loads(run("rules", "--list", "--json").stdout)
    listed = run("rules", "--list").stdout
    assert "git-SUBCOMMAND" in forms
    # One entry per action, in the order --json gives (a long entry may wrap on a narrow screen).
    starts = [line.split()[0] for line in listed.splitlines() if line.split()[0] in forms]
    assert starts == list(forms)
    assert " ".join(listed.split()).startswith(f"git-SUBCOMMAND {forms['git-SUBCOMMAND']}")


def test_rules_without_an_action_is_a_usage_error(run: Run) -> None:
    assert "give an ACTION (like git-commit), or --list" in run("rules", code=2).stderr


def test_rules_for_an_action_newest_first_or_none(run: Run, clock) -> None:  # type: ignore[no-untyped-def]
    assert run("rules", "git-commit").stdout.strip() == "no rules for git-commit"
    old = _remember(
        run, "Commit messages are one line", "--kind", "rule", "--tag", "trigger:git-commit"
    )
    clock.advance(minutes=1)
    new = _remember(run, "Sign every commit", "--kind", "rule", "--tag", "trigger:git-commit")
    assert run("rules", "git-commit").stdout.splitlines() == [
        f"{new} Sign every commit",
        f"{old} Commit messages are one line",
    ]
