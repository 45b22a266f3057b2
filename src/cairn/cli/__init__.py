"""The `cairn` command line: thin click commands over the library.

Errors from the library (`CairnError`) become one line on stderr and the error's exit code;
a user mistake never shows a traceback.

`cairn recall QUERY --json` (the search agents run as a new process each time) is answered
without click or numpy when it can be (`cairn.cli.lean`), to the same bytes.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["Env", "cli", "main"]


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["recall"]:
        from cairn.cli.lean import recall_json

        code = recall_json(args[1:])
        if code is not None:
            sys.exit(code)
    from cairn.cli.app import cli

    return cli.main(args=argv, prog_name="cairn")


def __getattr__(name: str) -> Any:
    # The click group is imported when asked for (`from cairn.cli import cli`), not by `main`.
    if name in ("Env", "cli"):
        from cairn.cli import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
