"""Recall quality on the labelled Ledgerly set (bench/data): nDCG@10 and Recall@10.

Loads the 337 memories of bench/data/memories.jsonl through `remember` (each written
`age_days` ago on an injected clock), then runs the judged queries of bench/data/queries.jsonl
through `cairn.recall.recall` with the pipeline's ranking steps switched on one at a time:

- plain BM25      all four fields weighted 1, no recency, no LSA
- + field weights sentence > tags > citation > reason
- + recency       a slight lift for newer memories
- + LSA           latent semantic re-ranking (the store holds >= 200 memories)
- full pipeline   all of the above plus evidence (none recorded here): as agents get it

Two views, because the pipeline also decides how much to show:

- ranking: the first 10 memories of each variant's ranking, before the cut-off and coverage
  rules (what the ranking steps change);
- served:  what `recall(limit=20)` returns (memories at most half: 10), after the 0.7 cut-off
  and the coverage rule (what an agent sees), with the mean number of memories served per
  judged query. Unanswerable queries (no judged answer) are counted separately: how many got
  nothing back.

The cut-off reads the score before the LSA lift (LSA only re-orders the keyword matches), so
"+ LSA" serves the same memories as "+ recency", in its own order.

nDCG@10 uses gains 2^grade - 1 (grades 1 and 2); Recall@10 counts memories of grade >= 1.
"""

from __future__ import annotations

import json
import math
import subprocess
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import cairn
from cairn.recall import ALL_STEPS, recall

DATA = Path(__file__).resolve().parent / "data"
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
SERVING = frozenset({"cutoff", "coverage"})  # what to show, not how to rank
VARIANTS = [
    ("plain BM25", frozenset()),
    ("+ field weights", frozenset({"weights"})),
    ("+ recency", frozenset({"weights", "recency"})),
    ("+ LSA", frozenset({"weights", "recency", "lsa"})),
    ("full pipeline", ALL_STEPS - SERVING),
]


class Clock:
    """The moment each memory was written, then the day of the queries."""

    def __init__(self) -> None:
        self.moment = NOW

    def __call__(self) -> datetime:
        return self.moment


def ndcg(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """nDCG@k with gains 2^grade - 1 and log2 discounts."""
    dcg = sum((2 ** relevant.get(r, 0) - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    best = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def recall_at(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """Share of the relevant memories in the first k."""
    wanted = {r for r, g in relevant.items() if g >= 1}
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def load(tmp: Path) -> tuple[cairn.Cairn, dict[str, str], Clock]:
    """A store holding the labelled memories; returns it and the id -> ref map."""
    project = tmp / "ledgerly"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    clock = Clock()
    ws = cairn.open(tmp / "home", project=project, cwd=project, tool="bench", clock=clock)
    refs: dict[str, str] = {}
    rows = [json.loads(line) for line in (DATA / "memories.jsonl").read_text().splitlines()]
    for row in sorted(rows, key=lambda r: -r["age_days"]):  # oldest first, as written
        clock.moment = NOW - timedelta(days=row["age_days"])
        refs[row["id"]] = ws.remember(
            row["text"],
            kind=row["kind"],
            tags=row["tags"],
            reason=row["reason"],
            source_ref=row["source_ref"],
        ).ref
    clock.moment = NOW
    return ws, refs, clock


def main() -> None:
    queries = [json.loads(line) for line in (DATA / "queries.jsonl").read_text().splitlines()]
    judged = [q for q in queries if q["relevant"]]
    unanswerable = [q for q in queries if not q["relevant"]]
    with tempfile.TemporaryDirectory() as tmp:
        ws, refs, _ = load(Path(tmp))
        ids = {ref: mid for mid, ref in refs.items()}
        print(
            f"{len(refs)} memories, {len(judged)} judged queries, {len(unanswerable)} unanswerable"
        )
        print(
            f"{'variant':18} {'ranking nDCG':>12} {'R@10':>6}   {'served nDCG':>11} {'R@10':>6}"
            f" {'per query':>9}   {'unanswerable -> none':>20}"
        )
        for name, steps in VARIANTS:
            rank_n = rank_r = serve_n = serve_r = 0.0
            shown = 0
            for q in judged:
                ranked = recall(ws.store, ws.ctx, q["query"], limit=20, steps=steps, lsa=ws._lsa)
                got = [ids.get(h.ref, "") for h in ranked.hits]
                rank_n += ndcg(got, q["relevant"])
                rank_r += recall_at(got, q["relevant"])
                served = recall(
                    ws.store, ws.ctx, q["query"], limit=20, steps=steps | SERVING, lsa=ws._lsa
                )
                got = [ids.get(h.ref, "") for h in served.hits if h.kind != "doc"]
                shown += len(got)
                serve_n += ndcg(got, q["relevant"])
                serve_r += recall_at(got, q["relevant"])
            empty = sum(
                1
                for q in unanswerable
                if not recall(
                    ws.store, ws.ctx, q["query"], limit=20, steps=steps | SERVING, lsa=ws._lsa
                ).hits
            )
            n = len(judged)
            print(
                f"{name:18} {rank_n / n:12.3f} {rank_r / n:6.3f}   {serve_n / n:11.3f} "
                f"{serve_r / n:6.3f} {shown / n:9.2f}   {empty:>14}/{len(unanswerable)}"
            )
        ws.close()


if __name__ == "__main__":
    main()
