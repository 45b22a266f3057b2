"""Deciding from the raw payload bytes whether any trigger could match: the hook's first step.

Every lesson, action rule and cited file leaves an `Entry` in the trigger list: the texts
(needles) that any call it matches must hold, and one *key* chosen from them:

- `w:WORD`  a word bounded on both sides inside a needle: the payload must hold it as a word;
- `p:PRE`   the first 3 letters of a word that ends a needle: some payload word starts so;
- `s:SUF`   the last 3 letters of a word that starts a needle: some payload word ends so;
- `a:SUB`   a git action's alias line: the payload holds the word `git` (or `hub`) and a word
            that a git alias of the checkout maps to SUB (`git ci`, `alias.ci = commit`);
            the aliases are read (`Aliases`, from the git config) only when such a key could
            decide;
- `*`       nothing provable: always a candidate.

`Prefilter.candidates` splits the payload into ASCII words once and intersects sets, so the
cost does not grow with the number of lessons the call cannot match; only candidates have
their needles checked as substrings. The test is sound: it may let a call through that the
real matcher then rejects, never the other way round (see tests/lessons/test_prefilter.py).

Standard library only, and not even `re`: this runs in the hook process before anything else.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    # The git aliases of the call's checkout (alias -> subcommand), read only when asked.
    Aliases = Callable[[], Mapping[str, str]] | None

KEY_LEN = 3
# The two files of the trigger list (`cairn.io.triggerlist`) open with a header naming the store
# generation they hold, as a token `gen:STORE-GENERATION` (the store's 8-hex-digit id, the
# generation in 16 hex digits): the list with TITLE, a space and the token; the keys file with
# `#` and the token, or `!` and the token while a write is under way or was cut short.
TITLE = "# cairn trigger list v2: kind ref project key needles extra"
PENDING = b"!"
TOKEN_LEN = len("gen:") + 8 + 1 + 16
# ASCII letters and digits are word bytes; everything else (JSON quotes, escapes, '/',
# UTF-8 bytes) separates words, in the payload and in the needles alike.
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_TABLE = bytes(c if c in _WORD_BYTES else 32 for c in range(256))
# JSON writes these characters escaped, so a needle holding one cannot be found verbatim.
_ESCAPED = frozenset('"\\<>&')


class Entry:
    """One line of the trigger list: what fires (`kind`, `ref`) and what it needs.

    A plain class, not a dataclass: `dataclasses` costs the hook ~10 ms of imports.
    """

    __slots__ = ("extra", "key", "kind", "needles", "project", "ref")

    def __init__(
        self,
        kind: str,
        ref: str,
        project: str,
        needles: tuple[str, ...],
        key: str = "*",
        extra: str = "",
    ) -> None:
        self.kind, self.ref, self.project = kind, ref, project
        self.needles, self.key, self.extra = needles, key, extra

    def _fields(self) -> tuple[str, str, str, tuple[str, ...], str, str]:
        return (self.kind, self.ref, self.project, self.needles, self.key, self.extra)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entry) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"Entry{self._fields()!r}"

    def to_line(self) -> str:
        """The entry as one tab-separated line of the trigger list file."""
        needles = "\x1f".join(_clean(n) for n in self.needles)
        fields = (
            _clean(self.kind),
            _clean(self.ref),
            _clean(self.project),
            _clean(self.key),
            needles,
            _clean(self.extra),
        )
        return "\t".join(fields) + "\n"

    @classmethod
    def from_line(cls, line: str) -> Entry | None:
        """Read a line back; None for a torn or foreign line."""
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 6 or not line.endswith("\n"):
            return None
        kind, ref, project, key, needles, extra = parts
        return cls(kind, ref, project, tuple(n for n in needles.split("\x1f") if n), key, extra)


def _clean(text: str) -> str:
    return text.replace("\t", " ").replace("\n", " ").replace("\x1f", " ")


def usable_needles(texts: Iterable[str]) -> tuple[str, ...]:
    """Needles that appear verbatim (lowercased) in a JSON payload holding them.

    Texts with characters JSON escapes, control characters or non-ASCII are left out: they
    cannot be tested on raw bytes, so they prove nothing (leaving one out only widens).
    """
    out: list[str] = []
    for text in texts:
        low = text.lower()
        if low and low.isascii() and low.isprintable() and not _ESCAPED.intersection(low):
            out.append(low)
    return tuple(dict.fromkeys(out))


def choose_key(needles: Sequence[str]) -> str:
    """The most selective sound key of a set of needles (see the module docstring)."""
    best: tuple[int, str] | None = None
    for needle in needles:
        for start, end in _runs(needle):
            word = needle[start:end]
            inner = start > 0 and end < len(needle)
            if inner:
                candidate = (3 + len(word), f"w:{word}")
            elif end < len(needle) and len(word) >= KEY_LEN:  # starts the needle
                candidate = (1, f"s:{word[-KEY_LEN:]}")
            elif start > 0 and len(word) >= KEY_LEN:  # ends the needle
                candidate = (2, f"p:{word[:KEY_LEN]}")
            else:
                continue
            if best is None or candidate[0] > best[0]:
                best = candidate
    return best[1] if best else "*"


def _runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each maximal run of ASCII letters/digits in `text`."""
    runs: list[tuple[int, int]] = []
    start = -1
    for i, ch in enumerate(text):
        if ch.isascii() and ch.isalnum():
            if start < 0:
                start = i
        elif start >= 0:
            runs.append((start, i))
            start = -1
    if start >= 0:
        runs.append((start, len(text)))
    return runs


def token(store: str, generation: int) -> str:
    """The token the trigger list's headers carry for this store and generation."""
    return f"gen:{store}-{generation:016x}"


def keys_settled(keys: bytes) -> bool:
    """Does the keys file open with a token in this version's shape and no write under way?

    The hook's first look (no parsing): a `!` (a write under way, or one cut short), an older
    header or a damaged file means the list cannot be trusted as it is.
    """
    return (
        keys[:5] == b"#gen:"
        and keys[5 + 8 : 6 + 8] == b"-"
        and keys[1 + TOKEN_LEN : 2 + TOKEN_LEN] == b"\n"
    )


def list_token(keys: bytes, text: bytes, thorough: bool = False) -> str | None:
    """The token both files of the trigger list name, or None when they do not agree.

    They agree when the keys file opens with `#` (or `!`) and a token, the list with TITLE and
    the same token, both end with a newline and hold as many lines. `thorough` also checks
    every line: six tab-separated fields, the key field equal to the keys file's line.
    """
    end = keys.find(b"\n")
    if end < 5 or keys[:1] not in (b"#", PENDING) or keys[1:5] != b"gen:":
        return None
    name = keys[1:end]
    head = TITLE.encode() + b" " + name + b"\n"
    if not text.startswith(head) or keys[-1:] != b"\n" or text[-1:] != b"\n":
        return None
    if keys.count(b"\n") != text.count(b"\n"):
        return None
    if thorough and _keys_column(text) != keys.split(b"\n")[1:-1]:
        return None
    return name.decode("ascii", "replace")


def _keys_column(text: bytes) -> list[bytes] | None:
    """The key field of every line of the list after its header, None when a line does not
    hold six tab-separated fields (`every_line_keys` says the same a line at a time; a
    pattern is a third of its time on a list of 8,000 lines, which `cairn.open()` checks)."""
    import re  # not at the top: the hook never checks every line

    first, last = text.find(b"\n"), text.rfind(b"\n")
    if first == last:
        return []  # no line between the header and the end
    body = text[first + 1 : last]
    column: list[bytes] = re.findall(_ROW, body, re.MULTILINE)
    return column if len(column) == body.count(b"\n") + 1 else None


_FIELD = rb"[^\t\n]*"
_ROW = rb"^" + rb"\t".join([_FIELD] * 3 + [b"(" + _FIELD + b")"] + [_FIELD] * 2) + rb"$"


def every_line_keys(text: bytes) -> list[bytes] | None:
    """`_keys_column` a line at a time: what it must equal (tests hold them to it)."""
    rows = [line.split(b"\t") for line in text.split(b"\n")[1:-1]]
    if any(len(row) != 6 for row in rows):
        return None
    return [row[3] for row in rows]


def keys_could_match(keys: bytes, data: bytes, aliases: Aliases = None) -> bool:
    """The first, cheapest test: does any key of the trigger list (one a line, as `keys`
    holds them) occur in the payload? False means no entry can be a candidate."""
    wanted = set(keys.split())
    if not wanted:
        return False
    if b"*" in wanted:
        return True
    words = payload_words(data)
    tokens = {b"w:" + w for w in words}
    tokens.update(b"p:" + w[:KEY_LEN] for w in words)
    tokens.update(b"s:" + w[-KEY_LEN:] for w in words)
    if not wanted.isdisjoint(tokens):
        return True
    if aliases is None or not any(key.startswith(b"a:") for key in wanted):
        return False
    return not wanted.isdisjoint(k.encode() for k in _alias_keys(words, aliases))


def _alias_keys(words: set[bytes], aliases: Aliases) -> set[str]:
    """`a:SUB` for each payload word a git alias maps to SUB, when the payload says git."""
    if aliases is None or not (b"git" in words or b"hub" in words):
        return set()
    return {f"a:{sub}" for name, sub in aliases().items() if name.encode() in words}


def payload_keys(data: bytes, aliases: Aliases = None) -> set[str]:
    """Every key a trigger-list entry may hold that this payload satisfies (besides `*`)."""
    raw = payload_words(data)
    words = [w.decode("ascii") for w in raw]
    keys = {"w:" + w for w in words}
    keys.update("p:" + w[:KEY_LEN] for w in words)
    keys.update("s:" + w[-KEY_LEN:] for w in words)
    keys.update(_alias_keys(raw, aliases))
    return keys


def candidates_from(keys: bytes, text: str, data: bytes, aliases: Aliases = None) -> list[Entry]:
    """`candidates_in_lines` of the list `text`, using its keys file `keys` as an index.

    The keys file holds each entry line's key in the same order, after a `#gen:...` line
    the list's header ends with. When the generations and the line counts agree, only the
    lines whose key the payload holds (or whose key proves nothing) are read; a picked line
    whose own key differs, or any disagreement, falls back to reading every line. Sound
    either way: the index only skips lines whose key the payload does not hold.
    """
    klines = keys.decode("ascii", "replace").split("\n")
    lines = text.split("\n")
    header = lines[0]
    aligned = (
        len(klines) == len(lines)
        and klines[0].startswith("#gen:")
        and header.startswith("#")
        and header.endswith(" " + klines[0][1:])
        and lines[-1] == ""
        and klines[-1] == ""
    )
    if not aligned:
        return candidates_in_lines(text.splitlines(keepends=True), data, aliases)
    wanted = payload_keys(data, aliases if any(k[:2] == "a:" for k in klines) else None)
    picks = [
        i
        for i in range(1, len(klines) - 1)
        if klines[i] in wanted or klines[i][:2] not in _BOUNDED or len(klines[i]) == 2
    ]
    texts = payload_texts(data)
    out: list[Entry] = []
    for i in picks:
        line = lines[i] + "\n"
        fields = line.split("\t", 4)
        if len(fields) != 5 or fields[3] != klines[i]:
            return candidates_in_lines(text.splitlines(keepends=True), data, aliases)
        entry = Entry.from_line(line)
        if entry is not None and _holds(texts, entry.needles):
            out.append(entry)
    return out


def candidates_in_lines(lines: Iterable[str], data: bytes, aliases: Aliases = None) -> list[Entry]:
    """`Prefilter.from_lines(lines).candidates(data)`, in file order, without the index.

    The hook reads the list once per call, so building the index would cost more than it
    saves. Each line is split once (in comprehensions, so 1,000 lines cost well under a
    millisecond) to read its key; a line becomes an Entry only when the payload holds that
    key, or when its key proves nothing (`*`).
    """
    rows = [(line, line.split("\t", 4)) for line in lines if line[:1] != "#" and line[-1:] == "\n"]
    aliased = any(len(fields) == 5 and fields[3][:2] == "a:" for _line, fields in rows)
    keys = payload_keys(data, aliases if aliased else None)
    hits = [
        line
        for line, fields in rows
        if len(fields) == 5
        and (fields[3] in keys or fields[3][:2] not in _BOUNDED or len(fields[3]) == 2)
    ]
    texts = payload_texts(data)
    out: list[Entry] = []
    for line in hits:
        entry = Entry.from_line(line)
        if entry is not None and _holds(texts, entry.needles):
            out.append(entry)
    return out


# Keys naming a payload word (with a value after the colon); any other key proves nothing.
_BOUNDED = ("w:", "p:", "s:", "a:")


def payload_words(data: bytes) -> set[bytes]:
    """The lowercase ASCII words of a raw JSON payload, as decoded and as bash joins them."""
    words: set[bytes] = set()
    for text in payload_texts(data):
        words.update(text.translate(_TABLE).split())
    return words


# JSON's two-character escapes, each the byte it stands for. `\\` goes first, to a byte JSON
# never leaves raw (`\x01`, a control character), so that what follows a backslash is known.
# `\\"` stays as it is: a backslash and a quote separate words, and no needle holds either.
_ESCAPES = (
    (b"\\/", b"/"),
    (b"\\t", b"\t"),
    (b"\\r", b"\r"),
    (b"\\b", b"\b"),
    (b"\\f", b"\f"),
)
# What bash drops when it joins a word: quotes and backslashes (`git commi"t"`, `gi\\t`).
_SHELL_QUOTES = b"\\'\""


def payload_texts(data: bytes) -> tuple[bytes, ...]:
    """The payload lowercased with its JSON escapes undone, and, when it holds a shell command
    (a `"command"` key: every agent's shell call has one) with quotes or backslashes, a second
    copy without them and without line continuations (the words bash joins: `git commi"t"`
    runs `git commit`), and one more reading a written `\\n` as a newline when it holds one
    (`printf 'cd app\\ngit push' | sh`). A needle found in any of them may match.

    Sound on any valid JSON: every `\\` starts an escape, so removing the escaped backslashes
    first leaves each other escape whole. `\\uXXXX` becomes its character (UTF-8), a lone
    surrogate a space.
    """
    text = data
    if b"\\" in text:
        pairs = b"\\\\" in text
        if pairs:
            text = text.replace(b"\\\\", b"\x01")
        newlines = text.count(b"\\n")
        # Any escape but `\\n` and `\\"` (a code file holds thousands of those two)?
        others = text.count(b"\\") != newlines + text.count(b'\\"')
        if newlines:
            text = text.replace(b"\\n", b"\n")
        if others:
            for escape, char in _ESCAPES:
                if escape in text:  # a look costs less than a copy: skip what is absent
                    text = text.replace(escape, char)
            if b"\\u" in text:
                text = _unicode_escapes(text)
        if pairs:
            text = text.replace(b"\x01", b"\\")
    low = text.lower()
    if b'"command"' not in data:
        return (low,)  # no shell command (a file read, written or edited): nothing bash joins
    # A quote written `\\u0022` is a raw `"` in `low`, where JSON's own quotes hide it.
    if b"\\" not in low and b"'" not in low and b'\\"' not in data and b"\\u0022" not in data:
        return (low,)
    joined = low.replace(b"\\\n", b"").translate(None, _SHELL_QUOTES)
    if b"\\n" not in low:
        return low, joined
    # `printf 'cd app\\ngit push'`, `echo -e`: a `\\n` the command writes is a newline.
    return low, joined, low.replace(b"\\n", b"\n")


_HEX = frozenset(b"0123456789abcdefABCDEF")


def _unicode_escapes(text: bytes) -> bytes:
    parts = text.split(b"\\u")
    out = [parts[0]]
    for part in parts[1:]:
        digits = part[:4]
        if len(digits) < 4 or not digits.isalnum() or not set(digits) <= _HEX:
            out.append(b"\\u" + part)  # not JSON: kept as it was
            continue
        code = int(digits, 16)
        char = b" " if 0xD800 <= code <= 0xDFFF else chr(code).encode("utf-8")
        out.append(char + part[4:])
    return b"".join(out)


def _holds(texts: tuple[bytes, ...], needles: tuple[str, ...]) -> bool:
    """Does every needle occur in one of the payload's texts?"""
    return all(any(needle.encode() in text for text in texts) for needle in needles)


class Prefilter:
    """The trigger list indexed by key, ready to test payloads.

    Lines are indexed by their key field only; a line becomes an `Entry` only when its key is
    in the payload, so loading 1,000 lessons costs one `split` a line.
    """

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self.exact: dict[bytes, list[Entry | str]] = {}
        self.prefix: dict[bytes, list[Entry | str]] = {}
        self.suffix: dict[bytes, list[Entry | str]] = {}
        self.aliased: dict[str, list[Entry | str]] = {}
        self.always: list[Entry | str] = []
        self.size = 0
        for entry in entries:
            self._add(entry.key, entry)

    def _add(self, key: str, item: Entry | str) -> None:
        self.size += 1
        kind, _, value = key.partition(":")
        if kind == "w" and value:
            self.exact.setdefault(value.encode(), []).append(item)
        elif kind == "p" and value:
            self.prefix.setdefault(value.encode(), []).append(item)
        elif kind == "s" and value:
            self.suffix.setdefault(value.encode(), []).append(item)
        elif kind == "a" and value:
            self.aliased.setdefault(key, []).append(item)
        else:
            self.always.append(item)

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> Prefilter:
        """Build from trigger-list lines (comments, torn or foreign lines are skipped)."""
        prefilter = cls()
        for line in lines:
            if line.startswith("#") or not line.endswith("\n"):
                continue
            fields = line.split("\t", 4)
            if len(fields) == 5:
                prefilter._add(fields[3], line)
        return prefilter

    def candidates(self, data: bytes, aliases: Aliases = None) -> list[Entry]:
        """Entries whose key and every needle the payload holds."""
        if not self.size:
            return []
        words = payload_words(data)
        found: list[Entry | str] = list(self.always)
        for word in words & self.exact.keys():
            found.extend(self.exact[word])
        if self.prefix:
            for pre in {w[:KEY_LEN] for w in words} & self.prefix.keys():
                found.extend(self.prefix[pre])
        if self.suffix:
            for suf in {w[-KEY_LEN:] for w in words} & self.suffix.keys():
                found.extend(self.suffix[suf])
        if self.aliased:
            for key in _alias_keys(words, aliases) & self.aliased.keys():
                found.extend(self.aliased[key])
        if not found:
            return []
        texts = payload_texts(data)
        out: list[Entry] = []
        for item in found:
            entry = Entry.from_line(item) if isinstance(item, str) else item
            if entry is not None and _holds(texts, entry.needles):
                out.append(entry)
        return out
