"""A memory's standing, from its evidence and the clock: active, resting or out.

- out: contradicted (revert, discard, contradicted) at least twice since its last
  confirmation (confirmed, merge). It leaves the index and stops firing as a lesson; recall
  still finds it, lower. Pinned memories are never out. A confirmation restores it.
- resting: not cited or restated (an echo restates) for 30 days. It leaves the session index
  and brief and stays searchable; a resting lesson or action rule keeps firing on its tool
  calls, since a rule that fires on every push is rarely cited. Pinned memories and
  preferences never rest; a citation or restatement wakes it.

Two questions, two answers: `State.in_index` (listed in the index and brief: active only) and
`State.fires` (added to tool calls: active or resting). Only out, superseded and retired
memories stop firing. docs/lifecycle.md gives the reading of the spec.
"""

from __future__ import annotations

from cairn.core.context import DAY_US, micros, stamp_micros
from cairn.core.value import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from cairn.core.firing import FiringEvent, FiringMemory
    from cairn.core.models import Event, Memory

REST_AFTER_DAYS = 30
STRIKES = 2
CONFIRMING = ("confirmed", "merge")
CONTRADICTING = ("contradicted", "revert", "discard")


class State(Value):
    """Where a memory stands now, and what follows for ranking, the index and lessons."""

    # Field order is the constructor order (and the repr's), so not sorted.
    __slots__ = ("status", "factor", "why")  # noqa: RUF023
    status: str
    factor: float
    why: str

    def __init__(self, status: str, factor: float, why: str = "") -> None:
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "factor", factor)
        object.__setattr__(self, "why", why)

    @property
    def in_index(self) -> bool:
        """Listed in the session index and brief.

        Resting, out, superseded and retired memories have left the index.
        """
        return self.status == "active"

    @property
    def fires(self) -> bool:
        """Added to matching tool calls as a lesson or action rule: active or resting.

        Only out (contradicted twice, not pinned), superseded and retired memories stop firing.
        """
        return self.status in ("active", "resting")


def strikes(events: Sequence[Event | FiringEvent]) -> int:
    """Contradictions since the last confirmation."""
    count = 0
    for e in sorted(events, key=lambda e: e.at):
        if e.event in CONFIRMING:
            count = 0
        elif e.event in CONTRADICTING:
            count += 1
    return count


def factor_of(events: Sequence[Event | FiringEvent]) -> float:
    """The ranking factor of a memory's code acts and confirmations, in [x0.5, x2]."""
    n = {name: sum(1 for e in events if e.event == name) for name in (*CONFIRMING, *CONTRADICTING)}
    if not any(n.values()):
        return 1.0  # no evidence: x1 (the hook need not import cairn.core.rank to learn that)
    from cairn.core.rank.evidence import evidence_factor

    return evidence_factor(n["confirmed"], n["merge"], n["revert"], n["discard"], n["contradicted"])


def state_of(
    memory: Memory | FiringMemory, events: Sequence[Event | FiringEvent], now: datetime | int
) -> State:
    """The memory's standing at `now` (a datetime, or microseconds since the Unix epoch)."""
    factor = factor_of(events)
    if memory.status != "active":
        return State(memory.status, factor, f"{memory.status}")
    if not memory.pinned and strikes(events) >= STRIKES:
        return State("out", factor, "contradicted twice with no confirmation since")
    now_us = now if isinstance(now, int) else micros(now)
    idle_us = now_us - stamp_micros(memory.last_touched or memory.written)
    if not memory.pinned and memory.kind != "preference" and idle_us > REST_AFTER_DAYS * DAY_US:
        return State("resting", factor, f"not cited or restated for {idle_us // DAY_US} days")
    return State("active", factor)
