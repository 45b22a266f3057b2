"""Run another entry point (the hook, the MCP server, the app) as its own program.

Entry points never import each other (docs/architecture.md), and running one in this process
with `runpy` would be importing it by another name. So `cairn hook`, `cairn mcp` and
`cairn serve` start `python -m MODULE` on this interpreter: on POSIX in place of this process
(`os.execv`: same pid, same stdio, its exit status is this command's), elsewhere as a child
that inherits the stdio, waited for (execv there spawns a new process and returns, and an
agent would see its server exit). An isolated interpreter (`-I`, as `cairn setup` starts the
MCP server) starts the module isolated too.
"""

from __future__ import annotations

import os
import subprocess
import sys

__all__ = ["run_program"]


def command(module: str, argv: list[str]) -> list[str]:
    """The argv that runs entry point `module` with `argv` on this interpreter."""
    isolated = ["-I"] if sys.flags.isolated else []
    return [sys.executable, *isolated, "-m", module, *argv]


def run_program(module: str, argv: list[str]) -> int:
    """Run entry point `module` as its own program; its exit status (on POSIX, no return)."""
    args = command(module, argv)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execv(args[0], args)
    try:
        return subprocess.call(args)
    except KeyboardInterrupt:  # Ctrl-C reached the child too; its own exit is what counts
        return 130
