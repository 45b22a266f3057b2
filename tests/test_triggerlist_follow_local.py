"""Following trigger changes where there is nothing to follow: `follow` returns at once, and a
long-lived process (the MCP server, `cairn serve`) goes on serving requests."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import anyio
import pytest

import cairn
from cairn.core.errors import StoreError
from cairn.io.store import SqliteStore
from cairn.io.triggerlist.follow import follow


def test_a_store_that_cannot_be_opened_is_left_to_the_requests(tmp_path: Path) -> None:
    # Each request reports the store's fault to its caller; following simply does not start.
    blocked = tmp_path / "home"
    blocked.write_text("a file where the store's folder should be", encoding="utf-8")
    with pytest.raises(StoreError):
        SqliteStore(blocked)
    opened: list[SqliteStore] = []

    def opener() -> SqliteStore:
        store = SqliteStore(blocked)
        opened.append(store)
        return store

    assert anyio.run(follow, opener) is None
    assert opened == []


def test_on_sqlite_there_is_nothing_to_follow(home: Path, project: Path) -> None:
    with cairn.open(home, project=project) as ws:
        ws.remember("Run the tests before a push", when={"tool": "shell", "match": "git push"})
    stores: list[SqliteStore] = []

    def opener() -> SqliteStore:
        stores.append(SqliteStore(home))
        return stores[0]

    assert anyio.run(follow, opener) is None
    (store,) = stores
    assert store.watch_triggers() is None
    # The store follow opened was closed again: using it now fails.
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        store.list_memories(project=str(project))
