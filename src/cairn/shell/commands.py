"""Command text -> the simple commands it runs and the actions they perform (the use case).

`parse` finds each simple command and peels its wrappers; `actions` names what it does.
"""

from dataclasses import dataclass

from cairn.shell.actions import action_for
from cairn.shell.argv import basename
from cairn.shell.parse import argvs

__all__ = ["SimpleCommand", "actions", "commands"]


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


def actions(command: str) -> list[str]:
    """The actions `command` performs, in order of appearance, each once.

    `actions("cd repo && git commit -m x") == ["git-commit"]`; quoted text, comments and
    heredoc bodies perform none.
    """
    return list(dict.fromkeys(c.action for c in commands(command) if c.action is not None))
