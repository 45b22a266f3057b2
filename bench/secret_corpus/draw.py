"""Random pieces from a seeded RNG: characters, base64, UUIDs, ULIDs, passwords people pick."""

from __future__ import annotations

import base64
import json
import random
import string
import uuid

HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
UPPER_ALNUM = string.ascii_uppercase + string.digits


def pick(rng: random.Random, alphabet: str, n: int) -> str:
    """n characters drawn from `alphabet`."""
    return "".join(rng.choice(alphabet) for _ in range(n))


def b64(rng: random.Random, n_bytes: int, urlsafe: bool = False) -> str:
    """Random bytes in base64 (padded), standard or URL-safe."""
    raw = rng.randbytes(n_bytes)
    return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode()


def b64_json(obj: object) -> str:
    """A JSON object in unpadded base64url, as a JWT holds it."""
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def a_uuid(rng: random.Random) -> str:
    """A version-4 UUID from the RNG."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def ulid(rng: random.Random) -> str:
    """A ULID: 26 characters of Crockford base32."""
    return pick(rng, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)


def regex_escaped(text: str) -> str:
    """`text` as a person writes it in a regex: metacharacters escaped, spaces as `\\s+`."""
    out = []
    for ch in text:
        if ch in ".+?*()[]{}|^$\\":
            out.append("\\" + ch)
        elif ch == " ":
            out.append("\\s+")
        else:
            out.append(ch)
    return "".join(out)


NAMES = ("acme", "ledgerly", "orbit", "parcel", "harbor", "quill", "tandem", "vela")
HOSTS = ("db.internal", "10.0.3.17", "pg-primary.acme.internal", "localhost", "db")
USERS = ("admin", "app", "deploy", "svc_billing", "root", "ci", "reporting", "etl_user")
WORDS_PASSWORDS = (
    "swordfish", "hunter", "dragon", "sunshine", "letmein", "trustno", "monkey", "shadow",
    "pineapple", "tigger", "correcthorse", "batterystaple", "marmalade", "osprey", "quokka",
)  # fmt: skip


def human_password(rng: random.Random) -> str:
    """A password a person picks: a word with digits and symbols, or a leetspeak phrase."""
    word = rng.choice(WORDS_PASSWORDS)
    style = rng.randrange(5)
    if style == 0:
        return word.capitalize() + str(rng.randrange(10, 9999)) + rng.choice("!@#$%&*")
    if style == 1:
        leet = str.maketrans({"a": "4", "e": "3", "o": "0", "i": "1", "s": "5"})
        return word.translate(leet).capitalize() + rng.choice("!?#") + str(rng.randrange(100))
    if style == 2:
        return pick(rng, ALNUM + "!#%&*-_", rng.randrange(12, 24))
    if style == 3:
        return f"{word}{rng.randrange(1, 99)}"
    return rng.choice(("Tr0ub4dor&3", "S3cretPassw0rd", "P@ssw0rd!2024", "Winter2024!")) + str(
        rng.randrange(10)
    )
