"""analyse_query: a query loses its question and filler words; joined words keep their parts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.core.text import analyse
from cairn.core.text.query import analyse_query
from cairn.core.text.stopwords import KEPT, QUESTION_WORDS, STOPWORDS


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("can customers checkout without an account", ["custom", "checkout", "without", "account"]),
        ("how should we store passwords", ["store", "password"]),
        ("please tell me how to run the api tests", ["run", "api", "test"]),
        ("what do I need to know about the release process", ["releas", "process"]),
        ("should I put it into the cache", ["put", "cach"]),
    ],
)
def test_a_query_loses_its_question_and_filler_words(query: str, terms: list[str]) -> None:
    assert analyse_query(query).terms == terms


def test_question_words_are_dropped_from_queries_only() -> None:
    # A memory keeps "can" and "should": they are only dropped from what is asked.
    assert "can" in analyse("the worker can retry twice")
    assert "can" not in analyse_query("can the worker retry").terms


def test_a_query_of_question_words_alone_keeps_them() -> None:
    assert analyse_query("should I?").terms == ["should"]
    assert analyse_query("the a an").terms == []


def test_question_words_never_hold_a_stopword_or_a_kept_word() -> None:
    assert not QUESTION_WORDS & STOPWORDS
    assert not QUESTION_WORDS & KEPT
    assert {"can", "should", "into", "please"} <= QUESTION_WORDS


@pytest.mark.parametrize(
    ("written", "joined"),
    [
        ("pre-production", "preproduct"),
        ("e-mail", "email"),
        ("Node.js", "nodej"),
        ("CI/CD", "cicd"),
        ("sign-up", "signup"),
    ],
)
def test_a_word_with_punctuation_inside_is_indexed_joined_and_split(
    written: str, joined: str
) -> None:
    words = analyse(written)
    assert joined in words
    assert analyse(joined.replace("nodej", "nodejs")) == [joined]
    assert all(part in words for part in analyse(written.replace("-", " ").replace(".", " ")))


def test_a_long_path_and_a_version_are_not_joined() -> None:
    assert analyse("v1.2.3") == ["v1", "2", "3"]
    assert analyse("services/api/src/logger.ts") == ["servic", "api", "src", "logger", "ts"]


def test_a_query_knows_which_parts_make_a_joined_word() -> None:
    query = analyse_query("pre-production database")
    assert query.terms == ["pre", "product", "databas", "preproduct"]
    assert query.groups == {"preproduct": ("pre", "product")}
    assert query.units() == [("databas",), ("preproduct", "pre", "product")]


@given(st.text())
def test_analyse_query_never_raises_and_gives_distinct_terms(text: str) -> None:
    query = analyse_query(text)
    assert len(query.terms) == len(set(query.terms))
    assert all(query.terms)
