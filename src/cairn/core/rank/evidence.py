"""Evidence: what was done to the code moves a memory's score, at most x2 up or x0.5 down.

    factor = clamp(2 ** ((confirmed + merged - reverted - discarded - contradicted) / 2),
                   0.5, 2.0)

Each net confirmation multiplies the score by sqrt(2); two net confirmations reach the x2
ceiling and two net contradictions the x0.5 floor. Counts are of distinct events: a merge
that also recorded a confirmation should be passed once.
"""

from __future__ import annotations

__all__ = ["MAX_EVIDENCE_FACTOR", "MIN_EVIDENCE_FACTOR", "evidence_factor"]

MAX_EVIDENCE_FACTOR = 2.0
"""Merges and confirmations lift a match at most x2."""

MIN_EVIDENCE_FACTOR = 0.5
"""Reverts, discards and contradictions lower a match at most to x0.5."""


def evidence_factor(
    confirmed: int, merged: int, reverted: int, discarded: int, contradicted: int = 0
) -> float:
    """clamp(2 ** ((confirmed + merged - reverted - discarded - contradicted) / 2), 0.5, 2)."""
    counts = (confirmed, merged, reverted, discarded, contradicted)
    if any(count < 0 for count in counts):
        raise ValueError(f"evidence counts must be >= 0, got {counts}")
    net = confirmed + merged - reverted - discarded - contradicted
    # Clamping the net count (to +-2, where 2 ** (net / 2) reaches 2.0 and 0.5) before the
    # power is the same clamp, and a huge count cannot overflow the float conversion.
    # `**`, not math.pow (the same C pow()): the hook would import `math` for this alone.
    return float(2.0 ** (min(max(net, -2), 2) / 2))
