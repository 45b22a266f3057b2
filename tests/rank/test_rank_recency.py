"""recency_lift and near_ties: a newer near-tie on the same subject comes first, lifted by
at most 5%."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.core.rank.recency import NEAR_TIES, near_ties, recency_lift


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


DAY = 86_400 * 1_000_000
NOW = 1_000 * DAY


def _written(*ages: float) -> list[int]:
    return [NOW - round(age * DAY) for age in ages]


def test_a_newer_near_tie_on_the_same_subject_ties_the_older_one() -> None:
    # Both hold every query word; the older leads by 2%, under the newer's lift (x1.05
    # against x1.0): the newer takes its strength, and sorted newer first on equal
    # strengths it comes first. The third, on another subject, keeps its own.
    raised = near_ties([10.0, 9.8, 9.7], _written(90, 2, 0), [True, True, False], NOW)
    assert raised == [10.0, 10.0, 9.7]


def test_a_clearly_better_old_match_still_wins() -> None:
    # The older leads by 10%: more than any lift.
    assert near_ties([11.0, 10.0], _written(3650, 0), [True, True], NOW) == [11.0, 10.0]


def test_matches_on_another_subject_are_not_reordered_by_age() -> None:
    # The same 1% lead, but one of the two does not hold every query word: no near-tie on
    # the same subject, the keyword strength decides (the lift on every match passed it).
    for whole in ([True, False], [False, True], [False, False]):
        assert near_ties([10.0, 9.9], _written(365, 0), whole, NOW) == [10.0, 9.9]


def test_the_lift_compares_both_ages() -> None:
    # A 30-day-old memory is lifted x1.025; a newer one written today x1.05: it reaches the
    # older only within 1.05 / 1.025 (2.4%).
    assert near_ties([10.0, 9.8], _written(30, 0), [True, True], NOW) == [10.0, 10.0]
    assert near_ties([10.0, 9.7], _written(30, 0), [True, True], NOW) == [10.0, 9.7]
    # The older one never passes the newer.
    assert near_ties([10.0, 9.99], _written(0, 30), [True, True], NOW) == [10.0, 9.99]


def test_a_newer_match_ties_the_best_older_one_it_reaches() -> None:
    # 10.0 (old), 9.97 (40 days, x1.02), 9.8 (today, x1.05): each reaches the best one.
    raised = near_ties([10.0, 9.97, 9.8], _written(300, 40, 0), [True] * 3, NOW)
    assert raised == [10.0, 10.0, 10.0]
    # 100 days old (x1.005), 9.9 reaches nothing; the newest still reaches the best.
    raised = near_ties([10.0, 9.9, 9.8], _written(300, 100, 0), [True] * 3, NOW)
    assert raised == [10.0, 9.9, 10.0]


def test_only_the_first_near_ties_matches_are_looked_at() -> None:
    strengths = [10.0] * NEAR_TIES + [9.9]
    written = _written(*([365.0] * NEAR_TIES), 0)
    assert near_ties(strengths, written, [True] * (NEAR_TIES + 1), NOW) == strengths


def test_near_ties_wants_aligned_lists() -> None:
    with pytest.raises(ValueError, match="as long as"):
        near_ties([1.0, 2.0], [0], [True, True], NOW)


@given(
    st.lists(
        st.tuples(
            st.floats(min_value=0.1, max_value=100.0),
            st.integers(min_value=0, max_value=800),
            st.booleans(),
        ),
        max_size=40,
    )
)
def test_near_ties_only_let_a_newer_match_on_the_subject_pass_within_its_lift(
    matches: list[tuple[float, int, bool]],
) -> None:
    matches.sort(key=lambda m: (-m[0], m[1]))  # best first, ties: newer first
    strengths = [m[0] for m in matches]
    written = _written(*(m[1] for m in matches))
    whole = [m[2] for m in matches]
    raised = near_ties(strengths, written, whole, NOW)
    # Nothing is lowered, nothing raised by more than the largest lift.
    assert all(s <= r <= s * 1.05 + 1e-9 for s, r in zip(strengths, raised, strict=True))
    # In the order recall sorts them in (strength, then newer first), a match passes one
    # ahead of it only when both hold every word, it is newer, and its lift reaches it.
    order = sorted(range(len(matches)), key=lambda k: (-raised[k], -written[k], k))
    place = {k: p for p, k in enumerate(order)}
    for j in range(len(matches)):
        for i in range(j):
            if place[j] < place[i] and strengths[i] > strengths[j]:
                assert whole[j]
                assert written[j] > written[i] or any(
                    whole[h] and written[h] < written[j] for h in range(i)
                )
                assert strengths[i] <= strengths[j] * 1.05 + 1e-9
