"""Recall quality on labelled sets, step by step, and recall latency at 100k memories.

Run: `.venv/bin/python bench/quality.py [--sets ledgerly,wordnet] [--latency 100000]`.
Prints numbers; the targets are read, not enforced, so the script exits 0 when one is missed.

Sets (`bench/labelled.py`): the project's own Ledgerly set (bench/data) and two public ones:
10,000 WordNet 3.0 synsets written as dictionary entries with 1,000 of their own usage examples
as queries (Debian's `wordnet-base`, installed by name when missing), and 10,000 senses of
GCIDE (Webster's 1913, Debian's `dict-gcide`, fetched by name when missing) with 1,000 of the
quotations printed under them as queries. Each set is run as two
folds: half the queries lose their answers (the memories relevant to them are left out of the
store), so they are unanswerable there; the other half are answerable. Numbers add up both
folds.

For each set, one line per variant of `cairn.usecases.recall.recall(limit=20)` (memories at most
half:
10, so nDCG@10 sees every memory served), each adding one step to the one above:

- plain BM25       Cairn's analyser, the four fields weighted 1, nothing else
- + field weights  sentence > tags > citation > reason
- + recency        a slight lift for newer memories
- + evidence       code acts (none recorded in these sets: shows it costs nothing)
- + LSA            latent semantic re-ordering of the keyword matches
- + 0.7 cut-off    a memory under 0.7 of the best memory's score is left out
- served           + the "nothing found" gate: what an agent gets

Columns: answerable nDCG@10 (gains 2^grade - 1), what the step added to the row above, the
share of answerable queries answered with nothing, the share of unanswerable queries answered
with nothing, the mean number of memories served to an answerable query, and the share of
served memories marked weak.

Then the targets of issue 13: served nDCG@10 >= 0.90 x plain BM25, answerable-but-empty
<= 10%, unanswerable answered with nothing >= 20%, all steps but the cut-offs (the "+ LSA"
row) >= plain BM25, and LSA >= the row above it; and, for reading, each step alone.

`--age-seed S` draws the public sets' ages again (0-399 days, from seed S; the memories and
queries stay the same): their ages are random, so what the recency step does there is one
draw's; bench/recency_seeds.py runs several.

`--latency N` builds a WordNet store of N memories in bulk loads of 10,000 (one transaction
each, by `remember`, so the recall indexes them), times the first recall after each load
(postings and LSA brought up to date), then the warm recall of 1,000 queries (p50, p95), the
first recall of a second handle opened on the finished store (what a new process pays), and
the size of the database and of the files kept beside it. Then all N in one load, twice: by
`remember` in one transaction (the next recall indexes all of them) and by
`Cairn.remember_many` (the write indexes them, `cairn.usecases.recall.refresh`), each followed by a
recall and by the first recall of a second handle. Targets: warm p50 <= 2 ms, p95 <= 8 ms, no
recall after a bulk load over 1 s.
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import labelled

import cairn
from cairn.api import Cairn
from cairn.usecases.recall import ALL_STEPS, recall
from cairn.usecases.remember import remember

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
LIMIT = 20  # memories at most half: 10, the depth of nDCG@10
BATCH = 10_000
TARGET_SHARE_OF_PLAIN = 0.90
TARGET_ANSWERABLE_EMPTY = 0.10
TARGET_UNANSWERABLE_EMPTY = 0.20
TARGET_P50_MS = 2.0
TARGET_P95_MS = 8.0
TARGET_FIRST_S = 1.0

SERVING = frozenset({"cutoff", "gate"})  # what to show, not how to rank
VARIANTS: list[tuple[str, frozenset[str]]] = [
    ("plain BM25", frozenset()),
    ("+ field weights", frozenset({"weights"})),
    ("+ recency", frozenset({"weights", "recency"})),
    ("+ evidence", frozenset({"weights", "recency", "evidence"})),
    ("+ LSA", frozenset({"weights", "recency", "evidence", "lsa"})),
    ("+ 0.7 cut-off", ALL_STEPS - {"gate"}),
    ("served", ALL_STEPS),
]
RANKING_VARIANTS = [name for name, steps in VARIANTS if not steps & SERVING]


class Clock:
    """The moment each memory was written, then the day of the queries."""

    def __init__(self) -> None:
        self.moment = NOW

    def __call__(self) -> datetime:
        return self.moment


@dataclass
class Score:
    """One variant's sums over the answerable and the unanswerable queries of some folds."""

    ndcg: float = 0.0
    answerable: int = 0
    answerable_empty: int = 0
    unanswerable: int = 0
    unanswerable_empty: int = 0
    served: int = 0
    weak: int = 0

    def add(self, other: Score) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def mean_ndcg(self) -> float:
        return self.ndcg / self.answerable if self.answerable else 0.0

    @property
    def answerable_empty_share(self) -> float:
        return self.answerable_empty / self.answerable if self.answerable else 0.0

    @property
    def unanswerable_empty_share(self) -> float:
        return self.unanswerable_empty / self.unanswerable if self.unanswerable else 0.0


def ndcg(ranked: Sequence[str], relevant: dict[str, int], k: int = 10) -> float:
    """nDCG@k with gains 2^grade - 1 and log2 discounts."""
    dcg = sum((2 ** relevant.get(r, 0) - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    best = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def open_store(tmp: Path, clock: Clock) -> Cairn:
    """A new workspace with one project folder (no git: recall is called directly)."""
    project = tmp / "project"
    project.mkdir(exist_ok=True)
    return cairn.open(
        tmp / "home", project=project, cwd=project, tool="bench", branch="", clock=clock
    )


def load(ws: Cairn, clock: Clock, items: Sequence[labelled.Item]) -> dict[str, str]:
    """Save the items (one transaction), each written `age_days` before NOW; ref -> item id."""
    ids: dict[str, str] = {}
    with ws.store.transaction():
        for item in items:
            clock.moment = NOW - timedelta(days=item.age_days)
            done = remember(
                ws.store,
                ws.ctx,
                item.text,
                kind=item.kind,
                tags=list(item.tags),
                reason=item.reason,
                source_ref=item.source_ref,
            )
            ids[done.ref] = item.id
    clock.moment = NOW
    return ids


def measure(ws: Cairn, ids: dict[str, str], fold: labelled.Fold, steps: frozenset[str]) -> Score:
    """One variant over one fold's queries."""
    score = Score()
    for q in fold.answerable:
        hits = [h for h in _hits(ws, q.text, steps) if h.kind != "doc"]
        score.answerable += 1
        score.answerable_empty += not hits
        score.ndcg += ndcg([ids.get(h.ref, "") for h in hits], q.relevant)
        score.served += len(hits)
        score.weak += sum(h.weak for h in hits)
    for q in fold.unanswerable:
        score.unanswerable += 1
        score.unanswerable_empty += not _hits(ws, q.text, steps)
    return score


def _hits(ws: Cairn, query: str, steps: frozenset[str]) -> list[cairn.Hit]:
    return recall(ws.store, ws.ctx, query, limit=LIMIT, steps=steps, lsa=ws._lsa).hits


def run_set(data: labelled.LabelledSet) -> dict[str, Score]:
    """Every variant over both folds of one set."""
    totals = {name: Score() for name, _ in VARIANTS}
    for fold in labelled.folds(data):
        with tempfile.TemporaryDirectory() as tmp:
            clock = Clock()
            ws = open_store(Path(tmp), clock)
            ids = load(ws, clock, fold.items)
            for name, steps in VARIANTS:
                totals[name].add(measure(ws, ids, fold, steps))
            ws.close()
    return totals


def report_set(data: labelled.LabelledSet, totals: dict[str, Score]) -> list[tuple[str, bool]]:
    """Print one set's table; return its targets, met or not."""
    first = totals[VARIANTS[0][0]]
    print(
        f"\n{data.name}: {len(data.items):,} memories, {first.answerable} answerable and "
        f"{first.unanswerable} unanswerable queries over two folds"
    )
    print(
        f"{'variant':16} {'nDCG@10':>8} {'step':>7} {'answerable, none':>17}"
        f" {'unanswerable, none':>19} {'served':>7} {'weak':>6}"
    )
    above = None
    for name, _ in VARIANTS:
        s = totals[name]
        per = s.served / s.answerable if s.answerable else 0.0
        weak = s.weak / s.served if s.served else 0.0
        step = "" if above is None else f"{s.mean_ndcg - above:+.3f}"
        above = s.mean_ndcg
        print(
            f"{name:16} {s.mean_ndcg:8.3f} {step:>7} {s.answerable_empty_share:17.1%} "
            f"{s.unanswerable_empty_share:19.1%} {per:7.2f} {weak:6.1%}"
        )
    plain, served = first.mean_ndcg, totals["served"]
    ranked = totals[RANKING_VARIANTS[-1]].mean_ndcg
    lsa_before = totals[RANKING_VARIANTS[-2]].mean_ndcg
    checks = [
        (
            f"served nDCG@10 >= {TARGET_SHARE_OF_PLAIN:.2f} x plain BM25 "
            f"({served.mean_ndcg / plain if plain else 0:.3f} x)",
            served.mean_ndcg >= TARGET_SHARE_OF_PLAIN * plain,
        ),
        (
            f"answerable-but-empty <= {TARGET_ANSWERABLE_EMPTY:.0%}",
            served.answerable_empty_share <= TARGET_ANSWERABLE_EMPTY,
        ),
        (
            f"unanswerable answered with nothing >= {TARGET_UNANSWERABLE_EMPTY:.0%}",
            served.unanswerable_empty_share >= TARGET_UNANSWERABLE_EMPTY,
        ),
        (
            f"all steps but the cut-offs >= plain BM25 ({ranked - plain:+.4f})",
            ranked >= plain - 1e-12,
        ),
        (
            f"LSA >= the steps before it ({ranked - lsa_before:+.4f})",
            ranked >= lsa_before - 1e-12,
        ),
    ]
    checks.extend(
        (f"{name} >= plain BM25", totals[name].mean_ndcg >= plain - 1e-12)
        for name in RANKING_VARIANTS[1:-1]
    )
    for name, ok in checks:
        print(f"  {'met    ' if ok else 'NOT met'}  {name}")
    return [(f"{data.name}: {name}", ok) for name, ok in checks]


def latency(n: int, n_queries: int) -> None:
    """Bulk loads up to `n` WordNet memories; first recall after each load; warm p50/p95."""
    data = labelled.wordnet(n, n_queries)
    queries = [q.text for q in data.queries]
    print(f"\nlatency: {len(data.items):,} WordNet memories, loads of {BATCH:,}")
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock()
        ws = open_store(Path(tmp), clock)
        ids: dict[str, str] = {}
        firsts: list[float] = []
        for start in range(0, len(data.items), BATCH):
            t0 = time.perf_counter()
            ids.update(load(ws, clock, data.items[start : start + BATCH]))
            loaded = time.perf_counter() - t0
            t0 = time.perf_counter()
            ws.recall(queries[start // BATCH % len(queries)], limit=8)
            firsts.append(time.perf_counter() - t0)
            print(
                f"  {len(ids):>7,} memories: load {loaded:5.1f} s, next recall "
                f"{firsts[-1] * 1000:7.1f} ms",
                flush=True,
            )
        warm = []
        quality = 0.0
        for q in data.queries:
            t0 = time.perf_counter()
            hits = ws.recall(q.text, limit=LIMIT).hits
            warm.append(time.perf_counter() - t0)
            quality += ndcg([ids.get(h.ref, "") for h in hits if h.kind != "doc"], q.relevant)
        ws.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        home = Path(tmp) / "home"
        db_mb = sum(p.stat().st_size for p in home.glob("cairn.db*")) / 1e6
        kept = {p.name: p.stat().st_size / 1e6 for p in home.glob("recall-*")}
        ws.close()
        clock = Clock()
        again = open_store(Path(tmp), clock)
        t0 = time.perf_counter()
        again.recall(queries[0], limit=8)
        reopened = time.perf_counter() - t0
        again.close()
    ordered = sorted(warm)
    p50 = statistics.median(ordered) * 1000
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] * 1000
    print(f"  warm recall over {len(warm)} queries: p50 {p50:.2f} ms, p95 {p95:.2f} ms")
    print(f"  served nDCG@10 at this size (every query answerable): {quality / len(warm):.3f}")
    print(f"  first recall of a second handle on the store: {reopened * 1000:.0f} ms")
    files = ", ".join(f"{name} {mb:.1f} MB" for name, mb in sorted(kept.items()))
    print(f"  database {db_mb:.1f} MB; kept beside it: {files or 'nothing'}")
    checks = [
        (f"warm p50 <= {TARGET_P50_MS:g} ms", p50 <= TARGET_P50_MS),
        (f"warm p95 <= {TARGET_P95_MS:g} ms", p95 <= TARGET_P95_MS),
        (
            f"no recall after a bulk load over {TARGET_FIRST_S:g} s (worst {max(firsts):.2f} s)",
            max(firsts) <= TARGET_FIRST_S,
        ),
        ("kept files under the database's size", sum(kept.values()) <= db_mb),
    ]
    checks.extend(whole_load(data))
    for name, ok in checks:
        print(f"  {'met    ' if ok else 'NOT met'}  {name}")


def whole_load(data: labelled.LabelledSet) -> list[tuple[str, bool]]:
    """All the memories in one load, then one recall: by `remember` one at a time in one
    transaction (the recall indexes them), and by `Cairn.remember_many` (the write does)."""
    query = data.queries[0].text
    out = []
    for how in ("remember", "remember_many"):
        with tempfile.TemporaryDirectory() as tmp:
            clock = Clock()
            ws = open_store(Path(tmp), clock)
            t0 = time.perf_counter()
            if how == "remember":
                load(ws, clock, data.items)
            else:
                ws.remember_many(
                    [
                        {"text": i.text, "kind": i.kind, "tags": list(i.tags), "reason": i.reason}
                        for i in data.items
                    ]
                )
            loaded = time.perf_counter() - t0
            t0 = time.perf_counter()
            ws.recall(query, limit=8)
            first = time.perf_counter() - t0
            ws.close()
            again = open_store(Path(tmp), Clock())
            t0 = time.perf_counter()
            again.recall(query, limit=8)
            other = time.perf_counter() - t0
            again.close()
        print(
            f"  one load of {len(data.items):,} by {how}: {loaded:.1f} s; next recall "
            f"{first * 1000:.0f} ms; first recall of a second handle {other * 1000:.0f} ms"
        )
        out.append(
            (
                f"recall after one bulk load by {how} <= {TARGET_FIRST_S:g} s "
                f"({max(first, other):.2f} s)",
                max(first, other) <= TARGET_FIRST_S,
            )
        )
    return out


def main() -> None:
    """Parse the options, run the sets, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sets", default="ledgerly,wordnet,gcide", help="ledgerly, wordnet, gcide (comma)"
    )
    parser.add_argument("--wordnet-size", type=int, default=10_000, help="memories")
    parser.add_argument("--wordnet-queries", type=int, default=1_000, help="queries")
    parser.add_argument("--gcide-size", type=int, default=10_000, help="memories")
    parser.add_argument("--gcide-queries", type=int, default=1_000, help="queries")
    parser.add_argument(
        "--age-seed",
        type=int,
        default=None,
        help="draw the public sets' ages again from this seed (labelled.redrawn)",
    )
    parser.add_argument("--latency", type=int, default=0, help="memories of the latency run")
    args = parser.parse_args()
    started = time.perf_counter()
    summary: list[tuple[str, bool]] = []
    for name in [s.strip() for s in args.sets.split(",") if s.strip() and s.strip() != "none"]:
        if name == "ledgerly":
            data = labelled.ledgerly()
        elif name == "wordnet":
            try:
                data = labelled.wordnet(
                    args.wordnet_size, args.wordnet_queries, age_seed=args.age_seed
                )
            except labelled.MissingData as exc:
                print(f"\nwordnet: skipped: {exc}")
                continue
        elif name == "gcide":
            try:
                data = labelled.gcide(args.gcide_size, args.gcide_queries, age_seed=args.age_seed)
            except labelled.MissingData as exc:
                print(f"\ngcide: skipped: {exc}")
                continue
        else:
            raise SystemExit(f"unknown set {name!r}: ledgerly, wordnet or gcide")
        summary.extend(report_set(data, run_set(data)))
    if args.latency:
        try:
            latency(args.latency, args.wordnet_queries)
        except labelled.MissingData as exc:
            print(f"\nlatency: skipped: {exc}")
    if summary:
        missed = [name for name, ok in summary if not ok]
        print(f"\n{len(summary) - len(missed)}/{len(summary)} quality targets met")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
