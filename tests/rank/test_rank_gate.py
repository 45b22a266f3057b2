"""The "nothing found" gate: support = (held + lead) / rare - 0.55 x unknown, judged on the best
match against a bar of 0.57 + 0.15 x ln(N / 10,000)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.core.rank import idf
from cairn.core.rank.gate import (
    LEAD_WEIGHT,
    MIN_SUPPORT,
    SIZE_REFERENCE,
    SIZE_SLOPE,
    UNKNOWN_PENALTY,
    WEAK_SUPPORT,
    Reading,
    judge,
    lead,
    support,
    threshold,
)

RARE = idf(10_000, 1)  # ln(1 + 9,999.5 / 1.5) = 8.80: the bar is MIN_SUPPORT at this size


def test_support_by_hand() -> None:
    assert pytest.approx(math.log(1 + 9_999.5 / 1.5)) == RARE
    assert support(Reading(held=RARE, unknown=0, mass=2 * RARE, rare=RARE)) == pytest.approx(1.0)
    assert support(Reading(held=RARE, unknown=1, mass=RARE, rare=RARE)) == pytest.approx(0.45)
    assert support(Reading(held=RARE, unknown=3, mass=RARE, rare=RARE), held=2 * RARE) == (
        pytest.approx(0.35)
    )
    # the word the memory opens with counts twice
    opening = Reading(held=RARE, unknown=1, mass=2 * RARE, rare=RARE, lead=0.5 * RARE)
    assert support(opening) == pytest.approx(1.5 - 0.55)
    assert support(opening, held=0.5 * RARE, opening=0.0) == pytest.approx(-0.05)
    assert (MIN_SUPPORT, WEAK_SUPPORT, UNKNOWN_PENALTY, LEAD_WEIGHT) == (0.57, 1.0, 0.55, 1.0)
    assert (SIZE_SLOPE, SIZE_REFERENCE) == (0.15, 10_000)


def test_lead_is_the_idf_of_the_query_word_the_sentence_opens_with() -> None:
    idf_of = {"bank": 4.0, "canoe": 7.0}
    assert lead(["bank", "slope", "canoe"], idf_of) == 4.0
    assert lead(["slope", "bank"], idf_of) == 0.0  # held further in: only mentioned
    assert lead([], idf_of) == 0.0


def test_the_bar_rises_with_the_log_of_the_store_size() -> None:
    def bar(n: int) -> float:
        return threshold(Reading(held=0, unknown=0, mass=1, rare=idf(n, 1), n_docs=n))

    assert bar(10_000) == pytest.approx(0.57)
    assert bar(262) == pytest.approx(0.57 + 0.15 * math.log(0.0262))  # 0.024
    assert bar(100_000) == pytest.approx(0.57 + 0.15 * math.log(10))  # 0.915
    # The same share of a rare word answers in a small store and not in a large one.
    for n, verdict in [(262, "weak"), (10_000, "weak"), (100_000, "none")]:
        rare = idf(n, 1)
        reading = Reading(held=0.7 * rare, unknown=0, mass=2 * rare, rare=rare, n_docs=n)
        assert judge(reading) == verdict


def test_more_than_half_a_rare_word_is_the_least_an_answer_holds() -> None:
    assert judge(Reading(held=0.56 * RARE, unknown=0, mass=RARE, rare=RARE)) == "none"
    assert judge(Reading(held=0.58 * RARE, unknown=0, mass=RARE, rare=RARE)) == "weak"
    assert judge(Reading(held=RARE, unknown=0, mass=2 * RARE, rare=RARE)) == "answer"


def test_a_word_the_best_match_opens_with_turns_none_into_an_answer() -> None:
    # The same idf held: mentioned further in, it does not answer; opening the memory (a
    # dictionary entry's headword, a memory's subject), it does.
    mentioned = Reading(held=0.5 * RARE, unknown=0, mass=2 * RARE, rare=RARE)
    assert judge(mentioned) == "none"
    assert (
        judge(Reading(held=0.5 * RARE, unknown=0, mass=2 * RARE, rare=RARE, lead=0.5 * RARE))
        == "answer"
    )
    assert judge(mentioned, held=0.5 * RARE, opening=0.2 * RARE) == "weak"


def test_each_word_no_memory_holds_costs_more_than_half_a_rare_word() -> None:
    assert judge(Reading(held=1.2 * RARE, unknown=1, mass=RARE, rare=RARE)) == "weak"
    assert judge(Reading(held=RARE, unknown=1, mass=RARE, rare=RARE)) == "none"
    assert judge(Reading(held=2.2 * RARE, unknown=2, mass=2.2 * RARE, rare=RARE)) == "answer"


def test_a_match_holding_every_word_of_a_query_every_memory_knows_is_an_answer() -> None:
    common = idf(10_000, 5_000)  # ln 2: a word half the store holds
    assert judge(Reading(held=2 * common, unknown=0, mass=2 * common, rare=RARE)) == "answer"
    assert judge(Reading(held=common, unknown=0, mass=2 * common, rare=RARE)) == "none"
    assert judge(Reading(held=2 * common, unknown=1, mass=2 * common, rare=RARE)) == "none"


@given(
    st.floats(min_value=0, max_value=50),
    st.integers(min_value=0, max_value=6),
    st.floats(min_value=0.5, max_value=12),
)
def test_holding_more_never_turns_an_answer_into_none(
    held: float, unknown: int, rare: float
) -> None:
    order = {"none": 0, "weak": 1, "answer": 2}
    mass = held + 1.0  # the memory does not hold every word
    less = judge(Reading(held=held, unknown=unknown, mass=mass, rare=rare))
    more = judge(Reading(held=held + 1.0, unknown=unknown, mass=mass + 1.0, rare=rare))
    fewer_unknown = judge(Reading(held=held, unknown=max(0, unknown - 1), mass=mass, rare=rare))
    opening = judge(Reading(held=held, unknown=unknown, mass=mass, rare=rare, lead=1.0))
    assert order[more] >= order[less] and order[fewer_unknown] >= order[less]
    assert order[opening] >= order[less]
