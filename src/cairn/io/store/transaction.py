"""`with store.transaction():` on SQLite: one transaction, nested ones joining it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import TracebackType

    from cairn.io.store.sqlite import SqliteStore

__all__ = ["Transaction"]


class Transaction:
    """`with store.transaction():` (a class: the store keeps its depth and its noted sessions).

    BEGIN IMMEDIATE (or `begin`) on the outermost entry, COMMIT on a clean exit, ROLLBACK on
    an exception; nested transactions join the outer one.
    """

    __slots__ = ("begin", "store")

    def __init__(self, store: SqliteStore, begin: str = "BEGIN IMMEDIATE") -> None:
        self.store = store
        self.begin = begin

    def __enter__(self) -> None:
        store = self.store
        if store._depth == 0:
            store._held = None  # a write (or a newer snapshot) may move the counts
            store.conn.execute(self.begin)
        store._depth += 1

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        store = self.store
        store._depth -= 1
        if store._depth:
            return
        if kind is not None:
            store._noted.clear()  # a session noted in this transaction is not there
            # SQLite may have rolled back already (on a full disk it does): a ROLLBACK then
            # would fail and hide the error that matters.
            if store.conn.in_transaction:
                store.conn.execute("ROLLBACK")
            return
        try:
            store.conn.execute("COMMIT")
        except BaseException:
            store._noted.clear()
            # A COMMIT that fails (a deferred constraint, a full disk) leaves the transaction
            # open; roll it back so the store is usable again and nothing half-written stays.
            if store.conn.in_transaction:
                store.conn.execute("ROLLBACK")
            raise
