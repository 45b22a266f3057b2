"""Prefix, position and length filtering find every pair of word sets reaching the threshold."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.core.text import overlap
from cairn.core.text.overlap import Rows, prefix_length

WORDS = st.sampled_from([f"w{k}" for k in range(12)])
SETS = st.lists(st.frozensets(WORDS, max_size=9), max_size=40)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def _pairs(
    sets: list[frozenset[str]], threshold: float, at_least: int = 1
) -> list[tuple[int, int]]:
    n = len(sets)
    return [divmod(int(k), n) for k in Rows(sets).candidate_pairs(threshold, at_least)]


@settings(max_examples=300, deadline=None)
@given(
    sets=SETS,
    threshold=st.sampled_from([0.3, 0.5, 0.6, 0.75, 1.0]),
    at_least=st.integers(1, 3),
)
def test_every_pair_reaching_the_threshold_is_a_candidate(
    sets: list[frozenset[str]], threshold: float, at_least: int
) -> None:
    found = _pairs(sets, threshold, at_least)
    assert found == sorted(set(found))
    assert all(i < j for i, j in found)
    for i, a in enumerate(sets):
        for j in range(i + 1, len(sets)):
            b = sets[j]
            if len(a & b) >= at_least and _jaccard(a, b) >= threshold:
                assert (i, j) in found, (a, b)


@settings(max_examples=50, deadline=None)
@given(sets=SETS, threshold=st.sampled_from([0.5, 0.6]))
def test_small_batches_find_the_same_pairs(sets: list[frozenset[str]], threshold: float) -> None:
    whole = _pairs(sets, threshold)
    batch = overlap.BATCH
    try:
        overlap.BATCH = 1
        assert _pairs(sets, threshold) == whole
    finally:
        overlap.BATCH = batch


def test_an_exact_boundary_is_kept() -> None:
    # 3 shared of 5 words is exactly 0.6: float error must not shorten a prefix or a bound.
    a = frozenset("abcd")
    b = frozenset("abce")
    assert _jaccard(a, b) == 0.6
    assert _pairs([a, b], 0.6) == [(0, 1)]
    assert prefix_length(5, 0.6) == 3
    assert prefix_length(1, 0.5, at_least=2) == 0


def test_sets_sharing_only_common_words_are_not_paired() -> None:
    # Each prefix holds a set's rarest words; `use` and `run` are in every set and no prefix.
    sets = [frozenset({"use", "run", f"a{k}", f"b{k}"}) for k in range(50)]
    assert _pairs(sets, 0.6) == []


def test_a_shared_word_late_in_both_sets_is_not_enough() -> None:
    # They share `z` (their first shared word in the order), too late to reach 0.6 after it.
    a = frozenset({"a1", "a2", "a3", "z"})
    b = frozenset({"b1", "b2", "b3", "z"})
    filler = [frozenset({"z", f"c{k}"}) for k in range(20)]  # `z` is common: last in order
    sets = [a, b, *filler]
    assert (0, 1) not in _pairs(sets, 0.5)


@settings(max_examples=200, deadline=None)
@given(sets=SETS, data=st.data())
def test_shared_counts_exactly(sets: list[frozenset[str]], data: st.DataObject) -> None:
    if not sets:
        return
    index = st.integers(0, len(sets) - 1)
    pairs = data.draw(st.lists(st.tuples(index, index), max_size=30))
    marked = frozenset(data.draw(st.frozensets(WORDS, max_size=4)))
    rows = Rows(sets)
    x, y = [p[0] for p in pairs], [p[1] for p in pairs]
    both, unmarked = rows.shared(x, y), rows.without(marked).shared(x, y)
    for k, (i, j) in enumerate(pairs):
        assert both[k] == len(sets[i] & sets[j])
        assert unmarked[k] == len((sets[i] & sets[j]) - marked)


def test_without_keeps_the_order_and_drops_the_words() -> None:
    rows = Rows([frozenset("abc"), frozenset("ab"), frozenset("a")])
    fewer = rows.without({"a"})
    assert fewer.lengths.tolist() == [2, 1, 0]
    assert fewer.candidate_pairs(0.5).tolist() == [0 * 3 + 1]
