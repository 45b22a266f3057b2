"""Calibrating the "nothing found" gate: each query's reading, dumped once, rules swept offline.

Run: `.venv/bin/python bench/gate_search.py dump [--sets ledgerly,wordnet,gcide,wordnet100k]`
writes bench/out/gate/<set>.jsonl (one line a query and fold: answerable or not, the nDCG@10
of every ranking variant of bench/quality.py and of the cut-off row, and what the gate reads
of its best match; for exploring other rules, each query term's idf and df and the ten best
matches' strength, held idf, the query terms each holds and its LSA closeness), then
`.venv/bin/python bench/gate_search.py sweep` tries every rule of the family below on every
dumped set at once against issue 13's targets (served nDCG@10 >= 0.90 x plain BM25,
answerable-but-empty <= 10%, unanswerable answered with nothing >= 20%) and prints the rules
that keep the answerable targets on every set, by how many targets they meet, then the rules
with the best worst case. The dump of WordNet at 100,000 takes minutes; the sweep
seconds.

The gate refuses a query when its best match's support is under a threshold; the family:

    support = held / rare - penalty x unknown       (rare = idf(N, 1): cairn.core.rank.gate)
    threshold = base + slope x ln(N / 10,000)        (slope 0: one number for every size)

So one rule, calibrated across every set and both store sizes, never one per set.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
from pathlib import Path
from typing import Any

import labelled
import quality

from cairn.usecases.recall import ALL_STEPS, recall

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
    from cairn.core.text.query import analyse_query
    from cairn.usecases.recall import _matched
    from cairn.usecases.recall.kept import keywords

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
        from cairn.core.rank.lsa import residual_similarities

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


def readings(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One set's dumped queries as arrays (numpy), for `evaluate`."""
    import numpy as np

    empty = {"held": 0.0, "rare": 1.0, "unknown": 0, "mass": 1.0}
    read = [r["reading"] or empty for r in rows]
    held = np.array([x["held"] for x in read])
    rare = np.array([x["rare"] for x in read])
    unknown = np.array([x["unknown"] for x in read])
    mass = np.array([x["mass"] for x in read])
    none = np.array([r["reading"] is None for r in rows])
    n = (np.exp(rare) - 1) * 1.5 + 0.5  # rare = ln(1 + (N - 0.5) / 1.5)
    return {
        "none": none,  # no memory holds a word: nothing found whatever the rule
        "support": held / rare,
        "unknown": unknown,
        "size": np.log(n / 10_000),
        "full": ~none & (unknown == 0) & (held >= mass * (1 - 1e-9)),
        "answerable": np.array([r["ans"] for r in rows]),
        "cut": np.array([r["+ 0.7 cut-off"] for r in rows]),
        "served": np.array([r["served"] > 0 for r in rows]),
        "plain": float(np.mean([r["plain BM25"] for r in rows if r["ans"]])),
    }


def evaluate(d: dict[str, Any], rule: tuple[float, float, float]) -> tuple[float, float, float]:
    """Served nDCG share of plain, answerable-empty and unanswerable-empty under one rule
    (base, slope, penalty: the module docstring's family)."""
    base, slope, penalty = rule
    support = d["support"] - penalty * d["unknown"]
    refused = d["none"] | (~d["full"] & (support < base + slope * d["size"]))
    empty = refused | ~d["served"]
    a = d["answerable"]
    share = float((d["cut"][a] * ~refused[a]).mean() / d["plain"])
    return share, float(empty[a].mean()), float(empty[~a].mean()) if (~a).any() else 1.0


def sweep(paths: list[Path]) -> None:
    """Every rule of the family on every dumped set: first the rules that keep the answerable
    targets on all (share >= 0.90, answerable-empty <= 10%), by how many of the twelve targets
    they meet and then by the least unanswerable share; then the best worst case overall."""
    sets = {p.stem: readings(load_dump(p)) for p in paths}
    results = []
    for base, slope, penalty in itertools.product(
        [x / 100 for x in range(10, 121)],
        [x / 100 for x in range(-10, 31)],
        [x / 20 for x in range(0, 21)],
    ):
        rule = (base, slope, penalty)
        got = {name: evaluate(d, rule) for name, d in sets.items()}
        kept = all(a >= 0.90 and b <= 0.10 for a, b, _ in got.values())
        met = sum(int(a >= 0.90) + int(b <= 0.10) + int(c >= 0.20) for a, b, c in got.values())
        worst = min(min(a - 0.90, 0.10 - b, c - 0.20) for a, b, c in got.values())
        least = min(c for _, _, c in got.values())
        results.append((kept, met, least, worst, rule, got))

    def show(title: str, rows: list[Any]) -> None:
        print(title)
        for _, met, _, worst, rule, got in rows[:8]:
            cells = "  ".join(f"{n} {a:.3f}x {b:5.1%} {c:5.1%}" for n, (a, b, c) in got.items())
            print(
                f"  {met}/{3 * len(got)} met, worst {worst:+.3f}: base {rule[0]:.2f},"
                f" slope {rule[1]:.2f}, penalty {rule[2]:.2f}"
            )
            print(f"    {cells}")

    show(
        "keeping the answerable targets everywhere:",
        sorted([r for r in results if r[0]], key=lambda r: (-r[1], -r[2])),
    )
    show("best worst case:", sorted(results, key=lambda r: -r[3]))


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
