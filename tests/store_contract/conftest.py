"""The contract suite's stores: every test here runs once per backend.

A test takes `store` (a fresh, empty store of the backend) and sees it only through the
`cairn.io.store.protocol.Store` methods, so what passes here holds for every backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cairn.core.models import Memory
from cairn.io.store import SqliteStore
from cairn.io.store.postgres import PostgresStore
from cairn.io.store.protocol import Store
from cairn.usecases.remember import folded_sentence, index_text

BACKENDS = ["sqlite", "postgresql"]
T0 = "2026-11-01T12:00:00.000000Z"


@pytest.fixture(params=BACKENDS)
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Opens fresh stores of one backend (each call another, empty one)."""
    opened: list[Store] = []

    def _open() -> Store:
        home = tmp_path / f"home{len(opened)}"
        store: Store
        if request.param == "postgresql":
            cluster = request.getfixturevalue("pg_cluster")
            store = PostgresStore(cluster.new_database(), home)
        else:
            store = SqliteStore(home)
        opened.append(store)
        return store

    yield _open
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: Callable[[], Store]) -> Store:
    return open_store()


def memory(ref: str, text: str, project: str = "/p", **fields: object) -> Memory:
    """A memory version as remember writes it (kind fact, written at T0 unless given)."""
    fields.setdefault("kind", "fact")
    fields.setdefault("written", T0)
    return Memory(ref=ref, text=text, project=project, **fields)  # type: ignore[arg-type]


def put(store: Store, m: Memory) -> Memory:
    """Insert `m` with its folded sentence and index text."""
    index = index_text(m.text, m.tags, m.source_ref, m.reason)
    return store.insert_memory(m, folded_sentence(m.text), index)
