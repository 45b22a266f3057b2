"""A labelled corpus for the secret scan: secrets of many shapes in every field, and harmless
memories full of ids, hashes, URLs, versions and secret words used in passing.

`secrets(per_shape, seed)` returns `per_shape` instances of each of the shapes in `SHAPES`
(provider tokens, private keys, connection URLs, Authorization headers, passwords in
assignments and in prose, keys introduced by a key/token/secret word, ...), each placed in
every field `remember` scans (`FIELDS`): in a sentence, in a reason, among the tags, as the
source_ref, and inside a shell trigger's regex (escaped as a careful author escapes it, half of
the time). `harmless(n, seed)` returns n memories a coding agent writes, whose fields hold the
look-alikes: git shas, sha256 digests, UUIDs, ULIDs, Stripe object ids, URLs without
credentials, versions, CSS classes, environment variable names without values, config keys such
as `SESSION_TOKEN_TTL=86400s`, long identifiers and snake_case tags, file paths and commit refs,
and sentences that talk about passwords, tokens and keys without holding one.

Every value is drawn from a seeded RNG: the same (n, seed) gives the same corpus on every
machine. The values are random, so none of them is a real credential. Used by
bench/secret_scan.py (the error rates) and tests/test_secretscan_corpus.py (a sample, so a
regression fails the suite). Print a sample: `cd bench && ../.venv/bin/python -m secret_corpus [n]`.
"""

from .cases import FIELDS, Memory, SecretCase, fields_of
from .lookalikes import harmless
from .shapes import SHAPES, secrets

__all__ = ["FIELDS", "SHAPES", "Memory", "SecretCase", "fields_of", "harmless", "secrets"]
