"""Named migrations: an older store is brought up to date when opened, and keeps its data."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import cairn
from cairn.io.store.migrations import MIGRATIONS


def _tables(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()


def test_every_migration_is_recorded_once_in_order(tmp_path: Path) -> None:
    with cairn.open(tmp_path / "home", project=tmp_path):
        pass
    conn = sqlite3.connect(tmp_path / "home" / "cairn.db")
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY name")]
    finally:
        conn.close()
    assert names == [name for name, _ in MIGRATIONS] == sorted(names)


def test_a_store_with_the_old_memory_fts_index_drops_it_and_keeps_its_memories(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    with cairn.open(home, project=tmp_path) as ws:
        ref = ws.remember("Refunds go through the payments service", tags=["payments"]).ref
    db = home / "cairn.db"
    conn = sqlite3.connect(db)
    # What 0001 created and 0006 removes, with a row, as a store from before 0006 has it.
    conn.executescript(
        """
        CREATE VIRTUAL TABLE memory_fts USING fts5 (
            fts_sentence, fts_tags, fts_citation, fts_reason,
            tokenize = 'unicode61 remove_diacritics 0', detail = full
        );
        CREATE VIRTUAL TABLE memory_vocab USING fts5vocab (memory_fts, 'row');
        INSERT INTO memory_fts (rowid, fts_sentence) VALUES (1, 'refund payment servic');
        DELETE FROM migrations WHERE name = '0006_drop_memory_fts';
        PRAGMA user_version = 0;
        """
    )
    conn.close()
    assert {"memory_fts", "memory_vocab"} <= _tables(db)
    with cairn.open(home, project=tmp_path) as ws:
        assert [h.ref for h in ws.recall("payments refunds").hits] == [ref]
    assert not {"memory_fts", "memory_vocab"} & _tables(db)


def test_a_store_analysed_before_joined_words_is_analysed_again(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with cairn.open(home, project=tmp_path) as ws:
        ref = ws.remember("Deploy the pre-production stack with make deploy-preprod").ref
        for k in range(60):  # enough memories that the gate judges, none on the subject
            ws.remember(f"Unrelated note number {k} about invoices and ledgers")
        ws.store.conn.execute(
            "INSERT INTO docs (project, path, heading, text, fts_title, "
            "fts_body) VALUES ('p', 'a.md', 'E-mail', 'Send e-mail', '', '')"
        )
    db = home / "cairn.db"
    conn = sqlite3.connect(db)
    # The words analyser version 1 indexed: no joined "preproduct" or "deploypreprod".
    conn.executescript(
        """
        UPDATE memories SET fts_sentence = 'deploy pre product stack make deploy preprod'
            WHERE id = 1;
        DELETE FROM migrations WHERE name = '0011_reanalyse_joined_words';
        PRAGMA user_version = 9;
        """
    )
    conn.close()
    with cairn.open(home, project=tmp_path) as ws:
        assert [h.ref for h in ws.recall("preproduction stack").hits] == [ref]
        sentence, tokens = ws.store.conn.execute(
            "SELECT fts_sentence, n_tokens FROM memories WHERE id = 1"
        ).fetchone()
        assert "preproduct" in sentence.split() and tokens == len(sentence.split())
        body = ws.store.conn.execute("SELECT fts_body FROM docs WHERE path = 'a.md'").fetchone()
        assert body == ("send e mail email",)
        match = "SELECT rowid FROM doc_fts WHERE doc_fts MATCH 'email'"
        assert ws.store.conn.execute(match).fetchall() != []


def test_the_schema_version_counts_the_migrations(tmp_path: Path) -> None:
    from cairn.io.store.connection import SCHEMA_VERSION

    assert len(MIGRATIONS) == SCHEMA_VERSION
    with cairn.open(tmp_path / "home", project=tmp_path):
        pass
    conn = sqlite3.connect(tmp_path / "home" / "cairn.db")
    try:
        assert conn.execute("PRAGMA user_version").fetchone() == (len(MIGRATIONS),)
    finally:
        conn.close()


def test_a_store_without_a_schema_version_is_checked_and_gets_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with cairn.open(home, project=tmp_path) as ws:
        ref = ws.remember("Deploys run from the release branch").ref
    conn = sqlite3.connect(home / "cairn.db")
    conn.execute("PRAGMA user_version = 0")  # as a store from before the version was kept
    conn.execute("DELETE FROM migrations WHERE name = '0006_drop_memory_fts'")
    conn.commit()
    conn.close()
    with cairn.open(home, project=tmp_path) as ws:
        assert ws.get_memory([ref])["memories"][0]["ref"] == ref
    conn = sqlite3.connect(home / "cairn.db")
    try:
        assert conn.execute("PRAGMA user_version").fetchone() == (len(MIGRATIONS),)
        assert conn.execute(
            "SELECT count(*) FROM migrations WHERE name = '0006_drop_memory_fts'"
        ).fetchone() == (1,)
    finally:
        conn.close()


def test_a_newer_schema_version_is_never_lowered(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with cairn.open(home, project=tmp_path):
        pass
    conn = sqlite3.connect(home / "cairn.db")
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    conn.commit()
    conn.close()
    with cairn.open(home, project=tmp_path) as ws:
        ws.remember("A newer Cairn migrated this store")
    conn = sqlite3.connect(home / "cairn.db")
    try:
        assert conn.execute("PRAGMA user_version").fetchone() == (len(MIGRATIONS) + 5,)
    finally:
        conn.close()
