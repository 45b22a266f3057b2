"""Postings: BM25F of every row holding a query word at once, the same floats as `rank.score`."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.core import rank
from cairn.core.rank.postings import build_postings

FIELDS = ("sentence", "tags", "citation", "reason")
WORDS = ["deploy", "api", "gateway", "timeout", "render", "fly", "cache", "ledger", "retry"]


def corpus(n: int, seed: int = 0) -> list[tuple[int, tuple[str, str, str, str], int, int]]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        fields = tuple(
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6))) for _ in FIELDS
        )
        length = sum(len(f.split()) for f in fields)
        rows.append((10 + 3 * i, fields, length, 1_000_000 * i))
    return rows  # type: ignore[return-value]


@pytest.mark.parametrize("weights", [(2.0, 1.8, 1.2, 1.0), (1.0, 1.0, 1.0, 1.0)])
def test_bm25f_gives_rank_score_to_the_last_bit(weights: tuple[float, ...]) -> None:
    rows = corpus(300)
    postings = build_postings(rows)
    n_docs = len(rows)
    avg = sum(r[2] for r in rows) / n_docs
    terms = ["deploy", "gateway", "retry", "unknownword"]
    df = {t: sum(1 for r in rows if any(t in f.split() for f in r[1])) for t in terms}
    idf = [rank.idf(n_docs, df[t]) for t in terms]
    matches = rank.bm25f(postings, terms, idf, weights, avg, terms)
    got = dict(
        zip(postings.rowids[matches.positions].tolist(), matches.scores.tolist(), strict=True)
    )
    named = dict(zip(FIELDS, weights, strict=True))
    for rowid, fields, _, _ in rows:
        tokens = {name: text.split() for name, text in zip(FIELDS, fields, strict=True)}
        expected = rank.score(terms, tokens, df, n_docs, avg, named)
        assert got.get(rowid, 0.0) == expected  # exactly: same operations, same order


def test_bm25f_with_a_memo_gives_the_floats_it_gives_without(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = corpus(300)
    postings = build_postings(rows)
    terms, weights = ["deploy", "gateway", "retry"], (1.0, 0.9, 0.6, 0.5)
    memo: dict[tuple[object, ...], object] = {}
    monkeypatch.setattr("cairn.core.rank.postings.MEMO_ENTRIES", 400)  # a full memo is emptied
    for avg, idf in [
        (4.0, [1.5, 2.0, 0.5]),
        (4.0, [1.5, 2.0, 0.5]),
        (3.0, [1.5, 2.0, 0.5]),
        (4.0, [1.0, 2.0, 0.5]),
        (4.0, [1.5, 2.0, 0.5]),
    ]:
        plain = rank.bm25f(postings, terms, idf, weights, avg, terms)
        kept = rank.bm25f(postings, terms, idf, weights, avg, terms, memo=memo)
        assert kept.scores.tolist() == plain.scores.tolist()
        assert kept.held.tolist() == plain.held.tolist()
        assert kept.positions.tolist() == plain.positions.tolist()
    assert sum(len(v) for k, v in memo.items() if k != ("size",)) <= 400  # type: ignore[arg-type]


def test_bm25f_with_a_memo_keeps_the_length_norms_of_the_latest_avgdl() -> None:
    # With a memo, each row's length norm is computed once per avgdl and looked up for each
    # term: the floats `rank.score` gives, at the avgdl of each call (a write moves it).
    rows = corpus(200, seed=7)
    rows[3] = (rows[3][0], ("deploy " * 300, "retry deploy", "", ""), 302, 0)  # 32-bit counts
    postings = build_postings(rows)
    n_docs = len(rows)
    terms = ["deploy", "gateway", "retry", "cache"]
    df = {t: sum(1 for r in rows if any(t in f.split() for f in r[1])) for t in terms}
    idf = [rank.idf(n_docs, df[t]) for t in terms]
    weights = (1.0, 0.9, 0.6, 0.5)
    named = dict(zip(FIELDS, weights, strict=True))
    memo: dict[tuple[object, ...], object] = {}
    for avg in (sum(r[2] for r in rows) / n_docs, 3.7, 5.25):
        matches = rank.bm25f(postings, terms, idf, weights, avg, terms, memo=memo)
        got = dict(
            zip(postings.rowids[matches.positions].tolist(), matches.scores.tolist(), strict=True)
        )
        for rowid, fields, _, _ in rows:
            tokens = {name: text.split() for name, text in zip(FIELDS, fields, strict=True)}
            assert got.get(rowid, 0.0) == rank.score(terms, tokens, df, n_docs, avg, named)
        assert [k[1] for k in memo[("derived",)]] == [avg]  # type: ignore[attr-defined]


def test_postings_count_each_term_per_field_and_its_rows() -> None:
    rows = [
        (1, ("api api gateway", "api", "", ""), 4, 0),
        (2, ("gateway", "", "", "api"), 2, 5),
        (5, ("", "", "", ""), 0, 9),
    ]
    postings = build_postings(rows)
    assert postings.n_rows == 3 and postings.last_rowid == 5 and postings.total_length == 6
    assert postings.df("api") == 2 and postings.df("gateway") == 2 and postings.df("x") == 0
    found = postings.postings("api")
    assert found is not None
    positions, counts = found
    assert positions.tolist() == [0, 1]
    assert counts[:, 0].tolist() == [2, 1, 0, 0] and counts[:, 1].tolist() == [0, 0, 0, 1]


def test_bm25f_only_scores_rows_holding_a_required_term_within_the_flags() -> None:
    rows = [
        (1, ("api gateway", "", "", ""), 2, 0),
        (2, ("api", "", "", ""), 1, 0),
        (3, ("gateway", "", "", ""), 1, 0),
    ]
    postings = build_postings(rows)
    terms, idf, weights = ["api", "gateway"], [1.0, 2.0], (1.0, 1.0, 1.0, 1.0)
    only_gateway = rank.bm25f(postings, terms, idf, weights, 4 / 3, ["gateway"])
    assert postings.rowids[only_gateway.positions].tolist() == [1, 3]
    assert only_gateway.held.tolist() == [3.0, 2.0]  # the idf each row holds
    within = np.array([False, True, True])
    flagged = rank.bm25f(postings, terms, idf, weights, 4 / 3, terms, within)
    assert postings.rowids[flagged.positions].tolist() == [2, 3]


def test_empty_postings_match_nothing() -> None:
    postings = build_postings([])
    assert postings.n_rows == 0 and postings.last_rowid == 0
    matches = rank.bm25f(postings, ["api"], [1.0], (1.0,) * 4, 1.0, ["api"])
    assert matches.positions.shape == (0,)


@pytest.mark.parametrize("split", [0, 1, 137, 299, 300])
def test_merged_postings_are_the_postings_of_all_the_rows(split: int) -> None:
    from cairn.core.rank.postings import merge_postings

    rows = corpus(300, seed=4)
    rows[5] = (rows[5][0], ("retry " * 300, "", "", ""), 300, rows[5][3])  # a count over 255
    whole = build_postings(rows)
    merged = merge_postings(build_postings(rows[:split]), build_postings(rows[split:]))
    assert merged.n_rows == whole.n_rows and merged.total_length == whole.total_length
    assert merged.rowids.tolist() == whole.rowids.tolist()
    assert set(merged.vocabulary) == set(whole.vocabulary)
    for term in whole.vocabulary:
        got, want = merged.postings(term), whole.postings(term)
        assert got is not None and want is not None
        assert got[0].tolist() == want[0].tolist()
        assert got[1].tolist() == want[1].tolist()


@pytest.mark.parametrize("seed", range(5))
def test_held_of_some_matches_is_the_running_sum_over_the_terms_postings(seed: int) -> None:
    # `held_at` looks the asked rows up in each term's postings instead of adding each
    # term's idf over all its rows: the floats of that running sum, for any rows asked.
    rows = corpus(400, seed)
    postings = build_postings(rows)
    terms = ["deploy", "unknownword", "gateway", "retry", "cache"]
    idf = [0.3, 9.0, 1.7, 2.9, 0.11]
    matches = rank.bm25f(postings, terms, idf, (1.0, 0.9, 0.6, 0.5), 4.0, terms)
    running = np.zeros(postings.n_rows)
    for term, value in zip(terms, idf, strict=True):
        found = postings.postings(term)
        if found is not None:
            running[found[0]] += value
    assert matches.held.tolist() == running[matches.positions].tolist()
    some = np.array(sorted(random.Random(seed).sample(range(matches.positions.shape[0]), 50)))
    assert matches.held_at(some).tolist() == running[matches.positions[some]].tolist()


def test_a_row_holding_only_a_term_not_required_is_not_matched_whatever_the_weights() -> None:
    # Rows are found by their score only when every term is required and every field weighs
    # something; otherwise by the required terms' postings.
    rows = [
        (1, ("", "", "", "api"), 1, 0),
        (2, ("gateway", "", "", ""), 1, 0),
        (3, ("api", "", "", ""), 1, 0),
    ]
    postings = build_postings(rows)
    terms, idf = ["api", "gateway"], [1.0, 2.0]
    no_reason = rank.bm25f(postings, terms, idf, (1.0, 1.0, 1.0, 0.0), 1.0, terms)
    assert postings.rowids[no_reason.positions].tolist() == [1, 2, 3]
    assert no_reason.scores.tolist()[0] == 0.0  # held, though its field weighs nothing
    every = rank.bm25f(postings, terms, idf, (1.0, 1.0, 1.0, 1.0), 1.0, terms)
    assert postings.rowids[every.positions].tolist() == [1, 2, 3]


@settings(max_examples=80, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 5000),
    st.integers(1, 600),
    st.sampled_from([0, 1, 3]),
)
def test_kth_largest_is_the_value_partition_puts_there(
    seed: int, n: int, k: int, decimals: int
) -> None:
    # Scores of many matches, with ties (rounded) or without; the k-th best read off a
    # sample's threshold is the float a full partition gives, whether the threshold held k
    # values or not.
    rng = np.random.default_rng(seed)
    values = np.round(rng.gamma(2.0, 2.0, n), decimals) if decimals else rng.gamma(2.0, 2.0, n)
    k = min(k, n)
    assert rank.kth_largest(values, k) == float(np.partition(values, n - k)[n - k])


def test_kth_largest_refuses_a_k_outside_the_values() -> None:
    with pytest.raises(ValueError):
        rank.kth_largest(np.array([1.0, 2.0]), 3)
    with pytest.raises(ValueError):
        rank.kth_largest(np.array([1.0, 2.0]), 0)
