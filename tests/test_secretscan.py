"""The secret detector: what it refuses and what it lets through."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn import secretscan
from cairn.secretscan import find_secret, shannon_entropy


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("key AKIAIOSFODNN7EXAMPLE here", "AWS"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "GitHub"),
        ("github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV", "GitHub"),
        ("glpat-abcdefghij0123456789", "GitLab"),
        ("sk-ant-api03-abcdefghijklmnopqrstuvwx", "Anthropic"),
        ("sk-proj-abcdefghijklmnopqrstuvwx", "OpenAI"),
        ("sk_live_abcdefghijklmnop1234", "Stripe"),
        ("xoxb-123456789012-abcdefghij", "Slack"),
        ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "Google"),
        ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key"),
        ("-----BEGIN PRIVATE KEY-----", "private key"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "JSON web"),
        ("postgres://admin:s3cretpw@db.internal:5432/app", "URL"),
        ("DB_PASSWORD=Tr0ub4dor&3", "password"),
        ('password: "correct-horse-battery"', "password"),
        ("the api_key is 9f8e7d6c5b4a", "secret"),
        ("token for ci: Zx9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz", "high-entropy"),
    ],
)
def test_secrets_are_found(text: str, what: str) -> None:
    found = find_secret(text)
    assert found is not None and what.lower() in found.lower()


@pytest.mark.parametrize(
    "text",
    [
        "We deploy with Render after CI is green",
        "The password reset email is sent by services/mail/reset.ts",
        "Set the token in the TOKEN env var: token=$DEPLOY_TOKEN",
        "password: <your password>",
        "api_key=os.environ['API_KEY']",
        "reverted in 3f9a2c1d4e5b6a7980f1e2d3c4b5a69788796a5b",
        "secret is stored_in_vault",
        "The token refresh logic lives in src/auth/refresh_token_handler.py",
        "pnpm test --filter api -- --runInBand",
        "keys are rotated monthly by the platform team",
    ],
)
def test_ordinary_sentences_pass(text: str) -> None:
    assert find_secret(text) is None


def test_entropy_of_a_repeated_char_is_zero() -> None:
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("ab") == pytest.approx(1.0)
    assert shannon_entropy("") == 0.0


# -- the pre-filters: they only skip scans that could not have found anything ------------------

# Pieces that make the scanners' work interesting: hints, secret words in any case, near misses.
_PIECES = st.sampled_from(
    [
        "AKIA", "sk-", "sk-ant-", "_live_", "xox", "://", "eyJ", "SG.", "SK", "hf_", "npm_",
        "-----BEGIN ", "PRIVATE KEY-----", "hooks.slack.com/services/T", "PASSWORD", "Token",
        "api_key", "Api-Key", "secret", "pass", "credential", " = ", ": ", " is ", "'", '"',
        "Zx9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz", "0123456789abcdef0123456789abcdef", "é",
        "\u212a", "\u017f",  # the Kelvin sign and the long s, which (?i) matches as k and s
    ]
)  # fmt: skip
_TEXTS = st.lists(_PIECES | st.text(max_size=6), max_size=12).map("".join)


@pytest.mark.parametrize(("name", "hints", "pattern"), secretscan._TOKEN_SHAPES)
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_every_match_of_a_shape_holds_one_of_its_hints(
    name: str, hints: tuple[str, ...], pattern: re.Pattern[str], data: st.DataObject
) -> None:
    text = data.draw(st.from_regex(pattern))
    assert any(hint in text for hint in hints), name


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_text_without_a_hint_matches_no_shape(text: str) -> None:
    if secretscan._ANY_HINT.search(text) is None:
        assert secretscan._ANY_SHAPE.search(text) is None


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_the_lowered_ascii_scan_finds_the_same_secret_words(text: str) -> None:
    expected = secretscan._NEAR_WORD.search(text) is not None
    assert secretscan._has_secret_word(text) == expected


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_an_assignment_always_names_a_secret_word(text: str) -> None:
    if secretscan._ASSIGNMENT.search(text) is not None:
        assert secretscan._has_secret_word(text)


def test_a_secret_after_a_hint_free_field_is_still_found() -> None:
    assert find_secret("plain words, then sk_live_abcdefghijklmnop1234") == "a Stripe key"
    assert find_secret("no key words here at all") is None


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXTS, min_size=1, max_size=4))
def test_joined_fields_without_a_hint_or_word_hold_no_secret(fields: list[str]) -> None:
    if not secretscan.may_hold_secret("\n".join(fields)):
        assert all(find_secret(f) is None for f in fields)
