"""What looks generated: hex, UUIDs, and letters and digits in segments too short for words.

A string's camelCase segments (`getServerSideProps` -> get, Server, Side, Props) are words in
an identifier and one or two characters in a random string: the mean segment length of 32
random base64 characters is 1.9 and stays under 3.0 in 99.9% of draws, against 4.2 to 8 for
long identifiers, snake_case tags and paths (measured in bench/secret_scan.py's corpus). The
median guards against one long stretch hiding a random string (`...CYEXAMPLEKEY`).

Also the last rule of the scan: a bare random string of 32 or more characters mixing upper
case, lower case and digits (an AWS secret key, a private key's body) is refused unless it is
public by its kind.
"""

from __future__ import annotations

import re

import re2

RANDOM_SEGMENTS = 3.0
RUN_CHARS = "A-Za-z0-9+/=_-"
RUN_LENGTH = 32
_LONG_RUN = re2.compile(f"[{RUN_CHARS}]{{{RUN_LENGTH},}}")
_SEGMENT = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_DIGIT = re.compile(r"[0-9]")
_HEX_OR_UUID = re.compile(r"[0-9a-fA-F]+|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
# Public things written as long base64: an SSH public key's body, a JWT header or payload
# alone, a Stripe publishable key.
_PUBLIC_PREFIXES = ("AAAAB3NzaC1", "AAAAC3NzaC1", "AAAAE2VjZHNh", "eyJ", "pk_live_", "pk_test_")
_HASH_PREFIX = re.compile(r"(?i)(?:sha\d+|md5)-")
# What introduces a hash, inline data or a public key rather than a secret.
_PUBLIC_LEADS = re.compile(r"(?i)(?:sha\d+[:-]|md5:|base64,|ssh-[a-z0-9]+ |ecdsa-[\w-]+ )$")


def looks_generated(value: str, minimum: int) -> bool:
    """Hex, a UUID, or random letters and digits, of at least `minimum` characters."""
    if len(value) < minimum:
        return False
    if _HEX_OR_UUID.fullmatch(value):
        return has_digit_and_letter(value)
    core = value.removeprefix("base64:")
    mixed = (core.lower() != core) + (core.upper() != core) + bool(_DIGIT.search(core))
    if mixed < 2 or core.isalpha():
        return False
    return short_segments(core, RANDOM_SEGMENTS + 0.5)


def short_segments(token: str, mean_under: float) -> bool:
    """Are the camelCase segments of `token` too short for words? Their mean is under
    `mean_under`, or their median is at most 2.5 with 45% of them one or two characters long."""
    lengths = sorted(map(len, _SEGMENT.findall(token)))
    if not lengths:
        return False
    if sum(lengths) / len(lengths) < mean_under:
        return True
    n = len(lengths)
    median = (lengths[(n - 1) // 2] + lengths[n // 2]) / 2
    return median <= 2.5 and sum(1 for k in lengths if k <= 2) >= 0.45 * n


def has_digit_and_letter(value: str) -> bool:
    """At least one digit and one letter."""
    return _DIGIT.search(value) is not None and any(c.isalpha() for c in value)


def find_random_run(text: str) -> str | None:
    """The rule: a long random run that is not public by its kind."""
    for m in _LONG_RUN.finditer(text):
        run = m.group()
        if is_random(run.strip("=+/-_")) and not _is_public_run(text, m.start(), run):
            return "a random string that looks like a key"
    return None


def is_random(token: str) -> bool:
    """Upper case, lower case and digits, in segments too short for words."""
    if token.lower() == token or token.upper() == token or _DIGIT.search(token) is None:
        return False  # most long runs are paths and snake_case names: all lower case
    return short_segments(token, RANDOM_SEGMENTS)


def _is_public_run(text: str, start: int, run: str) -> bool:
    """A long run that is public by its kind: a hash, an SSH public key, a JWT header, a data
    URI, or an id in a URL's path (a query value is not exempt)."""
    if run.startswith(_PUBLIC_PREFIXES) or _HASH_PREFIX.match(run):
        return True
    if _PUBLIC_LEADS.search(text, max(0, start - 24), start):
        return True
    # The word the run is in, looked for a bounded way back: text without spaces stays linear.
    window = max(0, start - 256)
    word_start = max(text.rfind(" ", window, start), text.rfind("\n", window, start), window)
    head = text[word_start:start]
    in_path = "://" in head and not any(c in head for c in "?#&=")
    return in_path and "=" not in run.rstrip("=")  # `state=...` is a query value
