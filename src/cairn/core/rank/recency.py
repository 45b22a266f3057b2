"""Recency: a newer near-tie on the same subject comes first.

    lift(age) = 1 + 0.05 * 0.5 ** (age_days / 30)

A memory written today is lifted x1.05, one 30 days old x1.025, an old one ~x1.0. The lift is
applied between two keyword matches on the same subject, and only there (`near_ties`): both
hold every query word a memory holds, and the newer one, lifted, reaches the older one lifted
(the older leads by less than lift(newer) / lift(older)); the newer then ties the older and
comes first. Between matches on different subjects the keyword strength alone decides, so a
match more than 5% ahead is never passed, and one on another subject never is.

Read so because a lift on every match reorders by age any two matches within 5% of each
other: on stores whose ages say nothing about the answer (the public labelled sets, ages drawn
at random) that cost up to 0.0046 of nDCG@10 at 100,000 memories (0.0017 on average over
redrawn ages); the near-tie reading moves it by at most 0.0002 on any set and draw, and keeps
the "which is newer" answers (docs/recall.md, "Recency"). The 30-day half-life matches the
time after which an unused memory rests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["HALF_LIFE_DAYS", "MAX_RECENCY_LIFT", "NEAR_TIES", "near_ties", "recency_lift"]

MAX_RECENCY_LIFT = 0.05
"""The lift of a memory written just now, over 1."""

HALF_LIFE_DAYS = 30.0
"""Age at which the lift has halved."""

NEAR_TIES = 32
"""The keyword matches (best first) among which newer near-ties are looked for: more than any
recall shows (12 memories at the most; LSA re-orders within 10%)."""

_DAY_US = 86_400 * 1_000_000


def recency_lift(age_days: float) -> float:
    """1 + 0.05 * 0.5 ** (age_days / 30): in (1.0, 1.05]; a future date counts as age 0."""
    age = max(0.0, age_days)
    return 1.0 + MAX_RECENCY_LIFT * math.pow(0.5, age / HALF_LIFE_DAYS)


def near_ties(
    strengths: Sequence[float], written_us: Sequence[int], whole: Sequence[bool], now_us: int
) -> list[float]:
    """The strengths of keyword matches (given best first), each newer near-tie on the same
    subject raised to the strength of the older match it ties.

    `written_us` is each match's write time (microseconds), `whole` whether it holds every
    query word a memory holds (the same subject), `now_us` the moment of the query. A match j
    holding every word ties the best match i ahead of it that also does, is older, and that
    it reaches lifted: strengths[i] x lift(age_i) <= strengths[j] x lift(age_j). It takes i's
    strength (already raised, if i tied one before it: the lifts multiply, so j reaches that
    one too); sorted with newer first on equal strengths (`blend.sort_key`, recall's pool),
    it comes just before i. Nothing is lowered, nothing is raised past a match it does not
    reach, and only the first NEAR_TIES matches are looked at (the rest are returned as
    given).
    """
    if not len(strengths) == len(written_us) == len(whole):
        raise ValueError("strengths, written_us and whole must be as long as each other")
    out = list(strengths)
    head = min(len(out), NEAR_TIES)
    lifted = [
        strengths[k] * recency_lift((now_us - written_us[k]) / _DAY_US) if whole[k] else 0.0
        for k in range(head)
    ]
    for j in range(1, head):
        if not whole[j]:
            continue
        for i in range(j):
            if (
                whole[i]
                and written_us[i] < written_us[j]
                and out[i] > out[j]
                and lifted[i] <= lifted[j]
            ):
                out[j] = out[i]
                break
    return out
