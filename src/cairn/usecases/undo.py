"""Undo: take back what one action on memories did, so they read exactly as before it.

An action (confirm, contradict, correct, pin, unpin, forget, restore, on one memory or a
few) runs between two looks at the store: `before` notes the memories' rows and the events
that count on them, `after` what changed, as a `Change`. `take_back(change)`:

- sets each memory's own fields (status, pinned, until, replaced_by, last_touched, gate) back
  to what they were, in place;
- retires a version the action wrote (a correction) as never believed (`until = written`),
  so the version it replaced is current again and its history reads as before;
- takes back the events the action added (kept, no longer counted: `store.evidence`).

Rule: a memory changed by anyone since the action (its revision moved) is not touched and the
whole undo is refused with a `ConflictError`, since its state before is no longer the one to
go back to. The revision itself is not set back: it counts changes, and an undo is one, so an
edit opened before the undo is still refused as stale. A touch made since (a session cited the
memory) is kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from cairn.core.errors import ConflictError, RefusedError, UnknownRefError
from cairn.core.models import Memory
from cairn.io.store.protocol import Store

# The events a person may take back one by one from a memory's timeline: judgements by hand.
# A code act is taken back whole (`cairn review undo`); a citation is what a session did.
JUDGEMENTS = ("confirmed", "contradicted")

# The fields of a memory's row that an action on it may change in place.
FIELDS = ("status", "pinned", "until", "replaced_by", "last_touched", "gate")


@dataclass(frozen=True)
class Before:
    """The memories' rows and the events that counted on them, before an action."""

    memories: Mapping[str, Memory]
    eids: frozenset[str]


@dataclass(frozen=True)
class Change:
    """What one action did: the rows before and right after, the versions it wrote, and the
    events it added."""

    was: Mapping[str, Memory]
    now: Mapping[str, Memory]
    created: tuple[str, ...]
    events: tuple[str, ...]

    @property
    def refs(self) -> tuple[str, ...]:
        """The memories the action changed or wrote."""
        return (*self.was, *self.created)


def before(store: Store, refs: Iterable[str]) -> Before:
    """Note the rows and counted events of these memories (an unknown ref is refused)."""
    wanted = list(dict.fromkeys(refs))
    found = store.get_memories(wanted)
    missing = [r for r in wanted if r not in found]
    if missing:
        raise UnknownRefError(f"unknown ref {missing[0]}: no memory has it")
    eids = frozenset(e.eid for e in store.events_for(wanted))
    return Before(found, eids)


def after(store: Store, was: Before) -> Change:
    """What changed since `was`: rows, the versions written to replace them, new events."""
    refs = list(was.memories)
    now = store.get_memories(refs)
    created = tuple(
        m.replaced_by
        for ref, m in now.items()
        if m.replaced_by and m.replaced_by != was.memories[ref].replaced_by
    )
    now = {**now, **store.get_memories(created)}
    events = tuple(e.eid for e in store.events_for(refs) if e.eid not in was.eids)
    return Change(dict(was.memories), now, created, events)


def take_back(store: Store, change: Change, at: str) -> None:
    """Put the memories of `change` back as they were before it, in one transaction; refused
    (nothing written) when one of them changed since."""
    with store.transaction():
        current = store.get_memories(change.refs)
        for ref in change.refs:
            mine = change.now.get(ref)
            if ref not in current or mine is None or current[ref].revision != mine.revision:
                raise ConflictError(
                    f"{ref} changed since this action (revision {mine.revision if mine else '?'}"
                    f", now {current[ref].revision if ref in current else 'gone'}); the undo "
                    "was refused: reload and undo by hand"
                )
        for ref in change.created:
            version = current[ref]
            store.update_memory(version, status="retired", until=version.written)
        for ref, was in change.was.items():
            now, mine = current[ref], change.now[ref]
            changes = {
                name: getattr(was, name)
                for name in FIELDS
                if getattr(now, name) != getattr(was, name)
            }
            if now.last_touched != mine.last_touched:
                changes.pop("last_touched", None)  # touched since by a session: kept
            if changes:
                store.update_memory(now, **changes)
        store.take_back_events(change.events, at)


def take_back_event(store: Store, ref: str, eid: str, at: str) -> None:
    """Take back one confirmation or contradiction of memory `ref`: kept, no longer counted.

    Unlike `take_back`, nothing else is set back: when the memory was last touched stays as it
    is (a later touch may rest on it). Refused when the event is not a judgement on `ref` that
    still counts.
    """
    mine = [e for e in store.events_for([ref]) if e.eid == eid]
    if not mine or mine[0].event not in JUDGEMENTS or mine[0].act:
        raise RefusedError(
            f"refused: {eid[:40]!r} is no confirmation or contradiction of {ref} that counts; "
            "a code act is taken back with `cairn review undo`"
        )
    store.take_back_events([eid], at)
