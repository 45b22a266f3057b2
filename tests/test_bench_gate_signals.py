"""bench/gate_signals.py, what issue 13's eighth round measured the "nothing found" gate's
other signals with: each signal and bound on hand-computed cases, and the bench's margin of
the served rule agreeing with `rank.gate.judge` itself."""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from cairn.core import rank
from cairn.core.rank import gate

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def signals() -> ModuleType:
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(BENCH))
        return importlib.import_module("gate_signals")


def dumped(
    held: float,
    n_docs: int,
    *,
    unknown: int = 0,
    mass: float | None = None,
    terms: list[list[float]] | None = None,
    positions: list[int] | None = None,
    answerable: bool = True,
    cut: float = 1.0,
) -> dict[str, Any]:
    """One line as `gate_search.py dump` writes it, with what `readings` and the signals read."""
    terms = terms if terms is not None else [[held, 1]]
    return {
        "ans": answerable,
        "plain BM25": 1.0,
        "+ 0.7 cut-off": cut,
        "served": 1,
        "reading": {
            "held": held,
            "unknown": unknown,
            "mass": held * 2 if mass is None else mass,
            "rare": rank.idf(n_docs, 1),
            "n_docs": n_docs,
        },
        "best": [[10, positions if positions is not None else [-1] * len(terms), -1, 0.0]],
        "terms": terms,
        "n": n_docs,
        "top": [[1.0, held, [True] * len(terms)]],
    }


def test_auc_counts_pairs_ordered_right_ties_half_and_leaves_out_nan(signals: ModuleType) -> None:
    values = np.array([3.0, 2.0, 1.0, 1.0, math.nan])
    positive = np.array([True, False, True, False, True])
    # (3, 2) right, (3, 1) right, (1, 2) wrong, (1, 1) a tie: 2.5 of 4.
    assert signals.auc(values, positive) == pytest.approx(0.625)


def test_close_pairs_need_the_query_order_and_the_window(signals: ModuleType) -> None:
    row = dumped(10.0, 1000, terms=[[4.0, 9], [6.0, 3], [8.0, 1]], positions=[2, 3, -1])
    rare = row["reading"]["rare"]
    assert signals._close(row, 1) == pytest.approx((4.0 + 6.0) / rare)
    row["best"][0][1] = [3, 2, -1]  # the same two words, the other way round
    assert signals._close(row, 1) == 0.0
    row["best"][0][1] = [0, -1, 3]
    assert signals._close(row, 2) == 0.0
    assert signals._close(row, 3) == pytest.approx((4.0 + 8.0) / rare)


def test_same_lead_counts_the_matches_opening_with_the_bests_first_word(
    signals: ModuleType,
) -> None:
    row = dumped(10.0, 1000, terms=[[4.0, 9], [6.0, 3]], positions=[-1, 0])
    row["best"] += [[5, [-1, 0], -1, 0.0], [5, [0, 2], -1, 0.0], [5, [-1, 0], -1, 0.0]]
    assert signals._same_lead(row) == -2.0
    row["best"][0][1] = [-1, 4]  # the best opens with no query word
    assert signals._same_lead(row) == 0.0


def test_surprise_is_the_chance_of_the_bests_words_together_over_the_query_subsets(
    signals: ModuleType,
) -> None:
    row = dumped(10.0, 100, terms=[[2.0, 10], [3.0, 5], [1.0, 50]])
    row["top"][0][2] = [True, True, False]
    # 100 memories x 10/100 x 5/100 expected to hold both, x 3 pairs of the three words.
    expected = math.log(100 * 0.1 * 0.05 * 3)
    assert signals._surprise(row) == pytest.approx(-expected / rank.idf(100, 1))


def test_bound_finds_the_threshold_refusing_the_most_unanswerable_queries(
    signals: ModuleType,
) -> None:
    rows = [dumped(10.0, 1000) for _ in range(100)]
    rows += [dumped(10.0, 1000, answerable=False, cut=0.0) for _ in range(100)]
    d = signals.readings(rows)
    values = np.array([10.0] * 100 + [0.0] * 50 + [20.0] * 50)
    # Under 10 refuses the 50 unanswerable at 0 and no answerable one; under 20, every one.
    assert signals.bound(d, values) == pytest.approx((1.0, 0.0, 0.5))
    # Refused by the other rule too: the answerable queries it refuses break the targets.
    also = np.array([True] * 20 + [False] * 180)
    assert math.isnan(signals.bound(d, values, also=also)[2])


def test_bound_can_count_only_the_answerable_queries_whose_answer_was_found(
    signals: ModuleType,
) -> None:
    rows = [dumped(10.0, 1000, cut=0.0) for _ in range(20)]  # lost: no answer in the ten best
    rows += [dumped(10.0, 1000) for _ in range(80)]
    rows += [dumped(10.0, 1000, answerable=False, cut=0.0) for _ in range(100)]
    for row in rows[:20]:
        row["plain BM25"] = 0.0
    d = signals.readings(rows)
    values = np.array([0.0] * 20 + [10.0] * 80 + [0.0] * 50 + [20.0] * 50)
    # Under 10 refuses the 20 lost answerable queries with the 50 unanswerable ones: 20% of
    # the answerable answered with nothing, though none had its answer served: so nothing.
    assert signals.bound(d, values) == pytest.approx((1.0, 0.0, 0.0))
    found = np.array([False] * 20 + [True] * 80 + [False] * 100)
    assert signals.bound(d, values, counted=found) == pytest.approx((1.0, 0.0, 0.5))


@given(
    offset=st.floats(-0.2, 0.2).filter(lambda x: abs(x) > 1e-6),
    opening=st.sampled_from([0.0, 1.0]),
    unknown=st.integers(0, 3),
    n_docs=st.integers(50, 200_000),
)
def test_the_benchs_margin_refuses_what_the_gate_refuses(
    signals: ModuleType, offset: float, opening: float, unknown: int, n_docs: int
) -> None:
    """`margin`, rebuilt from a dumped line (N from `rare`, `lead` from the best's first word),
    is under 0 exactly when `rank.gate.judge` finds nothing (a match holding part of the
    query), for a best match `offset` rare words from the bar."""
    rare = rank.idf(n_docs, 1)
    bar = gate.threshold(rank.Reading(held=0.0, unknown=0, mass=1.0, rare=rare, n_docs=n_docs))
    support = bar + offset + gate.UNKNOWN_PENALTY * unknown
    held = support * rare / (1 + gate.LEAD_WEIGHT * opening)
    assume(held > 0)
    row = dumped(held, n_docs, unknown=unknown, positions=[0 if opening else 3])
    reading = rank.Reading(
        held=held, unknown=unknown, mass=held * 2, rare=rare, n_docs=n_docs, lead=held * opening
    )
    value = float(signals.margin(signals.readings([row]))[0])
    assert value == pytest.approx(offset, abs=1e-6)
    assert (value < 0) == (gate.judge(reading) == "none")


def test_a_dedicated_lsa_fit_finds_a_text_closest_to_itself(signals: ModuleType) -> None:
    docs = [
        ["boat", "water", "river"],
        ["canoe", "water", "paddl"],
        ["bank", "money", "loan"],
        ["money", "loan", "interest"],
        ["river", "bank", "slope"],
        ["paddl", "boat", "canoe"],
    ]
    fit = signals.Fit(docs, 2)
    assert fit.closeness(["canoe", "water"], ["canoe", "water"], set()) == pytest.approx(1.0)
    assert fit.closeness(["canoe", "water"], ["canoe", "water"], {"canoe", "water"}) == 0.0
    near = fit.closeness(["canoe"], ["boat", "river"], set())
    far = fit.closeness(["canoe"], ["money", "interest"], set())
    assert near > far
