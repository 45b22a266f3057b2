"""Ranking on a small labelled fixture: the Ledgerly set of bench/data (337 memories).

bench/quality.py measures every step on it and on a public set; these pin what must never
regress: LSA re-orders the keyword matches without lowering nDCG@10, and adds none.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from cairn.api import Cairn
from cairn.recall import ALL_STEPS, recall
from cairn.remember import remember
from cairn.text import analyse
from cairn.text.query import analyse_query

DATA = Path(__file__).resolve().parents[1] / "bench" / "data"
RANKING = ALL_STEPS - {"cutoff", "gate"}


def ndcg(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    dcg = sum((2 ** relevant.get(r, 0) - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    return dcg / sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))


@pytest.fixture(scope="module")
def ledgerly() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    memories = [json.loads(line) for line in (DATA / "memories.jsonl").read_text().splitlines()]
    queries = [json.loads(line) for line in (DATA / "queries.jsonl").read_text().splitlines()]
    return memories, [q for q in queries if q["relevant"]]


def test_lsa_never_lowers_ndcg_on_the_labelled_fixture(
    open_ws: Callable[..., Cairn],
    clock,
    ledgerly,  # type: ignore[no-untyped-def]
) -> None:
    memories, queries = ledgerly
    ws = open_ws()
    start = clock.moment
    ids: dict[str, str] = {}
    with ws.store.transaction():
        for row in sorted(memories, key=lambda r: -float(r["age_days"])):  # type: ignore[arg-type]
            clock.moment = start - timedelta(days=float(row["age_days"]))  # type: ignore[arg-type]
            done = remember(
                ws.store,
                ws.ctx,
                str(row["text"]),
                kind=str(row["kind"]),
                tags=list(row["tags"]),  # type: ignore[call-overload]
                reason=str(row["reason"]),
                source_ref=str(row["source_ref"]),
            )
            ids[done.ref] = str(row["id"])
    clock.moment = start
    totals = {}
    for steps in (RANKING - {"lsa"}, RANKING):
        total = 0.0
        for q in queries:
            hits = recall(ws.store, ws.ctx, str(q["query"]), limit=20, steps=steps, lsa=ws._lsa)
            total += ndcg([ids[h.ref] for h in hits.hits], q["relevant"])  # type: ignore[arg-type]
            asked = set(analyse_query(str(q["query"])).terms)
            for hit in hits.hits:  # LSA adds no memory that shares no word with the query
                memory = ws.store.get_memory(hit.ref)
                held = analyse(" ".join([memory.text, *memory.tags, memory.reason]))
                held += analyse(memory.source_ref)
                assert asked & set(held), (q["query"], memory.text)
        totals["lsa" in steps] = total / len(queries)
    assert ws._lsa.model is not None  # 337 memories: LSA is fitted and used
    assert totals[True] >= totals[False], totals
