"""LISTEN/NOTIFY on a shared store: a long-lived process hears another machine's lesson.

A write that changes the trigger list's set notifies `cairn_triggers` in its own
transaction (migration 0015: at commit, never for a rollback, once per transaction); the MCP
server and `cairn serve` follow it (`cairn.io.triggerlist.follow`) and refresh their machine's
trigger list with no call made to them. Runs on the session's throwaway cluster
(tests/pgcluster.py).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import cairn
from cairn.io.store.postgres import PostgresStore, TriggerWatch
from cairn.io.triggerlist import lines_of
from tests.pgcluster import Cluster

pytestmark = pytest.mark.usefixtures("pg_cluster")
CAIRN = [sys.executable, "-c", "import sys; from cairn.cli import main; sys.exit(main())"]


def heard(watch: TriggerWatch, seconds: float) -> bool:
    """Did a notification come within `seconds` (waiting on the socket, bounded)?"""
    if watch.changed():
        return True
    ready, _, _ = select.select([watch.fileno()], [], [], seconds)
    return bool(ready) and watch.changed()


def test_a_lesson_notifies_at_commit_and_a_plain_fact_does_not(
    pg_cluster: Cluster, tmp_path: Path, project: Path
) -> None:
    url = pg_cluster.new_database()
    store = PostgresStore(url, tmp_path / "listener")
    watch = store.watch_triggers()
    try:
        with cairn.open(tmp_path / "writer", project=project, store=url) as ws:
            ws.remember("The staging database is rebuilt nightly")
            assert not heard(watch, 0.5)
            with ws.store.transaction():
                ws.store.insert_memory(
                    *_lesson(str(project), "m-00aa01", "Run the smoke test before deploy")
                )
                assert not heard(watch, 0.2)  # not before the commit
            assert heard(watch, 5)
            assert not watch.changed()  # many changes of one transaction: one notification
    finally:
        watch.close()
        store.close()


def _lesson(project: str, ref: str, text: str) -> tuple[object, str, object]:
    from cairn.core.models import Memory, Trigger
    from cairn.usecases.remember import folded_sentence, index_text

    m = Memory(
        ref=ref,
        text=text,
        kind="lesson",
        project=project,
        written="2026-11-01T12:00:00.000000Z",
        when=Trigger(tool="shell", match="deploy"),
    )
    return m, folded_sentence(text), index_text(text, (), "", "")


@pytest.mark.parametrize("command", ["mcp", "serve"])
def test_a_long_lived_process_refreshes_its_trigger_list_when_another_machine_writes_a_lesson(
    pg_cluster: Cluster, tmp_path: Path, project: Path, command: str
) -> None:
    url = pg_cluster.new_database()
    env = {**os.environ, "CAIRN_DATABASE_URL": url, "CAIRN_HOME": str(tmp_path / "laptop")}
    errors = tmp_path / "mcp-stderr.txt"
    with errors.open("wb") as err:
        server = subprocess.Popen(
            [*CAIRN, "--project", str(project), command],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        assert _wait_listening(url), f"`cairn {command}` never listened: {errors.read_text()}"
        other = {**env, "CAIRN_HOME": str(tmp_path / "ci-runner")}
        wrote = subprocess.run(
            [
                *CAIRN,
                "--project",
                str(project),
                "remember",
                "--when",
                '{"tool": "shell", "match": "deploy-eu"}',
                "--json",
                "Run the smoke test before deploy-eu",
            ],
            env=other,
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert wrote.returncode == 0, wrote.stderr
        ref = _ref(wrote.stdout)
        for _ in range(200):  # bounded: 20 s at most
            if any(e.ref == ref for e in lines_of(tmp_path / "laptop")):
                break
            select.select([], [], [], 0.1)
        assert any(e.ref == ref for e in lines_of(tmp_path / "laptop"))
    finally:
        assert server.stdin is not None
        server.stdin.close()  # the MCP server's end
        if command == "serve":
            server.send_signal(signal.SIGINT)  # the app's
        try:
            server.wait(timeout=60)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait(timeout=10)
    assert server.returncode == 0, errors.read_text()


def _ref(out: bytes) -> str:
    import json

    return str(json.loads(out)["ref"])


def _wait_listening(url: str) -> bool:
    """Is a connection of the database LISTENing on the trigger channel (bounded wait)?"""
    import psycopg

    for _ in range(300):  # 30 s at most
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND query = 'LISTEN cairn_triggers'"
            ).fetchone()
        if row and row[0]:
            return True
        select.select([], [], [], 0.1)
    return False
