"""The team store on PostgreSQL: many writers, recall at 100k next to SQLite, the hook when the
database is down.

Run: `.venv/bin/python bench/team.py [--writers 8] [--each 1000] [--size 100000]`. It starts a
throwaway cluster with the machine's `initdb` / `pg_ctl` (as the tests do, tests/pgcluster.py:
Unix socket, no TCP, fsync off), and prints:

- writers: `--writers` processes, each with its own local folder as a machine has, each
  remembering `--each` sentences of its own plus `--shared` sentences every writer also
  writes, all at once against one database; throughput, and memories lost and doubled
  (both must be 0: every sentence current exactly once);
- recall at `--size` memories (bench/corpus.py, built with `remember_many`): warm p50 / p95
  over `--queries` queries on PostgreSQL and on SQLite, the first recall (postings built from
  the rows, LSA fitted) timed apart, and the build time;
- the hook on a firing call (a shell command a lesson matches), median wall time of `--runs`
  new processes: SQLite; PostgreSQL up; PostgreSQL down (the socket hangs up at once); and
  PostgreSQL hung (it accepts and never answers: the hook's budget, 1 s, ends it). On a call
  no lesson can match, the hook reads only the local trigger list: tests/test_store_team.py
  shows it never connects.

`--only hook` measures the hook alone; `--baseline SRC` (another Cairn's `src` folder, e.g.
from `git archive COMMIT src`) times the firing hook up on SQLite and PostgreSQL with this
Cairn and with that one in turns, call by call, and prints median and p95 wall time and the
median CPU time of each.

Targets are read, not enforced: the script exits 0 on a slow machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests.pgcluster starts the cluster

import corpus  # noqa: E402
import recall as recall_bench  # noqa: E402
from tests.pgcluster import Cluster, _start  # noqa: E402

import cairn  # noqa: E402
from cairn.io.store.postgres import PostgresStore  # noqa: E402
from cairn.usecases.install.command import launch  # noqa: E402

WRITER = """
import json, sys, time
import cairn
home, project, i, own, shared = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
new = 0
with cairn.open(home, project=project, tool=f"writer{i}", session=f"w{i}") as ws:
    for k in range(own):
        new += ws.remember(f"Writer {i} records fact number {k} about the build").outcome == "new"
        if k < shared:
            ws.remember(f"Every writer records shared fact number {k}")
print(json.dumps({"new": new}))
"""
PUSH = {
    "session_id": "bench",
    "cwd": "",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git push origin main"},
}


def writers(cluster: Cluster, n: int, each: int, shared: int, folder: Path) -> None:
    url = cluster.new_database()
    project = folder / "proj"
    project.mkdir()
    env = {**os.environ, "CAIRN_DATABASE_URL": url}
    started, before = time.perf_counter(), os.times()
    counts = [str(each), str(shared)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(folder / f"w{i}"), str(project), str(i), *counts],
            stdout=subprocess.PIPE,
            env=env,
        )
        for i in range(n)
    ]
    for p in procs:
        p.communicate()
    elapsed = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user + after.children_system) - (
        before.children_user + before.children_system
    )
    store = PostgresStore(url, folder / "check")
    texts = [m.text for m in store.list_memories(current=False)]
    store.close()
    expected = {
        f"Writer {i} records fact number {k} about the build" for i in range(n) for k in range(each)
    }
    expected |= {f"Every writer records shared fact number {k}" for k in range(shared)}
    lost = len(expected - set(texts))
    doubled = len(texts) - len(set(texts))
    calls = n * (each + shared)
    print(
        f"writers: {n} x {each} (+{shared} shared by all) in {elapsed:.1f} s "
        f"(writers' CPU {cpu:.1f} s, load {_load()})"
    )
    print(f"  {calls / elapsed:,.0f} remember calls/s, {len(texts):,} memories stored")
    print(f"  lost {lost}, doubled {doubled} (target 0, 0)")


class _RoundTrips:
    """Counts the statements sent to PostgreSQL while it is entered (each is a round trip)."""

    def __init__(self) -> None:
        self.count = 0

    def __enter__(self) -> None:
        from cairn.io.store import postgres

        self._run, self._many = postgres.PgConnection._run, postgres.PgConnection.executemany
        run, many = self._run, self._many

        def counted_run(conn: Any, *args: Any, **kw: Any) -> Any:
            self.count += 1
            return run(conn, *args, **kw)

        def counted_many(conn: Any, *args: Any, **kw: Any) -> Any:
            self.count += 1
            return many(conn, *args, **kw)

        postgres.PgConnection._run = counted_run  # type: ignore[method-assign]
        postgres.PgConnection.executemany = counted_many  # type: ignore[method-assign]

    def __exit__(self, *exc: object) -> None:
        from cairn.io.store import postgres

        postgres.PgConnection._run = self._run  # type: ignore[method-assign]
        postgres.PgConnection.executemany = self._many  # type: ignore[method-assign]


def _load() -> str:
    """The 1-minute load average (the machine is shared: figures move with it)."""
    return f"{os.getloadavg()[0]:.1f}"


def recall_at(cluster: Cluster, size: int, n_queries: int, folder: Path) -> None:
    specs = corpus.memories(size, seed=0)
    queries = corpus.queries(specs, n_queries)
    index_of = {s.text: i for i, s in enumerate(specs)}
    for name in ("sqlite", "postgresql"):
        if name == "postgresql":
            os.environ["CAIRN_DATABASE_URL"] = cluster.new_database()
        else:
            os.environ.pop("CAIRN_DATABASE_URL", None)
        ws, _, refs, build_s = recall_bench.build_store(
            folder / f"{name}-home", folder / f"{name}-proj", specs, "batch"
        )
        by_ref = {ref: index_of[s.text] for ref, s in zip(refs, specs, strict=True)}
        trips = _RoundTrips()
        with trips:
            row, _ = recall_bench.time_cairn(ws, queries[0].text, queries, by_ref)
        ws.close()
        ms = sorted(x * 1000 for x in row.latencies)
        p50 = statistics.median(ms)
        p95 = ms[int(0.95 * (len(ms) - 1))]
        cpu = statistics.median(x * 1000 for x in row.cpu)
        first = (row.first_s or 0) * 1000
        per_query = f"  {trips.count / (len(queries) + 1):4.1f} round trips" if trips.count else ""
        print(
            f"recall at {size:,} on {name:10s}: p50 {p50:6.2f} ms  p95 {p95:6.2f} ms  "
            f"(CPU p50 {cpu:5.2f} ms){per_query}  first {first:7.0f} ms  build {build_s:6.1f} s  "
            f"load {_load()}"
        )
    os.environ.pop("CAIRN_DATABASE_URL", None)


class _Socket:
    """A Unix socket where the server's would be: hangs up at once, or never answers."""

    def __init__(self, folder: Path, answer: bool) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(folder / ".s.PGSQL.5432"))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.hang_up = answer
        self.held: list[socket.socket] = []
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            if self.hang_up:
                conn.close()
            else:
                self.held.append(conn)

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=5)
        for conn in self.held:
            conn.close()
        self.sock.close()


def hook_cost(cluster: Cluster, runs: int, folder: Path, baseline: str = "") -> None:
    project = folder / "hook-proj"
    project.mkdir()
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    data = json.dumps({**PUSH, "cwd": str(project)}).encode()
    argv = launch().hook_argv("claude-code", "PreToolUse")
    url = cluster.new_database()
    cases: list[tuple[str, dict[str, str]]] = []
    for name, target in (("sqlite", None), ("postgresql", url)):
        home = folder / f"hook-{name}"
        if target:
            os.environ["CAIRN_DATABASE_URL"] = target
        else:
            os.environ.pop("CAIRN_DATABASE_URL", None)
        with cairn.open(home, project=project) as ws:
            ws.remember("Run make check before a push", when={"tool": "shell", "match": "git push"})
        env = {"CAIRN_HOME": str(home)}
        if target:
            env["CAIRN_DATABASE_URL"] = target
        else:
            env["CAIRN_DATABASE_URL"] = ""
        cases.append((f"{name} up", env))
    os.environ.pop("CAIRN_DATABASE_URL", None)
    pg_home = cases[1][1]["CAIRN_HOME"]
    for label, answer in (("postgresql down (hangs up)", True), ("postgresql hung", False)):
        sock_dir = Path(tempfile.mkdtemp(prefix="cairn-down-"))
        listener = _Socket(sock_dir, answer)
        env = {"CAIRN_HOME": pg_home, "CAIRN_DATABASE_URL": f"postgresql://x@/team?host={sock_dir}"}
        _time_hook(label, argv, data, env, runs)
        listener.close()
    if baseline:
        _paired(baseline, argv, data, cases, runs)
        return
    for label, env in cases:
        _time_hook(label, argv, data, env, runs)


def _argv_of(src: str, argv: list[str]) -> list[str]:
    """The hook's command line with another Cairn's `src` folder in place of this one's."""
    here = str(HERE.parent / "src")
    return [arg.replace(here, src) for arg in argv]


def _one(argv: list[str], call: bytes, env: dict[str, str]) -> tuple[float, float, bool]:
    """(wall ms, CPU ms of the child, lesson shown) for one hook process."""
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run(argv, input=call, capture_output=True, env={**os.environ, **env})
    wall = (time.perf_counter() - started) * 1000
    after = os.times()
    cpu = (after.children_user + after.children_system) - (
        before.children_user + before.children_system
    )
    return wall, cpu * 1000, bool(done.stdout)


def _paired(
    baseline: str, argv: list[str], data: bytes, cases: list[tuple[str, dict[str, str]]], runs: int
) -> None:
    """Each case run with this Cairn and with `baseline`'s, alternating call by call (which
    goes first alternates too), so both see the same load; a new session each call."""
    print(f"hook, firing call, paired with {baseline} ({runs} runs each, load {_load()})")
    for label, env in cases:
        figures: dict[str, list[tuple[float, float, bool]]] = {"before": [], "after": []}
        chosen = {"before": _argv_of(baseline, argv), "after": argv}
        for n in range(runs):
            order = ("before", "after") if n % 2 else ("after", "before")
            for which in order:
                call = data.replace(b'"bench"', f'"{label.split()[0]}-{which}-{n}"'.encode())
                figures[which].append(_one(chosen[which], call, env))
        for which in ("before", "after"):
            walls = sorted(f[0] for f in figures[which])
            cpus = sorted(f[1] for f in figures[which])
            shown = sum(f[2] for f in figures[which])
            p95 = walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))]
            print(
                f"  {label:15s} {which:6s}: wall median {statistics.median(walls):6.0f} ms  "
                f"p95 {p95:6.0f} ms  CPU median {statistics.median(cpus):5.0f} ms  "
                f"lesson shown {shown}/{runs}"
            )
    print(f"  (load {_load()} at the end)")


def _time_hook(label: str, argv: list[str], data: bytes, env: dict[str, str], runs: int) -> None:
    times, said = [], 0
    for n in range(runs):
        # A new session each run: a lesson is shown once per session, and showing it (and
        # recording the offer) is part of the cost measured.
        call = data.replace(b'"bench"', f'"{label.split()[0]}-{n}"'.encode())
        started = time.perf_counter()
        done = subprocess.run(
            argv, input=call, capture_output=True, env={**os.environ, **env}, timeout=30
        )
        times.append((time.perf_counter() - started) * 1000)
        said += bool(done.stdout)
    print(
        f"hook, firing call, {label:27s}: median {statistics.median(times):6.0f} ms  "
        f"max {max(times):6.0f} ms  lesson shown {said}/{runs}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--each", type=int, default=1000)
    parser.add_argument("--shared", type=int, default=100)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--only", choices=("hook",), help="measure only the hook (no writers, no recall)"
    )
    parser.add_argument(
        "--baseline",
        default="",
        help="another Cairn's src folder: the firing hook up is timed against it, paired",
    )
    args = parser.parse_args()
    try:
        cluster = _start()
    except RuntimeError as exc:
        print(f"bench/team.py: no PostgreSQL cluster could be started ({exc}); nothing measured")
        return
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            if args.only != "hook":
                writers(cluster, args.writers, args.each, args.shared, folder)
                recall_at(cluster, args.size, args.queries, folder)
            hook_cost(cluster, args.runs, folder, args.baseline)
    finally:
        cluster.stop()
        shutil.rmtree(cluster.folder, ignore_errors=True)


if __name__ == "__main__":
    main()
