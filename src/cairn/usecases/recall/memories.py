"""Recall's memories: the keyword matches through evidence (step 4), the cut-off (step 5)
and the "nothing found" gate (step 6), with LSA (step 3) re-ordering what they keep."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cairn.core import rank
from cairn.core.context import Context
from cairn.core.lifecycle import factor_of, state_of
from cairn.core.models import Memory
from cairn.core.text.analyse import analyse
from cairn.core.text.query import Query
from cairn.io.store import Event
from cairn.io.store.protocol import Store
from cairn.usecases.recall.kept import LsaCache
from cairn.usecases.recall.matching import CHECK_CHUNK, match_keywords, within_reach
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
    terms = query.terms
    matched = (matcher or match_keywords)(store, ctx, query, kind, steps)
    if matched is None or not matched.pool:
        return [], None
    df_of, idf_of, n_docs = matched.df_of, matched.idf_of, matched.n_docs
    unknown = sum(
        1
        for unit in query.units()
        if df_of[unit[0]] == 0 and (len(unit) == 1 or any(df_of[t] == 0 for t in unit[1:]))
    )
    judged = "gate" in steps and store.count_memories(ctx.project) >= rank.MIN_MEMORIES_FOR_GATE
    pool_ids = matched.pool
    value_of, held_of, written_of = matched.value_of, matched.held_of, matched.written_of

    # Which versions are current (with as_of: believed then) is asked of the store, a chunk
    # at a time and only as far as needed: first down to the best current one (the cut-off's
    # reference and what the gate reads), then, in the final order, down to the `keep`-th
    # current one.
    believed = store.memories_as_of(ctx.project, end) if end is not None else {}
    checked: dict[int, bool] = {}

    def check(ids: list[int]) -> None:
        current = store.current_among(ids) if end is None else {i for i in ids if i in believed}
        checked.update((i, i in current) for i in ids)

    # Step 4, exact: the evidence factor (looked up only for the memories that have events);
    # then step 5 on the score before the LSA lift (LSA only re-orders what the keywords
    # found, step 3), so it is exact here too.
    events: dict[str, list[Event]] = {}
    factor = dict.fromkeys(pool_ids, factor_of([]))
    if "evidence" in steps:
        with_events = store.rowids_with_events()
        evidenced = [i for i in pool_ids if i in with_events]
        if evidenced:
            ref_of = dict(zip(evidenced, store.refs_at_rowids(evidenced), strict=True))
            events = events_by_ref(store.events_for(list(ref_of.values())))
            factor.update((i, factor_of(events.get(r, []))) for i, r in ref_of.items())
    keyword = {i: value * factor[i] for i, value in value_of.items()}
    # Best first; stable (as with reverse=True too): ties keep the pool's order.
    ranked = sorted(keyword, key=keyword.__getitem__, reverse=True)

    best: int | None = None
    for start in range(0, len(ranked), CHECK_CHUNK):
        chunk = ranked[start : start + CHECK_CHUNK]
        check([i for i in chunk if i not in checked])
        best = next((i for i in chunk if checked[i]), None)
        if best is not None:
            break
    if best is None:
        return [], None
    # Step 6: the gate reads the best current match; nothing found is an answer.
    known = [idf_of[t] for t in terms if df_of[t]]
    rare = rank.idf(n_docs, 1)
    reading = rank.Reading(
        held=held_of[best], unknown=unknown, mass=sum(known), rare=rare, n_docs=n_docs
    )
    if judged and rank.judge(reading) != "answer":
        # Only a match not answering on its idf alone needs the word its sentence opens with
        # (which only raises its support): one more row read, one sentence analysed.
        opens = opening(believed[best] if end is not None else None, store, best, idf_of)
        reading = replace(reading, lead=opens)
    if judged and rank.judge(reading) == "none":
        return [], reading
    # The cut-off reads the memory's score (`rank.memory_score`: the strength saturated in
    # rare words), before the LSA lift.
    cutoff = rank.CUTOFF if "cutoff" in steps else 0.0
    floor = cutoff * rank.memory_score(keyword[best], rare) * (1 - 1e-9)
    scores = rank.memory_scores([keyword[i] for i in ranked], rare)
    scored = [
        (i, value_of[i])
        for i, score in zip(ranked, scores, strict=True)
        if score >= floor and checked.get(i, True)
    ]
    if "lsa" in steps and lsa is not None and lsa.ready(store) is not None:
        if keep is not None:
            scored = within_reach(scored, keyword, keep, checked, check)
        scored = lsa.rerank(store, scored, terms)
    # The order `_cut` gives (ties: newer, then ref); the best of merged phrasings are among
    # each one's best.
    refs = dict(zip([i for i, _ in scored], matched.refs_of([i for i, _ in scored]), strict=True))
    scored.sort(key=lambda item: (-item[1] * factor[item[0]], -written_of[item[0]], refs[item[0]]))
    shown: list[tuple[int, float]] = []
    for start in range(0, len(scored), CHECK_CHUNK):
        part = scored[start : start + CHECK_CHUNK]
        unknown_ids = [i for i, _ in part if i not in checked]
        if unknown_ids:
            check(unknown_ids)
        shown.extend(item for item in part if checked[item[0]])
        if keep is not None and len(shown) >= keep:
            del shown[keep:]
            break
    scored = shown

    memories = believed if end is not None else store.memories_by_ids([i for i, _ in scored])
    out: list[Scored] = []
    for i, value in scored:
        memory = memories[i]
        state = state_of(memory, events.get(memory.ref, []), ctx.clock())
        out.append(
            Scored(
                memory.ref,
                rank.memory_score(value * state.factor, rare),
                memory=memory,
                keyword=rank.memory_score(value_of[i] * state.factor, rare),
                weak=judged and weak(reading, held_of[i], memory.text, idf_of),
            )
        )
    return out, reading


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
