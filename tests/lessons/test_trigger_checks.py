"""Issue 15: triggers that were accepted but could never fire, or fired on everything.

Each refusal names the form that works; each accepted form fires where it should.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cairn.api import Cairn
from cairn.cli import cli
from cairn.core.errors import RefusedError, TriggerError
from cairn.core.lessons.match import COMMAND_LIMIT, command_matches
from cairn.core.lessons.triggers import (
    PROBE_COMMANDS,
    PROBE_PATHS,
    dead_glob,
    match_all_share,
    never_matches,
    parse_when,
)
from cairn.usecases.calls import Call

# --- match-alls ------------------------------------------------------------------------------

ISSUE_MATCH_ALLS = [r"\S", "[^ ]", "[[:graph:]]", r"[^\t ]", r"\w", r"\b", "[a-z]"]


@pytest.mark.parametrize("pattern", ISSUE_MATCH_ALLS)
def test_the_issues_shell_match_alls_fire_on_real_commands_and_are_refused(pattern: str) -> None:
    # The old sample held blank commands; these fire on every command an agent runs.
    assert all(command_matches(pattern, c) for c in ("ls", "npm test", "./run.sh"))
    with pytest.raises(TriggerError, match="matches nearly every command"):
        parse_when({"tool": "shell", "match": pattern})


def test_the_issues_glob_match_all_is_refused() -> None:
    with pytest.raises(TriggerError, match="matches nearly every file"):
        parse_when({"tool": "read", "path": "[a-zA-Z0-9._~ -]**"})


@pytest.mark.parametrize(
    "pattern", ["git push", "^npm publish", r"terraform (apply|destroy)", "rm -rf", r"--force\b"]
)
def test_a_specific_regex_is_no_match_all(pattern: str) -> None:
    assert match_all_share(pattern, "shell") is None


@pytest.mark.parametrize("glob", ["packages/db/**", "*.sql", "src/**/*.ts", "Dockerfile", ".env*"])
def test_a_specific_glob_is_no_match_all(glob: str) -> None:
    assert match_all_share(glob, "path") is None


def test_a_pattern_matching_every_probe_is_a_match_all_whatever_the_samples() -> None:
    # `[lpmnc.]` matches each short probe (and so names no command in particular).
    assert all(command_matches("[lpmnc.]", probe) for probe in PROBE_COMMANDS)
    assert match_all_share("[lpmnc.]", "shell") == (
        "even `ls`, `pwd`, `make`, `./run.sh` and every other short probe"
    )
    assert match_all_share("*", "path") is not None
    assert len(PROBE_PATHS) >= 5


def test_a_pattern_matching_most_samples_is_a_match_all() -> None:
    reason = match_all_share(r"\s", "shell")  # `ls` has no space: not every probe
    assert reason is not None and "varied samples" in reason


# --- dead globs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("glob", "works"),
    [
        ("packages/db/", "packages/db/**"),
        ("packages//db/*.sql", "packages/db/*.sql"),
        ("../proj/packages/db/*.sql", "packages/db/*.sql"),
        ("/home/me/proj/packages/db/*.sql", "packages/db/*.sql"),
        ("/Users/me/proj/packages/db/*.sql", "packages/db/*.sql"),
        ("~/proj/packages/db/*.sql", "packages/db/*.sql"),
        ("packages/./db/*.sql", "packages/db/*.sql"),
    ],
)
def test_a_dead_glob_is_refused_with_the_form_that_works(glob: str, works: str) -> None:
    with pytest.raises(TriggerError, match="can never match a path") as refused:
        parse_when({"tool": "edit", "path": glob})
    assert f"`{works}`" in str(refused.value)
    assert parse_when({"tool": "edit", "path": works}).path == works


def test_a_glob_under_the_project_folder_is_refused_with_its_relative_form() -> None:
    reason = dead_glob("/work/app/src/*.py", "/work/app")
    assert "write `src/*.py`" in reason


def test_a_leading_slash_or_dot_slash_anchors_the_glob_at_the_root(ws: Cairn) -> None:
    assert dead_glob("/src/*.py") == ""
    root = ws.remember("Sources are generated", when={"tool": "read", "path": "/src/*.py"}).ref
    make = ws.remember("Run make check", when={"tool": "edit", "path": "/Makefile"}).ref
    dot = ws.remember("Env files hold secrets", when={"tool": "read", "path": "./.env"}).ref
    fired = lambda call: [f.memory.ref for f in ws.lessons_for(call, record=False).matched]  # noqa: E731
    assert fired(Call("read", paths=("src/a.py",))) == [root]
    assert fired(Call("read", paths=("lib/src/a.py",))) == []
    assert fired(Call("edit", paths=("Makefile",))) == [make]
    assert fired(Call("edit", paths=("docs/Makefile",))) == []
    assert fired(Call("read", paths=(".env",))) == [dot]
    assert fired(Call("read", paths=("deploy/.env",))) == []


# --- regexes that can never match ------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("a{600}", f"only the first {COMMAND_LIMIT} characters"),
        (r"[^\s\S]", "an empty set"),
        (r"x[^\d\D]+", "an empty set"),
        ("push$ now", "after `$`"),
        ("git ^push", "before `^`"),
    ],
)
def test_a_regex_that_can_never_match_is_refused(pattern: str, why: str) -> None:
    with pytest.raises(TriggerError, match="can never match a command") as refused:
        parse_when({"tool": "shell", "match": pattern})
    assert why in str(refused.value)


@pytest.mark.parametrize("pattern", ["a{0,600}", r"(?m)push$\ngit", r"(x|[^\s\S])", "git push$"])
def test_a_regex_that_can_match_is_not_called_dead(pattern: str) -> None:
    assert never_matches(pattern) == ""


# --- `$` at the 512-character cut --------------------------------------------------------------


@pytest.mark.parametrize("pattern", ["endz$", "(endz|endy)$", "x.*endz$", "e[n]dz$", r"endz\b"])
def test_dollar_does_not_match_at_the_cut(pattern: str) -> None:
    long = "x" * (COMMAND_LIMIT - 4) + "endz" + "y" * 16  # 528 characters, not ending in endz
    assert len(long) == 528
    assert not command_matches(pattern, long)
    assert command_matches(pattern, "x" * 100 + "endz")


# --- malformed `when`, and the kind a `when` makes -------------------------------------------


@pytest.mark.parametrize("when", [{}, [], 0, False, ""])
def test_a_malformed_when_is_refused_not_saved_as_a_fact(ws: Cairn, when: object) -> None:
    with pytest.raises(TriggerError):
        ws.remember("Deploys need approval", when=when)
    assert ws.store.count_memories() == 0


@pytest.mark.parametrize("when", ["{}", "null", "[]", "0", "false", '""'])
def test_the_cli_refuses_a_malformed_when(home: Path, project: Path, when: str) -> None:
    result = CliRunner().invoke(
        cli, ["--project", str(project), "remember", "Deploys need approval", "--when", when]
    )
    assert result.exit_code != 0
    assert "when" in result.output
    listed = CliRunner().invoke(cli, ["--project", str(project), "list", "--json"])
    assert json.loads(listed.output) == []


def test_an_explicit_fact_with_a_when_is_refused(ws: Cairn) -> None:
    with pytest.raises(TriggerError, match="a fact takes no `when`"):
        ws.remember("Push runs CI", kind="fact", when={"tool": "shell", "match": "git push"})


def test_a_when_without_a_kind_makes_a_lesson(ws: Cairn) -> None:
    ref = ws.remember("Push runs CI", when={"tool": "shell", "match": "git push"}).ref
    assert ws.store.get_memory(ref).kind == "lesson"


# --- action tags -----------------------------------------------------------------------------


def test_an_action_tag_is_normalised_and_fires(ws: Cairn) -> None:
    ref = ws.remember("Sign commits", kind="rule", tags=["Trigger:Git-Commit"]).ref
    assert ws.store.get_memory(ref).tags == ("trigger:git-commit",)
    decision = ws.lessons_for(Call("shell", command="git commit -m x"), record=False)
    assert [f.memory.ref for f in decision.fired] == [ref]
    assert [m.ref for m in ws.recall_for_action("git-commit")] == [ref]


@pytest.mark.parametrize("tag", ["trigger:", "trigger:commit", "trigger:foo-bar", "trigger:gh-x"])
def test_an_unknown_action_is_refused_with_the_known_ones(ws: Cairn, tag: str) -> None:
    with pytest.raises(RefusedError, match="unknown action") as refused:
        ws.remember("Sign commits", kind="rule", tags=[tag])
    message = str(refused.value)
    assert "git-commit" in message and "pr-create" in message and "cairn rules --list" in message


def test_cairn_rules_list_shows_the_actions(home: Path, project: Path) -> None:
    result = CliRunner().invoke(cli, ["--project", str(project), "rules", "--list", "--json"])
    assert result.exit_code == 0, result.output
    forms = json.loads(result.output)
    assert {"git-SUBCOMMAND", "npm-SUBCOMMAND", "pr-VERB", "make-TARGET", "gh-api"} <= set(forms)
    missing = CliRunner().invoke(cli, ["--project", str(project), "rules"])
    assert missing.exit_code != 0
