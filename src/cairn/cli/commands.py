"""Which module defines each `cairn` command, so a command's module is imported only when run.

`cairn recall` loads `cairn.cli.recall` and what it needs, not the modules of the other
commands (their imports cost a new process tens of ms). A new command is added here; a test
checks that this map names exactly the commands the modules register.
"""

from __future__ import annotations

import importlib

COMMANDS = {
    "confirm": "cairn.cli.memory",
    "contradict": "cairn.cli.memory",
    "correct": "cairn.cli.memory",
    "docs": "cairn.cli.docs",
    "doctor": "cairn.cli.setup",
    "export": "cairn.cli.transfer",
    "export-rules": "cairn.cli.rulesfiles",
    "forget": "cairn.cli.memory",
    "gate": "cairn.cli.gates",
    "githooks": "cairn.cli.learn",
    "hook": "cairn.cli.hook",
    "import": "cairn.cli.transfer",
    "import-rules": "cairn.cli.rulesfiles",
    "init": "cairn.cli.memory",
    "learn": "cairn.cli.learn",
    "lessons": "cairn.cli.lessons",
    "list": "cairn.cli.memory",
    "mcp": "cairn.cli.mcp",
    "pin": "cairn.cli.memory",
    "progress": "cairn.cli.progress",
    "recall": "cairn.cli.recall",
    "remember": "cairn.cli.memory",
    "restore": "cairn.cli.memory",
    "review": "cairn.cli.learn",
    "rules": "cairn.cli.lessons",
    "serve": "cairn.cli.serve",
    "setup": "cairn.cli.setup",
    "show": "cairn.cli.memory",
    "stats": "cairn.cli.stats",
    "store": "cairn.cli.store",
    "tidy": "cairn.cli.tidy",
    "unpin": "cairn.cli.memory",
}


def load(name: str) -> None:
    """Import the module that registers command `name` (nothing for an unknown name)."""
    module = COMMANDS.get(name)
    if module is not None:
        importlib.import_module(module)


def load_all() -> None:
    """Import every command's module (for the help listing and the docs)."""
    for module in sorted(set(COMMANDS.values())):
        importlib.import_module(module)
