"""BM25F with Lucene's idf: hand-computed cases, and agreement with bm25s, rank_bm25, FTS5."""

from __future__ import annotations

import math
import sqlite3
from collections import Counter

import bm25s
import pytest
import rank_bm25
from hypothesis import given
from hypothesis import strategies as st

from cairn.core.rank.bm25 import FIELD_WEIGHTS, K1, B, idf, score, term_score
from cairn.core.text import analyse, analyse_text

ONE_FIELD = {"text": 1.0}

CORPUS = [
    ["deploy", "stage", "server", "deploy"],
    ["test", "refus", "run"],
    ["deploy", "product", "friday", "never", "never", "never"],
    ["migrat", "schema", "postgr"],
    ["server", "log", "rotat", "daili", "server"],
    ["never", "push", "main"],
]


def document_frequencies(corpus: list[list[str]]) -> dict[str, int]:
    return dict(Counter(term for doc in corpus for term in set(doc)))


def average_length(corpus: list[list[str]]) -> float:
    return sum(len(doc) for doc in corpus) / len(corpus)


def test_parameters_are_the_usual_defaults() -> None:
    assert (K1, B) == (1.2, 0.75)


def test_field_weights_rank_sentence_over_tags_over_citation_over_reason() -> None:
    assert list(FIELD_WEIGHTS) == ["sentence", "tags", "citation", "reason"]
    weights = FIELD_WEIGHTS
    assert weights["sentence"] > weights["tags"] > weights["citation"] > weights["reason"] > 0


def test_idf_by_hand() -> None:
    # ln(1 + (10 - 1 + 0.5) / (1 + 0.5)) = ln(22 / 3)
    assert idf(10, 1) == pytest.approx(math.log(22 / 3))
    assert idf(10, 1) == pytest.approx(1.992430, abs=1e-6)


def test_idf_of_a_term_in_every_doc_stays_positive() -> None:
    # 3 docs, all hold the term: ln(1 + 0.5 / 3.5) = ln(8 / 7)
    assert idf(3, 3) == pytest.approx(math.log(8 / 7))
    assert idf(3, 3) > 0


def test_idf_takes_a_df_over_n_as_n() -> None:
    assert idf(3, 5) == idf(3, 3) > 0


def test_idf_counts_rare_words_more() -> None:
    assert idf(100, 1) > idf(100, 10) > idf(100, 50) > idf(100, 100) > 0


def test_idf_refuses_negative_counts() -> None:
    with pytest.raises(ValueError, match="must be >= 0"):
        idf(3, -1)


def test_term_score_by_hand() -> None:
    # norm = 1 - 0.75 + 0.75 * 10 / 5 = 1.75; 1.5 * 2 * 2.2 / (2 + 1.2 * 1.75) = 6.6 / 4.1
    assert term_score(2, 10, 5, 1.5) == pytest.approx(6.6 / 4.1)
    assert term_score(2, 10, 5, 1.5) == pytest.approx(1.609756, abs=1e-6)


def test_term_score_of_an_absent_term_is_zero() -> None:
    assert term_score(0, 10, 5, 1.5) == 0.0


def test_term_score_refuses_an_empty_corpus_average() -> None:
    with pytest.raises(ValueError, match="avg_len"):
        term_score(1, 1, 0, 1.5)


def test_score_by_hand_over_weighted_fields() -> None:
    # weighted tf = 1 (sentence) + 0.9 (tags) = 1.9; |d| = 3 = avgdl, so norm = 1;
    # idf(4, 2) = ln(1 + 2.5 / 2.5) = ln 2; score = ln 2 * 1.9 * 2.2 / (1.9 + 1.2) = 0.934631
    assert (FIELD_WEIGHTS["sentence"], FIELD_WEIGHTS["tags"]) == (1.0, 0.9)
    fields = {"sentence": ["deploy", "stage"], "tags": ["deploy"]}
    expected = math.log(2) * 1.9 * 2.2 / 3.1
    got = score(["deploy"], fields, {"deploy": 2}, n_docs=4, avg_len=3.0)
    assert got == pytest.approx(expected)
    assert got == pytest.approx(0.934631, abs=1e-6)


def test_a_memory_that_is_all_sentence_scores_as_plain_bm25() -> None:
    # Field weights re-weigh the other fields against the sentence; they must not change
    # k1's saturation for a memory with no other field (a sentence weighing 2 acted as k1
    # halved, which cost the GCIDE set 0.012 nDCG@10).
    fields = {"sentence": ["deploy", "deploy", "stage", "api"]}
    df = {"deploy": 3, "api": 1}
    unweighted = dict.fromkeys(FIELD_WEIGHTS, 1.0)
    for query in (["deploy"], ["deploy", "api"], ["api", "stage"]):
        weighted = score(query, fields, df, n_docs=10, avg_len=3.0)
        plain = score(query, fields, df, n_docs=10, avg_len=3.0, weights=unweighted)
        assert weighted == pytest.approx(plain)


def test_score_counts_a_repeated_query_term_once() -> None:
    fields = {"sentence": ["deploy", "stage"], "tags": ["deploy"]}
    once = score(["deploy"], fields, {"deploy": 2}, n_docs=4, avg_len=3.0)
    assert score(["deploy", "deploy", "nowhere"], fields, {"deploy": 2}, 4, 3.0) == once


def test_score_weighs_a_sentence_match_over_a_reason_match() -> None:
    df = {"deploy": 1}
    in_sentence = score(["deploy"], {"sentence": ["deploy", "x"], "reason": ["y"]}, df, 5, 3.0)
    in_reason = score(["deploy"], {"sentence": ["x", "y"], "reason": ["deploy"]}, df, 5, 3.0)
    assert in_sentence > in_reason > 0


def test_score_refuses_a_field_without_weight() -> None:
    with pytest.raises(ValueError, match="no weight for field"):
        score(["a"], {"title": ["a"]}, {"a": 1}, 1, 1.0)


@pytest.mark.parametrize("query", [["deploy"], ["deploy", "server", "never"], ["refus", "zzz"]])
def test_score_equals_bm25s_lucene_idf_with_k1_plus_1(query: list[str]) -> None:
    # bm25s "atire" saturation is ours, tf*(k1+1) / (tf + k1*norm); with Lucene's idf it is
    # this module's formula exactly.
    reference = bm25s.BM25(method="atire", idf_method="lucene", k1=1.2, b=0.75, dtype="float64")
    reference.index(CORPUS, show_progress=False)
    expected = reference.get_scores(query)
    df, avg = document_frequencies(CORPUS), average_length(CORPUS)
    for doc, want in zip(CORPUS, expected, strict=True):
        assert score(query, {"text": doc}, df, len(CORPUS), avg, ONE_FIELD) == pytest.approx(
            float(want), abs=1e-6
        )


def test_score_is_bm25s_lucene_times_k1_plus_1() -> None:
    # bm25s "lucene" (like Lucene 8+) drops the constant (k1 + 1) factor: same ranking.
    reference = bm25s.BM25(method="lucene", k1=1.2, b=0.75, dtype="float64")
    reference.index(CORPUS, show_progress=False)
    query = ["deploy", "server", "never", "schema"]
    expected = reference.get_scores(query)
    df, avg = document_frequencies(CORPUS), average_length(CORPUS)
    for doc, want in zip(CORPUS, expected, strict=True):
        ours = score(query, {"text": doc}, df, len(CORPUS), avg, ONE_FIELD)
        assert ours == pytest.approx((K1 + 1) * float(want), abs=1e-6)


def test_term_score_agrees_with_rank_bm25_okapi_given_its_idf() -> None:
    # rank_bm25's BM25Okapi has our saturation but idf ln((N - df + 0.5) / (df + 0.5)):
    # feeding its idf to term_score must give its scores (terms in under half the docs, so
    # its negative-idf floor does not apply).
    okapi = rank_bm25.BM25Okapi(CORPUS, k1=1.2, b=0.75)
    query = ["stage", "refus", "schema", "push"]
    expected = okapi.get_scores(query)
    avg = average_length(CORPUS)
    for doc, want in zip(CORPUS, expected, strict=True):
        counts = Counter(doc)
        ours = sum(term_score(counts[t], len(doc), avg, okapi.idf[t]) for t in query)
        assert ours == pytest.approx(float(want), abs=1e-9)


def test_score_combines_fields_as_fts5_bm25_does() -> None:
    # FTS5's bm25() sums weight x tf over columns, takes |d| over all columns and avgdl as
    # their mean; only its idf, ln((N - df + 0.5) / (df + 0.5)), differs. For a one-term
    # query the two scores therefore differ by the ratio of the idfs alone. (The term is in
    # under half the rows: FTS5 floors its idf at 1e-6 from half on.)
    rows = [
        ("Deploy to staging first", "deploy ci", "Makefile", "staging broke once"),
        ("Never deploy on Friday", "release", "docs/release.md", "the deploy broke prod"),
        ("Logs rotate daily", "ops", "etc/logrotate.conf", "disk filled up"),
        ("Run migrations first", "db", "scripts/deploy.sh", "schema drift"),
        ("Use ruff for linting", "lint", "pyproject.toml", "one tool"),
        ("Tests run in CI", "ci", ".github/workflows/ci.yml", "keep main green"),
        ("Pin tool versions", "deps", "pyproject.toml", "reproducible builds"),
        ("Rotate the API token monthly", "security", "", "policy"),
    ]
    names = ["sentence", "tags", "citation", "reason"]
    weights = [FIELD_WEIGHTS[name] for name in names]
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE m USING fts5({', '.join(names)})")
    db.executemany(
        "INSERT INTO m VALUES (?, ?, ?, ?)", [tuple(analyse_text(f) for f in r) for r in rows]
    )
    fts = dict(
        db.execute(
            f"SELECT rowid, -bm25(m, {', '.join(map(str, weights))}) FROM m WHERE m MATCH ?",
            ("deploy",),
        ).fetchall()
    )
    docs = [{name: analyse(text) for name, text in zip(names, r, strict=True)} for r in rows]
    df = Counter(t for d in docs for t in {t for tokens in d.values() for t in tokens})
    avg = sum(len(t) for d in docs for t in d.values()) / len(docs)
    n, hits = len(docs), df["deploy"]
    ratio = math.log((n - hits + 0.5) / (hits + 0.5)) / idf(n, hits)
    assert (n, hits) == (8, 3)
    assert set(fts) == {1, 2, 4}
    for rowid, fts_score in fts.items():
        assert score(["deploy"], docs[rowid - 1], df, n, avg) * ratio == pytest.approx(fts_score)


def test_rare_words_count_more() -> None:
    df, avg = document_frequencies(CORPUS), average_length(CORPUS)
    common = score(["never"], {"text": ["never", "x", "y"]}, df, len(CORPUS), avg, ONE_FIELD)
    rare = score(["push"], {"text": ["push", "x", "y"]}, df, len(CORPUS), avg, ONE_FIELD)
    assert rare > common


words = st.sampled_from(["a", "b", "c", "d", "e"])
corpora = st.lists(st.lists(words, max_size=8), min_size=1, max_size=8)


@given(corpora, st.lists(words, max_size=4))
def test_score_is_never_negative(corpus: list[list[str]], query: list[str]) -> None:
    df, n = document_frequencies(corpus), len(corpus)
    avg = average_length(corpus) or 1.0
    for doc in corpus:
        half = len(doc) // 2
        fields = {"sentence": doc[:half], "reason": doc[half:]}
        assert score(query, fields, df, n, avg) >= 0
