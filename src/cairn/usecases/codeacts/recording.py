"""Recording a code act, from git or by hand: the act stored once (by its key), and one event
per memory its sessions cited."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cairn.core.context import Context
from cairn.io.store import Event, new_eid
from cairn.io.store.acts import Act, new_aid
from cairn.io.store.protocol import Store

# The acts that settle a branch (a session judged by one is not judged again from git).
SETTLING = ("merge", "discard")


@dataclass(frozen=True)
class Recorded:
    """An act as recorded, with the memories it judged."""

    act: Act
    refs: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """As `cairn learn --json` and `cairn review --json` print it."""
        return {**self.act.to_dict(), "memories": list(self.refs)}


def record_act(
    store: Store,
    ctx: Context,
    kind: str,
    branch: str,
    sessions: Sequence[str],
    source: str,
    key: str,
    detail: dict[str, Any],
    counted: Sequence[str] | None = None,
) -> Recorded | None:
    """Store one act and one event per memory cited by the `counted` sessions (default: all).

    None when an act with this key exists (another run recorded it first).
    """
    aid = new_aid()
    now = ctx.now()
    refs = sorted(store.cited_in_sessions(list(sessions if counted is None else counted)))
    act = Act(
        aid,
        ctx.project,
        branch,
        kind,
        now,
        source,
        key or aid,
        detail,
        None,
        tuple(sorted(sessions)),
    )
    with store.transaction():
        if not store.add_act(act):
            return None
        store.add_events(
            Event(new_eid(), ref, kind, source, "", now, aid, {"branch": branch}) for ref in refs
        )
    return Recorded(act, tuple(refs))
