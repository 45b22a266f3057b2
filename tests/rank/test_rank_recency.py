"""recency_lift: newer memories are lifted slightly, never more than 5%."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.core.rank.recency import recency_lift, recency_lifts


def test_recency_lift_by_hand() -> None:
    assert recency_lift(0) == pytest.approx(1.05)
    assert recency_lift(30) == pytest.approx(1.025)  # one half-life
    assert recency_lift(60) == pytest.approx(1.0125)
    assert recency_lift(3650) == pytest.approx(1.0)


def test_recency_lift_treats_a_future_date_as_today() -> None:
    assert recency_lift(-5) == recency_lift(0)


@given(st.floats(min_value=-1e6, max_value=1e6), st.floats(min_value=0, max_value=1e6))
def test_recency_lift_is_slight_and_falls_with_age(age: float, more: float) -> None:
    assert 1.0 <= recency_lift(age) <= 1.05
    assert recency_lift(age + more) <= recency_lift(age)


def test_a_newer_near_tie_comes_first() -> None:
    old, new = 10.0, 9.8  # the newer memory scores 2% lower on the same words
    assert new * recency_lift(2) > old * recency_lift(90)


def test_a_clearly_better_old_match_still_wins() -> None:
    old, new = 11.0, 10.0  # the old memory matches 10% better
    assert old * recency_lift(3650) > new * recency_lift(0)


def test_recency_lifts_scale_with_how_much_of_the_query_a_match_holds() -> None:
    ages = np.array([0.0, 0.0, 0.0, 30.0])
    on_subject = np.array([1.0, 0.5, 0.0, 1.0])
    lifts = recency_lifts(ages, on_subject)
    # Raised to the 4th power: half the query's idf gets 1/16 of the lift.
    assert lifts.tolist() == pytest.approx([1.05, 1.0 + 0.05 / 16, 1.0, 1.025])
    assert recency_lifts(ages).tolist() == pytest.approx([1.05, 1.05, 1.05, 1.025])
    assert recency_lifts(np.array([0.0]), np.array([1.5])).tolist() == pytest.approx([1.05])


def test_a_match_holding_part_of_the_query_is_not_reordered_by_age() -> None:
    # Two matches holding three quarters of the query's idf, 2% apart: the older, stronger one
    # stays first (the newer one's lift is 0.75 ** 4 x 5% = 1.6%; it was 3.75% with the share
    # itself); two holding all of it, 1% apart, are a near-tie the newer one wins.
    young, old = np.array([0.0]), np.array([365.0])
    part = np.array([0.75])
    assert 10.0 * recency_lifts(old, part)[0] > 9.8 * recency_lifts(young, part)[0]
    whole = np.array([1.0])
    assert 9.9 * recency_lifts(young, whole)[0] > 10.0 * recency_lifts(old, whole)[0]
