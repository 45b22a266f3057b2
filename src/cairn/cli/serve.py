"""`cairn serve`: the app in the browser (the server lives in `cairn.web.serve`)."""

from __future__ import annotations

import click

from cairn.cli.group import Env, cli, pass_env
from cairn.cli.launch import run_program


@cli.command()
@click.option("--port", type=int, default=0, help="Port on 127.0.0.1 (default: a free one).")
@click.option("--open", "open_", is_flag=True, help="Open the URL in the default browser.")
@pass_env
def serve(env: Env, port: int, open_: bool) -> None:
    """Serve the app on 127.0.0.1: memory cards, review, lessons, stats, with Undo.

    Prints a URL with a one-time token (it becomes a cookie); Ctrl-C stops it. See
    docs/app.md.
    """
    if not 0 <= port <= 65535:
        raise click.BadParameter("the port must be 0-65535", param_hint="--port")
    argv = ["--port", str(port)]
    if env.home:
        argv += ["--home", env.home]
    if env.project:
        argv += ["--project", env.project]
    if open_:
        argv.append("--open")
    # Entry points never import each other (docs/architecture.md): the server runs as its own
    # program (`cairn.cli.launch`); Starlette, Jinja2 and uvicorn load only there.
    raise SystemExit(run_program("cairn.web.serve", argv))
