"""The `cairn` group joined to its commands.

`cairn.cli.group` holds the group and what every command shares; each command's module
imports it to register its command. `cairn.cli.commands` names the module of each command and
imports one when it is asked for. Joining them here keeps either from importing the other:
the group learns its table and its loader from this module, which `main` imports.
"""

from __future__ import annotations

from cairn.cli import commands
from cairn.cli.group import CairnFailure, CairnGroup, Env, Interrupted, cli, pass_env

__all__ = ["CairnFailure", "CairnGroup", "Env", "Interrupted", "cli", "pass_env"]

cli.table = commands.COMMANDS
cli.loader = commands.load
