"""`cairn store`: create or upgrade the store (`migrate`), and move it between backends (`copy`)."""

from __future__ import annotations

from cairn.cli.app import Env, cli, json_option, pass_env
from cairn.cli.output import console, emit_json


@cli.group(name="store")
def store_group() -> None:
    """Create or upgrade the store (SQLite, or PostgreSQL with --store URL)."""


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
