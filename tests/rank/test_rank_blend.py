"""blend: the 0.7 cut-off, result limits and tie-breaks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.core.rank.blend import (
    CUTOFF,
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MIN_MEMORIES_FOR_GATE,
    PAGES_LIMIT,
    cut_off,
    fill,
    memory_score,
    memory_scores,
    sort_key,
    split_limit,
)


def test_cutoff_is_seven_tenths() -> None:
    assert CUTOFF == 0.7


def test_cut_off_drops_memories_under_seven_tenths_of_the_best() -> None:
    scored = [("a", 100.0), ("b", 70.0), ("c", 69.9), ("d", 85.0)]
    assert cut_off(scored) == [("a", 100.0), ("d", 85.0), ("b", 70.0)]


def test_cut_off_always_keeps_the_best() -> None:
    assert cut_off([("only", 0.001)]) == [("only", 0.001)]
    assert cut_off([("a", 0.0), ("b", 0.0)]) == [("a", 0.0), ("b", 0.0)]
    assert cut_off([]) == []


def test_cut_off_keeps_input_order_between_ties() -> None:
    scored = [("x", 5.0), ("y", 9.0), ("z", 5.0), ("w", 9.0)]
    assert cut_off(scored, ratio=0.5) == [("y", 9.0), ("w", 9.0), ("x", 5.0), ("z", 5.0)]


def test_cut_off_refuses_negative_scores() -> None:
    # FTS5's bm25() is negative (lower is better); it must be negated before cut_off.
    with pytest.raises(ValueError, match="negate"):
        cut_off([("a", -3.0), ("b", -1.0)])


def test_cut_off_refuses_a_ratio_outside_zero_one() -> None:
    with pytest.raises(ValueError, match="ratio"):
        cut_off([("a", 1.0)], ratio=1.5)


@given(st.lists(st.tuples(st.integers(), st.floats(min_value=0, max_value=1e9)), min_size=1))
def test_cut_off_keeps_the_best_and_only_scores_over_the_floor(
    scored: list[tuple[int, float]],
) -> None:
    kept = cut_off(scored)
    best = max(value for _, value in scored)
    assert kept[0][1] == best
    assert all(value >= CUTOFF * best for _, value in kept)
    assert [value for _, value in kept] == sorted((value for _, value in kept), reverse=True)
    assert len(kept) == sum(1 for _, value in scored if value >= CUTOFF * best) or best == 0


def test_the_gate_judges_from_fifty_memories_in_a_project() -> None:
    assert MIN_MEMORIES_FOR_GATE == 50


def test_limits_are_eight_twenty_five_and_twenty_for_pages() -> None:
    assert (DEFAULT_LIMIT, MAX_LIMIT, PAGES_LIMIT) == (8, 25, 20)


def test_split_limit_gives_memories_four_of_eight() -> None:
    assert split_limit(DEFAULT_LIMIT) == (4, 4)


def test_split_limit_gives_docs_the_odd_slot() -> None:
    assert split_limit(MAX_LIMIT) == (12, 13)


def test_split_limit_of_one_is_one_memory() -> None:
    assert split_limit(1) == (1, 0)


def test_split_limit_refuses_zero() -> None:
    with pytest.raises(ValueError, match="limit"):
        split_limit(0)


@given(st.integers(min_value=2, max_value=MAX_LIMIT))
def test_split_limit_gives_memories_at_most_half(limit: int) -> None:
    memories, docs = split_limit(limit)
    assert memories + docs == limit
    assert 1 <= memories <= limit / 2 <= docs


def test_fill_keeps_memories_to_half_even_when_no_doc_matches() -> None:
    memories = [f"m{i}" for i in range(10)]
    assert fill(memories, [], DEFAULT_LIMIT) == ["m0", "m1", "m2", "m3"]


def test_fill_gives_docs_the_rest() -> None:
    memories = [f"m{i}" for i in range(10)]
    docs = [f"d{i}" for i in range(10)]
    assert fill(memories, docs, DEFAULT_LIMIT) == ["m0", "m1", "m2", "m3", "d0", "d1", "d2", "d3"]
    assert fill(["m0"], docs, DEFAULT_LIMIT) == ["m0", "d0", "d1", "d2", "d3", "d4", "d5", "d6"]
    many_memories = [f"m{i}" for i in range(30)]
    many_docs = [f"d{i}" for i in range(30)]
    assert fill(many_memories, many_docs, MAX_LIMIT) == many_memories[:12] + many_docs[:13]


def test_sort_key_orders_by_score_then_newest_then_ref() -> None:
    rows = [
        ("m-c", 1.0, "2026-01-01T00:00:00Z"),
        ("m-b", 2.0, "2025-01-01T00:00:00Z"),
        ("m-a", 1.0, "2026-01-01T00:00:00Z"),
        ("m-d", 1.0, "2026-06-01T00:00:00Z"),
        ("m-e", 1.0, ""),
    ]
    ordered = sorted(rows, key=lambda row: sort_key(row[1], row[2], row[0]))
    assert [ref for ref, _, _ in ordered] == ["m-b", "m-d", "m-a", "m-c", "m-e"]


def test_memory_score_saturates_in_rare_words() -> None:
    rare = 8.8  # the idf of a word one of 10,000 memories holds
    assert memory_score(0.0, rare) == 0.0
    assert memory_score(rare, rare) == pytest.approx(0.5)
    assert memory_score(2 * rare, rare) == pytest.approx(2 / 3)
    assert memory_score(4 * rare, rare) == pytest.approx(0.8)
    with pytest.raises(ValueError):
        memory_score(1.0, 0.0)
    with pytest.raises(ValueError):
        memory_score(-1.0, rare)


def test_the_cut_off_on_memory_scores_keeps_half_of_a_clear_match_not_of_a_thin_one() -> None:
    rare = 5.0
    # Strengths: the best holds two rare words, one memory one of them, one a common word.
    strengths = {"best": 2 * rare, "half": rare, "common": 0.3 * rare}
    scored = [(k, memory_score(v, rare)) for k, v in strengths.items()]
    assert [k for k, _ in cut_off(scored)] == ["best", "half"]
    assert [k for k, _ in cut_off(list(strengths.items()))] == ["best"]  # raw BM25F: 0.5 < 0.7
    # A thin best (half a rare word): half of it is a thin match too, and is left out.
    thin = [(k, memory_score(v / 4, rare)) for k, v in strengths.items()]
    assert [k for k, _ in cut_off(thin)] == ["best"]


@given(
    st.floats(min_value=0.0, max_value=1e6),
    st.floats(min_value=0.0, max_value=1e6),
    st.floats(min_value=0.01, max_value=20.0),
)
def test_memory_score_keeps_the_order_of_strengths(a: float, b: float, rare: float) -> None:
    assert 0.0 <= memory_score(a, rare) < 1.0 or a / rare > 1e12
    if a < b:
        assert memory_score(a, rare) <= memory_score(b, rare)


@given(st.lists(st.floats(0.0, 1e6, allow_nan=False), max_size=30), st.floats(0.01, 30.0))
def test_memory_scores_are_memory_score_of_each(strengths: list[float], rare: float) -> None:
    assert memory_scores(strengths, rare) == [memory_score(s, rare) for s in strengths]


def test_memory_scores_refuse_what_memory_score_refuses() -> None:
    with pytest.raises(ValueError):
        memory_scores([1.0, -0.5], 1.0)
    with pytest.raises(ValueError):
        memory_scores([1.0], 0.0)
    assert memory_scores([], 1.0) == []
