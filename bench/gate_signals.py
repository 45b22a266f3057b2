"""Signals outside the "nothing found" gate's family, measured on bench/gate_search.py's dumps.

Issue 13's eighth round: can a semantic or structural signal tell an answerable query from an
unanswerable one where the gate's lexical support cannot (GCIDE and WordNet at 100,000)?
`.venv/bin/python bench/gate_search.py signals` reads the dumps (`gate_search.py dump`) and
prints, for the served rule's support and for each of `SIGNALS`:

- how well it orders answerable against unanswerable queries (AUC, 0.5: chance);
- the most unanswerable queries any rule reading it could refuse with the answerable targets
  kept with a point to spare (`bound`): each set given its own threshold, which no one rule
  can do better than, the signal alone, refused by it or by the served rule, and the served
  rule's margin plus a weight of the signal (the weight chosen per set too);
- the tail: how many answerable queries had no answer among their ten best before the gate
  (lost), how many of the answerable queries the served rule refuses are lost ones, and
  whether its support tells lost answerable queries from unanswerable ones.

`.venv/bin/python bench/gate_search.py lsa --sets gcide,wordnet --dims 100` asks whether
LSA's closeness failed for want of a better fit: a dedicated LSA of each fold (every memory,
`--dims` dimensions, scipy's sparse SVD) and the closeness of the gate's best match to the
query in it, residual (the words they share left out, as recall's LSA does) and full.
"""

from __future__ import annotations

import itertools
import math
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import labelled
import quality
from gate_search import CUT, OUT, SPARE, Result, load_dump, outcomes, readings

from cairn.core.rank import gate
from cairn.core.text.analyse import analyse
from cairn.core.text.query import analyse_query
from cairn.usecases.recall import recall

# Each signal reads one dumped line of a query that has a best match and is higher where the
# query looks answerable. The dump's `top` and `sims` are the ten best in keyword order (the
# gate's best first), `best` the memory side of the five best (`gate_search._memory_side`).


def _sims(row: dict[str, Any]) -> list[float]:
    return list(row.get("sims") or [math.nan])


def _close(row: dict[str, Any], window: int) -> float:
    """The idf (in rare words) of the rarest-summing pair of query words the best's sentence
    holds within `window` words of each other, in the query's order; 0 when none."""
    _, positions, _, _ = row["best"][0]
    terms, rare = row["terms"], row["reading"]["rare"]
    pairs = [
        (terms[i][0] + terms[j][0]) / rare
        for i, j in itertools.combinations(range(len(positions)), 2)
        if positions[i] >= 0 and 0 < positions[j] - positions[i] <= window
    ]
    return max(pairs, default=0.0)


def _same_lead(row: dict[str, Any]) -> float:
    """How many of the four matches after the best open with the query word the best opens
    with (senses competing for it), negated; 0 when the best opens with no query word."""
    first = [k for k, at in enumerate(row["best"][0][1]) if at == 0]
    if not first:
        return 0.0
    return -float(sum(1 for m in row["best"][1:] if m[1][first[0]] == 0))


def _surprise(row: dict[str, Any]) -> float:
    """How unlikely by chance the best's query words are together, in rare words: -ln of the
    memories expected to hold them all were words independent (N x the product of df / N),
    times the subsets of the query of that size (any of them could have matched)."""
    holds, n, terms = row["top"][0][2], row["n"], row["terms"]
    k = sum(holds)
    expected = math.log(n) + math.log(math.comb(len(terms), k))
    expected += sum(math.log(max(df, 1) / n) for (_, df), h in zip(terms, holds, strict=True) if h)
    return -expected / row["reading"]["rare"]


SIGNALS: dict[str, Callable[[dict[str, Any]], float]] = {
    "LSA closeness of the best (residual, `sims`)": lambda r: _sims(r)[0],
    "LSA closeness, most of the three best": lambda r: max(_sims(r)[:3]),
    "LSA closeness, most of the ten best": lambda r: max(_sims(r)),
    "LSA closeness of the best less the others' mean": lambda r: (
        _sims(r)[0] - sum(_sims(r)[1:]) / max(len(_sims(r)) - 1, 1)
    ),
    "two query words adjacent in the best, in order": lambda r: _close(r, 1),
    "two query words within 3 words in the best, in order": lambda r: _close(r, 3),
    "fewer of the five best open with the best's first word": _same_lead,
    "chance of the best's words together (surprise)": _surprise,
    "query words the best holds": lambda r: float(sum(r["top"][0][2])),
    "the best's strength over the second's": lambda r: (
        r["top"][0][0] / r["top"][1][0] if len(r["top"]) > 1 else 2.0
    ),
    "the best holds the query's rarest known word": lambda r: float(_rarest(r)[1]),
    "the rarest known query word the best lacks, negated": lambda r: (
        -max(
            [t[0] for t, h in zip(r["terms"], r["top"][0][2], strict=True) if t[1] and not h],
            default=0.0,
        )
        / r["reading"]["rare"]
    ),
    "fewer of the ten best hold the query's rarest known word": lambda r: (
        -float(sum(m[2][_rarest(r)[0]] for m in r["top"]))
    ),
    "the best's held idf less the second's": lambda r: (
        (r["top"][0][1] - (r["top"][1][1] if len(r["top"]) > 1 else 0.0)) / r["reading"]["rare"]
    ),
}


def _rarest(row: dict[str, Any]) -> tuple[int, bool]:
    """The query's rarest word some memory holds (its index) and whether the best holds it."""
    known = [(t[0], k) for k, t in enumerate(row["terms"]) if t[1] > 0]
    k = max(known)[1] if known else 0
    return k, bool(known) and bool(row["top"][0][2][k])


def signal(rows: list[dict[str, Any]], read: Callable[[dict[str, Any]], float]) -> Any:
    """One signal of every dumped query (nan: no best match to read)."""
    import numpy as np

    return np.array(
        [read(r) if r["reading"] is not None and r.get("top") else math.nan for r in rows]
    )


def margin(d: dict[str, Any]) -> Any:
    """The served rule's support less its bar (`rank.gate`'s constants): refused under 0."""
    return (
        d["support"]
        + gate.LEAD_WEIGHT * d["lead"]
        - gate.UNKNOWN_PENALTY * d["unknown"]
        - gate.SIZE_SLOPE * d["size"]
        - gate.MIN_SUPPORT
    )


def auc(values: Any, positive: Any, negative: Any = None) -> float:
    """The share of (positive, negative) pairs `values` orders right, ties half (0.5:
    chance); negative: the rest. Queries whose value is nan are left out."""
    import numpy as np

    negative = ~positive if negative is None else negative
    known = ~np.isnan(values)
    p, n = values[known & positive], values[known & negative]
    if not len(p) or not len(n):
        return math.nan
    wins = (p[:, None] > n[None, :]).sum() + 0.5 * (p[:, None] == n[None, :]).sum()
    return float(wins / (len(p) * len(n)))


def bound(d: dict[str, Any], values: Any, also: Any = None, counted: Any = None) -> Result:
    """The most unanswerable queries a threshold on `values` chosen for this set alone can
    refuse (a query under it is refused; nan never is; with `also`, those refused by it too)
    with the answerable targets kept with a point to spare: an upper bound on any one rule
    reading `values`. (nan, nan, nan) when no threshold keeps them. `counted`: the answerable
    queries the answerable-empty target counts (all: None)."""
    import numpy as np

    known = values[~np.isnan(values)]
    cuts = np.unique(np.quantile(known, np.linspace(0, 1, 401))) if len(known) else np.zeros(1)
    below = np.where(np.isnan(values), np.inf, values)[None, :] < cuts[:, None]
    if also is not None:
        below = below | also[None, :]
    got = outcomes(d, below, counted)
    ok = (got[:, 0] >= 0.90 + 2 * SPARE) & (got[:, 1] <= 0.10 - SPARE)
    if not ok.any():
        return (math.nan, math.nan, math.nan)
    best = int(np.argmax(np.where(ok, got[:, 2], -1.0)))
    return (float(got[best, 0]), float(got[best, 1]), float(got[best, 2]))


WEIGHTS = (-1.0, -0.5, -0.25, 0.25, 0.5, 1.0)  # of a signal, in the margin's spread per set


def bound_with_margin(d: dict[str, Any], values: Any) -> tuple[float, float]:
    """The best `bound` of margin + w x the signal (scaled to the margin's spread on the set,
    nan counting as the set's mean), over the WEIGHTS, each set choosing its own: (unanswerable
    share refused, the weight)."""
    import numpy as np

    m = margin(d)
    known = ~np.isnan(values) & ~d["none"]
    spread = float(np.std(values[known])) or 1.0
    scaled = np.where(known, (values - np.nanmean(values[known])) / spread, 0.0)
    scaled *= float(np.std(m[known]))
    tried = [(bound(d, m + w * scaled)[2], w) for w in WEIGHTS]
    return max(tried, key=lambda t: -1.0 if math.isnan(t[0]) else t[0])


def signals(paths: list[Path]) -> None:
    """The AUC of every signal, its per-set bounds, and how many answerable queries had no
    answer among their ten best (module docstring)."""
    import numpy as np

    sets = {}
    for p in paths:
        rows = load_dump(p)
        sets[p.stem] = d = readings(rows)
        d["rows"] = rows
    names = list(sets)
    head = f"{'':56s}" + "".join(f"{n:>16s}" for n in names)

    def line(label: str, cells: list[str]) -> None:
        print(f"{label[:56]:56s}" + "".join(f"{c:>16s}" for c in cells))

    print("AUC, answerable against unanswerable queries (0.5: chance):\n" + head)
    line(
        "the served rule's support",
        [f"{auc(margin(d), d['answerable']):.3f}" for d in sets.values()],
    )
    values = {
        name: {s: signal(d["rows"], read) for s, d in sets.items()}
        for name, read in SIGNALS.items()
    }
    for name, per_set in values.items():
        line(name, [f"{auc(per_set[s], d['answerable']):.3f}" for s, d in sets.items()])

    print("\nunanswerable refused, one threshold per set (answerable targets kept with a point to")
    print(
        "spare): the signal alone | refused by it or by the served rule | margin + w x signal\n"
        + head
    )
    line(
        "the served rule, one for all",
        [f"{outcomes(d, (margin(d) < 0)[None, :])[0, 2]:.3f}" for d in sets.values()],
    )
    line(
        "the served rule's support, per set",
        [f"{bound(d, margin(d))[2]:.3f}" for d in sets.values()],
    )
    for name, per_set in values.items():
        cells = []
        for s, d in sets.items():
            alone, either = bound(d, per_set[s])[2], bound(d, per_set[s], also=margin(d) < 0)[2]
            summed = bound_with_margin(d, per_set[s])[0]
            cells.append(f"{alone:.2f}|{either:.2f}|{summed:.2f}")
        line(name, cells)

    print("\nthe tail: answerable queries with no answer among their ten best (lost)\n" + head)
    rows_out: dict[str, list[str]] = {
        k: []
        for k in (
            "lost, of the answerable queries",
            "refused by the served rule: lost, of the answerable",
            "refused by the served rule: share of lost / of unans.",
            "AUC of the support: lost / found against unans.",
            "the support per set, counting found answerable only",
            "LSA closeness, answerable twin's best > unans. twin's",
        )
    }
    for d in sets.values():
        a, m = d["answerable"], margin(d)
        lost = a & (d["cut"] == 0)
        found = a & ~lost
        refused = d["none"] | (~d["full"] & (m < 0))
        keys = list(rows_out)
        rows_out[keys[0]].append(f"{lost.sum() / a.sum():.1%}")
        rows_out[keys[1]].append(f"{(refused & lost).sum()}/{(refused & a).sum()}")
        rows_out[keys[2]].append(
            f"{(refused & lost).sum() / max(lost.sum(), 1):.1%}/{refused[~a].mean():.1%}"
        )
        rows_out[keys[3]].append(f"{auc(m, lost, ~a):.2f}/{auc(m, found, ~a):.2f}")
        rows_out[keys[4]].append(f"{bound(d, m, counted=found)[2]:.1%}")
        close = signal(d["rows"], SIGNALS["LSA closeness of the best (residual, `sims`)"])
        at = {(r["q"], r["ans"]): i for i, r in enumerate(d["rows"])}
        twins = [(at[q, True], at[q, False]) for q, ans in at if ans and (q, False) in at]
        twins = [(i, j) for i, j in twins if found[i] and not np.isnan(close[i] + close[j])]
        wins = sum(
            1.0 if close[i] > close[j] else 0.5 if close[i] == close[j] else 0.0 for i, j in twins
        )
        rows_out[keys[5]].append(f"{wins / max(len(twins), 1):.2f} of {len(twins)}")
    for label, cells in rows_out.items():
        line(label, cells)


def dedicated_lsa(name: str, data: labelled.LabelledSet, dims: int) -> None:
    """The closeness of each query's best keyword match (the one the gate reads) to the query
    in an LSA fitted on the whole fold (`Fit`); residual (the words they share left out of
    both) and full. Printed: the AUC and the `bound`s of each, as `signals` prints them."""
    import numpy as np

    d = readings(rows := load_dump(OUT / f"{name}.jsonl"))
    d["rows"] = rows
    at = {(r["fold"], r["q"]): i for i, r in enumerate(rows)}
    residual, full = np.full(len(rows), math.nan), np.full(len(rows), math.nan)
    for fold in labelled.folds(data):
        fit = Fit([analyse(item.text) for item in fold.items], dims)
        text_of = {item.id: item.text for item in fold.items}
        with tempfile.TemporaryDirectory() as tmp:
            clock = quality.Clock()
            ws = quality.open_store(Path(tmp), clock)
            ids = quality.load(ws, clock, fold.items)
            for q in fold.answerable + fold.unanswerable:
                i = at.get((fold.name, q.qid))
                if i is None or rows[i]["reading"] is None:
                    continue
                got = recall(ws.store, ws.ctx, q.text, limit=quality.LIMIT, steps=CUT - {"lsa"})
                hits = [h for h in got.hits if h.kind != "doc"]
                if hits:
                    asked = list(analyse_query(q.text).terms)
                    words = analyse(text_of[ids[hits[0].ref]])
                    residual[i] = fit.closeness(asked, words, set(asked) & set(words))
                    full[i] = fit.closeness(asked, words, set())
            ws.close()
    for label, values in (("residual", residual), ("full", full)):
        alone, either = bound(d, values)[2], bound(d, values, also=margin(d) < 0)[2]
        print(
            f"{name}, {dims} dimensions, {label}: AUC {auc(values, d['answerable']):.3f};"
            f" refused alone {alone:.3f}, or by the served rule {either:.3f},"
            f" margin + w x it {bound_with_margin(d, values)[0]:.3f}"
        )


class Fit:
    """LSA of every document: tf-idf ((1 + ln tf) x ln(N / df)) of their analysed words,
    `dims` dimensions of scipy's sparse SVD (seeded); a text is folded in through the term
    vectors (the sum of its words' weights times their rows of V)."""

    def __init__(self, docs: list[list[str]], dims: int) -> None:
        import scipy.sparse
        from scipy.sparse.linalg import svds

        self.column: dict[str, int] = {}
        for words in docs:
            for w in words:
                self.column.setdefault(w, len(self.column))
        df = Counter(w for words in docs for w in set(words))
        self.idf = {w: math.log(len(docs) / c) for w, c in df.items()}
        cells = [
            (r, self.column[w], self.weight(w, c))
            for r, words in enumerate(docs)
            for w, c in Counter(words).items()
        ]
        rows, cols, values = zip(*cells, strict=True)
        x = scipy.sparse.csr_matrix((values, (rows, cols)), shape=(len(docs), len(self.column)))
        self.terms = svds(x, k=dims, random_state=0)[2].T

    def weight(self, word: str, count: int) -> float:
        return (1 + math.log(count)) * self.idf[word]

    def vector(self, words: list[str], leave: set[str]) -> Any:
        import numpy as np

        out = np.zeros(self.terms.shape[1])
        for w, c in Counter(w for w in words if w in self.column and w not in leave).items():
            out += self.weight(w, c) * self.terms[self.column[w]]
        return out

    def closeness(self, a: list[str], b: list[str], leave: set[str]) -> float:
        """The cosine of two texts' folded vectors, `leave` left out of both (0: one empty)."""
        import numpy as np

        u, v = self.vector(a, leave), self.vector(b, leave)
        norm = float(np.linalg.norm(u) * np.linalg.norm(v))
        return float(u @ v) / norm if norm else 0.0
