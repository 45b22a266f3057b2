"""The secret detector: what it refuses and what it lets through."""

from __future__ import annotations

import pytest

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
