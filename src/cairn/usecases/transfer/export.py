"""Export: the workspace as JSON Lines, a header first, then code acts, memories (as the store
writes their lines) and the other records."""

from __future__ import annotations

import json
from collections.abc import Iterator

from cairn.io.store.protocol import Store

FORMAT_VERSION = 1


def export_lines(store: Store) -> Iterator[str]:
    """The workspace as JSON Lines, a header first."""
    encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode
    yield encode({"type": "cairn-export", "version": FORMAT_VERSION})
    for act in store.all_acts():
        record = {**act.__dict__, "sessions": list(act.sessions)}
        yield encode({"type": "act", **record})
    # Memories as the store writes their lines (SQLite: without a dict or an encoder per
    # line); the analysed index columns are derived (rebuilt on import): not written.
    yield from store.memory_lines()
    records = store.dump(derived=False)
    for record in records:
        if record["type"] != "memory":  # memories come first: the rest from here
            yield encode(record)
            break
    for record in records:
        yield encode(record)
