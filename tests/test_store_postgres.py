"""The PostgreSQL store as a team uses it: migrations, many machines, the CLI and the hook.

Runs on the session's throwaway cluster (`pg_cluster`, tests/pgcluster.py); skipped, loudly,
where no PostgreSQL server is installed. The behaviour every backend shares is in
tests/store_contract/.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

import cairn
from cairn.cli import cli
from cairn.core.errors import ConflictError, StoreError
from cairn.io.store.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from cairn.io.store.pg_migrations import MIGRATIONS
from cairn.io.store.postgres import PostgresStore, redact
from cairn.usecases.install.command import launch
from cairn.usecases.remember import folded_sentence, index_text
from tests.faults.conftest import SLOW_BUDGET_S, run_bounded
from tests.hooks.conftest import payload
from tests.pgcluster import Cluster
from tests.store_contract.conftest import memory

pytestmark = pytest.mark.usefixtures("pg_cluster")


@pytest.fixture
def url(pg_cluster: Cluster) -> str:
    return pg_cluster.new_database()


def test_the_migrations_carry_sqlite_names() -> None:
    names = [name for name, _ in MIGRATIONS]
    assert names[: len(SQLITE_MIGRATIONS)] == [name for name, _ in SQLITE_MIGRATIONS]
    assert names[len(SQLITE_MIGRATIONS) :] == [
        "0013_one_current_sentence",
        "0015_notify_trigger_changes",
    ]


def test_a_new_database_is_refused_until_migrated(pg_cluster: Cluster, tmp_path: Path) -> None:
    blank = pg_cluster.new_database(migrated=False)
    with pytest.raises(StoreError, match="cairn store migrate"):
        PostgresStore(blank, tmp_path)
    runner = CliRunner()
    first = runner.invoke(cli, ["--store", blank, "store", "migrate", "--json"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.output)["applied"] == [name for name, _ in MIGRATIONS]
    again = runner.invoke(cli, ["--store", blank, "store", "migrate", "--json"])
    assert json.loads(again.output)["applied"] == []
    PostgresStore(blank, tmp_path).close()


def test_an_unreachable_server_is_a_store_error(tmp_path: Path) -> None:
    gone = f"postgresql://cairn@/nope?host={tmp_path}"
    with pytest.raises(StoreError, match="cannot reach") as caught:
        PostgresStore(gone, tmp_path / "home")
    assert caught.value.cause == "unreachable"


def test_the_password_is_never_shown(url: str, tmp_path: Path) -> None:
    assert redact("postgresql://ann:s3cret@db.example:5433/team") == (
        "postgresql://ann@db.example:5433/team"
    )
    with_password = url.replace("cairn@", "cairn:s3cret@")
    store = PostgresStore(with_password, tmp_path)
    try:
        assert "s3cret" not in store.location
    finally:
        store.close()


def test_the_same_sentence_is_current_once_by_constraint(url: str, tmp_path: Path) -> None:
    # Inserted twice without the restatement check remember makes: the database refuses it.
    store = PostgresStore(url, tmp_path)
    try:
        m = memory("m-000001", "Deploys need a green build")
        store.insert_memory(m, folded_sentence(m.text), index_text(m.text, (), "", ""))
        twin = memory("m-000002", m.text)
        with pytest.raises(ConflictError, match="same sentence"):
            store.insert_memory(twin, folded_sentence(m.text), index_text(m.text, (), "", ""))
        assert [x.ref for x in store.list_memories(project="/p")] == ["m-000001"]
    finally:
        store.close()


def test_two_machines_remembering_at_once_keep_one_memory(
    url: str, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_DATABASE_URL", url)
    machines = [
        cairn.open(tmp_path / f"machine{i}", project=project, tool=f"agent{i}", session=f"s{i}")
        for i in range(4)
    ]
    start = threading.Barrier(len(machines))
    outcomes: list[str] = []
    errors: list[BaseException] = []

    def write(ws: cairn.Cairn) -> None:
        try:
            start.wait()
            for n in range(5):
                outcomes.append(ws.remember(f"Sentence number {n} is shared").outcome)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(ws,)) for ws in machines]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    try:
        assert errors == []
        assert outcomes.count("new") == 5
        listed = machines[0].store.list_memories(project=str(project))
        assert sorted(m.text for m in listed) == [
            f"Sentence number {n} is shared" for n in range(5)
        ]
    finally:
        for ws in machines:
            ws.close()


def test_an_edit_on_a_stale_revision_from_another_machine_is_refused(
    url: str, tmp_path: Path
) -> None:
    a, b = PostgresStore(url, tmp_path / "a"), PostgresStore(url, tmp_path / "b")
    try:
        m = memory("m-000001", "one")
        a.insert_memory(m, "one", index_text("one", (), "", ""))
        seen_by_a, seen_by_b = a.get_memory("m-000001"), b.get_memory("m-000001")
        b.update_memory(seen_by_b, pinned=True)
        with pytest.raises(ConflictError):
            a.update_memory(seen_by_a, pinned=False)
        assert a.get_memory("m-000001").pinned
    finally:
        a.close()
        b.close()


def test_a_lesson_written_on_one_machine_fires_on_another(
    url: str, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_DATABASE_URL", url)
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    with cairn.open(tmp_path / "laptop", project=project, tool="cli") as ws:
        ref = ws.remember(
            "Before a push, run make check: the hook is the only CI",
            when={"tool": "shell", "match": "git push"},
        ).ref
        assert ws.recall("make check before push").hits[0].ref == ref
    other = tmp_path / "runner"  # another machine: its own local folder, nothing in it yet
    # The first call on a new machine connects and checks the schema: on a loaded machine that
    # outran the default second, and the budget turned a slow answer into a missing one.
    env = {
        "CAIRN_HOME": str(other),
        "CAIRN_DATABASE_URL": url,
        "CAIRN_HOOK_BUDGET": str(SLOW_BUDGET_S),
    }
    start = run_bounded(
        launch().hook_argv("claude-code", "SessionStart"),
        payload("claude-code", "SessionStart", project),
        env=env,
    )
    assert start.returncode == 0 and start.stderr == b""
    call = run_bounded(
        launch().hook_argv("claude-code", "PreToolUse"),
        payload("claude-code", "PreToolUse", project),
        env=env,
    )
    assert call.returncode == 0 and call.stderr == b""
    assert ref.encode() in call.stdout


def test_a_store_copies_to_postgresql_and_back(
    url: str, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CAIRN_DATABASE_URL", raising=False)
    local = tmp_path / "sqlite"
    with cairn.open(local, project=project, tool="codex", session="s1") as ws:
        lesson = ws.remember(
            "Run make check before a push", when={"tool": "shell", "match": "git push"}
        )
        old = ws.remember("Deploys go out on Fridays", tags=["ops"])
        ws.correct(old.ref, "Deploys go out on Thursdays")
        gone = ws.remember("The cache is warm at start")
        ws.forget(gone.ref)
        ws.using(tool="claude-code", session="s2").remember("Run make check before a push")
        ws.log_mission_progress("ship the team store", "copy", "done")
    runner = CliRunner()
    there = runner.invoke(
        cli, ["--home", str(tmp_path / "h"), "store", "copy", str(local), url, "--json"]
    )
    assert there.exit_code == 0, there.output
    copied = json.loads(there.output)
    tables = copied["tables"]
    assert tables["memories"] == 4 and tables["evidence"] >= 1 and tables["sessions"] == 2
    back = tmp_path / "back"
    again = runner.invoke(cli, ["--home", str(tmp_path / "h"), "store", "copy", url, str(back)])
    assert again.exit_code == 0, again.output
    assert "verified" in again.output
    with cairn.open(back, project=project) as ws:
        assert ws.get_memory([lesson.ref])["memories"][0]["evidence"]["confirmed"]["count"] == 1
    refused = runner.invoke(cli, ["store", "copy", str(local), url])
    assert refused.exit_code != 0 and "holds memories already" in refused.output


def test_a_store_told_not_to_wait_does_not_wait_for_another_machine_s_write(
    url: str, tmp_path: Path
) -> None:
    import psycopg

    from cairn.io.store.pg_migrations import WRITE_LOCK

    store = PostgresStore(url, tmp_path / "h")
    done: list[BaseException | None] = []

    def write() -> None:
        try:
            with store.transaction():
                store.set_learn_state("/p", "k", "v")
            done.append(None)
        except BaseException as exc:  # the answer, whatever it is
            done.append(exc)

    with psycopg.connect(url) as other:  # another machine, in a write transaction
        other.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
        store.set_busy_ms(0)  # as a recall's doc refresh does: never wait for a writer
        writer = threading.Thread(target=write)
        writer.start()
        writer.join(timeout=30)
        finished = not writer.is_alive()
        other.rollback()  # lets a writer that waited finish either way
    writer.join(timeout=30)
    store.close()
    # PostgreSQL reads a lock_timeout of 0 as "wait for ever": it is sent as 1 ms.
    assert finished, "the write waited for the other machine's transaction"
    assert isinstance(done[0], StoreError) and done[0].cause == "locked"


def test_a_recall_reads_the_store_s_counts_in_one_query(
    url: str, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cairn.io.store import postgres

    with cairn.open(tmp_path / "h", project=project, store=url, session="s1") as ws:
        for i in range(30):
            ws.remember(f"The deploy pipeline runs stage {i} on the staging cluster")
        ws.recall("deploy pipeline")  # builds what recall keeps beside the store
        sent: list[str] = []
        run = postgres.PgConnection._run

        def counted(self: postgres.PgConnection, text: str, *args: object) -> object:
            sent.append(text)
            return run(self, text, *args)  # type: ignore[arg-type]

        monkeypatch.setattr(postgres.PgConnection, "_run", counted)
        assert ws.recall("staging cluster").hits
    counts = [q for q in sent if "max(id)" in q or "memory_counts" in q or "index_stats" in q]
    assert len(counts) == 1, counts
    assert not [q for q in sent if q.startswith("SET ")]
    assert len(sent) <= 8, sent
