"""Import: an export file read in one transaction, every line checked, all or nothing; a
memory line equal to its stored version writes nothing and is not checked again."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from cairn.core.errors import ImportRefusedError, RefusedError
from cairn.core.text import tokenize
from cairn.io.store.memories import IndexText
from cairn.io.store.protocol import Store
from cairn.usecases.remember import index_text
from cairn.usecases.transfer.fields import CONTROL, REF, checked_fields, shown
from cairn.usecases.transfer.records import CHECKS, COUNTED, HEADER, ID_KEY


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
                        checked_fields(kind, record, HEADER)
                        continue
                    checked = CHECKS[kind](record, store, refs)
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
                    counts[COUNTED[kind]] += _write(store, kind, checked)
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
    return isinstance(kind, str) and (kind == "cairn-export" or kind in CHECKS)


def _memory_refs(block: Sequence[tuple[int, dict[str, Any] | str]]) -> list[str]:
    """The refs of the memory records of a block."""
    out: list[str] = []
    for _, record in block:
        if isinstance(record, dict) and record.get("type") == "memory":
            ref = record.get("ref")
            if isinstance(ref, str) and REF.fullmatch(ref):
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
    if not isinstance(kind, str) or (kind != "cairn-export" and kind not in CHECKS):
        known = ", ".join(["cairn-export", *CHECKS])
        raise RefusedError(f"refused: unknown record type {shown(kind)}; one of {known}")
    return record


def _label_of(kind: str, record: dict[str, Any]) -> str:
    """` (memory m-1a2b3c)`: the record as a refusal names it (its id when it is one)."""
    key = ID_KEY.get(kind)
    ident = record.get(key) if key else None
    if isinstance(ident, str) and 0 < len(ident) <= 40 and not CONTROL.search(ident):
        return f" ({kind} {ident})"
    return f" ({kind})"


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
