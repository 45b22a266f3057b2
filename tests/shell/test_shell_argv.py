"""skip_options(): getopt-style option skipping shared by wrappers and tools."""

import pytest

from cairn.core.shell.argv import Options, Word, basename, skip_options

SUDO = Options(frozenset("u"), frozenset({"user"}), frozenset({"-l"}))


def argv(*texts: str) -> list[Word]:
    return [Word(text, True, True) for text in texts]


@pytest.mark.parametrize(
    ("words", "index"),
    [
        (("sudo", "git"), 1),
        (("sudo", "-u", "root", "git"), 3),
        (("sudo", "-uroot", "git"), 2),
        (("sudo", "-Eu", "root", "git"), 3),
        (("sudo", "-uE", "git"), 2),  # "E" is the user
        (("sudo", "--user", "root", "git"), 3),
        (("sudo", "--user=root", "git"), 2),
        (("sudo", "--", "-weird"), 2),
        (("sudo", "-E", "-", "x"), 2),
        (("sudo", "-u"), 2),
        (("sudo", "-E"), 2),
    ],
)
def test_skip_options_finds_first_operand(words: tuple[str, ...], index: int) -> None:
    assert skip_options(argv(*words), 1, SUDO) == index


def test_skip_options_stop_word_means_no_command() -> None:
    assert skip_options(argv("sudo", "-E", "-l", "git"), 1, SUDO) is None


def test_basename_strips_directories() -> None:
    assert [basename(p) for p in ("/usr/bin/git", "git", "./bin/")] == ["git", "git", ""]
