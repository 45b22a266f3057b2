"""The recency step on the labelled sets: its mean and spread over redrawn ages, and variants.

Run: `.venv/bin/python bench/recency_seeds.py [--sets ...] [--seeds 0,1,2,3,4]
[--variants served,none,lift,...] [--wordnet-size 100000]`.

bench/quality.py's step rows "plain BM25", "+ recency" and "+ LSA" (the field weights and
evidence on; no cut-off, no gate), computed on each fold's store loaded once. The store is
written with the set's own ages; each run through it takes the ages of one seed instead
(`labelled.redrawn`: the same memories and queries, each age drawn again, 0-399 days), and one
variant of the recency lift, through `recall`'s `matcher` (steps 1 and 2): BM25F from the
postings as recall computes it, then the variant's lift on the ages of that seed, and the
write times of that seed for the ties (newer first). The seed "set" is the set's own ages
(Ledgerly's hand-written ones, the public sets' first draw); with the variant "served" (recall's
own step 2) it gives bench/quality.py's rows exactly, and "lift" gave them for the lift on every
match that recall had before issue 13's eighth round. A variant name may end in '@SHARE/POWER':
the LSA lift 1 + SHARE x cos^POWER instead of recall's. Ledgerly's ages mean something (its
"which is newer" questions), so it is run on its own ages only. The one place the store's own
write times still count is the final sort of exactly equal scores (`recall`'s `_cut`).

Prints, per set, variant and seed, plain BM25's nDCG@10 and the two rows minus it (x 10^-4),
then the mean and the spread (smallest, largest) over the seeds.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import labelled
import numpy as np
import quality
from numpy.typing import NDArray

from cairn.core.rank import lsa as lsa_model
from cairn.core.rank.recency import HALF_LIFE_DAYS, MAX_RECENCY_LIFT, near_ties
from cairn.usecases.recall import recall
from cairn.usecases.recall.kept import micros
from cairn.usecases.recall.matching import Matched, match_keywords

ROWS: list[tuple[str, frozenset[str]]] = [
    ("plain", frozenset()),
    ("recency", frozenset({"weights", "recency", "evidence"})),
    ("lsa", frozenset({"weights", "recency", "evidence", "lsa"})),
]

SUBJECT_POWER = 4.0  # the lift on every match before issue 13's eighth round: share^4
DAY_US = 86_400 * 1_000_000

Floats = NDArray[np.float64]
# (BM25F, ages in days, idf held, the query's idf mass) -> the values after the lift
Variant = Callable[[Floats, Floats, Floats, float], Floats]


def lifted(
    power: float = SUBJECT_POWER, size: float = MAX_RECENCY_LIFT, half_life: float = HALF_LIFE_DAYS
) -> Variant:
    """1 + size x 0.5^(age / half_life) x share^power on every match (with the defaults, the
    lift recall had before issue 13's eighth round)."""

    def lift(bm: Floats, ages: Floats, held: Floats, mass: float) -> Floats:
        share = np.power(np.clip(held / mass, 0.0, 1.0), power)
        out: Floats = bm * (1.0 + size * np.power(0.5, ages / half_life) * share)
        return out

    return lift


def served(bm: Floats, ages: Floats, held: Floats, mass: float) -> Floats:
    """Recall's own step 2 (`rank.near_ties`) on these ages."""
    order = np.lexsort((ages, -bm))
    written = [-round(a * DAY_US) for a in ages[order].tolist()]
    whole = (held[order] >= mass * (1 - 1e-9)).tolist()
    raised = near_ties(bm[order].tolist(), written, whole, 0)
    out = bm.copy()
    out[order] = raised
    return out


def pairwise(
    size: float = MAX_RECENCY_LIFT,
    half_life: float = HALF_LIFE_DAYS,
    top: int = 32,
    full: bool = False,
    power: float = 0.0,
) -> Variant:
    """No lift, except that a newer match holding the same query words (the same idf) as an
    older one ahead of it, within the newer one's lift (1 + size x 0.5^(age / half_life) x
    share^power), ties it (the newer comes first). Among the `top` best only; with `full`,
    only matches holding every query word."""

    def lift(bm: Floats, ages: Floats, held: Floats, mass: float) -> Floats:
        out = bm.copy()
        order = np.lexsort((ages, -bm))[:top]
        share = np.clip(held / mass, 0.0, 1.0)
        reach = 1.0 + size * np.power(0.5, ages / half_life) * np.power(share, power)
        for k in range(1, len(order)):
            j = order[k]
            if full and share[j] < 1.0 - 1e-9:
                continue
            # the best older match ahead of j, on j's words, within j's lift
            for i in order[:k]:
                if (
                    ages[i] > ages[j]
                    and abs(held[i] - held[j]) <= 1e-9 * max(held[i], 1.0)
                    and bm[i] <= bm[j] * reach[j]
                    and out[i] > out[j]
                ):
                    out[j] = out[i]
                    break
        return out

    return lift


VARIANTS: dict[str, Variant] = {
    "served": served,
    "none": lambda bm, ages, held, mass: bm,
}


def variant_named(name: str) -> Variant:
    """A variant by name: served (recall's own), none, lift[/power=P/size=S/half=H] (the lift
    on every match; with no options, the one before issue 13's eighth round), or
    ties[/size=S/half=H/top=T/full=1/power=P] (`pairwise`)."""
    if name in VARIANTS:
        return VARIANTS[name]
    parts = name.split("/")
    options = {k: float(v) for k, v in (p.split("=") for p in parts[1:])}
    if parts[0] == "lift":
        return lifted(
            options.get("power", SUBJECT_POWER),
            options.get("size", MAX_RECENCY_LIFT),
            options.get("half", HALF_LIFE_DAYS),
        )
    if parts[0] == "ties":
        return pairwise(
            options.get("size", MAX_RECENCY_LIFT),
            options.get("half", HALF_LIFE_DAYS),
            int(options.get("top", 32)),
            bool(options.get("full", 0)),
            options.get("power", 0.0),
        )
    raise SystemExit(f"unknown variant {name!r}")


def matcher(variant: Variant, age_of: dict[int, float]) -> Any:
    """Steps 1 and 2 as `match_keywords` gives them, the lift and the write times replaced."""

    def match(store: Any, ctx: Any, query: Any, kind: Any, steps: frozenset[str]) -> Any:
        found = match_keywords(store, ctx, query, kind, steps - {"recency"})
        if found is None or not found.pool:
            return found
        pool = np.asarray(found.pool, dtype=np.int64)
        bm = np.asarray([found.value_of[i] for i in found.pool])
        held = np.asarray([found.held_of[i] for i in found.pool])
        ages = np.asarray([age_of[i] for i in found.pool])
        mass = max(sum(i for t, i in found.idf_of.items() if found.df_of[t]), 1e-12)
        values = variant(bm, ages, held, mass) if "recency" in steps else bm
        now_us = micros(quality.NOW)
        written = now_us - np.round(ages * 86400e6).astype(np.int64)
        order = np.lexsort((-pool, -written, -values))
        ids = pool[order].tolist()
        return Matched(
            found.n_docs,
            found.df_of,
            found.idf_of,
            ids,
            dict(zip(ids, values[order].tolist(), strict=True)),
            dict(zip(ids, held[order].tolist(), strict=True)),
            dict(zip(ids, written[order].tolist(), strict=True)),
            found.refs_of,
        )

    return match


def ndcg_rows(
    ws: Any, ids: dict[str, str], fold: labelled.Fold, name: str, age_of: dict[int, float]
) -> dict[str, float]:
    """Sum of answerable nDCG@10 of each row over one fold. `name` is a recency variant,
    optionally followed by '@SHARE/POWER': the LSA lift 1 + SHARE x cos^POWER instead."""
    recency, _, lift = name.partition("@")
    match = matcher(variant_named(recency), age_of)
    kept = lsa_model.LIFT_SHARE, lsa_model.LIFT_POWER
    share, power = (float(x) for x in lift.split("/")) if lift else kept
    lsa_model.LIFT_SHARE, lsa_model.LIFT_POWER = share, power
    try:
        return _rows(ws, ids, fold, match)
    finally:
        lsa_model.LIFT_SHARE, lsa_model.LIFT_POWER = kept


def _rows(ws: Any, ids: dict[str, str], fold: labelled.Fold, match: Any) -> dict[str, float]:
    out = dict.fromkeys((name for name, _ in ROWS), 0.0)
    for q in fold.answerable:
        for name, steps in ROWS:
            hits = recall(
                ws.store,
                ws.ctx,
                q.text,
                limit=quality.LIMIT,
                steps=steps,
                lsa=ws._lsa,
                matcher=match,
            ).hits
            out[name] += quality.ndcg([ids.get(h.ref, "") for h in hits], q.relevant)
    return out


def main() -> None:
    """Load each fold once; run every variant on every seed's ages; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="ledgerly,wordnet,gcide")
    parser.add_argument("--wordnet-size", type=int, default=10_000)
    parser.add_argument("--wordnet-sample", type=int, default=0, help="labelled.wordnet's seed")
    parser.add_argument("--seeds", default="set,1,2,3,4", help="'set' (its own ages), ints")
    parser.add_argument("--variants", default="served,none,lift")
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    started = time.perf_counter()
    for name in args.sets.split(","):
        if name == "ledgerly":
            data, seeds = labelled.ledgerly(), ["set"]
        elif name == "wordnet":
            data = labelled.wordnet(args.wordnet_size, seed=args.wordnet_sample)
            seeds = args.seeds.split(",")
        else:
            data, seeds = labelled.gcide(), args.seeds.split(",")
        ages_of = {
            seed: {
                item.id: item.age_days
                for item in (data if seed == "set" else labelled.redrawn(data, int(seed))).items
            }
            for seed in seeds
        }
        sums: dict[tuple[str, str], dict[str, float]] = {}
        answerable = 0
        for fold in labelled.folds(data):
            with tempfile.TemporaryDirectory() as tmp:
                clock = quality.Clock()
                ws = quality.open_store(Path(tmp), clock)
                ids = quality.load(ws, clock, fold.items)
                rowid_of = dict(ws.store.conn.execute("SELECT ref, id FROM memories"))
                answerable += len(fold.answerable)
                for seed in seeds:
                    age_of = {rowid_of[ref]: ages_of[seed][item] for ref, item in ids.items()}
                    for v in variants:
                        got = ndcg_rows(ws, ids, fold, v, age_of)
                        total = sums.setdefault((v, seed), dict.fromkeys(got, 0.0))
                        for row, value in got.items():
                            total[row] += value
                ws.close()
        print(f"\n{data.name} ({answerable} answerable): rows minus plain BM25, x 10^-4")
        print(f"{'variant':32} {'seed':>5} {'plain':>7} {'+recency':>9} {'+LSA':>7}")
        for v in variants:
            recency, lsa = [], []
            for seed in seeds:
                got = {row: s / answerable for row, s in sums[(v, seed)].items()}
                recency.append(got["recency"] - got["plain"])
                lsa.append(got["lsa"] - got["plain"])
                print(
                    f"{v:32} {seed:>5} {got['plain']:7.5f} {recency[-1] * 1e4:+9.1f}"
                    f" {lsa[-1] * 1e4:+7.1f}",
                    flush=True,
                )
            if len(seeds) > 1:
                print(
                    f"{v:32} {'mean':>5} {'':7} {statistics.mean(recency) * 1e4:+9.1f}"
                    f" {statistics.mean(lsa) * 1e4:+7.1f}   range recency "
                    f"{min(recency) * 1e4:+.1f}..{max(recency) * 1e4:+.1f}, LSA "
                    f"{min(lsa) * 1e4:+.1f}..{max(lsa) * 1e4:+.1f}",
                    flush=True,
                )
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
