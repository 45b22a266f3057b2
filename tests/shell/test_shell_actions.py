"""actions() and action_words(): the spec's four shapes and the corpus table."""

import pytest
from shell_corpus import ALIAS_CASES, CASES, GIT_ALIASES, SPEC_CASES, reaches_the_parser

from cairn.core.shell import action_words, actions


def test_actions_git_commit_with_config_option_fires_git_commit() -> None:
    assert actions("git -c commit.gpgsign=false commit") == ["git-commit"]


def test_actions_git_config_naming_commit_does_not_fire_git_commit() -> None:
    assert "git-commit" not in actions("git config commit.gpgsign false")


def test_actions_quoted_git_commit_fires_nothing() -> None:
    assert actions('echo "git commit"') == []


def test_actions_compound_command_segment_fires_git_commit() -> None:
    assert actions("cd repo && git commit") == ["git-commit"]


def test_spec_cases_lead_the_corpus() -> None:
    assert CASES[: len(SPEC_CASES)] == SPEC_CASES


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[repr(c[:60]) for c, _ in CASES])
def test_actions_table(command: str, expected: list[str]) -> None:
    assert actions(command) == expected


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[repr(c[:60]) for c, _ in CASES])
def test_every_action_found_reaches_the_parser(command: str, expected: list[str]) -> None:
    for action in actions(command, GIT_ALIASES):
        assert reaches_the_parser(command, action, GIT_ALIASES), action


@pytest.mark.parametrize(("command", "expected"), ALIAS_CASES, ids=[c for c, _ in ALIAS_CASES])
def test_actions_with_git_aliases(command: str, expected: list[str]) -> None:
    assert actions(command, GIT_ALIASES) == expected
    for action in expected:
        assert reaches_the_parser(command, action, GIT_ALIASES), action


def test_actions_ten_thousand_characters() -> None:
    command = "echo " + "y" * 10_000 + " ; git commit -m x"
    assert len(command) > 10_000
    assert actions(command) == ["git-commit"]


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ("git-commit", (("git", "commit"), ("hub", "commit"))),  # aliases: `a:commit`
        ("git-rev-parse", (("git", "rev-parse"), ("hub", "rev-parse"))),
        ("pr-create", (("gh", "pr"), ("hub", "pr"), ("hub", "pull", "request"))),
        ("issue-list", (("gh", "issue"), ("hub", "issue"))),  # `gh issue ls`
        ("pr-merge", (("gh", "pr", "merge"), ("hub", "pr", "merge"))),
        ("gh-api", (("gh", "api"), ("hub", "api"))),
        ("npm-install", (("npm",),)),  # `npm i`, `npm add`
        ("npm-publish", (("npm", "publish"),)),
        ("docker-push", (("docker", "push"),)),  # `docker image push` still says push
        ("yarn-install", (("yarn",),)),  # a bare `yarn` installs
        ("cargo-test", (("cargo",),)),  # `cargo t`
        ("helm-uninstall", (("helm",),)),  # `helm del`
        ("make-release", (("make", "release"),)),
        ("pip-install", (("pip", "install"),)),  # pip3 and `python -m pip` contain "pip"
    ],
)
def test_action_words_keep_only_words_every_spelling_shares(
    action: str, words: tuple[tuple[str, ...], ...]
) -> None:
    assert action_words(action) == words


def test_action_words_are_lowercase_and_nonempty_for_every_corpus_action() -> None:
    found = {action for command, _ in CASES for action in actions(command)}
    assert len(found) > 40
    for action in found:
        spellings = action_words(action)
        assert spellings
        for words in spellings:
            assert words
            assert all(word and word == word.lower() for word in words)
