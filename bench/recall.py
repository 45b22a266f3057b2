"""recall latency at 1k, 10k and 100k memories, side by side with bm25s and rank_bm25.

Run: `.venv/bin/python bench/recall.py [--sizes 1000,10000,100000] [--queries 200]`
(or `CAIRN_BENCH_SIZES=1000,10000`). Prints timings; the targets are read, not enforced, so
the script exits 0 on a slow machine:

- Cairn recall at 100k (warm: one open handle): p50 <= 2 ms, p95 <= 8 ms (LSA included: the
  write fits it, and the first recall is timed apart, before the percentiles); the CPU time
  of each recall is shown beside it (steadier than wall time on a busy machine), and the load
  average over the timing;
- a new `cairn recall --json` process <= 3x a new process querying SQLite FTS5 on the same
  store (cold): the memories' analysed fields are copied into an FTS5 table in a file beside
  the store, and `--cold-runs` rounds of new processes are timed in turn over five queries:
  Cairn's CLI, then a Python process that opens that file, runs one FTS5 `MATCH ... ORDER BY
  bm25 LIMIT 8` and prints JSON. The ratio of their medians is the figure (of wall time, and
  of the children's CPU time beside it). The floors under it are printed too: a new process
  that imports numpy and does nothing else (recall scores with numpy), and a bare one;
- the first recall of a new process on an existing store (`cairn recall` from the CLI) reads
  the postings and the LSA fit that the bulk write kept beside the store instead of building
  them again: it is timed too, on a second handle opened on the same store after the queries
  (shown as "reopened"), with the size of the kept files.
- building a 100k store: <= 30 s;
- no recall after a load of 100k waits over 1 s: at the largest size (unless
  `--no-after-loads`), the store is loaded again through `Cairn.remember_many` (10,000 a call)
  and through one `Cairn.remember` a memory, and the first recall after each is timed on the
  writer's handle and on a new one (as a new process has). The second store takes minutes to
  write at 100k: it is built once and cached under bench/out/cache (by size, seed and
  CACHE_VERSION), and later runs time a copy (the writer's own first recall is then not
  timed again). The slowest single write is printed too.

New processes (Cairn's and FTS5's) run from cached bytecode, as an installed program does:
the children's environment drops PYTHONDONTWRITEBYTECODE.

Per size, one store is built from `bench/corpus.py` in a temporary folder: through
`remember` one call (and one transaction) per memory, or, with `--build batch` (the default
from 20,000 memories), through `remember_many`, the same validation and insert in one
transaction per 10,000 memories, each ending with the writer's indexing step (postings and the
LSA fit when due: `cairn.usecases.recall.refresh`), so the first recall after the build indexes and
fits
nothing. Both paths keep the trigger list beside the store in step (the batch path rewrites it
once at the end, inside the timing). The output says which path timed the build.

The same queries then go through `bm25s` (method "lucene", k1 1.2, b 0.75) and `rank_bm25`
(BM25Okapi, same k1 and b) over the very tokens Cairn indexed (`cairn.core.text.analyse` of the
four fields, read back from the store) and the query's analysed terms. They are reference
points for the cost of keyword scoring alone: they hold their index in memory, and do none of
Cairn's other steps (field weights, recency, LSA, evidence, cut-off, coverage, citations,
offers).

`--dump FILE` writes every Cairn answer (memory indexes in the corpus, and scores) as JSON
lines, so two runs (before and after a change to the ranking code) can be compared.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import corpus

import cairn
from cairn.core.text import analyse
from cairn.usecases.remember import remember_many

DEFAULT_SIZES = (1_000, 10_000, 100_000)
BATCH_FROM = 20_000
BATCH_SIZE = 10_000
TARGET_P50_MS = 2.0
TARGET_P95_MS = 8.0
TARGET_COLD_RATIO = 3.0
COLD_QUERIES = 5
TARGET_BUILD_S = 30.0
TARGET_AFTER_LOAD_S = 1.0
TARGET_SIZE = 100_000


@dataclass
class Row:
    """One engine's timings at one size."""

    engine: str
    build_s: float
    latencies: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # CPU seconds of each (Cairn only)
    first_s: float | None = None
    note: str = ""

    def p(self, q: float, cpu: bool = False) -> float:
        """The q-quantile latency in ms (nearest rank); of CPU time with `cpu`."""
        ordered = sorted(self.cpu if cpu else self.latencies)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


@dataclass
class Cold:
    """New processes run in turn (Cairn's CLI, FTS5, and the floors): (wall, CPU) seconds of
    each. CPU time (user + system, of the child) is printed beside wall time: on a machine
    other work keeps busy, wall time grows with the wait for a core, CPU time much less."""

    cairn: list[tuple[float, float]] = field(default_factory=list)
    fts5: list[tuple[float, float]] = field(default_factory=list)
    numpy: list[tuple[float, float]] = field(default_factory=list)
    python: list[tuple[float, float]] = field(default_factory=list)
    per_query: dict[str, list[tuple[float, float]]] = field(default_factory=dict)

    @staticmethod
    def median(values: list[float]) -> float:
        """The median in ms."""
        ordered = sorted(values)
        mid = len(ordered) // 2
        return (ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2) * 1e3

    def ratio(self, which: int = 0) -> float:
        """Median Cairn process over median FTS5 process (0: wall time, 1: CPU time)."""
        cairn = self.median([t[which] for t in self.cairn])
        return cairn / self.median([t[which] for t in self.fts5])

    def line(self) -> str:
        """Medians in ms, wall / CPU, and the ratios."""
        parts = []
        for name in ("cairn", "fts5", "numpy", "python"):
            runs = getattr(self, name)
            wall = self.median([w for w, _ in runs])
            cpu = self.median([c for _, c in runs])
            parts.append(f"{name} {wall:.0f} / {cpu:.0f}")
        queries = "; ".join(
            f"{q[:28]!r} {self.median([w for w, _ in runs]):.0f} / "
            f"{self.median([c for _, c in runs]):.0f}"
            for q, runs in self.per_query.items()
        )
        return (
            f"new process, median ms wall / cpu: {', '.join(parts)}; "
            f"cairn / fts5 = {self.ratio(0):.2f}x wall, {self.ratio(1):.2f}x cpu\n"
            f"{'':>10}cairn by query, ms wall / cpu: {queries}"
        )


FTS5_QUERY = """
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
words = " OR ".join('"' + w.replace('"', '') + '"' for w in sys.argv[2].lower().split())
rows = conn.execute(
    "SELECT rowid, -bm25(m, 4.0, 2.0, 1.5, 1.0) FROM m WHERE m MATCH ? "
    "ORDER BY bm25(m, 4.0, 2.0, 1.5, 1.0) LIMIT 8",
    (words,),
).fetchall()
print(json.dumps(rows))
"""


def fts5_copy(ws: Any, target: Path) -> None:
    """The store's memory rows' analysed fields in an FTS5 table (`m`) in `target`."""
    import sqlite3

    rows = ws.store.conn.execute(
        "SELECT fts_sentence, fts_tags, fts_citation, fts_reason FROM memories"
    ).fetchall()
    conn = sqlite3.connect(target)
    try:
        conn.execute("CREATE VIRTUAL TABLE m USING fts5(sentence, tags, citation, reason)")
        conn.executemany("INSERT INTO m VALUES (?, ?, ?, ?)", rows)
        conn.commit()
    finally:
        conn.close()


def time_cold(home: Path, project: Path, fts_db: Path, queries: Sequence[str], runs: int) -> Cold:
    """New processes timed in turn: `cairn recall Q --json`, the FTS5 query, and the floors."""
    import subprocess
    import sys

    script = Path(sys.executable).with_name("cairn")
    env = {**os.environ, "CAIRN_HOME": str(home)}
    env.pop("CAIRN_NOW", None)
    # Both sides run as an installed program does: from cached bytecode (pip compiles it at
    # install). A shell that sets PYTHONDONTWRITEBYTECODE would have every new Cairn process
    # compile its ~40 modules from source (~0.2 s), a cost no user's process pays.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([str(script), "--help"], cwd=project, env=env, stdout=subprocess.DEVNULL)
    cold = Cold()

    def timed(argv: list[str], into: list[tuple[float, float]]) -> None:
        import resource

        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(argv, cwd=project, env=env, stdout=subprocess.DEVNULL, check=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        into.append((wall, cpu))

    for _ in range(runs):
        for q in queries:
            timed([str(script), "recall", q, "--json"], cold.cairn)
            cold.per_query.setdefault(q, []).append(cold.cairn[-1])
            timed([sys.executable, "-c", FTS5_QUERY, str(fts_db), q], cold.fts5)
        timed([sys.executable, "-c", "import numpy"], cold.numpy)
        timed([sys.executable, "-c", "pass"], cold.python)
    return cold


@dataclass
class SizeResult:
    """Everything measured at one store size."""

    size: int
    build_path: str
    rows: list[Row]
    db_mb: float
    answered: int
    unanswerable_empty: str
    cold: Cold | None = None
    loads: Loads | None = None


def build_store(
    home: Path, project: Path, specs: Sequence[corpus.MemorySpec], path: str
) -> tuple[Any, corpus.SteppedClock, list[str], float]:
    """Open a store and save every memory; returns (workspace, clock, refs, seconds)."""
    corpus.write_files(project, list(specs))
    clock = corpus.SteppedClock(len(specs))
    ws = cairn.open(
        home, project=project, cwd=project, tool="bench", session="b1", branch="", clock=clock
    )
    refs: list[str] = []
    started = time.perf_counter()
    if path == "remember":
        for i, spec in enumerate(specs):
            clock.at(i)
            done = ws.remember(
                spec.text,
                kind=spec.kind,
                tags=list(spec.tags),
                reason=spec.reason,
                source_ref=spec.source_ref,
            )
            refs.append(done.ref)
    else:
        for start in range(0, len(specs), BATCH_SIZE):
            batch = specs[start : start + BATCH_SIZE]
            clock.at(start)
            items = [
                {
                    "text": s.text,
                    "kind": s.kind,
                    "tags": list(s.tags),
                    "reason": s.reason,
                    "source_ref": s.source_ref,
                }
                for s in batch
            ]
            refs.extend(done.ref for done in remember_many(ws.store, ws.ctx, items))
        # Cairn.remember keeps the trigger list beside the store in step; a batch does not.
        ws.rebuild_triggers()
    elapsed = time.perf_counter() - started
    clock.now()
    return ws, clock, refs, elapsed


def time_cairn(
    ws: Any, first: str, queries: Sequence[corpus.QuerySpec], index_of: dict[str, int]
) -> tuple[Row, list[list[tuple[int, float]]]]:
    """Recall every query once after a first recall (timed apart); keep the answers."""
    row = Row("cairn", 0.0)
    started = time.perf_counter()
    ws.recall(first, limit=8)
    row.first_s = time.perf_counter() - started
    answers: list[list[tuple[int, float]]] = []
    for q in queries:
        c0, t0 = time.process_time(), time.perf_counter()
        found = ws.recall(q.text, limit=8)
        row.latencies.append(time.perf_counter() - t0)
        row.cpu.append(time.process_time() - c0)
        answers.append([(index_of.get(h.ref, -1), h.score) for h in found.hits])
    return row, answers


def time_reopened(home: Path, project: Path, query: str) -> float:
    """Seconds of the first recall on a second handle on the store (as a new process has)."""
    clock = corpus.SteppedClock(1)
    clock.now()
    ws = cairn.open(
        home, project=project, cwd=project, tool="bench", session="b2", branch="", clock=clock
    )
    try:
        started = time.perf_counter()
        ws.recall(query, limit=8)
        return time.perf_counter() - started
    finally:
        ws.close()


@dataclass
class Loads:
    """The first recalls after loading the whole store: through `Cairn.remember_many` (a bulk
    write indexes itself), and through one `Cairn.remember` a memory (each write indexes once
    KeywordCache.SEGMENT_ROWS rows wait), in seconds: on the writer's handle and in a new one
    (a new process); with the slowest single write."""

    bulk_same: float = 0.0
    bulk_new: float = 0.0
    bulk_load_s: float = 0.0
    singles_same: float | None = None
    singles_new: float = 0.0
    singles_load_s: float = 0.0
    slowest_write: float = 0.0
    cached: bool = False

    def line(self) -> str:
        """The waits in ms."""
        singles = (
            f"written one at a time ({self.singles_load_s:.0f} s"
            f"{', cached' if self.cached else ''}; slowest write "
            f"{self.slowest_write * 1e3:.0f} ms): first recall "
            + (f"{self.singles_same * 1e3:.0f} ms same handle, " if self.singles_same else "")
            + f"{self.singles_new * 1e3:.0f} ms new handle"
        )
        return (
            f"after a bulk load (remember_many, {self.bulk_load_s:.0f} s): first recall "
            f"{self.bulk_same * 1e3:.0f} ms same handle, {self.bulk_new * 1e3:.0f} ms new "
            f"handle; {singles}"
        )

    @property
    def worst(self) -> float:
        """The longest of the waits."""
        return max(self.bulk_same, self.bulk_new, self.singles_same or 0.0, self.singles_new)


CACHE_VERSION = 1  # of the stores cached under bench/out/cache: bump when writes change
CACHE = Path(__file__).resolve().parent / "out" / "cache"


def _write_one(ws: Any, spec: corpus.MemorySpec) -> None:
    ws.remember(
        spec.text,
        kind=spec.kind,
        tags=list(spec.tags),
        reason=spec.reason,
        source_ref=spec.source_ref,
    )


def time_after_loads(specs: Sequence[corpus.MemorySpec], query: str, seed: int) -> Loads:
    """Load the store twice (bulk, then one write at a time) and time the first recalls.

    The store written one memory at a time takes minutes at 100k: it is built once and
    cached under bench/out/cache (keyed by size, seed and CACHE_VERSION), and timed on a copy.
    """
    import json as json_module
    import shutil

    loads = Loads()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        corpus.write_files(project, list(specs))
        clock = corpus.SteppedClock(len(specs))
        ws = cairn.open(home, project=project, cwd=project, tool="bench", branch="", clock=clock)
        started = time.perf_counter()
        for start in range(0, len(specs), BATCH_SIZE):
            clock.at(start)
            ws.remember_many(
                [
                    {"text": s.text, "kind": s.kind, "tags": list(s.tags), "reason": s.reason}
                    | ({"source_ref": s.source_ref} if s.source_ref else {})
                    for s in specs[start : start + BATCH_SIZE]
                ]
            )
        loads.bulk_load_s = time.perf_counter() - started
        clock.now()
        started = time.perf_counter()
        ws.recall(query, limit=8)
        loads.bulk_same = time.perf_counter() - started
        ws.close()
        loads.bulk_new = time_reopened(home, project, query)

    cached = CACHE / f"singles-{len(specs)}-seed{seed}-v{CACHE_VERSION}"
    facts = cached / "facts.json"
    if not facts.exists():
        shutil.rmtree(cached, ignore_errors=True)
        with tempfile.TemporaryDirectory() as tmp:
            home, project = Path(tmp) / "home", cached / "project"
            project.mkdir(parents=True)
            corpus.write_files(project, list(specs))
            clock = corpus.SteppedClock(len(specs))
            ws = cairn.open(
                home, project=project, cwd=project, tool="bench", branch="", clock=clock
            )
            slowest = 0.0
            started = time.perf_counter()
            for i, spec in enumerate(specs):
                clock.at(i)
                t0 = time.perf_counter()
                _write_one(ws, spec)
                slowest = max(slowest, time.perf_counter() - t0)
            load_s = time.perf_counter() - started
            # The cache holds the store as the writes left it; the writer's own first recall
            # is timed after the copy.
            ws.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            shutil.copytree(home, cached / "home", ignore=shutil.ignore_patterns("*-wal", "*-shm"))
            clock.now()
            started = time.perf_counter()
            ws.recall(query, limit=8)
            same = time.perf_counter() - started
            ws.close()
        facts.write_text(json_module.dumps({"load_s": load_s, "slowest": slowest, "same": same}))
        loads.singles_same = same
    else:
        loads.cached = True
    known = json_module.loads(facts.read_text())
    loads.singles_load_s, loads.slowest_write = known["load_s"], known["slowest"]
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(cached / "home", Path(tmp) / "home")
        loads.singles_new = time_reopened(Path(tmp) / "home", cached / "project", query)
    return loads


def time_bm25s(docs: list[list[str]], queries: list[list[str]]) -> Row:
    """bm25s: build the sparse index, then retrieve the top 8 of each query one at a time."""
    import bm25s

    started = time.perf_counter()
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    retriever.index(docs, show_progress=False)
    row = Row("bm25s", time.perf_counter() - started)
    k = min(8, len(docs))
    for terms in queries:
        t0 = time.perf_counter()
        retriever.retrieve([terms or [""]], k=k, show_progress=False, n_threads=0)
        row.latencies.append(time.perf_counter() - t0)
    return row


def time_rank_bm25(docs: list[list[str]], queries: list[list[str]]) -> Row:
    """rank_bm25: BM25Okapi over all documents, top 8 by argpartition, one query at a time."""
    import numpy as np
    from rank_bm25 import BM25Okapi

    started = time.perf_counter()
    model = BM25Okapi(docs, k1=1.2, b=0.75)
    row = Row("rank_bm25", time.perf_counter() - started)
    k = min(8, len(docs))
    for terms in queries:
        t0 = time.perf_counter()
        scores = model.get_scores(terms)
        top = np.argpartition(-scores, k - 1)[:k]
        top[np.argsort(-scores[top])]
        row.latencies.append(time.perf_counter() - t0)
    return row


def measure(
    size: int,
    all_specs: list[corpus.MemorySpec],
    n_queries: int,
    path: str,
    dump: Callable[[dict[str, Any]], None] | None,
    cold_runs: int = 0,
    after_loads: bool = False,
    seed: int = 0,
) -> SizeResult:
    """Build one store of `size` memories and time the three engines on the same queries."""
    specs = all_specs[:size]
    queries = corpus.queries(specs, n_queries)
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        ws, _, refs, build_s = build_store(home, project, specs, path)
        index_of = {ref: i for i, ref in enumerate(refs)}
        load_before = os.getloadavg()[0]
        cairn_row, answers = time_cairn(ws, specs[0].text, queries, index_of)
        load = (load_before + os.getloadavg()[0]) / 2
        cairn_row.build_s = build_s
        cairn_row.note = (
            f"cpu p50 {cairn_row.p(0.5, cpu=True):.2f} p95 {cairn_row.p(0.95, cpu=True):.2f} ms; "
            f"{size / build_s:,.0f} memories/s via {path}; load average {load:.1f}"
        )
        fit_s = cairn_row.first_s or 0.0
        if size >= 200:
            cairn_row.note += f"; first recall {fit_s * 1000:,.0f} ms"
        reopened_s = time_reopened(home, project, queries[0].text)
        kept_mb = sum(p.stat().st_size for p in home.glob("recall-*.npz")) / 1e6
        cairn_row.note += f"; reopened {reopened_s * 1000:,.0f} ms (kept {kept_mb:.0f} MB)"

        cold = None
        if cold_runs:
            fts_db = Path(tmp) / "fts5.db"
            fts5_copy(ws, fts_db)
            texts = [q.text for q in queries if q.kind != "unanswerable"][:COLD_QUERIES]
            cold = time_cold(home, project, fts_db, texts, cold_runs)

        words = ws.store.index_words(ws.store.current_rowids())
        docs = [text.split() for _, text in sorted(words.items())]
        terms = [list(dict.fromkeys(analyse(q.text))) for q in queries]
        rows = [cairn_row, time_bm25s(docs, terms), time_rank_bm25(docs, terms)]

        ws.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db_mb = sum(p.stat().st_size for p in home.glob("cairn.db*")) / 1e6
        ws.close()

    loads = time_after_loads(specs, queries[0].text, seed) if after_loads else None
    unanswerable = [a for q, a in zip(queries, answers, strict=True) if q.kind == "unanswerable"]
    if dump is not None:
        for q, a in zip(queries, answers, strict=True):
            dump({"size": size, "query": q.text, "hits": [[i, round(s, 9)] for i, s in a]})
    return SizeResult(
        size=size,
        build_path=path,
        rows=rows,
        db_mb=db_mb,
        answered=sum(1 for a in answers if a),
        unanswerable_empty=f"{sum(1 for a in unanswerable if not a)}/{len(unanswerable)}",
        cold=cold,
        loads=loads,
    )


def report(results: list[SizeResult], n_queries: int) -> None:
    """The side-by-side table, then the targets."""
    print(f"\n{'size':>8}  {'engine':<10} {'build s':>8} {'p50 ms':>8} {'p95 ms':>8}  notes")
    for r in results:
        for row in r.rows:
            print(
                f"{r.size:>8,}  {row.engine:<10} {row.build_s:>8.2f} {row.p(0.5):>8.2f} "
                f"{row.p(0.95):>8.2f}  {row.note}"
            )
        print(
            f"{'':>8}  database {r.db_mb:.1f} MB; {r.answered}/{n_queries} queries answered; "
            f"unanswerable with no hit: {r.unanswerable_empty}"
        )
        if r.cold is not None:
            print(f"{'':>8}  {r.cold.line()}")
        if r.loads is not None:
            print(f"{'':>8}  {r.loads.line()}")
    big = next((r for r in results if r.size == TARGET_SIZE), None)
    if big is None:
        print(f"\ntargets are set at {TARGET_SIZE:,} memories; run that size to check them")
        return
    cairn_row = big.rows[0]
    checks = [
        (
            f"recall p50 <= {TARGET_P50_MS:g} ms ({cairn_row.p(0.5):.2f} wall, "
            f"{cairn_row.p(0.5, cpu=True):.2f} cpu)",
            cairn_row.p(0.5) <= TARGET_P50_MS,
        ),
        (
            f"recall p95 <= {TARGET_P95_MS:g} ms ({cairn_row.p(0.95):.2f} wall, "
            f"{cairn_row.p(0.95, cpu=True):.2f} cpu)",
            cairn_row.p(0.95) <= TARGET_P95_MS,
        ),
        (
            f"build of 100k <= {TARGET_BUILD_S:g} s (via {big.build_path})",
            cairn_row.build_s <= TARGET_BUILD_S,
        ),
    ]
    if big.cold is not None:
        checks.append(
            (
                f"new recall process <= {TARGET_COLD_RATIO:g}x a new FTS5 process "
                f"({big.cold.ratio():.2f}x wall, {big.cold.ratio(1):.2f}x cpu)",
                big.cold.ratio() <= TARGET_COLD_RATIO,
            )
        )
    if big.loads is not None:
        checks.append(
            (
                f"no recall after a load of 100k waits over {TARGET_AFTER_LOAD_S:g} s "
                f"(longest {big.loads.worst:.2f} s)",
                big.loads.worst <= TARGET_AFTER_LOAD_S,
            )
        )
    print("\ntargets at 100,000 memories:")
    for name, ok in checks:
        print(f"  {name}: {'met' if ok else 'NOT met'}")


def main() -> None:
    """Parse the options, measure each size, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        default=os.environ.get("CAIRN_BENCH_SIZES", ",".join(map(str, DEFAULT_SIZES))),
        help="store sizes, comma-separated (default: 1000,10000,100000)",
    )
    parser.add_argument("--queries", type=int, default=200, help="queries per size")
    parser.add_argument(
        "--build",
        choices=("auto", "remember", "batch"),
        default="auto",
        help=f"how stores are built (auto: batch from {BATCH_FROM:,} memories)",
    )
    parser.add_argument("--seed", type=int, default=0, help="corpus seed")
    parser.add_argument("--dump", type=Path, help="write Cairn's answers here (JSON lines)")
    parser.add_argument(
        "--cold-runs",
        type=int,
        default=10,
        help=f"rounds of new processes (CLI vs FTS5, {COLD_QUERIES} queries each) at the "
        "largest size; 0 skips them",
    )
    parser.add_argument(
        "--no-after-loads",
        dest="after_loads",
        action="store_false",
        help="skip the first recalls after loading the largest store in bulk and one memory "
        "at a time (the second is built once and cached under bench/out/cache)",
    )
    args = parser.parse_args()

    sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip())
    started = time.perf_counter()
    all_specs = corpus.memories(max(sizes), seed=args.seed)
    print(f"corpus: {len(all_specs):,} memories generated in {time.perf_counter() - started:.1f} s")

    out = args.dump.open("w", encoding="utf-8") if args.dump else None
    results = []
    for size in sizes:
        path = args.build
        if path == "auto":
            path = "batch" if size >= BATCH_FROM else "remember"
        t0 = time.perf_counter()
        dump = (lambda record: print(json.dumps(record), file=out)) if out else None
        cold_runs = args.cold_runs if size == max(sizes) else 0
        loads = args.after_loads and size == max(sizes)
        results.append(
            measure(size, all_specs, args.queries, path, dump, cold_runs, loads, args.seed)
        )
        print(f"size {size:,} measured in {time.perf_counter() - t0:.1f} s", flush=True)
    if out:
        out.close()
    report(results, args.queries)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
