"""Export and import: the whole workspace as JSON Lines, lossless and idempotent.

Each line is one record with a `type`: `memory` (every version, so history survives),
`act` (code acts, with whether they were undone, so an undone act stays undone), `evidence`,
`session`, `progress`. Importing the same file twice changes nothing the second time.

An import trusts nothing in the file. Every field of every record has its type checked (text,
a `m-` + 6 hex ref, an ISO 8601 moment, true/false, ...), an unknown key is refused, and a
memory passes every rule `remember` applies (`cairn.usecases.remember.check_memory`: sentence, kind,
tags, reason, trigger, scope, secrets, citation), a progress record those of
`log_mission_progress`. Fields are stored as those rules normalise them, timestamps in the
form Cairn writes (`2026-11-29T13:21:12.123456Z`). A memory's `source_ref` is read relative
to that memory's own `project` (the absolute path export writes, which need not exist on this
machine): a path that climbs out of it is refused, an absolute path inside it is made relative.
An evidence event must be on a memory of the file or of the store.

The file is read in one transaction and every line is checked: when any is refused nothing is
written, and `ImportRefusedError` lists one line per refusal, naming the line, the record type
and its id. One exception: a memory record equal, field for field (JSON types included), to the
version already stored under its ref writes nothing and is not checked again (importing a
store's export back into it re-checked 100k memories). A `BLOCK` of lines at a time, the store
names the lines that are exactly a stored version (`Store.unchanged_memories`: over SQLite, a
line whose text is the one export writes for it, or an older export's line SQLite finds equal
as JSON, so those lines are not even parsed here); the others are parsed, and a memory among
them compared with its stored version (`Store.memory_records`).

Export writes memory lines as the store writes them (`Store.memory_lines`: SQLite's
`json_object`, keys sorted, no spaces), the other records with the same encoding. The new
memories of a block are written together once all its lines are checked
(`Store.load_memories`: one statement, where one a memory cost five), then its other records
in the file's order; what is derived (the trigger list, recall's postings) is brought up to
date once, after the import (`Cairn.import_`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from cairn.core.context import parse_stamp, stamp
from cairn.core.errors import ImportRefusedError, RefusedError, StoreError
from cairn.core.text import tokenize
from cairn.io.store import EVENTS, Event, Progress, SessionRow
from cairn.io.store.acts import ACTS, SOURCES, Act
from cairn.io.store.memories import IndexText
from cairn.io.store.protocol import Store
from cairn.usecases.progress import check_progress
from cairn.usecases.remember import (
    MEMORY_STATUSES,
    check_gate,
    check_memory,
    index_text,
)

FORMAT_VERSION = 1
MAX_LABEL = 4096  # a project path, branch, tool, session or record id
_REF = re.compile(r"m-[0-9a-f]{6}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_FIRST_YEAR = 1970  # nothing Cairn records predates it; stamps keep four-digit years
_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")


@dataclass(frozen=True)
class Imported:
    """Counts of records read and written by an import."""

    read: int = 0
    memories: int = 0
    acts: int = 0
    events: int = 0
    sessions: int = 0
    progress: int = 0

    def to_dict(self) -> dict[str, int]:
        """Counts as printed by `cairn import --json`."""
        return dict(self.__dict__)


def export_lines(store: Store) -> Iterator[str]:
    """The workspace as JSON Lines, a header first."""
    encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode
    yield encode({"type": "cairn-export", "version": FORMAT_VERSION})
    for act in store.all_acts():
        record = {**act.__dict__, "sessions": list(act.sessions)}
        yield encode({"type": "act", **record})
    # Memories as the store writes their lines (SQLite: without a dict or an encoder per
    # line); the analysed index columns are derived (rebuilt on import): not written.
    yield from store.memory_lines()
    records = store.dump(derived=False)
    for record in records:
        if record["type"] != "memory":  # memories come first: the rest from here
            yield encode(record)
            break
    for record in records:
        yield encode(record)


def import_lines(store: Store, lines: Iterable[str]) -> Imported:
    """Load exported records, all or none; records already present are skipped (idempotent).

    A memory record the same, field for field, as the version already stored under its ref
    (what importing an export into the store it came from reads) writes nothing and is not
    checked again: it counts as read. Every other record is checked before anything is kept.

    Raises `ImportRefusedError` (nothing written) when any line is refused.
    """
    counts = dict.fromkeys(("read", "memories", "acts", "events", "sessions", "progress"), 0)
    refusals: list[str] = []
    refs: set[str] = set()  # memories of the file so far: what its evidence may be on
    with store.transaction():  # an exception below rolls back every record written before it
        for block in _blocks(_numbered(lines, refusals)):
            # Lines equal to a stored version are found without parsing them here; the rest
            # are parsed, and a memory among them compared with its stored version.
            unchanged = store.unchanged_memories([line for _, line in block])
            refs.update(unchanged.values())
            counts["read"] += len(unchanged)
            pending = [
                (number, _loaded(line))
                for k, (number, line) in enumerate(block)
                if k not in unchanged
            ]
            stored = store.memory_records(_memory_refs(pending))
            loaded: list[dict[str, Any]] = []  # the block's new memories, written together
            later: list[tuple[str, Any]] = []  # its other records, written after them
            for number, parsed in pending:
                label = ""
                try:
                    record = parsed if isinstance(parsed, dict) else _parse(parsed)
                    counts["read"] += 1
                    ref = record.get("ref")
                    if isinstance(ref, str) and _same(record, stored.get(ref)):
                        refs.add(ref)
                        continue
                    kind = record.pop("type")
                    label = _label_of(kind, record)
                    if kind == "cairn-export":
                        _fields(kind, record, _HEADER)
                        continue
                    checked = _CHECKS[kind](record, store, refs)
                except RefusedError as exc:
                    said = str(exc)  # trigger and citation errors say what is wrong
                    refusals.append(f"line {number}{label}: {_refused(said)}")
                    continue
                if not refusals:  # once one is refused nothing is kept: only check the rest
                    if kind == "memory":
                        loaded.append(checked)
                    else:
                        later.append((kind, checked))
            if not refusals:
                # An event is on a memory of an earlier line (or of the store): the block's
                # memories go first, then its other records in the file's order.
                counts["memories"] += _write_memories(store, loaded)
                for kind, checked in later:
                    counts[_COUNTED[kind]] += _write(store, kind, checked)
        if refusals:
            raise ImportRefusedError(refusals)
    return Imported(**counts)


BLOCK = 1_000  # lines read between two lookups of the memories they name


def _blocks(numbered: Iterator[tuple[int, str]]) -> Iterator[list[tuple[int, str]]]:
    """The non-blank lines, `BLOCK` at a time."""
    block: list[tuple[int, str]] = []
    for number, line in numbered:
        if not line.strip():
            continue
        block.append((number, line))
        if len(block) >= BLOCK:
            yield block
            block = []
    if block:
        yield block


def _loaded(line: str) -> dict[str, Any] | str:
    """The line as a JSON object of a known type, or the line itself (for `_parse` to refuse
    with its reason)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return line
    return record if _typed(record) else line


def _typed(record: Any) -> bool:
    """A JSON object of a known record type."""
    if not isinstance(record, dict):
        return False
    kind = record.get("type")
    return isinstance(kind, str) and (kind == "cairn-export" or kind in _CHECKS)


def _memory_refs(block: Sequence[tuple[int, dict[str, Any] | str]]) -> list[str]:
    """The refs of the memory records of a block."""
    out: list[str] = []
    for _, record in block:
        if isinstance(record, dict) and record.get("type") == "memory":
            ref = record.get("ref")
            if isinstance(ref, str) and _REF.fullmatch(ref):
                out.append(ref)
    return out


def _same(record: dict[str, Any], stored: dict[str, Any] | None) -> bool:
    """Is the record, key for key, the version stored under its ref, as export writes it
    (`Store.memory_records`)? Then it was checked when it was stored, and writes nothing."""
    return (
        stored is not None
        # JSON's 1 equals true in Python, and 1.0 equals 1: those records are checked.
        and type(record.get("pinned")) is bool
        and type(record.get("gate")) is bool
        and type(record.get("revision")) is int
        and record == stored
    )


def _refused(message: str) -> str:
    return message if message.startswith("refused") else f"refused: {message}"


def _numbered(lines: Iterable[str], refusals: list[str]) -> Iterator[tuple[int, str]]:
    """(line number, line); a file that is not UTF-8 text ends with a refusal.

    The refusal names no line: the text is decoded a block at a time, ahead of the lines.
    """
    try:
        yield from enumerate(lines, 1)
    except UnicodeDecodeError as exc:
        refusals.append(f"refused: the file is not UTF-8 text ({exc.reason})")


def _parse(line: str) -> dict[str, Any]:
    """The line as a record: a JSON object with a known `type`."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise RefusedError(f"refused: not a Cairn export record (not JSON: {exc})") from None
    if not isinstance(record, dict):
        raise RefusedError(
            f"refused: not a Cairn export record (a JSON {type(record).__name__}, not an object)"
        )
    kind = record.get("type")
    if not isinstance(kind, str) or (kind != "cairn-export" and kind not in _CHECKS):
        known = ", ".join(["cairn-export", *_CHECKS])
        raise RefusedError(f"refused: unknown record type {_shown(kind)}; one of {known}")
    return record


def _label_of(kind: str, record: dict[str, Any]) -> str:
    """` (memory m-1a2b3c)`: the record as a refusal names it (its id when it is one)."""
    key = _ID_KEY.get(kind)
    ident = record.get(key) if key else None
    if isinstance(ident, str) and 0 < len(ident) <= 40 and not _CONTROL.search(ident):
        return f" ({kind} {ident})"
    return f" ({kind})"


# -- field checks: each takes the key and the value read, returns the value to store ------

Check = Callable[[str, Any], Any]


def _shown(value: Any) -> str:
    """A value as a refusal quotes it: repr, cut to 60 characters."""
    try:
        text = repr(value[:61] if isinstance(value, str) else value)
    except RecursionError:  # as deep as JSON can nest
        return f"a deeply nested {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _text(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise RefusedError(f"refused: `{key}` must be text, not {_shown(value)}")
    return value


def _label(key: str, value: Any) -> str:
    """One line of text, at most `MAX_LABEL` characters."""
    text = _text(key, value)
    if len(text) > MAX_LABEL:
        raise RefusedError(f"refused: `{key}` is {len(text)} characters, over {MAX_LABEL}")
    if _CONTROL.search(text):
        raise RefusedError(f"refused: `{key}` must be one line without control characters")
    return text


def _ident(key: str, value: Any) -> str:
    text = _label(key, value)
    if not text:
        raise RefusedError(f"refused: `{key}` is empty")
    return text


def _ref(key: str, value: Any) -> str:
    if not isinstance(value, str) or not _REF.fullmatch(value):
        raise RefusedError(f"refused: `{key}` must be a ref like m-1a2b3c, not {_shown(value)}")
    return value


def _path(key: str, value: Any) -> str:
    text = _label(key, value)
    if not os.path.isabs(text):
        raise RefusedError(f"refused: `{key}` must be an absolute path, not {_shown(value)}")
    return text


def _path_or_empty(key: str, value: Any) -> str:
    return _path(key, value) if value != "" else ""


def _stamp(key: str, value: Any) -> str:
    """An ISO 8601 moment, in the form Cairn writes (`stamp`: UTC, microseconds)."""
    text = _restamped(value)
    if text is None or text[:4] < str(_FIRST_YEAR):
        raise RefusedError(
            f"refused: `{key}` must be an ISO 8601 moment like 2026-11-01T12:00:00Z, "
            f"not {_shown(value)}"
        )
    return text


def _restamped(value: Any) -> str | None:
    """The moment as `stamp` writes it, or None when it is not one."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        if _STAMP.fullmatch(value):  # the form Cairn writes (a quick check of the date only)
            datetime.fromisoformat(value[:-1])
            return value
        text = stamp(parse_stamp(value))
    except (ValueError, OverflowError):
        return None
    return text if _STAMP.fullmatch(text) else None


def _stamp_or_empty(key: str, value: Any) -> str:
    return _stamp(key, value) if value != "" else ""


def _flag(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise RefusedError(f"refused: `{key}` must be true or false, not {_shown(value)}")
    return value


def _revision(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 2**63:
        raise RefusedError(f"refused: `{key}` must be a whole number from 1, not {_shown(value)}")
    return value


def _texts(key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RefusedError(f"refused: `{key}` must be a list of texts, not {_shown(value)}")
    return value


def _labels(key: str, value: Any) -> list[str]:
    return [_ident(key, v) for v in _texts(key, value)]


def _object(key: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RefusedError(f"refused: `{key}` must be an object, not {_shown(value)}")
    return value


def _fingerprint(key: str, value: Any) -> str:
    """What the cited code looked like (`cairn.io.citations.fingerprint`), as JSON text."""
    text = _text(key, value)
    if text:
        try:
            _object(key, json.loads(text))
        except (ValueError, RecursionError):
            raise RefusedError(f"refused: `{key}` must be a JSON object as text") from None
    return text


def _one_of(*options: str) -> Check:
    def check(key: str, value: Any) -> str:
        if not isinstance(value, str) or value not in options:
            raise RefusedError(
                f"refused: `{key}` must be one of {', '.join(options)}, not {_shown(value)}"
            )
        return value

    return check


def _version(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RefusedError(f"refused: `{key}` must be a format version, not {_shown(value)}")
    if value > FORMAT_VERSION:
        raise RefusedError(
            f"refused: this export is format {value}, from a newer Cairn; this one reads "
            f"format {FORMAT_VERSION}: upgrade Cairn to import it"
        )
    return value


def _optional(check: Check) -> Check:
    """`check`, with null meaning absent."""

    def optional(key: str, value: Any) -> Any:
        return None if value is None else check(key, value)

    _OPTIONAL.add(optional)
    return optional


_OPTIONAL: set[Check] = set()


@dataclass(frozen=True)
class _Field:
    check: Check
    required: bool = False
    default: Any = None
    # A value of exactly this type is one the check passes as it is: `_fields` keeps it
    # without the call (100k memories of 23 fields each: the calls were a third of import).
    plain: type | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        plains: dict[Check, type] = {_text: str, _flag: bool}
        plain = type(None) if self.check in _OPTIONAL else plains.get(self.check)
        object.__setattr__(self, "plain", plain)


def _fields(kind: str, record: dict[str, Any], schema: dict[str, _Field]) -> dict[str, Any]:
    """The record's values, each checked; refuse an unknown key or a missing required one."""
    unknown = [key for key in record if key not in schema]
    if unknown:
        raise RefusedError(
            f"refused: unknown key {', '.join(_shown(k) for k in unknown[:5])} in a {kind} "
            "record; it takes only the keys `cairn export` writes"
        )
    out: dict[str, Any] = {}
    for key, spec in schema.items():
        if key in record:
            value = record[key]
            out[key] = value if value.__class__ is spec.plain else spec.check(key, value)
        elif spec.required:
            raise RefusedError(f"refused: a {kind} record needs `{key}`")
        else:
            out[key] = spec.default
    return out


_HEADER = {"version": _Field(_version, required=True)}
_MEMORY = {
    "ref": _Field(_ref, required=True),
    "project": _Field(_path, required=True),
    "scope": _Field(_text, default="project"),
    "kind": _Field(_text, required=True),
    "text": _Field(_text, required=True),
    "folded": _Field(_text),  # derived from the text: computed again
    "tags": _Field(_texts, default=()),
    "reason": _Field(_text, default=""),
    "source_ref": _Field(_text, default=""),
    "cite_fp": _Field(_optional(_fingerprint), default=""),
    "when": _Field(_optional(_object)),
    "branch": _Field(_label, default=""),
    "pinned": _Field(_flag, default=False),
    "gate": _Field(_flag, default=False),
    "tool": _Field(_label, default=""),
    "session": _Field(_label, default=""),
    "written": _Field(_stamp, required=True),
    "until": _Field(_optional(_stamp)),
    "replaces": _Field(_optional(_ref)),
    "replaced_by": _Field(_optional(_ref)),
    "status": _Field(_one_of(*MEMORY_STATUSES), default="active"),
    "revision": _Field(_revision, default=1),
    "last_touched": _Field(_optional(_stamp_or_empty)),
}
_ACT = {
    "aid": _Field(_ident, required=True),
    "project": _Field(_path, required=True),
    "branch": _Field(_label, required=True),
    "act": _Field(_one_of(*ACTS), required=True),
    "at": _Field(_stamp, required=True),
    "source": _Field(_one_of(*SOURCES), required=True),
    "key": _Field(_ident, required=True),
    "detail": _Field(_object, default={}),
    "undone_at": _Field(_optional(_stamp)),
    "sessions": _Field(_labels, default=()),
}
_EVIDENCE = {
    "eid": _Field(_ident, required=True),
    "ref": _Field(_ref, required=True),
    "event": _Field(_one_of(*EVENTS), required=True),
    "tool": _Field(_label, required=True),
    "session": _Field(_label, required=True),
    "at": _Field(_stamp, required=True),
    "act": _Field(_optional(_ident)),
    "detail": _Field(_object, default={}),
}
_SESSION = {
    "id": _Field(_ident, required=True),
    "tool": _Field(_label, required=True),
    "project": _Field(_path_or_empty, required=True),
    "branch": _Field(_label, required=True),
    "cwd": _Field(_label, required=True),
    "started": _Field(_stamp, required=True),
    "ended": _Field(_optional(_stamp)),
}
_PROGRESS = {
    "pid": _Field(_ident, required=True),
    "project": _Field(_path, required=True),
    "branch": _Field(_label, required=True),
    "goal": _Field(_text, required=True),
    "step": _Field(_text, required=True),
    "status": _Field(_text, required=True),
    "tool": _Field(_label, required=True),
    "session": _Field(_label, required=True),
    "at": _Field(_stamp, required=True),
}


# -- records: checked as a whole, then written ---------------------------------------------


def _memory(record: dict[str, Any], store: Store, refs: set[str]) -> dict[str, Any]:
    """A memory version as `SqliteStore.load_memory` takes it, normalised as remember does."""
    fields = _fields("memory", record, _MEMORY)
    checked = check_memory(
        fields["text"],
        kind=fields["kind"],
        tags=fields["tags"],
        reason=fields["reason"],
        when=fields["when"],
        scope=fields["scope"],
        source_ref=fields["source_ref"],
        project=_folder(fields["project"]),
    )
    check_gate(fields["gate"], checked.when, checked.tags)
    # A belief ends (`until`) when it is corrected (superseded, with `replaced_by`) or
    # forgotten (retired; an older export may have no `until`); an active one has not ended.
    status = fields["status"]
    ended_ok = {"superseded": True, "retired": None, "active": False}[status]
    if (ended_ok is not None and ended_ok != (fields["until"] is not None)) or (
        (status == "superseded") != bool(fields["replaced_by"])
    ):
        raise RefusedError(
            "refused: a superseded memory has `until` and `replaced_by`, a retired one may have "
            "`until`, an active one neither; this one is "
            f"{status} with until {_shown(fields['until'])} and "
            f"replaced_by {_shown(fields['replaced_by'])}"
        )
    del fields["folded"]
    refs.add(fields["ref"])
    return {
        **fields,
        "text": checked.text,
        "kind": checked.kind,
        "tags": list(checked.tags),
        "reason": checked.reason,
        "when": checked.when.to_dict() if checked.when else None,
        "scope": checked.scope,
        "source_ref": checked.source_ref,
    }


def _act(record: dict[str, Any], store: Store, refs: set[str]) -> Act:
    fields = _fields("act", record, _ACT)
    return Act(**{**fields, "sessions": tuple(fields["sessions"])})


def _evidence(record: dict[str, Any], store: Store, refs: set[str]) -> Event:
    fields = _fields("evidence", record, _EVIDENCE)
    ref = fields["ref"]
    if ref not in refs and not store.get_memories([ref]):
        raise RefusedError(
            f"refused: the event is on {ref}, a memory neither in the store nor on an "
            "earlier line of the file"
        )
    return Event(**fields)


def _session(record: dict[str, Any], store: Store, refs: set[str]) -> SessionRow:
    return SessionRow(**_fields("session", record, _SESSION))


def _progress(record: dict[str, Any], store: Store, refs: set[str]) -> Progress:
    fields = _fields("progress", record, _PROGRESS)
    goal, step, status = check_progress(fields["goal"], fields["step"], fields["status"])
    return Progress(**{**fields, "goal": goal, "step": step, "status": status})


@lru_cache(maxsize=256)
def _folder(project: str) -> Path:
    """A memory's project as a Path (an export names a few projects, 100k times)."""
    return Path(project)


_CHECKS: dict[str, Callable[[dict[str, Any], Store, set[str]], Any]] = {
    "memory": _memory,
    "act": _act,
    "evidence": _evidence,
    "session": _session,
    "progress": _progress,
}
_COUNTED = {
    "memory": "memories",
    "act": "acts",
    "evidence": "events",
    "session": "sessions",
    "progress": "progress",
}
_ID_KEY = {"memory": "ref", "act": "aid", "evidence": "eid", "session": "id", "progress": "pid"}


def _write_memories(store: Store, checked: Sequence[dict[str, Any]]) -> int:
    """Store a block's checked memory versions together (`Store.load_memories`: one statement,
    where one a memory cost five); how many were new."""
    if not checked:
        return 0
    stored = store.memory_records([c["ref"] for c in checked])
    versions = [
        _analysed(c)
        for c in checked
        if c["ref"] not in stored  # already here: skipped before analysing its words
    ]
    return store.load_memories(versions)


def _analysed(checked: dict[str, Any]) -> tuple[dict[str, Any], str, IndexText]:
    """A checked memory with its folded sentence and analysed text: the sentence tokenized
    once for both (`folded_sentence` and `index_text` would each tokenize it)."""
    text = checked["text"]
    tokens = tokenize(text)
    index = index_text((tokens, text), checked["tags"], checked["source_ref"], checked["reason"])
    return checked, " ".join(tokens), index


def _write(store: Store, kind: str, checked: Any) -> int:
    """Store one checked record other than a memory; 1 when it was new."""
    if kind == "act":
        return int(store.add_act(checked))
    if kind == "evidence":
        return store.add_events([checked])
    if kind == "session":
        new = store.get_session(checked.id) is None
        store.upsert_session(checked)
        return int(new)
    return store.add_progress(checked)


# -- copying a store to another backend ----------------------------------------------------


@dataclass(frozen=True)
class Copied:
    """What `copy_store` carried: rows per table (the same in source and copy, verified)."""

    tables: dict[str, int]

    @property
    def memories(self) -> int:
        """Memory versions copied."""
        return self.tables.get("memories", 0)

    def to_dict(self) -> dict[str, int]:
        """Rows per table, as printed by `cairn store copy --json`."""
        return dict(self.tables)


def copy_store(source: Store, target: Store) -> Copied:
    """Copy everything `source` holds into the empty store `target` (SQLite to PostgreSQL or
    back), row for row with the same refs and ids, in one transaction, then verify it: the
    same number of rows in every copied table, and the same `get_memory` for every ref.

    Carried: every table of `COPIED_TABLES` (memories with every version, their tags, evidence,
    sessions, offers, progress, doc pages and files, code acts and the sessions they judged,
    learn state, tidy declines, citation sightings, gate denials, the index counters). Not
    carried: the store's own id, migrations and trigger change log (the copy keeps its own, so
    each machine's trigger list is made again from it), and the word indexes, made again from
    the copied rows. StoreError when `target` holds memories already, a row is refused, or the
    copy does not verify."""
    from cairn.io.store.sqlite_transfer import COPIED_TABLES

    if target.list_memories(current=False, limit=1):
        raise StoreError(
            f"refused: {target.location} holds memories already; copy into an empty store"
        )
    plan: list[tuple[str, list[str], list[tuple[Any, ...]]]] = []
    for table in COPIED_TABLES:
        theirs = set(target.table_columns(table))
        columns = [c for c in source.table_columns(table) if c in theirs]
        plan.append((table, columns, source.table_rows(table, columns)))
    try:
        target.load_tables(plan)
    except StoreError:
        raise
    except Exception as exc:  # a row the destination's constraints refuse
        raise StoreError(
            f"the copy to {target.location} was refused, nothing was written: "
            f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        ) from exc
    counts = {table: source.table_count(table) for table in COPIED_TABLES}
    problems = _differences(source, target, counts)
    if problems:
        raise StoreError(f"the copy to {target.location} does not verify: {'; '.join(problems)}")
    return Copied(counts)


def _differences(source: Store, target: Store, counts: dict[str, int] | None = None) -> list[str]:
    """What differs between two stores (empty: nothing): rows per table (`counts`: the
    source's, when counted already), and each memory."""
    from cairn.io.store.sqlite_transfer import COPIED_TABLES

    if counts is None:
        counts = {table: source.table_count(table) for table in COPIED_TABLES}
    out: list[str] = []
    for table, n in counts.items():
        theirs = target.table_count(table)
        if theirs != n:
            out.append(f"{n} {table} rows in the source, {theirs} in the copy")
    refs = [str(row[0]) for row in source.table_rows("memories", ["ref"])]
    for chunk in range(0, len(refs), 500):
        wanted = refs[chunk : chunk + 500]
        mine, theirs_ = source.get_memories(wanted), target.get_memories(wanted)
        out.extend(f"{ref} differs" for ref in wanted if mine.get(ref) != theirs_.get(ref))
    return out
