"""LSA: fitted in memory from 200 memories; re-orders keyword matches, lifts at most x2."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.rank.lsa import (
    MAX_LSA_LIFT,
    MIN_MEMORIES_FOR_LSA,
    LsaModel,
    fit,
    lsa_lift,
    rerank,
    use_lsa,
)

# Ten topics of 25 words each: topic 0 plays "database", topic 1 "frontend".
TOPICS = [[f"t{topic}w{word}" for word in range(25)] for topic in range(10)]
N_TOPICS = len(TOPICS)


@cache
def topic_corpus() -> tuple[list[list[str]], int, int]:
    """250 synthetic memories, 25 per topic, then two that share only the word "deploy"."""
    rng = random.Random(7)
    docs = [rng.sample(topic, 6) for topic in TOPICS for _ in range(25)]
    docs.append(["deploy", *TOPICS[0][1:3]])  # a "database" memory
    docs.append(["deploy", *TOPICS[1][1:3]])  # a "frontend" memory
    return docs, len(docs) - 2, len(docs) - 1


@cache
def topic_model() -> LsaModel:
    # As many dimensions as the synthetic corpus has topics: the latent space is the topics.
    return fit(topic_corpus()[0], dims=N_TOPICS)


def test_lsa_starts_at_two_hundred_memories() -> None:
    assert MIN_MEMORIES_FOR_LSA == 200
    assert not use_lsa(199)
    assert use_lsa(200)


def test_lsa_lift_by_hand() -> None:
    assert MAX_LSA_LIFT == 2.0
    assert lsa_lift(0.0) == 1.0
    assert lsa_lift(0.25) == 1.25
    assert lsa_lift(1.0) == 2.0
    assert lsa_lift(-0.8) == 1.0  # an opposed memory is not lowered
    assert lsa_lift(1.0000001) == 2.0  # a cosine rounding over 1 still lifts at most x2
    assert lsa_lift(float("nan")) == 1.0


def test_a_memory_on_the_query_topic_moves_up() -> None:
    docs, database_doc, frontend_doc = topic_corpus()
    assert len(docs) >= MIN_MEMORIES_FOR_LSA
    model = topic_model()
    query = ["deploy", TOPICS[0][0]]  # the topic word is in neither candidate
    assert model.similarity(query, database_doc) > model.similarity(query, frontend_doc)
    hits = [("frontend", 1.0, frontend_doc), ("database", 0.95, database_doc)]
    reranked = rerank(hits, model, query)
    assert [key for key, _ in reranked] == ["database", "frontend"]
    for (_, before, _), (_, after) in zip(sorted(hits), sorted(reranked), strict=True):
        assert before <= after <= 2 * before


def test_fit_is_deterministic() -> None:
    first, second = fit(topic_corpus()[0]), fit(topic_corpus()[0])
    assert np.array_equal(first.doc_vectors, second.doc_vectors)
    assert np.array_equal(first.term_vectors, second.term_vectors)


def test_topic_words_sit_closer_to_their_own_topic_at_default_dimensions() -> None:
    docs = topic_corpus()[0]
    model = fit(docs)
    word = TOPICS[0][0]
    own = [model.similarity([word], i) for i in range(25) if word not in docs[i]]
    other = [model.similarity([word], i) for i in range(25, 50)]
    assert sum(own) / len(own) > sum(other) / len(other)


def test_fit_keeps_at_most_sixty_four_dimensions() -> None:
    assert fit(topic_corpus()[0]).dims == 64
    rng = random.Random(3)
    words = [f"w{i}" for i in range(40)]
    assert fit([rng.sample(words, 6) for _ in range(300)]).dims == 39  # 40 terms - 1


def test_fit_clamps_dimensions_below_the_matrix_size() -> None:
    model = fit([["a", "b"], ["b", "c"], ["c", "d"]], dims=64)
    assert model.dims == 2  # min(4 terms, 3 docs) - 1
    assert model.n_docs == 3


def test_fit_of_a_tiny_corpus_gives_no_lift() -> None:
    model = fit([["a", "b"]])
    assert model.dims == 0
    assert model.similarity(["a"], 0) == 0.0
    assert fit([]).similarity(["a"], 0) == 0.0


def test_similarity_is_zero_for_unknown_words_and_documents() -> None:
    model = topic_model()
    word = TOPICS[0][0]
    assert model.similarity([word], 0) != 0.0
    assert model.similarity(["kubernetes"], 0) == 0.0
    assert model.similarity([], 0) == 0.0
    assert model.similarity([word], model.n_docs) == 0.0
    assert model.similarity([word], -1) == 0.0


def test_a_fitted_document_queried_by_its_own_words_has_similarity_one() -> None:
    # Folding a fitted column in, U_k^T x_d, lands on S_k v_d: the document's own vector.
    docs = topic_corpus()[0]
    model = fit(docs)
    for index in range(0, len(docs), 25):
        assert model.similarity(docs[index], index) == pytest.approx(1.0)


def test_similarity_is_a_cosine() -> None:
    model = topic_model()
    for index in range(0, model.n_docs, 17):
        assert -1.0 - 1e-9 <= model.similarity([TOPICS[0][0], TOPICS[1][0]], index) <= 1.0 + 1e-9


def test_rerank_without_a_model_orders_by_score() -> None:
    hits = [("a", 1.0, 0), ("b", 3.0, 1), ("c", 2.0, 2)]
    assert rerank(hits, None, ["x"]) == [("b", 3.0), ("c", 2.0), ("a", 1.0)]


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=10**6),
            st.floats(min_value=0, max_value=1e6),
            st.integers(min_value=-5, max_value=260),
        ),
        max_size=30,
        unique_by=lambda hit: hit[0],
    ),
    st.lists(st.sampled_from([*TOPICS[0], *TOPICS[1], "deploy", "unknown"]), max_size=4),
)
def test_rerank_never_adds_a_memory_and_never_more_than_doubles(
    hits: list[tuple[int, float, int]], query: list[str]
) -> None:
    reranked = rerank(hits, topic_model(), query)
    assert sorted(key for key, _ in reranked) == sorted(key for key, _, _ in hits)
    before = {key: value for key, value, _ in hits}
    for key, value in reranked:
        assert before[key] <= value <= 2 * before[key]
    assert [value for _, value in reranked] == sorted((v for _, v in reranked), reverse=True)


def test_importing_rank_does_not_import_numpy() -> None:
    # The hook's hot path must not pay for numpy or scipy: lsa imports them inside fit.
    code = (
        "import sys\n"
        "import cairn.rank, cairn.rank.lsa\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy')))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("dims", [0, -3])
def test_fit_with_no_dimensions_gives_no_lift(dims: int) -> None:
    model = fit(topic_corpus()[0], dims=dims)
    assert model.dims == 0
    assert model.similarity([TOPICS[0][0]], 0) == 0.0
