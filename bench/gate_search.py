"""Calibrating the "nothing found" gate: each query's reading, dumped once, rules swept offline.

Run: `.venv/bin/python bench/gate_search.py dump [--sets ledgerly,wordnet,gcide,wordnet100k]`
writes bench/out/gate/<set>.jsonl (one line a query and fold: answerable or not, the nDCG@10
of every ranking variant of bench/quality.py and of the cut-off row, and what the gate reads
of its best match; for exploring other rules, each query term's idf and df and the ten best
matches' strength, held idf, the query terms each holds and its LSA closeness), then
`.venv/bin/python bench/gate_search.py sweep` tries every rule of the family below on every
dumped set at once and prints those closest to issue 13's targets on all of them (served
nDCG@10 >= 0.90 x plain BM25, answerable-but-empty <= 10%, unanswerable answered with nothing
>= 20%), best worst-case first. The dump of WordNet at 100,000 takes minutes; the sweep
seconds.

The gate refuses a query when its best match's support is under a threshold; the family:

    support = held / rare - penalty x unknown       (rare = idf(N, 1): cairn.rank.gate)
    threshold = base + slope x ln(N / 10,000)        (slope 0: one number for every size)

So one rule, calibrated across every set and both store sizes, never one per set.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import tempfile
from pathlib import Path
from typing import Any

import labelled
import quality

from cairn.recall import ALL_STEPS, recall

OUT = Path(__file__).parent / "out" / "gate"
CUT = ALL_STEPS - {"gate"}


def dump_set(name: str, data: labelled.LabelledSet) -> Path:
    """One line per query and fold: its readings and every variant's nDCG@10."""
    OUT.mkdir(parents=True, exist_ok=True)
    target = OUT / f"{name}.jsonl"
    variants = [(n, s) for n, s in quality.VARIANTS if n != "served"]
    with target.open("w") as out:
        for fold in labelled.folds(data):
            with tempfile.TemporaryDirectory() as tmp:
                clock = quality.Clock()
                ws = quality.open_store(Path(tmp), clock)
                ids = quality.load(ws, clock, fold.items)
                queries = [(q, True) for q in fold.answerable]
                queries += [(q, False) for q in fold.unanswerable]
                for q, answerable in queries:
                    line: dict[str, Any] = {"fold": fold.name, "q": q.qid, "ans": answerable}
                    for vname, steps in variants:
                        got = recall(
                            ws.store, ws.ctx, q.text, limit=quality.LIMIT, steps=steps, lsa=ws._lsa
                        )
                        hits = [h for h in got.hits if h.kind != "doc"]
                        line[vname] = quality.ndcg([ids.get(h.ref, "") for h in hits], q.relevant)
                        if steps == CUT:
                            r = got.gate
                            line["reading"] = None if r is None else vars(r)
                            line["served"] = len(hits)
                    line.update(features(ws, q.text))
                    out.write(json.dumps(line) + "\n")
                ws.close()
    return target


def features(ws: Any, text: str, top: int = 10) -> dict[str, Any]:
    """For exploring rules: each query term's idf and df, and the `top` best matches by
    keyword score (before LSA): their strength, held idf and which query terms they hold."""
    from cairn.recall import _matched
    from cairn.recall.kept import keywords
    from cairn.text.query import analyse_query

    query = analyse_query(text)
    matched = _matched(ws.store, ws.ctx, query, None, ALL_STEPS)
    if matched is None or not matched.pool:
        return {"terms": [], "top": []}
    best = sorted(matched.pool, key=lambda i: -matched.value_of[i])
    current = ws.store.current_among(best[: top * 4])
    best = [i for i in best if i in current][:top]
    holders: dict[str, set[int]] = {t: set() for t in query.terms}
    for seg in keywords(ws.store).segments_for(ws.store):
        ids = set(best)
        for t in query.terms:
            found = seg.postings.postings(t)
            if found is not None:
                holders[t] |= ids & set(seg.postings.rowids[found[0]].tolist())
    sims: list[float] = []
    lsa = ws._lsa.ready(ws.store)
    if lsa is not None and best:
        from cairn.rank.lsa import residual_similarities

        words = lsa.words(ws.store, [(i, 0.0) for i in best])
        sims = residual_similarities(lsa.model, query.terms, words).tolist()
    return {
        "sims": sims,
        "n": matched.n_docs,
        "terms": [[matched.idf_of[t], matched.df_of[t]] for t in query.terms],
        "top": [
            [matched.value_of[i], matched.held_of[i], [i in holders[t] for t in query.terms]]
            for i in best
        ],
    }


def load_dump(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def refused(reading: dict[str, Any] | None, base: float, slope: float, penalty: float) -> bool:
    """Whether the rule (module docstring) answers this reading with nothing."""
    if reading is None:
        return True  # no memory holds a word: nothing found whatever the rule
    rare = reading["rare"]
    n = (math.exp(rare) - 1) * 1.5 + 0.5  # rare = ln(1 + (N - 0.5) / 1.5)
    if not reading["unknown"] and reading["held"] >= reading["mass"] * (1 - 1e-9):
        return False
    threshold = base + slope * math.log(n / 10_000)
    return reading["held"] / rare - penalty * reading["unknown"] < threshold


def evaluate(rows: list[dict[str, Any]], rule: tuple[float, float, float]) -> dict[str, float]:
    """Served nDCG share of plain, answerable-empty and unanswerable-empty under one rule."""
    ans = [r for r in rows if r["ans"]]
    una = [r for r in rows if not r["ans"]]
    plain = sum(r["plain BM25"] for r in ans) / len(ans)
    served = sum(0.0 if refused(r["reading"], *rule) else r["+ 0.7 cut-off"] for r in ans)
    empty = sum(refused(r["reading"], *rule) or not r["served"] for r in ans)
    una_empty = sum(refused(r["reading"], *rule) or not r["served"] for r in una)
    return {
        "share": served / len(ans) / plain,
        "ans_empty": empty / len(ans),
        "una_empty": una_empty / len(una) if una else 1.0,
    }


def sweep(paths: list[Path]) -> None:
    """Every rule of the family on every dumped set; those meeting all targets first."""
    sets = {p.stem: load_dump(p) for p in paths}
    results = []
    for base, slope, penalty in itertools.product(
        [x / 100 for x in range(20, 81, 2)],
        [x / 100 for x in range(0, 61, 5)],
        [x / 20 for x in range(0, 21)],
    ):
        rule = (base, slope, penalty)
        got = {name: evaluate(rows, rule) for name, rows in sets.items()}
        margin = min(
            min(g["share"] - 0.90, 0.10 - g["ans_empty"], g["una_empty"] - 0.20)
            for g in got.values()
        )
        results.append((margin, rule, got))
    results.sort(key=lambda item: -item[0])
    for margin, rule, got in results[:25]:
        cells = "  ".join(
            f"{name} {g['share']:.3f}x {g['ans_empty']:5.1%} {g['una_empty']:5.1%}"
            for name, g in got.items()
        )
        print(f"margin {margin:+.3f} base {rule[0]:.2f} slope {rule[1]:.2f} pen {rule[2]:.2f}:")
        print(f"  {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["dump", "sweep"])
    parser.add_argument("--sets", default="ledgerly,wordnet,gcide,wordnet100k")
    args = parser.parse_args()
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    if args.what == "dump":
        for name in names:
            if name == "ledgerly":
                data = labelled.ledgerly()
            elif name == "wordnet":
                data = labelled.wordnet(10_000, 1_000)
            elif name == "wordnet100k":
                data = labelled.wordnet(100_000, 1_000)
            elif name == "gcide":
                data = labelled.gcide(10_000, 1_000)
            else:
                raise SystemExit(f"unknown set {name!r}")
            print(f"{name}: {dump_set(name, data)}", flush=True)
    else:
        sweep([OUT / f"{n}.jsonl" for n in names])


if __name__ == "__main__":
    main()
