"""A memory's standing from its evidence and the clock."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cairn.core.lifecycle import CONFIRMING, CONTRADICTING, factor_of
from cairn.core.models import Event
from cairn.core.rank.evidence import evidence_factor

NAMES = st.sampled_from([*CONFIRMING, *CONTRADICTING, "cited", "echo"])


@given(st.lists(NAMES, max_size=8))
def test_the_factor_is_the_evidence_formula_of_the_counts(names: list[str]) -> None:
    events = [
        Event(f"e-{i}", "m-000001", name, "t", "s", "2026-11-29T00:00:00Z")
        for i, name in enumerate(names)
    ]
    counts = [names.count(n) for n in ("confirmed", "merge", "revert", "discard", "contradicted")]
    assert factor_of(events) == evidence_factor(*counts)


def test_no_evidence_is_a_factor_of_one() -> None:
    assert factor_of([]) == 1.0 == evidence_factor(0, 0, 0, 0, 0)
