"""Choosing the store: SQLite in the workspace folder, or a PostgreSQL database by its URL.

`CAIRN_DATABASE_URL=postgresql://...` (or `cairn --store postgresql://...`, which sets it for
the command and what it starts) puts the memories in that database; the workspace folder then
keeps only what each machine holds for itself (the trigger list, recall's files, logs).
Without it, the store is the SQLite file in the workspace folder, as always.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from cairn.core.errors import ConfigError

if TYPE_CHECKING:
    from cairn.io.store.protocol import Store

URL_ENV = "CAIRN_DATABASE_URL"
SCHEMES = ("postgresql://", "postgres://")


def store_url(given: str | None = None) -> str | None:
    """The PostgreSQL URL to use (given, else `$CAIRN_DATABASE_URL`), or None for SQLite."""
    url = given if given is not None else os.environ.get(URL_ENV, "")
    if not url:
        return None
    if not url.startswith(SCHEMES):
        raise ConfigError(
            f"{URL_ENV} (or --store) must be a postgresql:// URL, not {url.split(':', 1)[0]!r}"
        )
    return url


def open_store(
    home: str | os.PathLike[str],
    *,
    url: str | None = None,
    create: bool = True,
    busy_ms: int | None = None,
    trust_checked: bool = False,
    within_s: float | None = None,
) -> Store:
    """The store for this workspace folder: PostgreSQL when a URL is set, else SQLite.

    For PostgreSQL only: `trust_checked` skips the schema check this machine already made
    for the database (the hook's tool calls), `within_s` bounds connecting and each
    statement by what is left of a caller's budget (`cairn.io.store.postgres.connect`).
    """
    chosen = store_url(url)
    if chosen is not None:
        from cairn.io.store.postgres import PostgresStore

        return PostgresStore(
            chosen, home, busy_ms=busy_ms, trust_checked=trust_checked, within_s=within_s
        )
    from cairn.io.store.sqlite import SqliteStore

    return SqliteStore(home, create=create, busy_ms=busy_ms)
