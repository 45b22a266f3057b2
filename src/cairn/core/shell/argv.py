"""A command's words, and the getopt-style option skipping that wrappers and tools share.

A `Word` keeps three facts about one shell word:

    text     its value, quotes and escapes removed; an expansion keeps its source text
             (`$SUB`, `$(date)`), so a debugging view still shows what was written
    literal  it holds no expansion, so its value is known before the shell runs
    plain    literal, and its value is spelled out as-is in the command (quotes around it
             are fine; `g\\it` or `gi""t` are not): only a plain word can name a program or
             a subcommand, which keeps `cairn.core.shell.action_words` a sound byte-level test
"""

from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["Options", "Word", "basename", "options", "skip_options"]


class Word(NamedTuple):
    """One shell word after unquoting (see the module docstring for the three fields)."""

    text: str
    literal: bool
    plain: bool


class Options(NamedTuple):
    """The options of one program that matter for finding its first operand.

    `short` holds the letters of short options that take a value (`u` for `sudo -u root`),
    `long` the names of long options that take one as the next word (`user` for
    `--user root`; the `--user=root` form needs no entry). `stop` holds words after which
    the program runs no command at all (`--version`, `command -v`).
    """

    short: frozenset[str] = frozenset()
    long: frozenset[str] = frozenset()
    stop: frozenset[str] = frozenset({"--help", "--version"})


def options(short: str = "", long: str = "", stop: str = "") -> Options:
    """Options from compact spellings: `options("u", "user group", "-l")`.

    `--help` and `--version` always stop: with either, no program runs a command.
    """
    always = frozenset({"--help", "--version"})
    return Options(frozenset(short), frozenset(long.split()), always | frozenset(stop.split()))


def skip_options(argv: Sequence[Word], start: int, options: Options) -> int | None:
    """Index of the first operand at or after `start` (len(argv) when there is none).

    None when a `stop` word comes first. Short options may be clustered (`-nu root`, where
    the last letter takes the next word, or `-uroot` with the value attached); `--` ends the
    options. A lone `-` is an operand, as getopt has it.
    """
    i = start
    n = len(argv)
    while i < n:
        text = argv[i].text
        if text in options.stop:
            return None
        if text == "--":
            return i + 1
        if len(text) < 2 or text[0] != "-":
            return i
        i += 1
        if text[1] == "-":
            if text[2:] in options.long:
                i += 1
            continue
        for k in range(1, len(text)):
            if text[k] in options.short:
                # The rest of the cluster is the value; with nothing left it is the next word.
                if k == len(text) - 1:
                    i += 1
                break
    return min(i, n)


def basename(path: str) -> str:
    """The last `/`-separated part of a program path: `/usr/bin/git` -> `git`."""
    return path.rpartition("/")[2]
