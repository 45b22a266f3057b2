"""commands(): which simple commands are found, their words, and the wrappers peeled."""

import dataclasses

import pytest
from shell_corpus import AGENT_COMMIT

from cairn.core.shell import SimpleCommand, commands
from cairn.core.shell import parse as shell_parse


def programs(command: str) -> list[str]:
    return [c.program for c in commands(command)]


def test_commands_unwrapped_command_keeps_only_its_own_words() -> None:
    assert commands("sudo -u x git push") == [SimpleCommand("git", ("git", "push"), "git-push")]


def test_commands_program_is_basename_of_first_word() -> None:
    [found] = commands("/usr/bin/git commit")
    assert (found.program, found.words[0], found.action) == ("git", "/usr/bin/git", "git-commit")


def test_commands_expansion_as_program_is_kept_as_written() -> None:
    assert commands("$GIT commit") == [SimpleCommand("$GIT", ("$GIT", "commit"), None)]


def test_commands_quoted_text_is_one_data_word() -> None:
    assert commands('echo "git commit"') == [SimpleCommand("echo", ("echo", "git commit"), None)]


def test_commands_program_outside_table_has_no_action() -> None:
    assert commands("ls -la") == [SimpleCommand("ls", ("ls", "-la"), None)]


def test_commands_words_are_unquoted_and_unescaped() -> None:
    [found] = commands('printf \'a b\' "c\\"d" $\'e\\tf\' g\\ h "$HOME/x"')
    assert found.words == ("printf", "a b", 'c"d', "e\tf", "g h", "$HOME/x")


def test_commands_agent_heredoc_commit_finds_git_then_cat() -> None:
    found = commands(AGENT_COMMIT)
    assert [(c.program, c.action) for c in found] == [("git", "git-commit"), ("cat", None)]


def test_commands_shell_script_follows_the_shell() -> None:
    assert commands("bash -c 'git push'") == [
        SimpleCommand("bash", ("bash", "-c", "git push"), None),
        SimpleCommand("git", ("git", "push"), "git-push"),
    ]


def test_commands_substitution_in_shell_script_is_counted_once() -> None:
    assert programs('bash -c "git commit -m \\"$(date)\\""') == ["bash", "git", "date"]


def test_commands_prefix_substitution_comes_before_its_command() -> None:
    assert programs("FOO=$(git rev-parse HEAD) make deploy") == ["git", "make"]


def test_commands_comment_holds_no_command() -> None:
    assert programs("ls foo # git commit") == ["ls"]


def test_commands_wrapper_that_runs_nothing_stays_the_program() -> None:
    assert programs("sudo -l git push") == ["sudo"]
    assert programs("command -v git") == ["command"]


def test_commands_xargs_runs_its_command() -> None:
    assert programs("git ls-files | xargs git add") == ["git", "git"]


def test_commands_empty_input_finds_nothing() -> None:
    assert commands("") == []


def test_commands_deep_substitution_nesting_does_not_recurse() -> None:
    found = commands("$(" * 3000 + "git push" + ")" * 3000)
    assert found[-1].action == "git-push"


def test_simple_command_is_frozen() -> None:
    found = SimpleCommand("git", ("git", "push"), "git-push")
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.program = "hg"  # type: ignore[misc]


def test_parser_is_built_once_per_process() -> None:
    commands("git push")
    assert shell_parse._parser() is shell_parse._parser()
