"""evidence_factor: code acts move a match at most x2 up or x0.5 down."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.core.rank.evidence import MAX_EVIDENCE_FACTOR, MIN_EVIDENCE_FACTOR, evidence_factor


def test_bounds_are_x2_and_x_half() -> None:
    assert (MIN_EVIDENCE_FACTOR, MAX_EVIDENCE_FACTOR) == (0.5, 2.0)


def test_no_evidence_leaves_the_score() -> None:
    assert evidence_factor(0, 0, 0, 0) == 1.0


def test_each_net_confirmation_lifts_by_root_two() -> None:
    assert evidence_factor(1, 0, 0, 0) == pytest.approx(math.sqrt(2))
    assert evidence_factor(0, 1, 0, 0) == pytest.approx(math.sqrt(2))
    assert evidence_factor(0, 0, 1, 0) == pytest.approx(1 / math.sqrt(2))


def test_merges_and_confirms_lift_at_most_x2() -> None:
    assert evidence_factor(1, 1, 0, 0) == 2.0
    assert evidence_factor(5, 40, 0, 0) == 2.0


def test_reverts_discards_and_contradictions_lower_at_most_to_half() -> None:
    assert evidence_factor(0, 0, 1, 1) == 0.5
    assert evidence_factor(0, 0, 0, 0, contradicted=2) == 0.5
    assert evidence_factor(0, 0, 30, 30, contradicted=30) == 0.5


def test_lifts_and_lowers_cancel() -> None:
    assert evidence_factor(1, 1, 1, 0, contradicted=1) == 1.0


def test_negative_counts_are_refused() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        evidence_factor(0, -1, 0, 0)


counts = st.integers(min_value=0, max_value=10**30)


@given(counts, counts, counts, counts, counts)
def test_evidence_factor_stays_within_half_and_two(
    confirmed: int, merged: int, reverted: int, discarded: int, contradicted: int
) -> None:
    factor = evidence_factor(confirmed, merged, reverted, discarded, contradicted)
    assert 0.5 <= factor <= 2.0
