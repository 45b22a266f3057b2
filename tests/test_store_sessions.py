"""Sessions as the hooks record them: created once, updated only when something changes."""

from __future__ import annotations

from pathlib import Path

from cairn.io.store import SessionRow, SqliteStore


def test_a_session_is_written_once_and_then_only_when_it_changes(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path)
    try:
        row = SessionRow("s-1", "codex", "/p", "main", "/p", "2026-11-29T10:00:00.000000Z", None)
        store.upsert_session(row)
        before = store.conn.total_changes
        store.upsert_session(row)  # the same again: nothing to write
        store.upsert_session(row.replace(tool="", branch="", cwd=""))  # nothing new given
        assert store.conn.total_changes == before
        store.upsert_session(row.replace(branch="feature/x"))
        assert store.conn.total_changes == before + 1
        got = store.get_session("s-1")
        assert got is not None
        assert (got.tool, got.branch, got.cwd, got.ended) == ("codex", "feature/x", "/p", None)
        store.upsert_session(row.replace(branch="feature/x", ended="2026-11-29T11:00:00.000000Z"))
        got = store.get_session("s-1")
        assert got is not None and got.ended == "2026-11-29T11:00:00.000000Z"
    finally:
        store.close()
