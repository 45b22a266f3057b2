"""Recency: a slight lift for newer memories, so a newer near-tie comes first.

    lift(age) = 1 + 0.05 * 0.5 ** (age_days / 30)  [x the share of the query's idf the match
                                                    holds, to the 4th power, in recall:
                                                    `recency_lifts`]

A memory written today is lifted x1.05, one 30 days old x1.025, an old one ~x1.0. The lift
never exceeds 5%, so it only decides between near-ties: a match more than 5% better wins
whatever its age. The 30-day half-life matches the time after which an unused memory rests.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["HALF_LIFE_DAYS", "MAX_RECENCY_LIFT", "SUBJECT_POWER", "recency_lift", "recency_lifts"]

MAX_RECENCY_LIFT = 0.05
"""The lift of a memory written just now, over 1."""

HALF_LIFE_DAYS = 30.0
"""Age at which the lift has halved."""

SUBJECT_POWER = 4.0
"""The share of the query's idf a match holds is raised to this power: "the same subject" is
holding (nearly) the whole query. With the share itself, matches holding part of a query
were reordered by age, which on the public sets (ages drawn at random) cost up to 0.001 of
nDCG@10 and put "all steps but the cut-offs" under plain BM25 (docs/recall.md)."""


def recency_lift(age_days: float) -> float:
    """1 + 0.05 * 0.5 ** (age_days / 30): in (1.0, 1.05]; a future date counts as age 0."""
    age = max(0.0, age_days)
    return 1.0 + MAX_RECENCY_LIFT * math.pow(0.5, age / HALF_LIFE_DAYS)


def recency_lifts(
    ages_days: NDArray[np.float64], on_subject: NDArray[np.float64] | float = 1.0
) -> NDArray[np.float64]:
    """`recency_lift` of many ages at once (numpy):
    1 + 0.05 * 0.5 ** (age / 30) * on_subject ** SUBJECT_POWER.

    `on_subject` (0..1, clipped) is how much of the query's subject each match holds, the
    share of the query's idf it holds: the spec lifts "a newer near-tie on the same subject",
    so a match holding every query word gets the whole lift, one holding three quarters of it
    a third, and one holding a single common word of a long question none to speak of.
    """
    import numpy as np

    ages = np.maximum(0.0, ages_days)
    share = np.power(np.clip(on_subject, 0.0, 1.0), SUBJECT_POWER)
    lifts: NDArray[np.float64] = (
        1.0 + MAX_RECENCY_LIFT * np.power(0.5, ages / HALF_LIFE_DAYS) * share
    )
    return lifts
