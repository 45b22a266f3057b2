"""Write docs/cli.md from the CLI's own help (run after changing a command).

`tests/test_cli_docs.py` fails when docs/cli.md is not what this script writes, so the
reference can never drift from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from cairn.cli import cli

INTRO = """# CLI reference

`cairn` works on the workspace store in `$CAIRN_HOME` (default `$XDG_DATA_HOME/cairn`) and on
the project that is the git root of the current folder (`--project` says otherwise). Every
command prints for people by default and takes `--json` for machines. A refused or invalid
input prints one line on stderr (`cairn: ...`; an import refusing several records adds one
line for each) and exits non-zero: 2 for a bad query or usage, 3 for a refusal (nothing was
written), 4 for an unknown ref, 5 for a conflicting edit, 6 for a store that cannot be opened.
The hook entry `cairn-hook AGENT EVENT` is a separate program (see docs/hooks.md).

This page is generated from the commands' help by `scripts/cli_docs.py`.
"""


def walk(command: click.Command, path: list[str]) -> list[tuple[list[str], click.Command]]:
    """Every command under `command`, depth first, in name order."""
    out = [(path, command)]
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in sorted(command.list_commands(ctx)):
            sub = command.get_command(ctx, name)
            assert sub is not None, name
            out.extend(walk(sub, [*path, name]))
    return out


def render() -> str:
    """The whole of docs/cli.md."""
    parts = [INTRO]
    for path, command in walk(cli, ["cairn"]):
        # as the CLI runs it: the group's -h/--help applies to every command
        ctx = click.Context(command, info_name=" ".join(path), help_option_names=["-h", "--help"])
        formatter = ctx.make_formatter()
        formatter.width = 100
        command.format_help(ctx, formatter)
        level = "##" if len(path) <= 2 else "###"
        parts.append(f"{level} `{' '.join(path)}`\n\n```\n{formatter.getvalue().rstrip()}\n```\n")
    return "\n".join(parts)


def main() -> None:
    """Write docs/cli.md (or print it with `-`)."""
    text = render()
    if sys.argv[1:] == ["-"]:
        sys.stdout.write(text)
    else:
        Path(__file__).resolve().parents[1].joinpath("docs", "cli.md").write_text(text)


if __name__ == "__main__":
    main()
