"""The click group and the environment every command shares."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import click

from cairn.api import Cairn
from cairn.api import open as open_cairn
from cairn.core.errors import CairnError

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class Env:
    """Options of the `cairn` group, and the store opened lazily from them."""

    home: str | None
    project: str | None
    tool: str
    session: str
    _cairn: Cairn | None = None

    def cairn(self) -> Cairn:
        """The workspace, opened on first use."""
        if self._cairn is None:
            self._cairn = open_cairn(
                self.home, project=self.project, tool=self.tool, session=self.session
            )
        return self._cairn

    def close(self) -> None:
        """Close the store if it was opened."""
        if self._cairn is not None:
            self._cairn.close()
            self._cairn = None


pass_env = click.make_pass_decorator(Env)


def json_option(func: F) -> F:
    """The `--json` flag every command takes."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")(func)


class CairnFailure(click.ClickException):
    """A library error, shown as one line with the error's own exit code."""

    def __init__(self, error: CairnError) -> None:
        super().__init__(str(error))
        # click reads `exit_code` to choose the process exit status; the class default is 1.
        vars(self)["exit_code"] = error.exit_code

    def show(self, file: Any = None) -> None:
        """Print `cairn: message` on stderr (no traceback, no usage text)."""
        click.echo(f"cairn: {self.format_message()}", err=True)


class Interrupted(click.ClickException):
    """Ctrl-C: one line and exit status 130 (128 + SIGINT), as shells report it.

    Store writes run in transactions, which roll back on the interrupt (`cairn tidy` writes
    nothing else); a file being written, such as an export, may be left partial.
    """

    exit_code = 130

    def __init__(self) -> None:
        super().__init__("interrupted")

    def show(self, file: Any = None) -> None:
        """Print `cairn: interrupted` on stderr (no traceback)."""
        click.echo(f"cairn: {self.format_message()}", err=True)


class CairnGroup(click.Group):
    """The `cairn` group: turns CairnError into CairnFailure for every command, and imports a
    command's module only when that command is asked for (`cairn.cli.commands`)."""

    # Which module registers each command, and how to import one: given by `cairn.cli.app`
    # (from `cairn.cli.commands`), since those modules import this one to register.
    table: Mapping[str, str] = {}
    loader: Callable[[str], None] | None = None

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, its module imported or not."""
        return sorted({*self.table, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, its module imported first."""
        if cmd_name not in self.commands and self.loader is not None:
            self.loader(cmd_name)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command, translating library errors."""
        try:
            return super().invoke(ctx)
        except CairnError as exc:
            raise CairnFailure(exc) from exc
        except KeyboardInterrupt as exc:
            raise Interrupted from exc
        except sqlite3.DatabaseError as exc:
            # A fault met while reading rows, past the `execute` that explains most of them.
            from cairn.io.store.failures import failure

            env = ctx.find_object(Env)
            opened = env._cairn if env is not None else None
            path = opened.store.location if opened is not None else "the workspace folder"
            raise CairnFailure(failure(exc, path)) from exc


@click.group(cls=CairnGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cairn", prog_name="cairn")
@click.option(
    "--home",
    envvar="CAIRN_HOME",
    help="Workspace folder (default: $CAIRN_HOME, else $XDG_DATA_HOME/cairn).",
)
@click.option(
    "--project",
    envvar="CAIRN_PROJECT",
    help="Project folder (default: the git root of the current folder).",
)
@click.option(
    "--tool",
    envvar="CAIRN_TOOL",
    default="cli",
    show_default=True,
    help="Name of the tool writing (counts for echo vs confirmation).",
)
@click.option(
    "--session",
    envvar="CAIRN_SESSION",
    default="",
    help="Session id: recorded when it first writes or cites, so a merge, revert or discard "
    "of its branch judges what it cited.",
)
@click.option(
    "--store",
    "store_url",
    metavar="URL",
    help="Keep the memories in this PostgreSQL database (postgresql://...) instead of the "
    "workspace's SQLite file; the same as setting $CAIRN_DATABASE_URL for this command.",
)
@click.pass_context
def cli(
    ctx: click.Context,
    home: str | None,
    project: str | None,
    tool: str,
    session: str,
    store_url: str | None,
) -> None:
    """Cairn: local-first memory for AI coding agents."""
    if store_url:
        # Set for the whole command: the MCP server and hooks it starts read it too.
        os.environ["CAIRN_DATABASE_URL"] = store_url
    env = Env(
        home=home or os.environ.get("CAIRN_HOME"), project=project, tool=tool, session=session
    )
    ctx.obj = env
    ctx.call_on_close(env.close)
