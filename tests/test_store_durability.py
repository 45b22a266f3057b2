"""The store under concurrent writers and a writer killed mid-batch."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cairn
from cairn.io.store import SqliteStore

WRITER = """
import sys, cairn
home, proj, tag, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
with cairn.open(home, project=proj, cwd=proj, tool=tag, session=tag) as ws:
    for i in range(n):
        ws.remember(f"writer {tag} memory {i} about module m{i % 37}", tags=[tag])
"""


def _writer(
    home: Path, proj: Path, tag: str, n: int, capture: bool = True
) -> subprocess.Popen[bytes]:
    out = subprocess.PIPE if capture else subprocess.DEVNULL
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(home), str(proj), tag, str(n)], stdout=out, stderr=out
    )


def test_eight_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    proj.mkdir()
    cairn.open(home, project=proj).close()  # create and migrate once
    procs = [_writer(home, proj, f"w{k}", 500) for k in range(8)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
        assert b"locked" not in err
    with cairn.open(home, project=proj) as ws:
        memories = ws.store.list_memories(project=str(proj.resolve()), limit=10_000)
        assert len(memories) == 4000
        assert len({m.text for m in memories}) == 4000
        assert len({m.ref for m in memories}) == 4000
        assert ws.store.change_count() >= 4000


def test_a_writer_killed_mid_batch_leaves_only_whole_memories(tmp_path: Path) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    proj.mkdir()
    cairn.open(home, project=proj).close()
    proc = _writer(home, proj, "k", 100_000, capture=False)
    db = home / "cairn.db"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.05)
        probe = sqlite3.connect(db)
        written = probe.execute("SELECT count(*) FROM memories").fetchone()[0]
        probe.close()
        if written > 200:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    n = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    assert n > 200
    # every memory is whole: its tag rows and its index row came with it
    assert conn.execute("SELECT count(*) FROM memory_tags").fetchone()[0] == n
    # ... and its analysed text (what recall's postings are built from) is there in full
    assert (
        conn.execute(
            "SELECT count(*) FROM memories WHERE fts_sentence LIKE '%writer%' AND n_tokens > 0"
        ).fetchone()[0]
        == n
    )
    conn.close()
    with cairn.open(home, project=proj) as ws:
        assert ws.store.count_memories() == n


def test_a_failed_commit_rolls_back_and_leaves_the_store_usable(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path)
    try:
        with pytest.raises(sqlite3.IntegrityError), store.transaction():
            # A deferred foreign key is checked at COMMIT: an event on a memory that does not
            # exist makes the COMMIT itself fail, with the transaction still open.
            store.conn.execute("PRAGMA defer_foreign_keys = ON")
            store.conn.execute(
                "INSERT INTO evidence (eid, ref, event, at) VALUES ('e-1', 'm-nope', 'cited', 'x')"
            )
        assert not store.conn.in_transaction
        assert store.conn.execute("SELECT count(*) FROM evidence").fetchone() == (0,)
        with store.transaction():  # BEGIN works again
            pass
    finally:
        store.close()


def test_nested_transactions_join_the_outer_one(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path)
    try:
        with pytest.raises(RuntimeError), store.transaction():
            with store.transaction():
                store.conn.execute("INSERT INTO index_stats (name) VALUES ('extra')")
            assert store.conn.in_transaction  # the inner exit did not commit
            raise RuntimeError("roll the outer one back")
        assert store.conn.execute(
            "SELECT count(*) FROM index_stats WHERE name = 'extra'"
        ).fetchone() == (0,)
    finally:
        store.close()
