"""Re-analysing the stored index text when the analyser changed (a migration step).

Each memory row and doc page carries its analysed words (`fts_*` columns, `n_tokens`), made
by `cairn.core.text` when it was written. When the analyser gives other words for the same text
(`cairn.core.text.ANALYSER_VERSION`), a migration calls `reanalyse` once: every row is analysed
again from its own text, in the migration's transaction, and the docs' FTS5 index is rebuilt
from the new columns. Files recall keeps beside the store carry the analyser version, so the
old ones are not read again.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from cairn.core.text import analyse_fields, analyse_text, tokenize

if TYPE_CHECKING:
    import sqlite3

__all__ = ["index_text", "reanalyse", "reanalyse_memories"]

_CHUNK = 5000


def index_text(text: str, tags: list[str], source_ref: str, reason: str) -> list[str]:
    """The analysed sentence, tags, citation and reason, as `cairn.usecases.remember` indexes them:
    a
    citation is a path, whose parts are not joined."""
    return analyse_fields([text, " ".join(tags), (tokenize(source_ref), ""), reason])


def reanalyse(conn: sqlite3.Connection) -> None:
    """Analyse every memory and doc page again from its text (caller holds the transaction)."""
    reanalyse_memories(conn)
    pages = conn.execute("SELECT id, heading, text FROM docs").fetchall()
    updated = []
    for rowid, heading, text in pages:
        title, body = analyse_text(heading), analyse_text(text)
        updated.append((title, body, len(title.split()) + len(body.split()), rowid))
    conn.executemany(
        "UPDATE docs SET fts_title = ?, fts_body = ?, n_tokens = ? WHERE id = ?", updated
    )
    conn.execute("INSERT INTO doc_fts (doc_fts) VALUES ('rebuild')")
    conn.execute(
        "UPDATE index_stats SET n_tokens = (SELECT coalesce(sum(n_tokens), 0) FROM docs) "
        "WHERE name = 'docs'"
    )


def reanalyse_memories(conn: Any) -> None:
    """Analyse every memory row again from its text, a chunk at a time (caller holds the
    transaction). `conn` is a sqlite3 connection or one that reads as one (PostgreSQL's
    `PgConnection`, whose migration 0011 runs this too)."""
    last = 0
    while True:
        rows = conn.execute(
            "SELECT id, text, tags, source_ref, reason FROM memories WHERE id > ? "
            "ORDER BY id LIMIT ?",
            (last, _CHUNK),
        ).fetchall()
        if not rows:
            break
        updates = []
        for rowid, text, tags, source_ref, reason in rows:
            fields = index_text(text, json.loads(tags), source_ref, reason)
            updates.append((*fields, sum(len(f.split()) for f in fields), rowid))
        conn.executemany(
            "UPDATE memories SET fts_sentence = ?, fts_tags = ?, fts_citation = ?, "
            "fts_reason = ?, n_tokens = ? WHERE id = ?",
            updates,
        )
        last = rows[-1][0]
