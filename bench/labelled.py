"""Labelled sets for bench/quality.py: memories, judged queries, and folds with answers removed.

Three sets:

- `ledgerly()`: the project's own hand-written set (bench/data, see its README): 337 memories of
  one fictional SaaS, 141 queries (130 answerable, 11 unanswerable).
- `wordnet(n, n_queries)`: a public one, Princeton WordNet 3.0 as Debian's `wordnet-base`
  package ships it (/usr/share/wordnet/data.*). Each synset is a memory, written as a
  dictionary entry, "bank, bank building: a building in which the business of banking
  transacted"; each query is one of a synset's own usage examples ("the bank is on the corner
  of Nassau and Witherspoon"), judged relevant to that synset alone (grade 2). The store holds
  the 1,000 asked synsets and random others (the other senses of an asked word only as chance
  brings them: about one in ten at 10,000; most of them at 100,000, where telling "bank" the
  building from "bank" the slope by the other words of the example is the hard part).
  `n=None` takes every synset (117,659).

- `gcide(n, n_queries)`: a second public dictionary, the GNU Collaborative International
  Dictionary of English (Webster's 1913 and its supplements) as Debian's `dict-gcide` ships it
  (/usr/share/dictd/gcide.dict.dz; when missing, the package is fetched with `apt-get
  download` and unpacked into ~/.cache/cairn-bench, since installing it pulls in a dictionary
  server). Each numbered sense is a memory, "Bank: a mound, pile, or ridge of earth ...";
  each query is one of the quotations printed under a sense ("They cast up a bank against the
  city"), judged relevant to that sense alone. Literary English of three centuries against
  definitions: unlike WordNet's examples, a quotation often names its word in another form
  or leans on words the definition does not hold. 67,133 senses (those GCIDE took from
  WordNet 1.5 left out).

Unanswerable queries are made as the issue asks: the queries are split in two halves
(`folds`); in each fold, the memories relevant to the held-out half (and to no kept query) are
left out of the store, so the held-out queries whose every answer is gone are unanswerable
there, and the kept half is answerable. Both folds are run, so every query is answerable once.

Deterministic: the same arguments give the same memories and queries.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from cairn.core.secretscan import find_secret

DATA = Path(__file__).resolve().parent / "data"
GCIDE_FILE = Path(os.environ.get("GCIDE_FILE", "/usr/share/dictd/gcide.dict.dz"))
GCIDE_PACKAGE = "dict-gcide"
GCIDE_CACHE = Path.home() / ".cache" / "cairn-bench" / GCIDE_PACKAGE
WORDNET_DIR = Path(os.environ.get("WORDNET_DIR", "/usr/share/wordnet"))
WORDNET_PACKAGE = "wordnet-base"  # Debian's WordNet 3.0 data files
_POS_FILES = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
_ADJ_MARKER = re.compile(r"\([a-z]+\)$")
_QUOTED = re.compile(r'"([^"]+)"')


class MissingData(Exception):
    """A public set's data is not on this machine and could not be installed."""


@dataclass(frozen=True)
class Item:
    """One memory as `remember` takes it, with the id the judgments use."""

    id: str
    text: str
    kind: str = "fact"
    tags: tuple[str, ...] = ()
    reason: str = ""
    source_ref: str = ""
    age_days: float = 0.0


@dataclass(frozen=True)
class Query:
    """One query; `relevant` maps memory ids to grades (empty: unanswerable)."""

    qid: str
    text: str
    relevant: dict[str, int] = field(default_factory=dict)
    type: str = ""


@dataclass(frozen=True)
class LabelledSet:
    """Memories and judged queries."""

    name: str
    items: list[Item]
    queries: list[Query]


@dataclass(frozen=True)
class Fold:
    """One store's worth: the memories kept, the queries answerable in it, the unanswerable."""

    name: str
    items: list[Item]
    answerable: list[Query]
    unanswerable: list[Query]


def ledgerly() -> LabelledSet:
    """The hand-written Ledgerly set of bench/data."""
    items = []
    for line in (DATA / "memories.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        items.append(
            Item(
                id=row["id"],
                text=row["text"],
                kind=row["kind"],
                tags=tuple(row["tags"]),
                reason=row["reason"],
                source_ref=row["source_ref"],
                age_days=float(row["age_days"]),
            )
        )
    queries = []
    for line in (DATA / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        queries.append(Query(row["qid"], row["query"], dict(row["relevant"]), row["type"]))
    return LabelledSet("ledgerly", items, queries)


@dataclass(frozen=True)
class Synset:
    """One WordNet synset: its words, definition and usage examples."""

    id: str
    words: tuple[str, ...]
    definition: str
    examples: tuple[str, ...]


def ensure_wordnet() -> Path:
    """The WordNet data folder; installs Debian's `wordnet-base` by name when it is missing."""
    if (WORDNET_DIR / "data.noun").is_file():
        return WORDNET_DIR
    apt = shutil.which("apt-get")
    if apt and hasattr(os, "geteuid") and os.geteuid() == 0:
        print(f"installing the Debian package {WORDNET_PACKAGE} (WordNet 3.0 data)", flush=True)
        subprocess.run([apt, "install", "-y", "-q", WORDNET_PACKAGE], check=False)
    if not (WORDNET_DIR / "data.noun").is_file():
        raise MissingData(
            f"WordNet data not found in {WORDNET_DIR}: install the Debian package "
            f"{WORDNET_PACKAGE} (`apt-get install {WORDNET_PACKAGE}`) or set WORDNET_DIR"
        )
    return WORDNET_DIR


def synsets(folder: Path) -> Iterator[Synset]:
    """Every synset of WordNet's data.{noun,verb,adj,adv} files (the documented wndb format:
    offset, lexicographer file, type, word count in hex, words with lex ids, pointers, then
    `| gloss`, the definition followed by quoted examples)."""
    for pos, letter in _POS_FILES.items():
        with (folder / f"data.{pos}").open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith("  "):
                    continue  # the licence header
                head, _, gloss = line.partition("|")
                fields = head.split()
                count = int(fields[3], 16)
                words = []
                for k in range(count):
                    word = _ADJ_MARKER.sub("", fields[4 + 2 * k]).replace("_", " ")
                    if word not in words:
                        words.append(word)
                definition = gloss.split('"', 1)[0].strip().rstrip(";").strip()
                examples = tuple(e.strip() for e in _QUOTED.findall(gloss) if e.strip())
                if definition:
                    yield Synset(f"{letter}{fields[0]}", tuple(words), definition, examples)


def _entry(s: Synset) -> str:
    return f"{', '.join(s.words)}: {s.definition}"


def wordnet(
    n: int | None = 10_000, n_queries: int = 1_000, seed: int = 0, age_seed: int | None = None
) -> LabelledSet:
    """WordNet as a labelled set of `n` memories (None: all) and `n_queries` queries; the ages
    drawn again from `age_seed` when given (`redrawn`)."""
    folder = ensure_wordnet()
    rng = random.Random(seed)
    # An entry `remember` would refuse as a secret ("password: a secret word...") is left out.
    every = [s for s in synsets(folder) if not find_secret(_entry(s))]
    with_examples = [s for s in every if s.examples and len(s.examples[0].split()) >= 3]
    asked = rng.sample(with_examples, min(n_queries, len(with_examples)))
    if n is None:
        chosen = every
    else:
        picked = {s.id for s in asked}
        if len(picked) > n:
            raise SystemExit(f"{n_queries} queries need more than {n:,} memories")
        rest = [s for s in every if s.id not in picked]
        picked.update(s.id for s in rng.sample(rest, n - len(picked)))
        chosen = [s for s in every if s.id in picked]
    items = [
        Item(id=s.id, text=_entry(s)[:990], age_days=float(rng.randrange(0, 400))) for s in chosen
    ]
    queries = [
        Query(f"W{k:04d}", rng.choice(s.examples), {s.id: 2}, "example")
        for k, s in enumerate(asked)
    ]
    name = "wordnet" if n is None else f"wordnet-{n // 1000}k"
    return redrawn(LabelledSet(name, items, queries), age_seed)


def folds(data: LabelledSet, seed: int = 0) -> list[Fold]:
    """Two folds: in each, half the answerable queries lose their answers (unanswerable).

    A memory relevant to a kept query stays, so a held-out query sharing it stays answerable
    and is left out of both lists in that fold. Queries judged unanswerable from the start
    are unanswerable in both folds.
    """
    answerable = [q for q in data.queries if q.relevant]
    born_unanswerable = [q for q in data.queries if not q.relevant]
    order = list(range(len(answerable)))
    random.Random(seed).shuffle(order)
    halves = [{answerable[i].qid for i in order[k::2]} for k in (0, 1)]
    out = []
    for k, held_out in enumerate(halves):
        kept = [q for q in answerable if q.qid not in held_out]
        needed = {m for q in kept for m in q.relevant}
        removed = {m for q in answerable if q.qid in held_out for m in q.relevant} - needed
        lost = [q for q in answerable if q.qid in held_out and set(q.relevant) <= removed]
        items = [item for item in data.items if item.id not in removed]
        out.append(Fold(f"{data.name}/{k}", items, kept, lost + born_unanswerable))
    return out


_GCIDE_HEAD = re.compile(r"^(\S[^\\]*?)\s*\\")
_GCIDE_SENSE = re.compile(r"^   (\d+)\. (.*)")
_GCIDE_SOURCE = re.compile(r"^\s*\[[^\]]*\]\s*$")  # "[1913 Webster]", "[PJC]", ...
_GCIDE_CODE = re.compile(r"\[=?[a-z^~\"`']+\]")  # accent codes: [=a], [^e]
_GCIDE_KEPT = ("[1913 Webster", "[Webster", "[PJC]")
_GCIDE_AUTHOR = re.compile(r"\s*--\s*\S.*$")  # "--Shak." after a quotation


def ensure_gcide() -> Path:
    """GCIDE's dictd file: Debian's `dict-gcide` if installed, else fetched and unpacked."""
    if GCIDE_FILE.is_file():
        return GCIDE_FILE
    cached = GCIDE_CACHE / "usr/share/dictd/gcide.dict.dz"
    if cached.is_file():
        return cached
    apt, dpkg = shutil.which("apt-get"), shutil.which("dpkg-deb")
    if apt and dpkg:
        GCIDE_CACHE.mkdir(parents=True, exist_ok=True)
        print(f"fetching the Debian package {GCIDE_PACKAGE} (GCIDE data)", flush=True)
        subprocess.run([apt, "download", "-q", GCIDE_PACKAGE], cwd=GCIDE_CACHE, check=False)
        for deb in sorted(GCIDE_CACHE.glob(f"{GCIDE_PACKAGE}_*.deb")):
            subprocess.run([dpkg, "-x", str(deb), str(GCIDE_CACHE)], check=False)
    if not cached.is_file():
        raise MissingData(
            f"GCIDE data not found in {GCIDE_FILE}: `apt-get download {GCIDE_PACKAGE}` and "
            f"unpack it (`dpkg-deb -x`), or set GCIDE_FILE"
        )
    return cached


@dataclass(frozen=True)
class Sense:
    """One numbered sense of a GCIDE entry: its headword, definition and quotations."""

    id: str
    word: str
    definition: str
    quotes: tuple[str, ...]
    source: str = ""  # the first source line: "[1913 Webster]", "[WordNet 1.5]", ...


def _gcide_clean(text: str) -> str:
    return " ".join(_GCIDE_CODE.sub("", text.replace("{", "").replace("}", "")).split())


def gcide_senses(path: Path) -> Iterator[Sense]:
    """Every numbered sense of GCIDE's dictd text: an entry starts at column 0 (`Word
    \\pron\\, pos ...`), a sense at `   N. `, its definition goes on at six spaces, and its
    quotations are blocks at twelve, each ended by a source line ("[1913 Webster]")."""
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as lines:
        word = ""
        current: list[str] | None = None
        quotes: list[str] = []
        quote: list[str] = []
        source = ""
        count = 0

        def sense() -> Sense | None:
            nonlocal count
            if current is None:
                return None
            count += 1
            found = [_GCIDE_AUTHOR.sub("", _gcide_clean(q)) for q in quotes]
            definition = _gcide_clean(" ".join(current))
            return Sense(f"g{count}", word, definition, tuple(found), source)

        for line in lines:
            line = line.rstrip("\n")
            head = _GCIDE_HEAD.match(line) if line[:1] and not line[0].isspace() else None
            start = _GCIDE_SENSE.match(line)
            if head or start or (line[:1] and not line[0].isspace()):
                if quote:
                    quotes.append(" ".join(quote))
                done = sense()
                if done is not None:
                    yield done
                current, quotes, quote, source = None, [], [], ""
                if head:
                    word = _gcide_clean(head.group(1))
                if start:
                    current = [start.group(2)]
                continue
            if current is None:
                continue
            indent = len(line) - len(line.lstrip())
            if not line.strip() or _GCIDE_SOURCE.match(line):
                source = source or line.strip() if line.strip() else source
                if quote:
                    quotes.append(" ".join(quote))
                    quote = []
            elif indent >= 12:
                quote.append(line.strip())
            elif indent == 6 and not quotes and not quote:
                current.append(line.strip())
            elif indent <= 3:
                done = sense()
                if done is not None:
                    yield done
                current, quotes, quote, source = None, [], [], ""
        if quote:
            quotes.append(" ".join(quote))
        done = sense()
        if done is not None:
            yield done


def gcide(
    n: int | None = 10_000, n_queries: int = 1_000, seed: int = 0, age_seed: int | None = None
) -> LabelledSet:
    """GCIDE as a labelled set of `n` sense memories (None: all) and `n_queries` queries; the
    ages drawn again from `age_seed` when given (`redrawn`)."""
    path = ensure_gcide()
    rng = random.Random(seed)
    # GCIDE took in WordNet 1.5's senses (their source line follows the synonyms, so the
    # sense shows none); only Webster's and the GCIDE editors' (PJC) are kept, so the set is
    # no copy of the WordNet one.
    every = [
        s
        for s in gcide_senses(path)
        if s.word
        and s.definition
        and s.source.startswith(_GCIDE_KEPT)
        and not find_secret(f"{s.word}: {s.definition}")
    ]
    quoted = [s for s in every if any(len(q.split()) >= 4 for q in s.quotes)]
    asked = rng.sample(quoted, min(n_queries, len(quoted)))
    if n is None:
        chosen = every
    else:
        picked = {s.id for s in asked}
        rest = [s for s in every if s.id not in picked]
        picked.update(s.id for s in rng.sample(rest, n - len(picked)))
        chosen = [s for s in every if s.id in picked]
    items = [
        Item(
            id=s.id,
            text=f"{s.word}: {s.definition}"[:990],
            age_days=float(rng.randrange(0, 400)),
        )
        for s in chosen
    ]
    queries = [
        Query(f"G{k:04d}", rng.choice([q for q in s.quotes if len(q.split()) >= 4]), {s.id: 2})
        for k, s in enumerate(asked)
    ]
    name = "gcide" if n is None else f"gcide-{n // 1000}k"
    return redrawn(LabelledSet(name, items, queries), age_seed)


def redrawn(data: LabelledSet, age_seed: int | None) -> LabelledSet:
    """The same memories and queries with each memory's age drawn again, 0-399 days, from
    `age_seed` (None: as they are). The public sets' ages mean nothing (drawn at random with
    the memories), so the recency step's effect on them is one draw's: redrawing them with
    several seeds shows its mean and spread (bench/quality.py --age-seed)."""
    if age_seed is None:
        return data
    rng = random.Random(age_seed)
    items = [replace(item, age_days=float(rng.randrange(0, 400))) for item in data.items]
    return LabelledSet(data.name, items, data.queries)
