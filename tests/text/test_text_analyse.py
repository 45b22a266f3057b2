"""tokenize and analyse: the words documents are indexed by and queries look up."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.core.text import STOPWORDS, analyse, analyse_fields, analyse_text, tokenize
from cairn.core.text.stopwords import KEPT


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("git-commit", ["git", "commit"]),
        ("src/app.py", ["src", "app", "py"]),
        ("snake_case", ["snake", "case"]),
        ("Error 404 on v1.2.3", ["error", "404", "on", "v1", "2", "3"]),
        ("Préproduction, then PROD!", ["preproduction", "then", "prod"]),
        ("記憶を保存 東京", ["記憶を保存", "東京"]),  # CJK runs stay whole
        ("नमस्ते दुनिया", ["नमस्ते", "दुनिया"]),  # vowel signs stay inside the word
        ("", []),
        ("--- /// ___", []),
    ],
)
def test_tokenize_splits_on_anything_but_letters_and_digits(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


@given(st.text())
def test_tokenize_never_yields_an_empty_token(text: str) -> None:
    assert all(tokenize(text))


@given(st.text())
def test_tokenize_yields_no_separator_inside_a_token(text: str) -> None:
    for token in tokenize(text):
        assert not any(char.isspace() or char in "_-/.,;:" for char in token)


def test_analyse_matches_refused_with_refusal() -> None:
    assert analyse("refused") == analyse("refusal") == ["refus"]


def test_analyse_folds_accents_before_stemming() -> None:
    assert analyse("préproduction") == analyse("preproduction") == analyse("PREPRODUCTION")


def test_analyse_drops_stopwords_and_keeps_the_subject() -> None:
    assert analyse("How do we deploy to the staging server?") == ["deploy", "stage", "server"]


@pytest.mark.parametrize("word", sorted(KEPT))
def test_analyse_keeps_words_that_matter_in_code_talk(word: str) -> None:
    assert analyse(word) != []


def test_stopwords_stay_short_and_never_hold_a_kept_word() -> None:
    assert 30 <= len(STOPWORDS) <= 45
    assert not STOPWORDS & KEPT
    assert {"the", "a", "an", "of", "to", "is"} <= STOPWORDS


def test_analyse_keeps_negation_and_order() -> None:
    assert analyse("never push before tests, not after") == [
        "never",
        "push",
        "befor",
        "test",
        "not",
        "after",
    ]


def test_analyse_text_is_analyse_joined_by_spaces() -> None:
    text = "The tests refused to run on préproduction"
    assert analyse_text(text) == " ".join(analyse(text)) == "test refus run on preproduct"


def test_analyse_of_only_stopwords_is_empty() -> None:
    assert analyse("the of a to is") == []
    assert analyse_text("the") == ""


@given(st.text())
def test_analyse_never_raises_and_yields_words(text: str) -> None:
    assert all(isinstance(word, str) and word for word in analyse(text))


def test_text_imports_only_stdlib_and_stemmer() -> None:
    # The hook's hot path may analyse text: importing cairn.core.text must stay this light.
    code = (
        "import sys\n"
        "import cairn\n"
        "before = set(sys.modules)\n"
        "import cairn.core.text\n"
        "extra = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "extra -= set(sys.stdlib_module_names) | {'cairn', 'Stemmer'}\n"
        # Stemmer is compiled with Cython: its runtime registers `cython_runtime`, `_cython_*`.
        "print(' '.join(sorted(m for m in extra if 'cython' not in m)))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.split() == []


@given(st.lists(st.text(), max_size=5))
def test_analyse_fields_is_analyse_text_of_each_field(fields: list[str]) -> None:
    expected = [analyse_text(f) for f in fields]
    assert analyse_fields(fields) == expected
    assert analyse_fields([(tokenize(f), f) for f in fields]) == expected


def test_analyse_fields_keeps_empty_fields_in_place() -> None:
    assert analyse_fields(["", "the refusals", "", "Running"]) == ["", "refus", "", "run"]
    assert analyse_fields(["the", ""]) == ["", ""]


def test_cached_stems_agree_with_the_stemmer_and_the_cache_stays_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    import Stemmer

    module = importlib.import_module("cairn.core.text.analyse")
    monkeypatch.setattr(module, "STEM_CACHE_SIZE", 4)
    monkeypatch.setattr(module, "_STEMS", {})
    stemmer = Stemmer.Stemmer("english")
    first = ["running", "refusals", "deployed"]
    assert analyse(" ".join(first)) == stemmer.stemWords(first)
    assert analyse(" ".join(first)) == stemmer.stemWords(first)  # now from the cache
    second = ["caches", "tested", "flakiest"]
    assert analyse_fields([" ".join(second), "running"]) == [
        " ".join(stemmer.stemWords(second)),
        "run",
    ]
    assert len(module._STEMS) == 6
    assert analyse("zebras") == ["zebra"]  # a miss with the cache full: cleared, then filled
    assert module._STEMS == {"zebras": "zebra"}


def test_a_stem_cache_miss_stems_only_the_words_not_cached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    import Stemmer

    module = importlib.import_module("cairn.core.text.analyse")
    stemmer = Stemmer.Stemmer("english")
    asked: list[list[str]] = []

    class Counting:
        def stemWords(self, words: list[str]) -> list[str]:
            asked.append(list(words))
            return list(stemmer.stemWords(words))

    monkeypatch.setattr(module, "_STEMMER", Counting())
    monkeypatch.setattr(module, "_STEMS", {})
    assert analyse("running refusals deployed") == ["run", "refus", "deploy"]
    words = ["running", "zebras", "refusals", "zebras", "flakiest", "running"]
    assert analyse(" ".join(words)) == stemmer.stemWords(words)
    assert asked == [["running", "refusals", "deployed"], ["zebras", "flakiest"]]
