"""The secret scan: what it refuses, what it lets through, and that its quick check never
skips a rule that would have found something."""

from __future__ import annotations

import itertools
import re

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

import cairn
from cairn.api import Cairn
from cairn.core import secretscan
from cairn.core.secretscan import find_secret, may_hold_secret, randomness, shapes, values

# A private key's first body line, a random AWS secret key, a random Azure account key: made
# up for these tests, not credentials.
PEM_BODY = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8Z1BjP5CE/Wm/Rr500PRK+Lh9x8bX"
AWS_SECRET = "Zqt5d29MPBiW8sS/NZwEMvKiECVZ/RyNMyceZDic"
AZURE_KEY = (
    "q1Yp3Vb7Kx9s0Lm2Nw4Rt6Yu8Io0Pa2Sd4Fg6Hj8Kl1Zx3Cv5Bn7Mq9We1Rt3Yu5Io7Pa9Sd1Fg3Hj5Kl7Zx9C=="
)

# -- the cases issue 14 lists, both ways ---------------------------------------------------------

ISSUE_SECRETS = [
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",  # the AWS documentation's secret key, bare
    AWS_SECRET,
    "redis://:S3cretPassw0rd@cache:6379",
    "mysql://root:pa/ss:word@db",
    "-----begin ec private key-----",
    f"private key {PEM_BODY}",
    "Authorization: Bearer 3f9a2c1d4e5b6a7980f1e2d3c4b5a69788796a5b",
    f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={AZURE_KEY}",
    "The Datadog API key is 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "the admin password is swordfish",
]
ISSUE_HARMLESS = [
    "SESSION_TOKEN_TTL=86400s in settings",
    "Use the sk-button-primary-large-variant class",
    "Secretary_of_Health_and_Human_Services",
    "use a strong password",  # the brief's example of prose about a password
]


@pytest.mark.parametrize("text", ISSUE_SECRETS)
def test_the_secrets_issue_14_saw_get_through_are_found(text: str) -> None:
    assert find_secret(text) is not None
    assert find_secret(f"Note for the deploy: {text} (from the runbook)") is not None


@pytest.mark.parametrize("text", ISSUE_HARMLESS)
def test_the_harmless_text_issue_14_saw_refused_passes(text: str) -> None:
    assert find_secret(text) is None


@pytest.mark.parametrize("text", ISSUE_SECRETS)
def test_remember_refuses_the_issue_secrets_in_the_sentence_and_the_reason(
    ws: Cairn, text: str
) -> None:
    with pytest.raises(cairn.SecretError, match="the sentence looks like it holds"):
        ws.remember(text)
    with pytest.raises(cairn.SecretError, match="the reason looks like it holds"):
        ws.remember("The backup job reads the replica", reason=text)
    assert ws.store.count_memories() == 0


@pytest.mark.parametrize("tag", ["redis://:S3cretPassw0rd@cache:6379", AWS_SECRET, PEM_BODY])
def test_remember_refuses_a_secret_among_the_tags(ws: Cairn, tag: str) -> None:
    with pytest.raises(cairn.SecretError, match="the tags looks like it holds"):
        ws.remember("The backup job reads the replica", tags=["ops", tag])


def test_remember_refuses_a_secret_in_a_trigger_regex_written_with_escapes(ws: Cairn) -> None:
    redis = r"redis-cli\s+-u\s+redis://:S3cretPassw0rd@cache\.internal"
    with pytest.raises(cairn.SecretError, match="the trigger looks like it holds a password"):
        ws.remember("Flush the cache with care", when={"tool": "shell", "match": redis})
    sendgrid = r"curl -H 'Authorization: Bearer SG\.abcdefghijklmnopqrstuv\.wxyz0123456789ABCDEF'"
    with pytest.raises(cairn.SecretError, match="SendGrid"):
        ws.remember("Mail goes through SendGrid", when={"tool": "shell", "match": sendgrid})
    assert ws.store.count_memories() == 0


def test_remember_keeps_the_issue_harmless_memories(ws: Cairn) -> None:
    ws.remember(
        "SESSION_TOKEN_TTL=86400s in settings", tags=["Secretary_of_Health_and_Human_Services"]
    )
    ws.remember("Use the sk-button-primary-large-variant class", reason="use a strong password")
    assert ws.store.count_memories() == 2


# -- token shapes and credentials in context -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("key AKIAIOSFODNN7EXAMPLE here", "AWS"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "GitHub"),
        ("github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV", "GitHub"),
        ("glpat-abcdefghij0123456789", "GitLab"),
        ("sk-ant-api03-abcdefghijklmnopqrstuvwx", "Anthropic"),
        ("sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "OpenAI"),
        ("sk_live_abcdefghijklmnop1234", "Stripe"),
        ("whsec_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "Stripe webhook"),
        ("xoxb-123456789012-abcdefghij", "Slack"),
        ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "Google"),
        ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm"),
        ("SG.abcdefghijklmnopqrstuv.wxyz0123456789ABCDEF", "SendGrid"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key"),
        ("-----BEGIN PRIVATE KEY-----", "private key"),
        ("-----Begin Encrypted Private Key-----", "private key"),
        ("-----BEGIN PGP PRIVATE KEY BLOCK-----", "private key"),
        ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB", "private key"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "JSON web"),
        ("postgres://admin:s3cretpw@db.internal:5432/app", "URL"),
        ("amqp://guest:guest@localhost:5672/", "URL"),
        ("Authorization: Basic YWRtaW46aHVudGVyMjI=", "Authorization"),
        ("curl -u deploy:Tr0ub4dor https://ci.example", "command line"),
        ("mysql -uroot -pS3cretPw app", "command line"),
        ("sshpass -p 'hunter22' ssh deploy@bastion", "command line"),
        ("docker login -u ci -p S3cretPw registry.example", "command line"),
        ("rediss://default:%VALOp7s8RD1UX@10.0.3.17:6379/0", "URL"),  # `%` starts no placeholder
        ("the integration uses -bi8Q~vkd8l~YgjEqXYhlmIJaH7uUPf33Ncfi", "Azure"),
        ("sk.eyJ1IjoiYWNtZSIsImEiOiJjbGV4YW1wbGUifQ.Zx9Qw2Er5Ty8Ui1Op4As7D", "Mapbox"),
    ],
)
def test_token_shapes_and_credentials_are_named(text: str, what: str) -> None:
    found = find_secret(text)
    assert found is not None and what.lower() in found.lower()


@pytest.mark.parametrize(
    "text",
    [
        "Use the sk-card-header--compact class",  # `sk-` then words: a CSS class
        "https://example.com:8080/users/@alice",  # a port, not a password
        "postgres://user:password@localhost/app",  # the words, not a credential
        "postgres://app:${DB_PASSWORD}@db/app",
        "Authorization: Bearer $TOKEN",
        "Bearer tokens go in the Authorization header",
        "Basic authentication is only for the SOAP bridge",
        "docker run -p 8080:80 -u 1000:1000 node:20",
        "mysql -u root -p app_prod",  # prompts for the password
        "git push -u origin main",
    ],
)
def test_look_alikes_of_shapes_pass(text: str) -> None:
    assert find_secret(text) is None


# -- values given to secret names ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("DB_PASSWORD=Tr0ub4dor&3", "password"),
        ('password: "correct-horse-battery"', "password"),
        ("PGPASSWORD=hunter22 psql -h db", "password"),
        ("smtpPassword: Winter2024!", "password"),
        ("the api_key is 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "key"),
        ('{"apiKey": "Zx9Qw2Er5Ty8Ui1Op4As7Df0"}', "key"),
        ("X-Api-Key: 3f9a2c1d4e5b6a7980f1e2d3c4b5a697", "key"),
        ("token for ci: Zx9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz", "token"),
        ("HEROKU_API_KEY=8c1f2e3d-4b5a-4978-8a9b-0c1d2e3f4a5b", "key"),
        ("the webhook secret is 3f9a2c1d4e5b6a7980f1e2d3c4b5a697", "secret"),
        ("The password for the staging DB is Tr0ub4dor.", "password"),
        ("The Grafana admin password: marmalade", "password"),
        ("log in to the jump box with password sunshine", "password"),
        ("machine ci.example login deploy password swordfish", "password"),
        ("--password S3cr3tPw", "password"),
        ("SECRET_KEY_BASE=" + "3f9a2c1d4e5b6a79" * 8, "key"),
        ("basic_auth=YWRtaW46aHVudGVyMjI=", "credential"),
        ("password=CfPfuyCpsuN-qHjVBLL!", "password"),  # no pair of words, though hyphenated
        ("DJANGO_SECRET_KEY=mc(4LnR9BTIzVr(-QZtO%Hj34D#I)I7Ff29Y_aPD@Za)pLjJ2@", "key"),
        ("machine ci.example login root password Ac-dhmBZsWuLnwS", "password"),
    ],
)
def test_values_given_to_secret_names_are_found(text: str, what: str) -> None:
    found = find_secret(text)
    assert found is not None and what in found


@pytest.mark.parametrize(
    "text",
    [
        "We deploy with Render after CI is green",
        "The password reset email is sent by services/mail/reset.ts",
        "Set the token in the TOKEN env var: token=$DEPLOY_TOKEN",
        "password: <your password>",
        "api_key=os.environ['API_KEY']",
        "password=os.getenv('DB_PASSWORD')",
        "password: Rails.application.credentials.db_password",
        "password: !vault |",
        "password: DB_PASSWORD",
        "password=getpass()",
        'password: "%(DB_PASSWORD)s"',
        "password: Vault-managed",
        "secret_key: settings.SECRET_KEY",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "reverted in 3f9a2c1d4e5b6a7980f1e2d3c4b5a69788796a5b",
        "the token 3f9a2c1d4e5b6a7980f1e2d3c4b5a69788796a5b fixed the refresh race",
        "secret is stored_in_vault",
        "the password is rotated monthly by the platform team",
        "the password is stored in Vault",
        "The password is strong.",
        "The token refresh logic lives in src/auth/refresh_token_handler.py",
        "pnpm test --filter api -- --runInBand",
        "keys are rotated monthly by the platform team",
        "PASSWORD_MIN_LENGTH=12",
        "max_tokens: 4096",
        "TOKEN_URL=https://auth.example/oauth/token",
        "API_KEY_HEADER=X-Api-Key",
        "The public key fingerprint is SHA256:fi7u6Vm52P1+RHnOK+EoW+QCX7cW7Oygz/cKlvvf0XF",
        "The idempotency key is the request UUID, e.g. 8c1f2e3d-4b5a-4978-8a9b-0c1d2e3f4a5b",
        "The cache key is the md5 of the URL, e.g. 5d41402abc4b2a76b9719d911017c592",
        "The next token is eyJwYWdlIjoyfQ and the page size 50",
        "with password manager entries named after the service",
        "Pipe the token with --password-stdin so it never lands in argv",
        "The key is to keep commits small",
        "monkey: 3f9a2c1d4e5b6a7980f1e2d3c4b5a697",  # `key` inside another word
        "tokenizer_version: Zx9Qw2Er5Ty8Ui1Op4As7Df0",
    ],
)
def test_prose_references_and_settings_pass(text: str) -> None:
    assert find_secret(text) is None


# -- bare random strings -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "git sha 3f9a2c1d4e5b6a7980f1e2d3c4b5a69788796a5b and digest sha256:" + "ab12" * 16,
        "integrity sha512-" + "Zx9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz" * 2,
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIZx9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz deploy@ci",
        "the JWT header eyJhbGciOiJSUzI1NiIsImtpZCI6IjllMGYzNDYxIn0 names the key",
        "https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
        "AbstractSingletonProxyFactoryBean2 and getServerSidePropsForUserProfile",
        "Http2ServerUpgradeCodecFactoryImplV3Provider negotiates h2c",
        "services/payments/src/ledger/ReconcileInvoicesJob2.ts",
        "UUID 8c1f2e3d-4b5a-4978-8a9b-0c1d2e3f4a5b and ULID 01HV3K8Z9Q7W5X4Y2T1R0P6N8M",
    ],
)
def test_public_long_strings_pass(text: str) -> None:
    assert find_secret(text) is None


def test_a_random_string_in_a_url_query_is_not_exempt() -> None:
    assert find_secret(f"https://api.example/v1?access_token={AWS_SECRET}") is not None
    assert find_secret(f"https://api.example/v1?state={AWS_SECRET}") is not None


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        min_size=40,
        max_size=40,
    )
)
def test_random_base64_of_40_characters_is_mostly_found(token: str) -> None:
    # hypothesis draws shrink towards simple strings: only judge the ones that mix classes
    # the way random characters do (the rate on uniform draws is measured in bench/).
    mixed = sum(1 for a, b in itertools.pairwise(token) if a.isupper() != b.isupper())
    if mixed >= 16 and randomness.has_digit_and_letter(token) and not token.isupper():
        lengths = [len(s) for s in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+", token)]
        if max(lengths) <= 3:
            assert find_secret(token) is not None


# -- regexes in triggers -----------------------------------------------------------------------


def test_regex_escapes_are_undone_before_the_scan() -> None:
    assert find_secret(r"curl\s+-H\s+'Authorization:\s+Bearer\s+3f9a2c1d4e5b6a7980f1e2d3c4b5a6")
    assert find_secret(r"psql\s+postgres://app:S3cret\+pw@db\.internal/app")
    assert find_secret(r"git\s+log\s+3f9a2c1d\.\.HEAD") is None
    assert may_hold_secret(r"export\s+GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789")


# -- the quick check ---------------------------------------------------------------------------

# Pieces that make the rules' work interesting: hints, secret words in any case, connectors,
# random and public strings, near misses, escapes, non-ASCII.
_PIECES = st.sampled_from(
    [
        "AKIA", "sk-", "sk-ant-", "_live_", "xox", "://", "eyJ", "SG.", "SK", "hf_", "npm_",
        "-----BEGIN ", "PRIVATE KEY-----", "private key", "hooks.slack.com/services/T",
        "PASSWORD", "Token", "api_key", "Api-Key", "apiKey", "secret", "pass", "credential",
        "auth", "sig", "bearer", "Bearer ", "Basic ", "Authorization: ", "PGPASSWORD", "bypass",
        " = ", ": ", "=", ":", " is ", " for the db is ", "'", '"', "@", "/", "-u ", " -p",
        "mysql ", "sshpass -p ", "login ", "with ", "redis://", "user:pw@", ":S3cret@host",
        "Zx9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz", "0123456789abcdef0123456789abcdef", AWS_SECRET,
        "YWRtaW46aHVudGVyMjI=", "swordfish", "hunter22", "rotated", "sha256:", "ssh-ed25519 ",
        "MIIEpAIBAAKCAQEA", "\\.", "\\s+", "\n", " ", "é", "\u212a", "\u017f",
    ]
)  # fmt: skip
_TEXTS = st.lists(_PIECES | st.text(max_size=6), max_size=14).map("".join)
_RULE_OF = {
    secretscan._SHAPE: shapes.find_shape,
    secretscan._URL: shapes.find_url_credential,
    secretscan._HEADER: shapes.find_auth_header,
    secretscan._COMMAND: shapes.find_command_line,
    secretscan._NAMED: values.find_named_value,
    secretscan._RUN: randomness.find_random_run,
}


@settings(max_examples=600, deadline=None)
@given(_TEXTS)
def test_the_quick_check_never_skips_a_rule_that_would_find_something(text: str) -> None:
    plain = secretscan._unescape(text) if "\\" in text else text
    anchors = secretscan._anchors(plain)
    findings = [anchor for anchor, rule in _RULE_OF.items() if rule(plain)]
    assert set(findings) <= anchors
    assert (find_secret(text) is not None) == bool(findings)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXTS, min_size=1, max_size=5))
def test_joined_fields_the_quick_check_passes_over_hold_no_secret(fields: list[str]) -> None:
    if not may_hold_secret("\n".join(fields)):
        assert all(find_secret(f) is None for f in fields)


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_every_secret_word_the_rule_reads_is_an_anchor(text: str) -> None:
    # RE2 may anchor a little more (it reads `K`, the Kelvin sign, as no letter), never less
    in_re = (
        values._WORD.search(text.lower()) if text.isascii() else values._WORD_ANY_CASE.search(text)
    )
    if in_re is not None:
        assert re2.search(values.WORD_ANCHOR, text) is not None


@pytest.mark.parametrize(("name", "hints", "source"), shapes.SHAPE_SOURCES)
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_every_match_of_a_shape_holds_one_of_its_hints(
    name: str, hints: tuple[str, ...], source: str, data: st.DataObject
) -> None:
    text = data.draw(st.from_regex(re.compile(source, re.ASCII)))
    assert any(hint in text for hint in hints), name


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_is_scanned_without_error(text: str) -> None:
    found = find_secret(text)
    assert found is None or isinstance(found, str)
    assert may_hold_secret(text) or found is None


def test_a_secret_at_the_end_of_a_long_text_is_found() -> None:
    # the quick check is one DFA pass: a long text must not make it give up and report nothing
    filler = "".join(f"word{i} Ab{i}/x_{i} " for i in range(30_000))
    assert find_secret(filler + "ghp_abcdefghijklmnopqrstuvwxyz0123456789") == "a GitHub token"
    assert find_secret(filler + " password=hunter22") == "a password"
