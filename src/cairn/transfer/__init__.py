"""Export and import: the whole workspace as JSON Lines, lossless and idempotent.

Each line is one record with a `type`: `memory` (every version, so history survives),
`act` (code acts, with whether they were undone, so an undone act stays undone), `evidence`,
`session`, `progress`. Importing the same file twice changes nothing the second time.

An import trusts nothing in the file. Every field of every record has its type checked (text,
a `m-` + 6 hex ref, an ISO 8601 moment, true/false, ...), an unknown key is refused, and a
memory passes every rule `remember` applies (`cairn.remember.check_memory`: sentence, kind,
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
names the lines that are exactly a stored version (`Store.unchanged_memories`: SQLite compares
the JSON itself, so those lines are not even parsed here); the others are parsed, and a memory
among them compared with its stored version (`Store.memory_records`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from cairn.errors import ImportRefusedError, RefusedError, StoreError
from cairn.store.protocol import Store
from cairn.transfer.fields import _CONTROL, _HEADER, _REF, FORMAT_VERSION, _fields, _shown
from cairn.transfer.records import _CHECKS, _COUNTED, _ID_KEY, _write


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
    yield json.dumps({"type": "cairn-export", "version": FORMAT_VERSION})
    encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode  # made once
    for act in store.all_acts():
        record = {**act.__dict__, "sessions": list(act.sessions)}
        yield encode({"type": "act", **record})
    # The analysed index columns are derived (rebuilt by the analyser on import): not read.
    for record in store.dump(derived=False):
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


# -- copying a store to another backend ----------------------------------------------------


def copy_store(source: Store, target: Store) -> Imported:
    """Copy every record export carries from `source` into the empty store `target` (SQLite
    to PostgreSQL or back), through export and import, then verify it: the same number of
    records of each type, and the same `get_memory` for every ref. StoreError when `target`
    holds memories already or the copy does not verify (the import is one transaction, so a
    refused record leaves `target` as it was)."""
    if target.list_memories(current=False, limit=1):
        raise StoreError(
            f"refused: {target.location} holds memories already; copy into an empty store"
        )
    done = import_lines(target, export_lines(source))
    problems = _differences(source, target)
    if problems:
        raise StoreError(f"the copy to {target.location} does not verify: {'; '.join(problems)}")
    return done


def _differences(source: Store, target: Store) -> list[str]:
    """What differs between two stores, as export sees them (empty: nothing)."""
    out: list[str] = []
    counts: list[dict[str, int]] = []
    refs: list[list[str]] = []
    for store in (source, target):
        seen: dict[str, int] = {"act": len(store.all_acts())}
        found: list[str] = []
        for record in store.dump():
            seen[record["type"]] = seen.get(record["type"], 0) + 1
            if record["type"] == "memory":
                found.append(record["ref"])
        counts.append(seen)
        refs.append(found)
    for kind in sorted(set(counts[0]) | set(counts[1])):
        a, b = counts[0].get(kind, 0), counts[1].get(kind, 0)
        if a != b:
            out.append(f"{a} {kind} records in the source, {b} in the copy")
    for chunk in range(0, len(refs[0]), 500):
        wanted = refs[0][chunk : chunk + 500]
        mine, theirs = source.get_memories(wanted), target.get_memories(wanted)
        out.extend(f"{ref} differs" for ref in wanted if mine.get(ref) != theirs.get(ref))
    return out
