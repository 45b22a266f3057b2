"""actions() and action_words(): the spec's four shapes and the corpus table."""

import pytest
from shell_corpus import CASES, SPEC_CASES

from cairn.shell import action_words, actions


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
def test_action_words_all_occur_in_command_text(command: str, expected: list[str]) -> None:
    lowered = command.lower()
    for action in actions(command):
        assert all(word in lowered for word in action_words(action)), action


def test_actions_ten_thousand_characters() -> None:
    command = "echo " + "y" * 10_000 + " ; git commit -m x"
    assert len(command) > 10_000
    assert actions(command) == ["git-commit"]


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ("git-commit", ("git", "commit")),
        ("git-rev-parse", ("git", "rev-parse")),
        ("pr-create", ("gh", "pr")),  # `gh pr new` creates one too
        ("issue-list", ("gh", "issue")),  # `gh issue ls`
        ("pr-merge", ("gh", "pr", "merge")),
        ("ssh-key-add", ("gh", "ssh", "key", "add")),
        ("gh-api", ("gh", "api")),
        ("npm-install", ("npm",)),  # `npm i`, `npm add`
        ("npm-publish", ("npm", "publish")),
        ("docker-push", ("docker", "push")),  # `docker image push` still says push
        ("docker-build", ("docker", "build")),
        ("yarn-install", ("yarn",)),  # a bare `yarn` installs
        ("cargo-test", ("cargo",)),  # `cargo t`
        ("helm-uninstall", ("helm",)),  # `helm del`
        ("make-release", ("make", "release")),
        ("pip-install", ("pip", "install")),  # pip3 and `python -m pip` contain "pip"
    ],
)
def test_action_words_keep_only_words_every_spelling_shares(
    action: str, words: tuple[str, ...]
) -> None:
    assert action_words(action) == words


def test_action_words_are_lowercase_and_nonempty_for_every_corpus_action() -> None:
    found = {action for command, _ in CASES for action in actions(command)}
    assert len(found) > 40
    for action in found:
        words = action_words(action)
        assert words
        assert all(word and word == word.lower() for word in words)
