"""LSA: fitted in memory from 200 memories; re-orders keyword matches, lifts at most x2."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.core.rank.lsa import (
    FIT_SAMPLE,
    LIFT_POWER,
    LIFT_SHARE,
    MAX_LSA_LIFT,
    MIN_MEMORIES_FOR_LSA,
    LsaModel,
    doc_rows,
    fit,
    lsa_lift,
    rerank,
    residual_similarities,
    use_lsa,
)

# Ten topics of 25 words each: topic 0 plays "database", topic 1 "frontend".
TOPICS = [[f"t{topic}w{word}" for word in range(25)] for topic in range(10)]
N_TOPICS = len(TOPICS)


def counted(words: list[str]) -> Counter[str]:
    return Counter(words)


def fitted(docs: list[list[str]], **kw: int) -> LsaModel:
    counts = [counted(d) for d in docs]
    df: Counter[str] = Counter()
    for doc in counts:
        df.update(doc.keys())
    return fit(counts, df, len(counts), **kw)


@cache
def topic_corpus() -> tuple[list[list[str]], Counter[str], Counter[str]]:
    """250 synthetic memories, 25 per topic, then two that share only the word "deploy"."""
    rng = random.Random(7)
    docs = [rng.sample(topic, 6) for topic in TOPICS for _ in range(25)]
    docs.append(["deploy", *TOPICS[0][1:3]])  # a "database" memory
    docs.append(["deploy", *TOPICS[1][1:3]])  # a "frontend" memory
    return docs, counted(docs[-2]), counted(docs[-1])


def common(topic: int) -> str:
    """The word of a topic held by the most memories (a word held by one is not modelled)."""
    df = Counter(w for doc in topic_corpus()[0] for w in set(doc))
    return max(TOPICS[topic][3:], key=lambda w: (df[w], w))


@cache
def topic_model() -> LsaModel:
    # As many dimensions as the synthetic corpus has topics: the latent space is the topics.
    return fitted(topic_corpus()[0], dims=N_TOPICS)


def test_lsa_starts_at_two_hundred_memories() -> None:
    assert MIN_MEMORIES_FOR_LSA == 200
    assert not use_lsa(199)
    assert use_lsa(200)


def test_lsa_lift_by_hand() -> None:
    assert MAX_LSA_LIFT == 2.0
    assert 0.0 < LIFT_SHARE <= MAX_LSA_LIFT - 1.0
    assert lsa_lift(0.0) == 1.0
    assert lsa_lift(1.0) == 1.0 + LIFT_SHARE
    assert lsa_lift(-0.8) == 1.0  # an opposed memory is not lowered
    assert lsa_lift(1.0000001) == 1.0 + LIFT_SHARE  # a cosine rounding over 1
    assert lsa_lift(float("nan")) == 1.0
    assert 1.0 < lsa_lift(0.5) < lsa_lift(0.9)
    # The square: a loosely related match is lifted little, a close one more.
    assert (LIFT_SHARE, LIFT_POWER) == (0.1, 2.0)
    assert lsa_lift(0.5) == pytest.approx(1.025)
    assert lsa_lift(0.9) == pytest.approx(1.081)


def test_a_memory_on_the_query_topic_moves_up() -> None:
    docs, database_doc, frontend_doc = topic_corpus()
    assert len(docs) >= MIN_MEMORIES_FOR_LSA
    model = topic_model()
    query = ["deploy", common(0)]  # the topic word is in neither candidate
    assert model.similarity(query, database_doc) > model.similarity(query, frontend_doc)
    hits = [("frontend", 1.0, frontend_doc), ("database", 0.99, database_doc)]
    reranked = rerank(hits, model, query)
    assert [key for key, _ in reranked] == ["database", "frontend"]
    for (_, before, _), (_, after) in zip(sorted(hits), sorted(reranked), strict=True):
        assert before <= after <= 2 * before


def test_fit_is_deterministic() -> None:
    first, second = fitted(topic_corpus()[0]), fitted(topic_corpus()[0])
    assert np.array_equal(first.term_vectors, second.term_vectors)


def test_topic_words_sit_closer_to_their_own_topic_at_default_dimensions() -> None:
    docs = topic_corpus()[0]
    model = fitted(docs)
    word = common(0)
    own = [model.similarity([word], counted(docs[i])) for i in range(25) if word not in docs[i]]
    other = [model.similarity([word], counted(docs[i])) for i in range(25, 50)]
    assert sum(own) / len(own) > sum(other) / len(other)


def test_fit_clamps_dimensions_below_the_matrix_size() -> None:
    model = fitted([["a", "b"], ["b", "c"], ["c", "a"], ["a", "b"]], dims=64)
    assert model.dims == 2  # min(3 terms, 4 docs) - 1


def test_a_word_held_by_one_memory_alone_is_not_in_the_model() -> None:
    # It relates no two memories: it only makes the model bigger.
    model = fitted([["a", "b", "once"], ["b", "c"], ["c", "a"], ["a", "b"]])
    assert "once" not in model.vocabulary and "a" in model.vocabulary


def test_fit_sees_at_most_the_sample_and_still_folds_every_memory_in() -> None:
    docs = topic_corpus()[0]
    small = fitted(docs, dims=N_TOPICS, sample=84)  # every third memory
    sampled = {w for doc in docs[::3] for w in doc}
    assert set(small.vocabulary) <= sampled
    # A memory left out of the sample folds in all the same, close to its topic's words.
    word = common(1)
    unsampled = counted(docs[26])
    assert small.similarity([word], unsampled) > small.similarity([word], counted(docs[1]))
    assert FIT_SAMPLE >= 1000


def test_fit_of_a_tiny_corpus_gives_no_lift() -> None:
    model = fitted([["a", "b"]])
    assert model.dims == 0
    assert model.similarity(["a"], counted(["a"])) == 0.0
    assert fitted([]).similarity(["a"], counted(["a"])) == 0.0


def test_similarity_is_zero_for_unknown_words_and_documents() -> None:
    model = topic_model()
    word = common(0)
    doc = counted(topic_corpus()[0][0])
    assert model.similarity([word], doc) != 0.0
    assert model.similarity(["kubernetes"], doc) == 0.0
    assert model.similarity([], doc) == 0.0
    assert model.similarity([word], counted(["kubernetes"])) == 0.0


def test_similarity_is_a_cosine() -> None:
    model = topic_model()
    for doc in topic_corpus()[0][::17]:
        sim = model.similarity([common(0), common(1)], counted(doc))
        assert -1.0 - 1e-6 <= sim <= 1.0 + 1e-6


def test_rerank_without_a_model_orders_by_score() -> None:
    empty: Counter[str] = Counter()
    hits = [("a", 1.0, empty), ("b", 3.0, empty), ("c", 2.0, empty)]
    assert rerank(hits, None, ["x"]) == [("b", 3.0), ("c", 2.0), ("a", 1.0)]


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=10**6),
            st.floats(min_value=0, max_value=1e6),
            st.integers(min_value=0, max_value=251),
        ),
        max_size=30,
        unique_by=lambda hit: hit[0],
    ),
    st.lists(st.sampled_from([*TOPICS[0], *TOPICS[1], "deploy", "unknown"]), max_size=4),
)
def test_rerank_never_adds_a_memory_and_never_more_than_doubles(
    hits: list[tuple[int, float, int]], query: list[str]
) -> None:
    docs = topic_corpus()[0]
    given_hits = [(key, value, counted(docs[at])) for key, value, at in hits]
    reranked = rerank(given_hits, topic_model(), query)
    assert sorted(key for key, _ in reranked) == sorted(key for key, _, _ in hits)
    before = {key: value for key, value, _ in hits}
    for key, value in reranked:
        assert before[key] <= value <= MAX_LSA_LIFT * before[key]
    assert [value for _, value in reranked] == sorted((v for _, v in reranked), reverse=True)


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=10**6),
            st.floats(min_value=0.001, max_value=1e6),
            st.integers(min_value=0, max_value=251),
        ),
        min_size=2,
        max_size=30,
        unique_by=lambda hit: hit[0],
    ),
    st.lists(st.sampled_from([*TOPICS[0], *TOPICS[1], "deploy", "unknown"]), max_size=4),
)
def test_rerank_never_demotes_a_clear_keyword_winner(
    hits: list[tuple[int, float, int]], query: list[str]
) -> None:
    # A match scoring over (1 + LIFT_SHARE) x another's stays ahead of it: LSA re-orders only
    # matches within its lift of each other, never against a larger BM25 gap.
    docs = topic_corpus()[0]
    reranked = rerank([(k, v, counted(docs[at])) for k, v, at in hits], topic_model(), query)
    place = {key: n for n, (key, _) in enumerate(reranked)}
    for a, score_a, _ in hits:
        for b, score_b, _ in hits:
            if score_a > score_b * (1.0 + LIFT_SHARE) * (1 + 1e-9):
                assert place[a] < place[b]


def test_importing_rank_does_not_import_numpy() -> None:
    # The hook's hot path must not pay for numpy or scipy: lsa imports them inside fit.
    code = (
        "import sys\n"
        "import cairn.core.rank, cairn.core.rank.lsa\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy')))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("dims", [0, -3])
def test_fit_with_no_dimensions_gives_no_lift(dims: int) -> None:
    model = fitted(topic_corpus()[0], dims=dims)
    assert model.dims == 0
    assert model.similarity([common(0)], counted(topic_corpus()[0][0])) == 0.0


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, len(topic_corpus()[0]) - 1), min_size=1, max_size=12),
    st.lists(st.sampled_from(sorted({w for d in topic_corpus()[0] for w in d})), max_size=4),
)
def test_residual_similarities_of_kept_terms_are_those_of_the_counts(
    at: list[int], query: list[str]
) -> None:
    # What a caller keeps of a memory (`terms_of`: its words' rows and weights) folds to the
    # very floats its word counts do, with the query's words left out of both sides.
    model = topic_model()
    docs = [counted(topic_corpus()[0][k]) for k in at] + [Counter({"unheard": 2})]
    from_counts = residual_similarities(model, query, docs)
    from_kept = residual_similarities(model, query, [model.terms_of(d) for d in docs])
    assert from_kept.tolist() == from_counts.tolist()
    assert from_counts[-1] == 0.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, len(topic_corpus()[0]) - 1), max_size=10), st.integers(0, 9))
def test_fold_adds_each_documents_words_in_order_from_zero(at: list[int], empty: int) -> None:
    # The fold is U_k^T w(., d) summed word by word in the document's order from 0.0 (as
    # np.add.at adds), a document with no word of the model folding to 0.
    model = topic_model()
    docs = [counted(topic_corpus()[0][k]) for k in at]
    docs.insert(min(empty, len(docs)), Counter({"unheard": 1}))
    expected = np.zeros((len(docs), model.dims))
    for k, doc in enumerate(docs):
        rows, weights = model.terms_of(doc)
        for row, weight in zip(rows.tolist(), weights.tolist(), strict=True):
            expected[k] += weight * model.term_vectors[row].astype(np.float64)
    norms = np.linalg.norm(expected, axis=1, keepdims=True)
    expected /= np.where(norms == 0.0, 1.0, norms)
    assert model.fold(docs).tolist() == expected.tolist()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from([*sorted({w for d in topic_corpus()[0] for w in d})[:40], "unheard"]),
            max_size=14,
        ),
        max_size=8,
    )
)
def test_doc_rows_lays_out_each_document_as_terms_of_gives_it(docs: list[list[str]]) -> None:
    # Every row's words through the model, laid out at once (what recall keeps for every row
    # of a store): each document's model words in the order they first occur, with the very
    # weights `terms_of` gives of its counts; a document with none holds an empty range.
    model = topic_model()
    starts, index, weights = doc_rows(model, [" ".join(d) for d in docs])
    assert starts.shape[0] == len(docs) + 1 and int(starts[0]) == 0
    for k, doc in enumerate(docs):
        rows, expected = model.terms_of(counted(doc))
        lo, hi = int(starts[k]), int(starts[k + 1])
        assert index[lo:hi].tolist() == rows.tolist()
        assert weights[lo:hi].tobytes() == expected.tobytes()


@pytest.mark.parametrize("cells", [1 << 20, 0])  # by np.bincount, or (too many) np.add.at
def test_fold_of_words_not_laid_out_by_document_adds_them_in_the_order_given(
    cells: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `folded` of entries whose documents are not in ascending order (no layout by document):
    # each document's words are added in the order they are given, from 0.0, as np.add.at
    # adds them.
    monkeypatch.setattr("cairn.core.rank.lsa.FOLD_CELLS", cells)
    model = topic_model()
    rng = np.random.default_rng(3)
    index = rng.integers(0, len(model.vocabulary), 30)
    weights = rng.random(30) * 4
    at = rng.integers(0, 5, 30)
    expected = np.zeros((5, model.dims))
    for row, weight, doc in zip(index.tolist(), weights.tolist(), at.tolist(), strict=True):
        expected[doc] += weight * model.term_vectors[row].astype(np.float64)
    norms = np.linalg.norm(expected, axis=1, keepdims=True)
    expected /= np.where(norms == 0.0, 1.0, norms)
    assert model.folded(5, index, weights, at).tolist() == expected.tolist()
