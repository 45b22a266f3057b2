"""Ranking on small labelled fixtures: the Ledgerly set of bench/data (337 memories) and a
400-entry WordNet 3.0 sample (tests/fixtures/wordnet).

bench/quality.py measures every step on the full sets; these pin what must not regress: LSA
re-orders the keyword matches without lowering nDCG@10 on the project's own set, costs the
public sample under 0.005 (the LSA issue 13 found cost it 0.055: a query vector led by common
words), and adds no memory that shares no word with the query.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from cairn.api import Cairn
from cairn.core.text import analyse
from cairn.core.text.query import analyse_query
from cairn.usecases.recall import ALL_STEPS, recall
from cairn.usecases.remember import remember

ROOT = Path(__file__).resolve().parents[1]
RANKING = ALL_STEPS - {"cutoff", "gate"}


def ndcg(ranked: Sequence[str], relevant: dict[str, int], k: int = 10) -> float:
    dcg = sum((2 ** relevant.get(r, 0) - 1) / math.log2(i + 2) for i, r in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    return dcg / sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))


def ledgerly() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    data = ROOT / "bench" / "data"
    memories = [json.loads(line) for line in (data / "memories.jsonl").read_text().splitlines()]
    queries = [json.loads(line) for line in (data / "queries.jsonl").read_text().splitlines()]
    return memories, [q for q in queries if q["relevant"]]


def wordnet_sample() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rows = [json.loads(line) for line in _lines(ROOT / "tests/fixtures/wordnet/sample.jsonl")]
    memories = [
        {"id": r["memory"], "text": r["text"], "age_days": r["age_days"]}
        for r in rows
        if "memory" in r
    ]
    return memories, [r for r in rows if "query" in r]


def _lines(path: Path) -> Iterator[str]:
    yield from path.read_text(encoding="utf-8").splitlines()


def load(ws: Cairn, clock: Any, memories: list[dict[str, Any]]) -> dict[str, str]:
    """Save the memories, each written `age_days` before now; ref -> memory id."""
    start = clock.moment
    ids: dict[str, str] = {}
    with ws.store.transaction():
        for row in sorted(memories, key=lambda r: -float(r["age_days"])):
            clock.moment = start - timedelta(days=float(row["age_days"]))
            done = remember(
                ws.store,
                ws.ctx,
                row["text"],
                kind=row.get("kind", "fact"),
                tags=row.get("tags", []),
                reason=row.get("reason", ""),
                source_ref=row.get("source_ref", ""),
            )
            ids[done.ref] = row["id"]
    clock.moment = start
    return ids


def with_and_without_lsa(
    ws: Cairn, ids: dict[str, str], queries: list[dict[str, Any]]
) -> dict[bool, float]:
    """Mean nDCG@10 of the ranking without and with LSA; checks every hit shares a word."""
    totals = {}
    for steps in (RANKING - {"lsa"}, RANKING):
        total = 0.0
        for q in queries:
            text = q["query"]
            hits = recall(ws.store, ws.ctx, text, limit=20, steps=steps, lsa=ws._lsa).hits
            total += ndcg([ids[h.ref] for h in hits], q["relevant"])
            asked = set(analyse_query(text).terms)
            for hit in hits:  # LSA adds no memory that shares no word with the query
                memory = ws.store.get_memory(hit.ref)
                held = analyse(" ".join([memory.text, *memory.tags, memory.reason]))
                assert asked & {*held, *analyse(memory.source_ref)}, (text, memory.text)
        totals["lsa" in steps] = total / len(queries)
    assert ws._lsa.model is not None  # over 200 memories: LSA is fitted and used
    return totals


@pytest.mark.parametrize(("fixture", "allowance"), [(ledgerly, 0.0), (wordnet_sample, 0.005)])
def test_lsa_does_not_lower_ndcg_on_the_labelled_fixtures(
    open_ws: Callable[..., Cairn],
    clock: Any,
    fixture: Callable[[], tuple[list[dict[str, Any]], list[dict[str, Any]]]],
    allowance: float,
) -> None:
    memories, queries = fixture()
    ws = open_ws()
    totals = with_and_without_lsa(ws, load(ws, clock, memories), queries)
    assert totals[True] >= totals[False] - allowance, totals
