"""Command text -> the simple commands it runs, each with its action: the debugging view.

Kept apart from `actions`, which the hook calls: a dataclass costs the import of
`dataclasses` (and `inspect`), and only this view needs one.
"""

from dataclasses import dataclass

from cairn.core.shell.actions import action_for
from cairn.core.shell.argv import basename
from cairn.core.shell.parse import argvs

__all__ = ["SimpleCommand", "commands"]


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One simple command as it runs, wrappers (`sudo`, `env`, ...) peeled.

    `words` is its argv with quotes and escapes removed, `words[0]` the program as written;
    a word holding an expansion keeps its source text (`$GIT`, `$(date)`). `program` is the
    basename of `words[0]`, or `words[0]` itself when that is an expansion.
    """

    program: str
    words: tuple[str, ...]
    action: str | None


def commands(command: str) -> list[SimpleCommand]:
    """Every simple command in `command`, in order of appearance; [] when none parses."""
    found: list[SimpleCommand] = []
    for argv in argvs(command):
        head = argv[0]
        found.append(
            SimpleCommand(
                program=basename(head.text) if head.literal else head.text,
                words=tuple(word.text for word in argv),
                action=action_for(argv),
            )
        )
    return found
