"""Parse a shell command into the actions it performs: `git commit ...` -> `git-commit`.

Pure: no I/O, and nothing beyond the standard library and tree-sitter, because the hook
runs it before every shell command. No input makes it raise.

`actions` and `action_words` are what the hook needs and are imported at once;
`commands` and `SimpleCommand` (the debugging view) load on first use (PEP 562), so the
hook does not pay for `dataclasses`.
"""

from cairn.core.shell.actions import action_words, actions

TYPE_CHECKING = False  # not `from typing import ...`: the names below are for type checkers

__all__ = ["SimpleCommand", "action_words", "actions", "commands"]

_LAZY = frozenset({"SimpleCommand", "commands"})


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module("cairn.core.shell.simple"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cairn.core.shell' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from cairn.core.shell.simple import SimpleCommand, commands
