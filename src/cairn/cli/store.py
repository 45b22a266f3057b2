"""`cairn store`: create or upgrade the store (`migrate`), and move it between backends (`copy`)."""

from __future__ import annotations

import click

from cairn.cli.group import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.store.protocol import Store


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
    from cairn.store.backends import store_url

    url = store_url()
    if url is None:
        cairn = env.cairn()
        where, done = cairn.store.location, []
    else:
        from cairn.context import stamp, utcnow
        from cairn.store.postgres import PostgresStore, redact

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
    database `cairn store migrate` made). Everything `cairn export` carries is copied
    (memories with every version, evidence, code acts, sessions, progress) in one transaction,
    then checked: the same number of records of each type, and the same memory for every ref.
    Offers, gate denials and the doc index are not copied (the docs are indexed again).
    """
    from cairn.store.backends import SCHEMES, open_store
    from cairn.store.connection import default_home
    from cairn.transfer import copy_store

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
        emit_json({"source": where[0], "dest": where[1], **done.to_dict()})
    else:
        console().print(
            f"copied {where[0]} to {where[1]} and verified: {done.memories} memory versions, "
            f"{done.events} events, {done.acts} acts, {done.sessions} sessions, "
            f"{done.progress} progress records"
        )
