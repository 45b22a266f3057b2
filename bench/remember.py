"""remember throughput: 10,000 plain `ws.remember` calls in one process, one transaction each.

Run: `.venv/bin/python bench/remember.py [--n 10000] [--seed 0]`. Prints memories/second and
the per-call latency; the target (>= 2,000 memories/s) is read, not enforced: the script exits
0 either way, so a slow machine does not fail a build.

The memories come from `bench/corpus.py` (generated before the clock starts); about a tenth
cite a file, written under the temporary project first, so their fingerprint is really taken.
Each call goes through the whole use case: validation, the secret scan, citation parsing and
fingerprinting, the restatement check, and the insert with its FTS5 rows, then COMMIT (WAL,
synchronous=NORMAL, as every Cairn store is opened).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import corpus

import cairn

TARGET_PER_SECOND = 2000


def main() -> None:
    """Generate the memories, then time remembering them one by one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="memories to remember")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed")
    args = parser.parse_args()

    specs = corpus.memories(args.n, seed=args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        cited = corpus.write_files(project, specs)
        clock = corpus.SteppedClock(len(specs))
        ws = cairn.open(
            home, project=project, cwd=project, tool="bench", session="b1", branch="", clock=clock
        )
        latencies: list[float] = []
        outcomes: dict[str, int] = {}
        cpu_before = os.times()
        started = time.perf_counter()
        for i, spec in enumerate(specs):
            clock.at(i)
            t0 = time.perf_counter()
            done = ws.remember(
                spec.text,
                kind=spec.kind,
                tags=list(spec.tags),
                reason=spec.reason,
                source_ref=spec.source_ref,
            )
            latencies.append(time.perf_counter() - t0)
            outcomes[done.outcome] = outcomes.get(done.outcome, 0) + 1
        elapsed = time.perf_counter() - started
        cpu_after = os.times()
        stored = ws.store.count_memories()
        size_mb = sum(p.stat().st_size for p in home.glob("cairn.db*")) / 1e6
        ws.close()

    rate = len(specs) / elapsed
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p95 = latencies[int(0.95 * (len(latencies) - 1))] * 1000
    print(f"remember: {len(specs)} memories ({cited} cited files), one transaction each")
    print(f"outcomes: {outcomes}; stored: {stored}; database: {size_mb:.1f} MB")
    user, system = (cpu_after.user - cpu_before.user), (cpu_after.system - cpu_before.system)
    # CPU time is steadier than the wall clock on a shared machine; the gap is waiting (fsync
    # at checkpoints, other processes holding the cores).
    print(f"elapsed:  {elapsed:.2f} s  (cpu: user {user:.2f} s + system {system:.2f} s)")
    print(f"per call: p50 {p50:.3f} ms  p95 {p95:.3f} ms  max {latencies[-1] * 1000:.2f} ms")
    verdict = "met" if rate >= TARGET_PER_SECOND else "NOT met"
    print(f"rate:     {rate:,.0f} memories/s  (target >= {TARGET_PER_SECOND:,}/s: {verdict})")


if __name__ == "__main__":
    main()
