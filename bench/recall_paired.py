"""First-sight warm recall on one kept store, for paired before/after runs (issue 13).

bench/recall.py builds its 100k store anew on every run (minutes on a busy machine) and times
each of its 200 queries once, right after the build. This script builds the same store once
(`build`: the same corpus, seed, bulk writer and clock as bench/recall.py's `--build batch`)
into a folder, and then (`time`) opens it in a new process, recalls one query (timed apart,
as bench/recall.py does) and times each of the same 200 queries once on that handle: every
query is one the handle has not seen. Run `time` with `PYTHONPATH` set to another Cairn's
`src` to time that code on the very same store, and interleave the two for a paired figure:

    .venv/bin/python bench/recall_paired.py build /tmp/r100k
    PYTHONPATH=/tmp/before/src .venv/bin/python bench/recall_paired.py time /tmp/r100k \\
        --dump /tmp/before.jsonl
    .venv/bin/python bench/recall_paired.py time /tmp/r100k --dump /tmp/after.jsonl
    .venv/bin/python bench/recall_paired.py same /tmp/before.jsonl /tmp/after.jsonl
    .venv/bin/python bench/recall_paired.py pair /tmp/r100k --baseline /tmp/before/src

`pair` runs both Cairns at once in two new processes and gives them each query in turn (which
goes first alternating), so that on a busy machine both are timed under the same load.
`--dump` writes each answer (refs in order, weak flags and the `repr` of each score); `same`
compares two dumps and exits 1 on the first difference. `cold` times new `cairn recall
--json` processes against new processes running one FTS5 query on the same rows, in turn.
`--passes N` recalls the 200 queries N times and times only the last pass (the fourth round's
"seen before" measure); `--handles N` does it all on N new handles in turn and keeps each
query's least time (on a machine others keep busy, the least of a few first sights is the
code's cost more than the load's). A recall
writes nothing, so one store serves every run. Prints CPU and wall p50 / p95 and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import corpus

SIZE = 100_000
QUERIES = 200


def build(folder: Path, size: int, seed: int) -> None:
    """The store bench/recall.py builds at `size` (batch path), kept in `folder`."""
    import recall as bench_recall

    specs = corpus.memories(size, seed=seed)
    home, project = folder / "home", folder / "project"
    project.mkdir(parents=True)
    ws, _, refs, build_s = bench_recall.build_store(home, project, specs, "batch")
    ws.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    ws.close()
    (folder / "meta.json").write_text(json.dumps({"size": size, "seed": seed, "refs": refs}))
    print(f"built {size:,} memories in {build_s:.1f} s into {folder}")


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def _opened(folder: Path, n: int) -> tuple[Any, list[Any]]:
    """The kept store opened as bench/recall.py opens it, one recall made apart, and its
    first `n` queries."""
    import cairn

    meta = json.loads((folder / "meta.json").read_text())
    specs = corpus.memories(meta["size"], seed=meta["seed"])
    queries = corpus.queries(specs, n)
    clock = corpus.SteppedClock(1)
    clock.now()
    project = folder / "project"
    ws = cairn.open(
        folder / "home",
        project=project,
        cwd=project,
        tool="bench",
        session="b1",
        branch="",
        clock=clock,
    )
    ws.recall(specs[0].text, limit=8)
    return ws, queries


def time_queries(folder: Path, n: int, passes: int, dump: Path | None, handles: int = 1) -> None:
    """Open the kept store, recall once apart, then time each query (the last pass); with
    `handles` > 1, again on each of that many new handles in turn, keeping each query's least
    CPU and wall time (each still a first sight on its handle)."""
    import cairn

    load_before = os.getloadavg()[0]
    cpu: list[float] = []
    wall: list[float] = []
    answers = []
    for handle in range(handles):
        ws, queries = _opened(folder, n)
        times = []
        for p in range(passes):
            for q in queries:
                c0, t0 = time.process_time(), time.perf_counter()
                found = ws.recall(q.text, limit=8)
                if p == passes - 1:
                    times.append((time.process_time() - c0, time.perf_counter() - t0))
                    if handle == 0:
                        hits = [[h.ref, h.weak, repr(h.score)] for h in found.hits]
                        answers.append({"query": q.text, "hits": hits})
        ws.close()
        if handle == 0:
            cpu, wall = [c for c, _ in times], [w for _, w in times]
        else:
            cpu = [min(a, c) for a, (c, _) in zip(cpu, times, strict=True)]
            wall = [min(a, w) for a, (_, w) in zip(wall, times, strict=True)]
    load = (load_before + os.getloadavg()[0]) / 2
    least = f" (least of {handles} handles)" if handles > 1 else ""
    print(
        f"cairn {Path(cairn.__file__).parent}{least}: cpu p50 {_quantile(cpu, 0.5):.2f} "
        f"p95 {_quantile(cpu, 0.95):.2f} ms; wall p50 {_quantile(wall, 0.5):.2f} "
        f"p95 {_quantile(wall, 0.95):.2f} ms; load {load:.1f}"
    )
    if dump is not None:
        dump.write_text("".join(json.dumps(a) + "\n" for a in answers))


def serve(folder: Path, n: int) -> None:
    """Open the kept store, recall once apart, then answer query numbers read from stdin
    with the recall's CPU and wall seconds (one line each): what `pair` drives."""
    ws, queries = _opened(folder, n)
    print("ready", flush=True)
    for line in sys.stdin:
        q = queries[int(line)]
        c0, t0 = time.process_time(), time.perf_counter()
        ws.recall(q.text, limit=8)
        print(f"{time.process_time() - c0} {time.perf_counter() - t0}", flush=True)
    ws.close()


def pair(folder: Path, baseline: Path, n: int) -> None:
    """Two new processes on the kept store, this Cairn and the one in `baseline` (its `src`),
    given each query in turn (which goes first alternates): each query is a first sight for
    both, and both are timed under the same load, a query apart."""
    import subprocess

    def start(src: Path | None) -> subprocess.Popen[str]:
        env = dict(os.environ)
        if src is not None:
            env["PYTHONPATH"] = str(src)
        child = subprocess.Popen(
            [sys.executable, __file__, "serve", str(folder), "--queries", str(n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        return child

    children = {"before": start(baseline), "after": start(None)}
    times: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    load_before = os.getloadavg()[0]
    try:
        for k in range(n):
            order = ("before", "after") if k % 2 == 0 else ("after", "before")
            for name in order:
                child = children[name]
                assert child.stdin is not None and child.stdout is not None
                child.stdin.write(f"{k}\n")
                child.stdin.flush()
                cpu, wall = map(float, child.stdout.readline().split())
                times[name].append((cpu, wall))
    finally:
        for child in children.values():
            assert child.stdin is not None
            child.stdin.close()
            child.wait()
    load = (load_before + os.getloadavg()[0]) / 2
    parts = []
    for name, runs in times.items():
        cpu = [c for c, _ in runs]
        wall = [w for _, w in runs]
        parts.append(
            f"{name} cpu p50 {_quantile(cpu, 0.5):.2f} p95 {_quantile(cpu, 0.95):.2f} ms, "
            f"wall p50 {_quantile(wall, 0.5):.2f} p95 {_quantile(wall, 0.95):.2f} ms"
        )
    print(f"{'; '.join(parts)}; load {load:.1f}")


def cold(folder: Path, runs: int) -> None:
    """A new `cairn recall --json` process against a new process querying FTS5 on the same
    rows, in turn (bench/recall.py's `--cold-runs` on the kept store): the FTS5 copy is made
    once, beside the store. Run with `PYTHONPATH` set to another Cairn's `src` to time that
    one's CLI (the FTS5 side is the standard library's)."""
    import recall as bench_recall

    import cairn

    meta = json.loads((folder / "meta.json").read_text())
    specs = corpus.memories(meta["size"], seed=meta["seed"])
    queries = corpus.queries(specs, QUERIES)
    texts = [q.text for q in queries if q.kind != "unanswerable"][: bench_recall.COLD_QUERIES]
    fts_db = folder / "fts5.db"
    if not fts_db.exists():
        ws, _ = _opened(folder, 1)
        bench_recall.fts5_copy(ws, fts_db.with_suffix(".part"))
        ws.close()
        fts_db.with_suffix(".part").rename(fts_db)
    load_before = os.getloadavg()[0]
    timed = bench_recall.time_cold(folder / "home", folder / "project", fts_db, texts, runs)
    load = (load_before + os.getloadavg()[0]) / 2
    print(f"cairn {Path(cairn.__file__).parent}, load {load:.1f}: {timed.line()}")


def same(a: Path, b: Path) -> int:
    """0 when the two dumps hold the same answers, else 1 (the first difference printed)."""
    left, right = a.read_text().splitlines(), b.read_text().splitlines()
    for i, (x, y) in enumerate(zip(left, right, strict=False)):
        if x != y:
            print(f"query {i} differs:\n  {x}\n  {y}")
            return 1
    if len(left) != len(right):
        print(f"{len(left)} answers against {len(right)}")
        return 1
    print(f"{len(left)} answers the same (refs, order, weak, scores)")
    return 0


def main() -> None:
    """Parse the options and run the command."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build the store once into FOLDER")
    b.add_argument("folder", type=Path)
    b.add_argument("--size", type=int, default=SIZE)
    b.add_argument("--seed", type=int, default=0)
    t = sub.add_parser("time", help="time each query once on the store in FOLDER")
    t.add_argument("folder", type=Path)
    t.add_argument("--queries", type=int, default=QUERIES)
    t.add_argument("--passes", type=int, default=1, help="time only the last of N passes")
    t.add_argument("--dump", type=Path)
    t.add_argument(
        "--handles", type=int, default=1, help="each query's least time over N new handles"
    )
    v = sub.add_parser("serve", help="answer query numbers from stdin (for `pair`)")
    v.add_argument("folder", type=Path)
    v.add_argument("--queries", type=int, default=QUERIES)
    r = sub.add_parser("pair", help="time this Cairn and another, query by query in turn")
    r.add_argument("folder", type=Path)
    r.add_argument("--baseline", type=Path, required=True, help="the other Cairn's src folder")
    r.add_argument("--queries", type=int, default=QUERIES)
    c = sub.add_parser("cold", help="new CLI processes against new FTS5 processes, in turn")
    c.add_argument("folder", type=Path)
    c.add_argument("--runs", type=int, default=4, help="rounds of the five queries")
    s = sub.add_parser("same", help="compare two dumps")
    s.add_argument("a", type=Path)
    s.add_argument("b", type=Path)
    args = parser.parse_args()
    if args.command == "build":
        build(args.folder, args.size, args.seed)
    elif args.command == "time":
        time_queries(args.folder, args.queries, args.passes, args.dump, args.handles)
    elif args.command == "serve":
        serve(args.folder, args.queries)
    elif args.command == "pair":
        pair(args.folder, args.baseline, args.queries)
    elif args.command == "cold":
        cold(args.folder, args.runs)
    else:
        sys.exit(same(args.a, args.b))


if __name__ == "__main__":
    main()
