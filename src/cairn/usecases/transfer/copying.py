"""Copying a store to another backend (SQLite to PostgreSQL or back), row for row, verified."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cairn.core.errors import StoreError
from cairn.io.store.protocol import Store


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
