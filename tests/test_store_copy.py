"""`cairn store copy`: every table of a store, row for row with the same refs, both ways.

A SQLite store holding every kind of state (memories with every version, evidence, sessions,
offers, gate denials, progress, doc pages, code acts and the sessions they judged, commits,
learn state, tidy declines, citation sightings) goes to PostgreSQL and back to SQLite; each
copy holds the same rows in every table, and the round trip equals the original.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import cairn
from cairn.cli import cli
from cairn.core.errors import StoreError
from cairn.io.store import SqliteStore
from cairn.io.store.acts import Act, SessionCommit
from cairn.io.store.postgres import PostgresStore
from cairn.io.store.protocol import Store
from cairn.io.store.sqlite_transfer import COPIED_TABLES
from cairn.usecases.transfer import copy_store
from tests.conftest import search
from tests.pgcluster import Cluster

pytestmark = pytest.mark.usefixtures("pg_cluster")
AT = "2026-11-01T12:00:00.000000Z"


def filled(home: Path, project: Path) -> dict[str, str]:
    """A SQLite store with a row in every copied table; the refs it made."""
    (project / "README.md").write_text(
        "# Widgets\n\nThe widgets deploy through the blue pipeline.\n"
    )
    with cairn.open(home, project=project, tool="codex", session="s1") as ws:
        lesson = ws.remember(
            "Run make check before a push", when={"tool": "shell", "match": "git push"}
        )
        old = ws.remember("Deploys go out on Fridays", tags=["ops"])
        new = ws.correct(old.ref, "Deploys go out on Thursdays")
        gone = ws.remember("The cache is warm at start")
        ws.forget(gone.ref)
        gate = ws.remember(
            "Ask before dropping a table",
            when={"tool": "shell", "match": "drop table"},
            gate=True,
        )
        ws.using(tool="claude-code", session="s2").remember("Run make check before a push")
        ws.log_mission_progress("ship the team store", "copy", "done")
        search(ws, "blue pipeline deploy")  # indexes the README's pages, records offers
    store = SqliteStore(home)
    try:
        store.record_offers("s1", [lesson.ref], "lesson", "codex", AT)
        store.claim_gates("s1", [gate.ref], "codex", "drop table x", AT)
        store.add_act(
            Act(
                "a-000001",
                str(project),
                "main",
                "merge",
                AT,
                "git",
                "k1",
                {"sha": "abc"},
                sessions=("s1",),
            )
        )
        store.add_session_commits([SessionCommit("s1", "abc", AT, "a@example.org", "branch")])
        store.set_learn_state(str(project), "seen", "abc")
        store.decline_proposal("p-1", "merge", [lesson.ref, new.ref], AT)
        store.sight_citations({lesson.ref: "changed"}, AT)
    finally:
        store.close()
    return {"lesson": lesson.ref, "new": new.ref, "gate": gate.ref}


def tables(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every copied table's rows, in a comparable order."""
    out = {}
    for table in COPIED_TABLES:
        columns = store.table_columns(table)
        out[table] = sorted(store.table_rows(table, columns), key=repr)
    return out


def test_a_store_copies_every_table_to_postgresql_and_back(
    pg_cluster: Cluster, tmp_path: Path, project: Path
) -> None:
    refs = filled(tmp_path / "sqlite", project)
    source = SqliteStore(tmp_path / "sqlite")
    there = PostgresStore(pg_cluster.new_database(), tmp_path / "h")
    back = SqliteStore(tmp_path / "back")
    try:
        original = tables(source)
        assert all(original[table] for table in COPIED_TABLES), [
            t for t in COPIED_TABLES if not original[t]
        ]
        done = copy_store(source, there)
        assert done.tables == {t: len(original[t]) for t in COPIED_TABLES}
        again = copy_store(there, back)
        assert again.tables == done.tables
        assert tables(back) == original
        every = [str(r[0]) for r in source.table_rows("memories", ["ref"])]
        assert there.get_memories(every) == source.get_memories(every)
        assert back.get_memories(every) == source.get_memories(every)
        assert there.offered("s1", ["lesson"]) == {refs["lesson"]}
        assert there.gates_waiting("s1") == {refs["gate"]}
        assert there.learn_state(str(project), "seen") == "abc"
        assert there.declined_proposals() == {"p-1"}
        assert there.doc_candidates(["blue"], 10)
        assert back.doc_candidates(["blue"], 10) == source.doc_candidates(["blue"], 10)
    finally:
        for store in (source, there, back):
            store.close()


def test_a_copied_store_keeps_its_refs_and_takes_new_writes(
    pg_cluster: Cluster, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refs = filled(tmp_path / "sqlite", project)
    url = pg_cluster.new_database()
    runner = CliRunner()
    done = runner.invoke(
        cli,
        ["--home", str(tmp_path / "h"), "store", "copy", str(tmp_path / "sqlite"), url, "--json"],
    )
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["tables"]["offers"] >= 1
    monkeypatch.setenv("CAIRN_DATABASE_URL", url)
    with cairn.open(tmp_path / "h", project=project, tool="codex", session="s3") as ws:
        shown = ws.get_memory([refs["lesson"], refs["new"]])["memories"]
        assert [m["ref"] for m in shown] == [refs["lesson"], refs["new"]]
        later = ws.remember("The staging database is rebuilt nightly")
        assert later.ref not in refs.values()
        assert ws.recall("staging database").hits[0].ref == later.ref


def test_a_copy_into_a_store_that_holds_memories_is_refused(
    pg_cluster: Cluster, tmp_path: Path, project: Path
) -> None:
    filled(tmp_path / "sqlite", project)
    source = SqliteStore(tmp_path / "sqlite")
    target = PostgresStore(pg_cluster.new_database(), tmp_path / "h")
    try:
        copy_store(source, target)
        with pytest.raises(StoreError, match="holds memories already"):
            copy_store(source, target)
    finally:
        source.close()
        target.close()
