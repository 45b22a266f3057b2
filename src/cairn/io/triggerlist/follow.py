"""Following a shared store's trigger changes from a long-lived process.

A PostgreSQL store notifies `cairn_triggers` in every transaction that changes the set of
memories the trigger list is made from (migration 0015). The MCP server and `cairn serve`
run `follow` beside their requests, in their own event loop (a task, not a thread or a
process): it waits on the LISTEN connection's socket, and when a notification comes brings
this machine's trigger list up to date (`ensure`), so a lesson written on another machine
fires here on the next tool call, not only after the next session start or `cairn` command.

The hook does not follow anything: it lives for one call, and never connects on a call
that cannot match. On SQLite there is nothing to follow (`Store.watch_triggers` is None): the
writers on this machine refresh the list themselves.

When the watch's connection is lost, following stops (logged in `hook-errors.log`); every
MCP call and `cairn` command still checks the list against the store, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.core.errors import CairnError
from cairn.io.triggerlist import ensure, files

if TYPE_CHECKING:
    from collections.abc import Callable

    from cairn.io.store.protocol import Store

__all__ = ["follow"]


async def follow(opener: Callable[[], Store]) -> None:
    """Keep the trigger list beside `opener()`'s store current until cancelled (returns at
    once when the store has nothing to follow). `opener` gives a store handle of its own: the
    requests' handle may be busy in a worker thread."""
    import anyio

    try:
        store = opener()
    except Exception:  # a store that cannot be opened: each request reports it
        return
    try:
        watch = store.watch_triggers()
    except CairnError:
        store.close()
        return
    if watch is None:
        store.close()
        return
    try:
        ensure(store)  # what changed before the LISTEN began
        while True:
            await anyio.wait_readable(watch.fileno())
            if watch.changed():
                ensure(store)
    except (CairnError, OSError) as exc:
        files.log(store.folder, f"stopped following the store's trigger changes: {exc}")
    finally:
        watch.close()
        store.close()
