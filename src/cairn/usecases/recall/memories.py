"""Recall's memories: the keyword matches through evidence (step 4), the cut-off (step 5)
and the "nothing found" gate (step 6), with LSA (step 3) re-ordering what they keep."""

from __future__ import annotations

from typing import Any

from cairn.core import rank
from cairn.core.context import Context
from cairn.core.lifecycle import factor_of, state_of
from cairn.core.models import Memory
from cairn.core.text.analyse import analyse
from cairn.core.text.query import Query
from cairn.io.store import Event
from cairn.io.store.protocol import Store
from cairn.usecases.recall.lsa import LsaCache
from cairn.usecases.recall.matching import CHECK_CHUNK, Matched, match_keywords, within_reach
from cairn.usecases.recall.scored import Scored


def search_memories(
    store: Store,
    ctx: Context,
    query: Query,
    end: str | None,
    kind: str | None,
    lsa: LsaCache | None,
    keep: int | None,
    steps: frozenset[str],
    matcher: Any = None,
) -> tuple[list[Scored], rank.Reading | None]:
    """Memory candidates scored through steps 1-4, cut (step 5) and gated (step 6); with what
    the gate read of the query.

    Rarity (N, each df, the mean length) is counted among the rows recall can return from
    this project: its own and the workspace-wide ones. Steps 1 and 2 are computed at once for
    every such version holding a query term, from the postings in memory (`match_keywords`, or
    `matcher`, which must give the same: `recall.lean`'s reads the kept files with the
    standard library); the CANDIDATES best go on. Step 5 reads the score before the LSA lift,
    so it is exact before LSA; whether a version is still current is asked of the store only
    as far down the order as can matter: to the best current one (the cut-off's reference and
    what the gate reads), then to the `keep`-th current one in the final order (None: all).
    """
    matched = (matcher or match_keywords)(store, ctx, query, kind, steps)
    if matched is None or not matched.pool:
        return [], None
    judged = "gate" in steps and store.count_memories(ctx.project) >= rank.MIN_MEMORIES_FOR_GATE
    current = Current(store, ctx.project, end)
    # Step 4, exact: the evidence factor; then step 5 on the score before the LSA lift (LSA
    # only re-orders what the keywords found, step 3), so it is exact here too.
    factor, events = _evidence(store, matched.pool, "evidence" in steps)
    keyword, ranked = _with_evidence(matched, factor, events)
    best = current.first(ranked)
    if best is None:
        return [], None
    # Step 6: the gate reads the best current match; nothing found is an answer.
    reading = _gate_reading(store, query, matched, best, current, judged)
    if judged and rank.judge(reading) == "none":
        return [], reading
    cutoff = rank.CUTOFF if "cutoff" in steps else 0.0
    scored = _over_cutoff(ranked, keyword, matched, best, reading.rare, cutoff, current)
    if "lsa" in steps and lsa is not None and lsa.ready(store) is not None:
        if keep is not None:
            scored = within_reach(scored, keyword, keep, current.checked, current.check)
        scored = lsa.rerank(store, scored, query.terms)
    scored = _shown(scored, factor, matched, current, keep)
    return _as_scored(ctx, scored, matched, current, events, reading, judged), reading


class Current:
    """Which versions are current (with as_of: believed at `end`), asked of the store a chunk
    at a time and only as far as needed: first down to the best current one (the cut-off's
    reference and what the gate reads), then, in the final order, down to the `keep`-th
    current one. `checked` holds the answers so far."""

    __slots__ = ("believed", "checked", "end", "store")

    def __init__(self, store: Store, project: str, end: str | None) -> None:
        self.store = store
        self.end = end
        self.believed = store.memories_as_of(project, end) if end is not None else {}
        self.checked: dict[int, bool] = {}

    def check(self, ids: list[int]) -> None:
        """Ask the store about `ids` (none of them asked before)."""
        if self.end is None:
            current = self.store.current_among(ids)
        else:
            current = {i for i in ids if i in self.believed}
        self.checked.update((i, i in current) for i in ids)

    def first(self, ranked: list[int]) -> int | None:
        """The first current one of `ranked` (None: none is)."""
        for start in range(0, len(ranked), CHECK_CHUNK):
            chunk = ranked[start : start + CHECK_CHUNK]
            self.check([i for i in chunk if i not in self.checked])
            best = next((i for i in chunk if self.checked[i]), None)
            if best is not None:
                return best
        return None


def _evidence(
    store: Store, pool: list[int], used: bool
) -> tuple[dict[int, float], dict[str, list[Event]]]:
    """Step 4: each pooled match's evidence factor (events looked up only for the memories
    that have some), and those events by ref."""
    events: dict[str, list[Event]] = {}
    factor = dict.fromkeys(pool, factor_of([]))
    if used:
        with_events = store.rowids_with_events()
        evidenced = [i for i in pool if i in with_events]
        if evidenced:
            ref_of = dict(zip(evidenced, store.refs_at_rowids(evidenced), strict=True))
            events = events_by_ref(store.events_for(list(ref_of.values())))
            factor.update((i, factor_of(events.get(r, []))) for i, r in ref_of.items())
    return factor, events


def _with_evidence(
    matched: Matched, factor: dict[int, float], events: dict[str, list[Event]]
) -> tuple[dict[int, float], list[int]]:
    """Each pooled match's score with its evidence factor, and the pool in that order, best
    first (stable: ties keep the pool's order)."""
    if not events:
        # No pooled match has evidence: every factor is x1.0, which changes no float, and the
        # pool is already best first.
        return matched.value_of, matched.pool
    keyword = {i: value * factor[i] for i, value in matched.value_of.items()}
    return keyword, sorted(keyword, key=keyword.__getitem__, reverse=True)


def _gate_reading(
    store: Store, query: Query, matched: Matched, best: int, current: Current, judged: bool
) -> rank.Reading:
    """Step 6: what the gate reads of the query and its best current match."""
    df_of, idf_of, n_docs = matched.df_of, matched.idf_of, matched.n_docs
    unknown = sum(
        1
        for unit in query.units()
        if df_of[unit[0]] == 0 and (len(unit) == 1 or any(df_of[t] == 0 for t in unit[1:]))
    )
    known = [idf_of[t] for t in query.terms if df_of[t]]
    rare = rank.idf(n_docs, 1)
    reading = rank.Reading(
        held=matched.held_of[best], unknown=unknown, mass=sum(known), rare=rare, n_docs=n_docs
    )
    if judged and rank.judge(reading) != "answer":
        # Only a match not answering on its idf alone needs the word its sentence opens with
        # (which only raises its support): one more row read, one sentence analysed.
        given = current.believed[best] if current.end is not None else None
        reading = reading.replace(lead=opening(given, store, best, idf_of))
    return reading


def _over_cutoff(
    ranked: list[int],
    keyword: dict[int, float],
    matched: Matched,
    best: int,
    rare: float,
    cutoff: float,
    current: Current,
) -> list[tuple[int, float]]:
    """Step 5: the matches (in keyword order, with their score after recency) whose memory
    score (`rank.memory_score`: the strength saturated in rare words) before the LSA lift is
    at least `cutoff` of the best current one's, less those known not current."""
    floor = cutoff * rank.memory_score(keyword[best], rare) * (1 - 1e-9)
    scores = rank.memory_scores([keyword[i] for i in ranked], rare)
    return [
        (i, matched.value_of[i])
        for i, score in zip(ranked, scores, strict=True)
        if score >= floor and current.checked.get(i, True)
    ]


def _shown(
    scored: list[tuple[int, float]],
    factor: dict[int, float],
    matched: Matched,
    current: Current,
    keep: int | None,
) -> list[tuple[int, float]]:
    """The current ones of `scored` in the order `_cut` gives (ties: newer, then ref), the
    first `keep` of them (None: all); the best of merged phrasings are among each one's
    best."""
    _final_order(scored, factor, matched)
    shown: list[tuple[int, float]] = []
    for start in range(0, len(scored), CHECK_CHUNK):
        part = scored[start : start + CHECK_CHUNK]
        unknown_ids = [i for i, _ in part if i not in current.checked]
        if unknown_ids:
            current.check(unknown_ids)
        shown.extend(item for item in part if current.checked[item[0]])
        if keep is not None and len(shown) >= keep:
            del shown[keep:]
            break
    return shown


def _final_order(
    scored: list[tuple[int, float]], factor: dict[int, float], matched: Matched
) -> None:
    """Sort `scored` as `_cut` orders memories: best first, ties newer first, then by ref.

    Sorted by score and age first (stable); the refs, read one by one from the kept strings,
    are asked only for the runs of matches equal in both (a rare tie), which are then put in
    order of ref: the order of sorting on all three at once.
    """
    written_of = matched.written_of
    keyed = [(-value * factor[i], -written_of[i], i, value) for i, value in scored]
    keyed.sort(key=lambda item: (item[0], item[1]))
    start = 0
    while start < len(keyed):
        end = start + 1
        while end < len(keyed) and keyed[end][:2] == keyed[start][:2]:
            end += 1
        if end - start > 1:
            run = keyed[start:end]
            refs = matched.refs_of([item[2] for item in run])
            order = sorted(range(len(run)), key=refs.__getitem__)
            keyed[start:end] = [run[k] for k in order]
        start = end
    scored[:] = [(i, value) for _, _, i, value in keyed]


def _as_scored(
    ctx: Context,
    scored: list[tuple[int, float]],
    matched: Matched,
    current: Current,
    events: dict[str, list[Event]],
    reading: rank.Reading,
    judged: bool,
) -> list[Scored]:
    """The memories shown, each scored with its lifecycle state's factor (a memory's score,
    `rank.memory_score`) and marked weak when the gate would not answer on it alone."""
    memories = (
        current.believed
        if current.end is not None
        else current.store.memories_by_ids([i for i, _ in scored])
    )
    out: list[Scored] = []
    now = ctx.now_micros()  # one moment for the whole answer
    for i, value in scored:
        memory = memories[i]
        state = state_of(memory, events.get(memory.ref, []), now)
        out.append(
            Scored(
                memory.ref,
                rank.memory_score(value * state.factor, reading.rare),
                memory=memory,
                keyword=rank.memory_score(matched.value_of[i] * state.factor, reading.rare),
                weak=judged and weak(reading, matched.held_of[i], memory.text, matched.idf_of),
            )
        )
    return out


def opening(memory: Memory | None, store: Store, rowid: int, idf_of: dict[str, float]) -> float:
    """`rank.lead` of one memory (read from the store when not given)."""
    if memory is None:
        memory = store.memories_by_ids([rowid])[rowid]
    return rank.lead(analyse(memory.text), idf_of)


def weak(reading: rank.Reading, held: float, text: str, idf_of: dict[str, float]) -> bool:
    """Whether a served match is weak: the gate's verdict on its own `held` and `lead`."""
    if rank.judge(reading, held, 0.0) == "answer":
        return False  # the word it opens with could only raise its support
    return rank.judge(reading, held, rank.lead(analyse(text), idf_of)) != "answer"


def events_by_ref(events: list[Event]) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for e in events:
        out.setdefault(e.ref, []).append(e)
    return out
