"""The store: every SQL statement of Cairn, behind the `SqliteStore` interface."""

from cairn.store.connection import DB_NAME, default_home
from cairn.store.evidence import EVENTS, Event, new_eid
from cairn.store.memories import IndexText, new_ref
from cairn.store.rows import Progress, SessionRow
from cairn.store.sqlite import SqliteStore
from cairn.store.sqlite_docs import DocPage

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
