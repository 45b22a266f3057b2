"""Values given to secret names: `DB_PASSWORD=...`, `"apiKey": "..."`, "the Datadog API key is
...", "the admin password is swordfish", `--password S3cr3t`, "token Zx9Q...".

The name must end in the secret word, `SECRET_KEY_BASE`-style neutral tails aside: in
`SESSION_TOKEN_TTL=86400s` the value is a duration. A key so qualified is no secret (`public
key`, `PRIMARY_KEY`), nor a token so qualified (`next token`, `max_tokens`). Then the value
decides:

- a password is any literal that is not a placeholder (`<password>`, `$DB_PASS`, `changeme`),
  a reference (`os.getenv(...)`, `settings.DB_PASSWORD`, `!vault`) or prose. A lone word is a
  password when it ends the clause and is no prose word: "the admin password is swordfish",
  but "the password is rotated monthly", "is stored in Vault", "is strong.";
- a key, token, secret or credential must look generated (`randomness.looks_generated`), or
  decode from base64 to `user:password`.
"""

from __future__ import annotations

import base64
import binascii
import re

from cairn.core.secretscan.randomness import looks_generated


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# A word must end its segment (`password_`, not `passwords`, `tokenizer`, `keyboard`); `auth`,
# `pass`, `bearer` and `sig` name a secret only before `=` or `:` (`NPM_AUTH=`, `SSHPASS=`,
# `&sig=`). Longer alternatives first (`pwd` before `pw`).
_PASSWORD_WORDS = _words("password passwd passphrase pass pwd pw")
_NAME_WORDS = r"password|passwd|passphrase|pwd|pw|secret|token|credentials?|key|authorization"
_ASSIGN_WORDS = r"auth|pass|bearer"
# For `re`, matched on ASCII text lowered (the engine then skips ahead in C to the letters a
# word starts with), or case-insensitively on other text.
_WORD = re.compile(
    rf"(?:{_NAME_WORDS})(?![a-z])|(?:{_ASSIGN_WORDS})(?=[\"'`]?[ \t]{{0,8}}[:=])|"
    rf"sig(?=[ \t]{{0,8}}=)"
)
_WORD_ANY_CASE = re.compile(_WORD.pattern, re.IGNORECASE)
# The same words for RE2, which has no lookahead: it eats the next character instead, which
# changes nothing about whether the text holds a match (a test checks the two agree).
WORD_ANCHOR = (
    rf"(?i:{_NAME_WORDS})(?:[^A-Za-z]|$)|(?i:{_ASSIGN_WORDS})[\"'`]?[ \t]{{0,8}}[:=]|"
    rf"(?i:sig)[ \t]{{0,8}}="
)
_NOUNS = {"credentials": "credential", "authorization": "credential", "auth": "credential",
          "bearer": "token", "sig": "signature"}  # fmt: skip

# Segments that may follow the secret word in a name (`SECRET_KEY_BASE`, `TOKEN_2`).
_NEUTRAL_SUFFIXES = _words("base b64 hex raw plain plaintext str string")
# Qualifiers that may be joined to the word in one case (`PGPASSWORD`, `apikey`).
_JOINED_QUALIFIERS = (
    "api", "access", "secret", "private", "auth", "client", "db", "pg", "mysql", "admin", "root",
    "master", "app", "bot", "refresh", "id", "session", "oauth", "bearer", "user", "redis", "smtp",
    "ldap", "vault", "webhook", "signing", "encryption", "ssh", "npm", "github", "gh", "slack",
)  # fmt: skip
_HARMLESS_QUALIFIERS = {
    "key": _words(
        """public pub publishable cache primary foreign sort partition idempotency composite
        unique lookup hash range object row i18n translation react index shortcut hot routing
        shard lock dedup dedupe deduplication natural surrogate compound candidate map dict
        dictionary registry config settings enter escape tab arrow space meta modifier
        function music gpg pgp ssh s3 redis kms secondary group ordering bucket storage
        search"""
    ),
    "token": _words(
        """next page pagination continuation cursor sync resume idempotency design css lexer
        parser cancellation cancel max input output prompt completion eos bos pad special
        unk"""
    ),
}
_DETERMINERS = _words("the a an this that our my your its their his her")
# "The password for the staging DB is": a short phrase between the name and the connector.
_FOR_PHRASE = re.compile(
    r"[ \t]{1,4}(?:for|of|on|in|at|to)(?:[ \t]{1,4}[\w@.'/-]{1,40}){1,4}?"
    r"(?=[ \t]{1,4}(?:is|was)\b|[ \t]{0,4}[:=])"
)
# After a name: an optional closing quote, then `=`, `:`, `is` ... or just a space.
_CONNECTOR = re.compile(
    r"""(?P<close>["'`]?)(?:
        (?P<assign>[ \t]{0,8}(?::=|=>|=|:)[ \t]{0,8})
      | (?P<is>[ \t]{1,8}(?:is|was|equals)(?:[ \t]+(?:now|still|set[ \t]+to))?[ \t]{1,8})
      | (?P<set>[ \t]{1,8}set[ \t]+to[ \t]{1,8})
      | (?P<none>[ \t]{1,8})
    )(?P<open>["'`]?)""",
    re.VERBOSE,
)
_UNQUOTED_VALUE = re.compile(r"[^\s\"'`]{1,512}")
# Values that stand for a secret without being one: placeholders, references, prose.
PLACEHOLDER = re.compile(
    r"(?i)^(?:<[^>]*>?|\$\{.*|\$[A-Za-z_]\w*|\$\(.*|\*+|x{3,}|\.{3,}|\?+|-+|_+|%\(\w+\)[sd]|%s|"
    # a call, an index or an attribute: `os.getenv('X')` (cut at the quote), `ENV['X']`, `!vault`
    r"\{\{.*|\[.*\]|![a-z]+|[A-Za-z_][\w.]{2,}\([\w'\"., ]*\)?|\w+\[.*|"
    # a word standing for the value, alone or starting a phrase or a name (`your_token_here`)
    r"(?:your|my|the|some|an?|this|that|its|our|their|same|example|sample|dummy|fake|"
    r"placeholder|redacted|removed|hidden|masked|changeme|change-me|replace|todo|tbd|env|"
    r"none|null|nil|undefined|empty|true|false|yes|no|required|optional|secret|password|"
    r"passwd|token|key|value|string|str|text|here|there|see|ask|in|on|at|from|stored|set|"
    r"unset|not|never|always|only|also|still|now|read|pulled|fetched|kept|managed|generated|"
    r"rotated|provided|injected|mounted|loaded)(?:[\s_.-].*)?|"
    r"process\.env.*|env\..*|secrets\..*|vault:.*|op://.*|ssm:.*|arn:.*|sha\d+[:-].*|md5:.*)$"
)
# An attribute: `settings.DB_PASSWORD`, `Rails.application.credentials.db_password`.
_ATTRIBUTE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
# Words that make "the password is X" prose rather than a password.
_PROSE_VALUES = _words(
    """a an the in on at of to for by with from into via under inside outside behind it this
    that these those what which who whatever how where when why weak strong long short wrong
    right correct incorrect invalid valid expired empty blank missing unknown known secret
    private public shared static random temporary default same different new old fine ok okay
    good bad mandatory optional required sensitive insensitive case too very not never always
    only also just still now then here there set unset kept sent held put found given shown
    written made built taken hidden broken chosen read seen done gone run lost left paid said
    told sold brought caught bought thought sought meant reset enough sufficient insufficient
    complex simple trivial obvious unique common rare per each every any all both either
    neither some none no yes true false null nil characters chars"""
)
_PROSE_SUFFIXES = ("ed", "ing", "ly", "able", "ible", "ful", "less", "ous", "ive", "ic", "ent")
# Nouns that follow "password" in a compound: "with password manager", "password reset".
_PASSWORD_NOUNS = _words(
    """manager managers reset resets policy policies field fields hash hashes rules prompt
    change changes expiry rotation length strength form input box dialog file store vault
    entry history salt flow grant login auth authentication protection requirements
    complexity hint hints spraying leak leaks screen page modal option options mode
    checker meter generator"""
)
# "log in with (the admin) password X", `machine h login u password X`: a value follows.
_VALUE_LEAD = re.compile(r"(?i)(?:\b(?:with|using|via)|\blogin[ \t]+\S+)(?:[ \t]+\w+){0,2}[ \t]+$")
# What may follow a password that ends its clause: "is swordfish." "is swordfish and ...".
_CLAUSE_END = re.compile(
    r"[ \t]*(?:$|[.,;:!?()\[\]{}\n\u2014]|-[ \t]|(?:and|but|so|or|for|on|in|at|to|from|with|"
    r"then|if|when|because|since|which|until|unless)\b)"
)
_WORD_SHAPE = r"(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)"
_WORDS_JOINED = re.compile(rf"{_WORD_SHAPE}(?:[_-]{_WORD_SHAPE})+")
_GIT_SHA = re.compile(r"[0-9a-f]{40}")
_PREVIOUS_WORD = re.compile(r"([A-Za-z0-9]+)(?:['\u2019]s)?[ \t_.-]*$")
_CAMEL_TAIL = re.compile(r"[A-Z]?[a-z0-9]+$")
_ALNUM_TAIL = re.compile(r"[A-Za-z0-9]+$")
_NAME_TAIL = re.compile(r"[A-Za-z0-9_.-]{0,48}")
_SEGMENT_SPLIT = re.compile(r"[_.-]+|(?<=[a-z0-9])(?=[A-Z])")


def find_named_value(text: str) -> str | None:
    """The rule: the first secret word given a secret value."""
    # On ASCII, lowering keeps every position: words are found in the lowered text and judged
    # in the original.
    words = _WORD.finditer(text.lower()) if text.isascii() else _WORD_ANY_CASE.finditer(text)
    for m in words:
        found = _named_value(text, m.start(), m.end())
        if found:
            return found
    return None


def _named_value(text: str, start: int, end: int) -> str | None:
    """The verdict on the secret word at text[start:end]: is it given a secret value?"""
    word = text[start:end].lower()
    # The rest of the name: `SECRET_KEY_BASE` may go on, `SESSION_TOKEN_TTL` names a duration.
    tail = _NAME_TAIL.match(text, end)
    rest = tail.group().rstrip(".-") if tail else ""
    if len(rest) == 48 or any(
        seg.lower() not in _NEUTRAL_SUFFIXES and not seg.isdigit() for seg in _segments(rest)
    ):
        return None
    pos = end + len(rest)
    phrase = _FOR_PHRASE.match(text, pos)
    connector = _CONNECTOR.match(text, phrase.end() if phrase else pos)
    if connector is None:
        return None
    kind = next(k for k in ("assign", "is", "set", "none") if connector.group(k) is not None)
    value, after = _value_at(text, connector.end(), connector.group("open"))
    if not value or PLACEHOLDER.match(value) or _is_path_or_url(value):
        return None
    if _ATTRIBUTE.fullmatch(value) and not looks_generated(value, 16):
        return None  # a reference to where the value is kept
    qualifier = _qualifier(text, start)
    if qualifier is None or qualifier in _HARMLESS_QUALIFIERS.get(word, ()):
        return None
    if word in _PASSWORD_WORDS:
        if kind == "assign" and connector.group("assign").strip() != ":":
            kind = "code"  # `password=swordfish`: no prose is written so
        elif kind == "none" and _VALUE_LEAD.search(text, max(0, start - 60), start):
            kind = "lead"  # "log in with password swordfish", `login deploy password x`
        quoted = bool(connector.group("open"))
        return "a password" if _is_password(value, quoted, kind, text, after) else None
    if kind == "none" and not qualifier and _GIT_SHA.fullmatch(value):
        return None  # "the token 3f9a...": a git sha as often as not
    bare_key = word == "key" and not qualifier
    minimum = 20 if kind == "none" or bare_key else 16
    if looks_generated(value, minimum) or (kind != "none" and is_basic_credential(value)):
        return f"a {_NOUNS.get(word, word)}"
    return None


def _value_at(text: str, start: int, quote: str) -> tuple[str, int]:
    """The value starting at `start` (up to the closing quote, or the next space, without
    trailing punctuation) and where it ends; ("", start) when there is none."""
    if quote:
        close = text.find(quote, start, start + 200)
        if close == -1 or "\n" in text[start:close]:
            return "", start
        return text[start:close], close + 1
    m = _UNQUOTED_VALUE.match(text, start)
    if m is None:
        return "", start
    value = m.group().rstrip(".,;:!?)]}>")
    return value, start + len(value)


def _qualifier(text: str, start: int) -> str | None:
    """The word or segment before the secret word ("" for none) when the word starts a
    segment of a name (`DB_PASSWORD`, `apiKey`, `API key`, `PGPASSWORD`); None when it is the
    tail of another word (`bypass`, `monkey`, `design`)."""
    before = text[max(0, start - 40) : start]
    if not before or not before[-1].isalnum():
        m = _PREVIOUS_WORD.search(before)  # `API key` -> api, `PUBLIC_KEY` -> public
        word = m.group(1).lower() if m else ""
        return "" if word in _DETERMINERS else word
    if text[start].isupper() and before[-1].islower():
        m = _CAMEL_TAIL.search(before)  # `apiKey` -> api
        return m.group().lower() if m else ""
    m = _ALNUM_TAIL.search(before)  # joined in one case: `PGPASSWORD`, `apikey`
    run = m.group() if m else ""
    if run.isupper() or run.islower():
        for qualifier in _JOINED_QUALIFIERS:
            head = run[: -len(qualifier)]
            if run.lower().endswith(qualifier) and (not head or not head[-1].isalpha()):
                return qualifier
    return None


def _segments(name: str) -> list[str]:
    """`_KEY_BASE` -> [KEY, BASE]; `KeyRef` -> [Key, Ref]."""
    return [s for s in _SEGMENT_SPLIT.split(name) if s]


def _is_password(value: str, quoted: bool, kind: str, text: str, after: int) -> bool:
    """Is `value`, given to a password name, a password? Any literal is, except prose.

    `kind` is how the value follows the name: `code` (`=`), `assign` (`:`), `is`, `set`,
    `lead` (no connector, but "with password" before), `none` (no connector)."""
    if " " in value:
        return False  # a quoted phrase: "same as staging"
    if kind == "none":
        # `--password S3cr3t`, `password hunter2`: only a value no word could be.
        return len(value) >= 6 and not value.isalpha() and any(c.isalpha() for c in value)
    if len(value) < 5:
        return False
    if quoted:
        return True
    if value.isalpha():
        # "the admin password is swordfish" is a password, "the password is rotated" and
        # "the password is stored in Vault" are prose: a lone word that ends the clause.
        low = value.lower()
        if low in _PROSE_VALUES or low in _PASSWORD_NOUNS or low.endswith(_PROSE_SUFFIXES):
            return False
        return kind == "code" or _CLAUSE_END.match(text, after) is not None
    # `stored_in_vault`, `Vault-managed`, `DB_PASSWORD` read as words; anything else is literal
    return _WORDS_JOINED.fullmatch(value) is None


def _is_path_or_url(value: str) -> bool:
    return "://" in value or value.startswith(("/", "~/", "./", "../")) or value.count("/") > 2


def is_basic_credential(value: str) -> bool:
    """Does `value` decode from base64 to `user:password`?"""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    text = decoded.decode("utf-8", "replace")
    user, colon, password = text.partition(":")
    return bool(colon and user) and len(password) >= 3 and text.isprintable()
