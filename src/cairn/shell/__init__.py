"""Parse a shell command into the actions it performs: `git commit ...` -> `git-commit`.

Pure: no I/O, and nothing beyond the standard library and tree-sitter, because the hook
runs it before every shell command. No input makes it raise.
"""

from cairn.shell.actions import action_words
from cairn.shell.commands import SimpleCommand, actions, commands

__all__ = ["SimpleCommand", "action_words", "actions", "commands"]
