"""`cairn store`: create or upgrade the store (`migrate`), and move it between backends (`copy`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json

if TYPE_CHECKING:
    from cairn.io.store.protocol import Store


@cli.group(name="store")
def store_group() -> None:
    """Create, upgrade or copy the store (SQLite, or PostgreSQL with --store URL)."""


@store_group.command()
@json_option
@pass_env
def migrate(env: Env, as_json: bool) -> None:
    """Create the store's tables or bring them up to date (safe to run again).

    With $CAIRN_DATABASE_URL (or `cairn --store URL`) set, this is the PostgreSQL database's
    schema; run it once when the database is new and after each Cairn upgrade. Opening a
    PostgreSQL store never changes its schema by itself. Without a URL, the workspace's SQLite
    store is created or upgraded (as any command does when it opens it).
    """
    from cairn.io.store.backends import store_url

    url = store_url()
    if url is None:
        cairn = env.cairn()
        where, done = cairn.store.location, []
    else:
        from cairn.core.context import stamp, utcnow
        from cairn.io.store.postgres import PostgresStore, redact

        where = redact(url)
        done = PostgresStore.migrate(url, stamp(utcnow()))
    if as_json:
        emit_json({"store": where, "applied": done})
    elif done:
        console().print(f"store {where}: applied {', '.join(done)}")
    else:
        console().print(f"store {where}: up to date")


@store_group.command()
@click.argument("source")
@click.argument("dest")
@json_option
@pass_env
def copy(env: Env, source: str, dest: str, as_json: bool) -> None:
    """Copy a store into an empty one and verify it: SQLite to PostgreSQL, or back.

    SOURCE and DEST are each a workspace folder (its SQLite store) or a postgresql:// URL (a
    database `cairn store migrate` made). Everything the store holds is copied row for row,
    with the same refs, in one transaction: memories with every version, evidence, code acts,
    sessions, progress, offers, gate denials, tidy declines, learn state and the doc index.
    Then it is checked: the same number of rows in every table, and the same memory for every
    ref.
    """
    from cairn.io.store.backends import SCHEMES, open_store
    from cairn.io.store.connection import default_home
    from cairn.usecases.transfer import copy_store

    def opened(where: str, create: bool) -> Store:
        if where.startswith(SCHEMES):
            return open_store(env.home or default_home(), url=where)
        return open_store(where, url="", create=create)

    src = opened(source, create=False)
    try:
        dst = opened(dest, create=True)
        try:
            done = copy_store(src, dst)
            where = (src.location, dst.location)
        finally:
            dst.close()
    finally:
        src.close()
    if as_json:
        emit_json({"source": where[0], "dest": where[1], "tables": done.to_dict()})
    else:
        rows = sum(done.tables.values())
        console().print(
            f"copied {where[0]} to {where[1]} and verified: {done.memories} memory versions, "
            f"{rows} rows in {len(done.tables)} tables"
        )
