"""The store: every SQL statement of Cairn, behind the `SqliteStore` interface."""

from cairn.io.store.connection import DB_NAME, default_home
from cairn.io.store.evidence import EVENTS, Event, new_eid
from cairn.io.store.memories import IndexText, new_ref
from cairn.io.store.rows import Progress, SessionRow
from cairn.io.store.sqlite import SqliteStore
from cairn.io.store.sqlite_docs import DocPage

__all__ = [
    "DB_NAME",
    "EVENTS",
    "DocPage",
    "Event",
    "IndexText",
    "Progress",
    "SessionRow",
    "SqliteStore",
    "default_home",
    "new_eid",
    "new_ref",
]
