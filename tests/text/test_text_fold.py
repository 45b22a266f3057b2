"""fold: case, accents and Unicode presentation forms folded; punctuation kept."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.core.text import fold


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("préproduction", "preproduction"),
        ("PRÉPRODUCTION", "preproduction"),
        ("Straße", "strasse"),
        ("Ångström naïve façade", "angstrom naive facade"),
        ("e\u0301te\u0301", "ete"),  # accents given as separate combining marks
        ("\ufb01le", "file"),  # the "fi" ligature (NFKC)
        ("\uff46\uff55\uff4c\uff4c", "full"),  # fullwidth forms (NFKC)
        ("ΣΊΣΥΦΟΣ", "σισυφοσ"),
        ("MiXeD CaSe", "mixed case"),
    ],
)
def test_fold_removes_case_and_accents(text: str, folded: str) -> None:
    assert fold(text) == folded


@pytest.mark.parametrize("text", ["git-commit", "src/app.py", "snake_case", "a, b; c!", "x == y"])
def test_fold_keeps_punctuation(text: str) -> None:
    assert fold(text) == text


def test_fold_keeps_marks_that_are_part_of_other_scripts() -> None:
    # The dakuten tells が (ga) from か (ka); an Indic vowel sign belongs to its word.
    assert fold("が") == "が"
    assert fold("が") != fold("か")
    assert fold("नमस्ते") == "नमस्ते"


def test_fold_of_empty_text_is_empty() -> None:
    assert fold("") == ""


@given(st.text())
def test_fold_is_idempotent(text: str) -> None:
    once = fold(text)
    assert fold(once) == once


@given(st.text(alphabet=st.characters(codec="ascii")))
def test_fold_of_ascii_is_lowercase(text: str) -> None:
    assert fold(text) == text.lower()
