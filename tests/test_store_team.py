"""Eight machines on one PostgreSQL store: nothing lost, nothing doubled, lessons travel.

Each machine is a process with its own local folder (trigger list, recall's files), writing
its own sentences and sentences every machine writes, recalling as it goes; then every
machine's hook, after a session start, fires the lesson another machine wrote. And the hook
never opens the database on a call the trigger list says cannot match. Runs on the session's
throwaway cluster (tests/pgcluster.py).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cairn.io.store.postgres import PostgresStore
from cairn.usecases.install.command import launch
from tests.faults.conftest import SLOW_BUDGET_S, run_bounded
from tests.hooks.conftest import payload
from tests.pgcluster import Cluster

MACHINES = 8
OWN = 20
SHARED = 10
WORKER = """
import json, sys
import cairn
home, project, i, own, shared = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
out = {"new": 0, "restated": 0, "recalled": 0}
with cairn.open(home, project=project, tool=f"agent{i}", session=f"s{i}") as ws:
    for k in range(max(own, shared)):
        for text in ([f"Machine {i} keeps note {k}"] if k < own else []) + (
            [f"Every machine agrees on rule {k}"] if k < shared else []
        ):
            done = ws.remember(text)
            out["new" if done.outcome == "new" else "restated"] += 1
        if k % 5 == 0:
            out["recalled"] += len(ws.recall(f"machine {i} note {k}").hits)
    out["lesson"] = ws.remember(
        f"Machine {i} says: run the smoke test before deploy-{i}",
        when={"tool": "shell", "match": f"deploy-{i}"},
    ).ref
print(json.dumps(out))
"""


def _git(project: Path) -> None:
    (project / ".git").mkdir(exist_ok=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")


def test_eight_machines_lose_nothing_and_double_nothing(
    pg_cluster: Cluster, tmp_path: Path, project: Path
) -> None:
    url = pg_cluster.new_database()
    _git(project)
    env = {**os.environ, "CAIRN_DATABASE_URL": url}
    counts = [str(OWN), str(SHARED)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path / f"m{i}"), str(project), str(i), *counts],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for i in range(MACHINES)
    ]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()[-2000:]
        results.append(json.loads(out))
    assert sum(r["new"] for r in results) == MACHINES * OWN + SHARED
    assert sum(r["restated"] for r in results) == (MACHINES - 1) * SHARED
    store = PostgresStore(url, tmp_path / "check")
    try:
        texts = [m.text for m in store.list_memories(current=False)]
    finally:
        store.close()
    expected = {f"Machine {i} keeps note {k}" for i in range(MACHINES) for k in range(OWN)}
    expected |= {f"Every machine agrees on rule {k}" for k in range(SHARED)}
    expected |= {f"Machine {i} says: run the smoke test before deploy-{i}" for i in range(8)}
    assert len(texts) == len(set(texts))  # none doubled
    assert set(texts) == expected  # none lost
    # Each machine's hook, at its next session start, fires the lesson its neighbour wrote.
    for i in range(MACHINES):
        other = (i + 1) % MACHINES
        hook_env = {
            "CAIRN_HOME": str(tmp_path / f"m{i}"),
            "CAIRN_DATABASE_URL": url,
            "CAIRN_HOOK_BUDGET": str(SLOW_BUDGET_S),  # a slow answer is not a missing one
        }
        start = run_bounded(
            launch().hook_argv("claude-code", "SessionStart"),
            payload("claude-code", "SessionStart", project),
            env=hook_env,
        )
        assert start.returncode == 0 and start.stderr == b""
        data = payload("claude-code", "PreToolUse", project)
        call = run_bounded(
            launch().hook_argv("claude-code", "PreToolUse"),
            data.replace(b"git push origin feature/refunds", f"deploy-{other} now".encode()),
            env=hook_env,
        )
        assert call.returncode == 0 and call.stderr == b""
        assert results[other]["lesson"].encode() in call.stdout


class _Listener:
    """A Unix socket where PostgreSQL's would be, counting who connects (and hanging up)."""

    def __init__(self, folder: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(folder / ".s.PGSQL.5432"))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.accepted = 0
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.mark.parametrize("command", [b"ls -la", b"git status"])
def test_a_call_that_cannot_match_never_opens_the_database(
    pg_cluster: Cluster, tmp_path: Path, project: Path, command: bytes
) -> None:
    url = pg_cluster.new_database()
    _git(project)
    home = tmp_path / "laptop"
    # The budget is not what this asks: a call stopped by it on a loaded machine never asks.
    env = {
        "CAIRN_HOME": str(home),
        "CAIRN_DATABASE_URL": url,
        "CAIRN_HOOK_BUDGET": str(SLOW_BUDGET_S),
    }
    import cairn

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CAIRN_DATABASE_URL", url)
        with cairn.open(home, project=project) as ws:
            ws.remember(
                "Before a push, run make check", when={"tool": "shell", "match": "git push"}
            )
    # The database is now "down": the URL names a socket that hangs up on everyone.
    down = tmp_path / "down"
    down.mkdir()
    listener = _Listener(down)
    env["CAIRN_DATABASE_URL"] = f"postgresql://cairn@/team?host={down}"
    data = payload("claude-code", "PreToolUse", project)
    try:
        quiet = run_bounded(
            launch().hook_argv("claude-code", "PreToolUse"),
            data.replace(b"git push origin feature/refunds", command),
            env=env,
        )
        assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")
        assert listener.accepted == 0
        # A call that could match does ask the database: it is down, so the hook is silent.
        asked = run_bounded(launch().hook_argv("claude-code", "PreToolUse"), data, env=env)
        assert (asked.returncode, asked.stdout, asked.stderr) == (0, b"", b"")
        assert listener.accepted >= 1
    finally:
        listener.close()
