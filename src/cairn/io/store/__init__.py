"""The store: every SQL statement of Cairn, behind the `SqliteStore` interface.

The names below load on first use (PEP 562): the hook's firing path imports
`cairn.io.store.hookread` alone, not the whole store.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
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

_WHERE = {
    "DB_NAME": "cairn.io.store.connection",
    "default_home": "cairn.io.store.connection",
    "EVENTS": "cairn.io.store.evidence",
    "Event": "cairn.io.store.evidence",
    "new_eid": "cairn.io.store.evidence",
    "IndexText": "cairn.io.store.memories",
    "new_ref": "cairn.io.store.memories",
    "Progress": "cairn.io.store.rows",
    "SessionRow": "cairn.io.store.rows",
    "SqliteStore": "cairn.io.store.sqlite",
    "DocPage": "cairn.io.store.sqlite_docs",
}


def __getattr__(name: str) -> object:
    """Load a public name's module on first use (PEP 562)."""
    if name in _WHERE:
        import importlib

        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
