"""Token shapes and credentials in context: the rules that need no secret word.

- provider tokens by their prefix (`ghp_`, `sk_live_`, `AKIA`, `xoxb-`, `glpat-`, ...), JSON
  web tokens, Azure `AccountKey=`, private key blocks in any case (`-----begin ec private
  key-----`) and a private key's body without its BEGIN line (the base64 of the DER every
  private key opens with);
- a password in a URL (`redis://:pw@cache`, `mysql://root:pa/ss:word@db`), an `Authorization:
  Bearer` value that looks generated or a `Basic` one that decodes to `user:password`, a
  password on a command line (`curl -u user:pw`, `mysql -ppw`, `sshpass -p pw`, `docker login
  -p pw`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import re2

from cairn.core.secretscan.randomness import has_digit_and_letter, looks_generated
from cairn.core.secretscan.values import PLACEHOLDER, is_basic_credential

# (description, hints, pattern). The hints are literal substrings every match of the pattern
# contains (a test draws matches of each pattern and checks): text holding none of them cannot
# match. Each pattern reads the same in RE2, which scans, and `re`, which the tests draw from.
SHAPE_SOURCES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "a private key block",
        ("-----",),
        r"(?i:-----[ \t]*BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?[ \t]*-----)",
    ),
    (
        # a key's body without its BEGIN line: the base64 of the DER every private key opens
        # with (PKCS#1 RSA, PKCS#8 RSA, SEC1 and PKCS#8 EC, PKCS#8 Ed25519, OpenSSH)
        "a private key",
        (
            "IBAAKCA",
            "IBADANBgkqhkiG9w0BAQEFAAS",
            "MHcCAQEEI",
            "MIGkAgEBBDA",
            "MIGHAgEAMBMGByqGSM49",
            "MC4CAQAwBQYDK2VwBCIEI",
            "b3BlbnNzaC1rZXktdjE",
        ),
        r"(?:MII[A-Za-z0-9+/]{3}(?:IBAAKCA|IBADANBgkqhkiG9w0BAQEFAAS)|MHcCAQEEI|MIGkAgEBBDA|"
        r"MIGHAgEAMBMGByqGSM49|MC4CAQAwBQYDK2VwBCIEI|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/]{16,}",
    ),
    (
        "an AWS access key id",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
    ),
    (
        "a GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    ("a GitLab token", ("glpat-",), r"\bglpat-[A-Za-z0-9_-]{20,}"),
    ("an Anthropic API key", ("sk-ant-",), r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    ("an OpenAI API key", ("sk-",), r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("a Stripe key", ("_live_", "_test_"), r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("a Stripe webhook secret", ("whsec_",), r"\bwhsec_[A-Za-z0-9+/=]{24,}"),
    ("a Slack token", ("xox",), r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),
    (
        "a Slack webhook",
        ("hooks.slack.com/services/T",),
        r"hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/\w+",
    ),
    ("a Discord webhook", ("/api/webhooks/",), r"/api/webhooks/[0-9]{10,}/[A-Za-z0-9_-]{30,}"),
    ("a Google API key", ("AIza",), r"\bAIza[0-9A-Za-z_-]{35}"),
    ("a Mapbox secret token", ("sk.eyJ",), r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    ("a Google OAuth client secret", ("GOCSPX-",), r"\bGOCSPX-[A-Za-z0-9_-]{24,}"),
    ("an npm token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("a PyPI token", ("pypi-AgE",), r"\bpypi-AgE[A-Za-z0-9_-]{20,}"),
    ("a Hugging Face token", ("hf_",), r"\bhf_[A-Za-z0-9]{30,}\b"),
    ("a SendGrid key", ("SG.",), r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    ("a Twilio key", ("SK",), r"\bSK[0-9a-fA-F]{32}\b"),
    (
        "a Shopify token",
        ("shpat_", "shpss_", "shpca_", "shppa_"),
        r"\bshp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}",
    ),
    ("a DigitalOcean token", ("dop_v1_", "doo_v1_"), r"\bdo[op]_v1_[0-9a-f]{64}"),
    ("a Mailgun key", ("key-",), r"\bkey-[0-9a-f]{32}\b"),
    ("a Telegram bot token", (":AA",), r"\b[0-9]{8,10}:AA[A-Za-z0-9_-]{32,}"),
    ("a Vault token", ("hvs.", "hvb."), r"\bhv[sb]\.[A-Za-z0-9_-]{24,}"),
    ("a Docker Hub token", ("dckr_pat_",), r"\bdckr_pat_[A-Za-z0-9_-]{20,}"),
    ("an age secret key", ("AGE-SECRET-KEY-1",), r"AGE-SECRET-KEY-1[0-9A-Z]{50,}"),
    ("a Postman key", ("PMAK-",), r"\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}"),
    ("a Linear key", ("lin_api_",), r"\blin_api_[A-Za-z0-9]{32,}"),
    ("a Databricks token", ("dapi",), r"\bdapi[0-9a-f]{32}\b"),
    ("a Grafana token", ("glsa_", "glc_"), r"\bgl(?:sa|c)_[A-Za-z0-9+/=_]{32,}"),
    ("a Supabase token", ("sbp_",), r"\bsbp_[0-9a-f]{40}"),
    (
        "an Azure client secret",
        ("Q~",),
        r"(?:^|[^\w~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
    ),
    (
        "an Azure storage key",
        ("AccountKey=", "SharedAccessKey="),
        r"(?:Account|SharedAccess)Key=[A-Za-z0-9+/]{20,}={0,2}",
    ),
    (
        "a JSON web token",
        ("eyJ",),
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
)
# All shapes in one alternation (no shape holds a group of its own: group i is shape i).
_ANY_SHAPE = re2.compile("|".join(f"({source})" for _, _, source in SHAPE_SOURCES))

# `scheme://user:password@host`; the user may be empty (`redis://:pw@cache`) and the password
# may hold `/` and `:` (`mysql://root:pa/ss:word@db`); `host:8080/path/@x` is a port.
URL_CREDENTIALS = r"[A-Za-z][A-Za-z0-9+.-]*://(?P<user>[^\s/@:]*):(?P<password>[^\s@]+)@[^\s@/?#]+"
AUTH_HEADER = r"(?i)\b(?P<scheme>bearer|basic)[ \t]+(?P<value>[A-Za-z0-9._~+/=-]{8,})"
COMMAND_LINE = (
    r"(?:^|[^\w-])(?:-u|--user)(?:\s+|=)['\"]?[^\s:'\"]+:(?P<curl>[^\s'\"]+)"
    r"|\bsshpass\s+-p\s*(?P<sshpass>'[^']+'|\"[^\"]+\"|\S+)"
    r"|\bmysql\w*\b[^\n]*?\s-p(?P<mysql>'[^']+'|\"[^\"]+\"|[^\s'\"-]\S*)"
    r"|\blogin\b[^\n]*?\s-p\s+(?P<login>'[^']+'|\"[^\"]+\"|[^\s'\"-]\S*)"
)


def find_shape(text: str) -> str | None:
    for m in _ANY_SHAPE.finditer(text):
        name = SHAPE_SOURCES[(m.lastindex or 1) - 1][0]
        check = _SHAPE_CHECKS.get(name)
        if check is None or check(m.group()):
            return name
    return None


def _openai_body(match: str) -> bool:
    """`sk-` then random characters is a key; `sk-button-primary-large` is a CSS class."""
    body = match[3:]
    if body.startswith(("proj-", "svcacct-", "admin-")):
        body = body.split("-", 1)[1]
    return looks_generated(body, minimum=20)


# Shapes whose pattern also matches harmless text: the match must pass the check too.
_SHAPE_CHECKS: dict[str, Callable[[str], bool]] = {
    "an OpenAI API key": _openai_body,
    "a Twilio key": lambda m: has_digit_and_letter(m[2:]),
    "a Mailgun key": lambda m: has_digit_and_letter(m[4:]),
    "a Databricks token": lambda m: has_digit_and_letter(m[4:]),
}

_URL_PATTERN = re2.compile(URL_CREDENTIALS)
_HEADER_PATTERN = re2.compile(AUTH_HEADER)
_COMMAND_PATTERN = re2.compile(COMMAND_LINE)
_PORT = re.compile(r"[0-9]{1,5}(?:/|$)")
_HEX_TOKEN = re.compile(r"[0-9a-fA-F]{20,}")


def find_url_credential(text: str) -> str | None:
    for m in _URL_PATTERN.finditer(text):
        password = m.group("password")
        if len(password) < 3 or _PORT.match(password) or PLACEHOLDER.match(password):
            continue
        if password.lower() not in {"pass", "password", "passwd", "pwd", "secret"}:
            return "a password in a URL"
    return None


def find_auth_header(text: str) -> str | None:
    for m in _HEADER_PATTERN.finditer(text):
        value = m.group("value").rstrip(".,;")
        if m.group("scheme").lower() == "basic":
            if is_basic_credential(value):
                return "an Authorization header"
        elif not PLACEHOLDER.match(value) and (
            looks_generated(value, minimum=16) or _HEX_TOKEN.fullmatch(value)
        ):
            return "an Authorization header"
    return None


def find_command_line(text: str) -> str | None:
    for m in _COMMAND_PATTERN.finditer(text):
        value = next(v for v in m.groups() if v is not None).strip("'\"")
        if len(value) >= 4 and not value.isdigit() and not PLACEHOLDER.match(value):
            return "a password on a command line"
    return None
