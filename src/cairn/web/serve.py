"""`cairn serve`: run the app with uvicorn on 127.0.0.1 until Ctrl-C.

Run by name from `cairn.cli.serve` (entry points never import each other): `main(argv)`.
The socket is bound here, before the URL is printed, so the URL printed is already served
and the port asked for (or the free one the system gave) cannot be taken in between. On a
shared PostgreSQL store, the server follows the store's trigger changes while it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cairn.api import open as open_cairn
from cairn.web import Keys, create_app

HOST = "127.0.0.1"  # never anything else: the app is for the person at this machine


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (`port` 0: one the system picks)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


async def _serve(server: Any, sock: socket.socket, home: Path) -> None:
    """Serve, while following the store's trigger changes (`cairn.io.triggerlist.follow`: a task
    of this loop, ended with the server)."""
    import anyio

    from cairn.io.store.backends import open_store
    from cairn.io.triggerlist.follow import follow

    async with anyio.create_task_group() as tg:
        tg.start_soon(follow, lambda: open_store(home))
        await server.serve(sockets=[sock])
        tg.cancel_scope.cancel()


def main(argv: Sequence[str]) -> int:
    """Open the workspace, bind, print the one-time URL, serve until interrupted."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="cairn serve")
    parser.add_argument("--home")
    parser.add_argument("--project")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--open", action="store_true")
    args = parser.parse_args(list(argv))
    try:
        sock = bind(args.port)
    except OSError as exc:
        print(f"cairn: cannot listen on {HOST}:{args.port} ({exc.strerror})", file=sys.stderr)
        return 1
    keys = Keys(sock.getsockname()[1])
    workspace = open_cairn(args.home, project=args.project, tool="user")
    try:
        config = uvicorn.Config(
            create_app(workspace, keys),
            log_level="warning",
            access_log=False,
            lifespan="off",
        )
        print(f"Cairn app for {workspace.ctx.project}", flush=True)
        print(f"open {keys.url()}", flush=True)
        print("(the token works once; Ctrl-C stops the app)", flush=True)
        if args.open:
            import webbrowser

            webbrowser.open(keys.url())
        # uvicorn shuts down cleanly on Ctrl-C, then raises it again for its caller.
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_serve(uvicorn.Server(config), sock, workspace.store.home))
    finally:
        sock.close()
        workspace.close()
    print("cairn serve: stopped", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":  # `cairn serve` runs this module as its own program
    raise SystemExit(main(sys.argv[1:]))
