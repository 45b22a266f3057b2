"""Prefix filtering finds every pair of word sets that reaches the threshold."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.text.overlap import PrefixIndex, prefix_length

WORDS = st.sampled_from([f"w{k}" for k in range(12)])
SETS = st.lists(st.frozensets(WORDS, max_size=9), max_size=40)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


@settings(max_examples=300, deadline=None)
@given(
    sets=SETS,
    threshold=st.sampled_from([0.3, 0.5, 0.6, 0.75, 1.0]),
    at_least=st.integers(1, 3),
)
def test_every_pair_reaching_the_threshold_is_a_partner(
    sets: list[frozenset[str]], threshold: float, at_least: int
) -> None:
    index = PrefixIndex(sets, threshold, at_least)
    for i, a in enumerate(sets):
        partners = index.partners(i)
        assert partners == sorted(set(partners))
        assert all(j > i for j in partners)
        for j in range(i + 1, len(sets)):
            b = sets[j]
            if len(a & b) >= at_least and _jaccard(a, b) >= threshold:
                assert j in partners, (a, b)


def test_an_exact_boundary_is_kept() -> None:
    # 3 shared of 5 words is exactly 0.6: float error must not shorten the prefix.
    a = frozenset("abcd")
    b = frozenset("abce")
    assert _jaccard(a, b) == 0.6
    assert PrefixIndex([a, b], 0.6).partners(0) == [1]
    assert prefix_length(5, 0.6) == 3
    assert prefix_length(1, 0.5, at_least=2) == 0


def test_sets_only_sharing_common_words_are_not_compared() -> None:
    # Each set's prefix holds its rarest words; `use` is in every set and in no prefix.
    sets = [frozenset({"use", f"a{k}", f"b{k}", f"c{k}"}) for k in range(50)]
    index = PrefixIndex(sets, 0.6)
    assert all(index.partners(i) == [] for i in range(50))
    assert "use" not in index.postings
