"""The `cairn` command line: thin click commands over the library.

Errors from the library (`CairnError`) become one line on stderr and the error's exit code;
a user mistake never shows a traceback.
"""

from __future__ import annotations

from typing import Any

from cairn.cli.app import Env, cli

__all__ = ["Env", "cli", "main"]


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point."""
    return cli.main(args=argv, prog_name="cairn")
