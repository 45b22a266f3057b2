"""recall: a query in, ranked memories and doc pages out. Local BM25, no model.

The pipeline, in order (each step a pure function of `cairn.core.rank`):

0. the query's words (`cairn.core.text.query`): analysed as memories are, less its question and
   filler words ("can", "should", "into", "please");
1. BM25F candidates: memory versions visible from the project holding a query word, scored
   with Lucene's idf over the four fields (sentence > tags > citation > reason) from postings
   held in memory (`rank.postings`, `KeywordCache`), rarity counted among the versions visible
   from the project, and of them the CANDIDATES best; doc pages from the FTS5 index;
2. recency lift (slight: a newer near-tie on the same subject comes first; scaled by the
   share of the query's idf the match holds, so matches off the query's subject are hardly
   lifted);
3. LSA re-ranking once the workspace holds 200 memories (lift at most x1.1, only re-orders);
4. evidence factor: merges and confirmations lift, reverts/discards/contradictions lower,
   clamped to [x0.5, x2];
5. cut-off: a memory under 0.7 of the best memory's score is left out (the best stays). A
   memory's score is its strength (BM25F with the lifts of steps 2-4) saturated in rare words,
   strength / (strength + rare) (`rank.memory_score`), so the cut-off separates clear matches
   from thin ones, not clear ones from clearer ones; it reads the score before the LSA lift,
   since LSA only re-orders the keyword matches (it adds none, and removes none by widening
   the gap to a lifted best);
6. the "nothing found" gate (`rank.gate`): from 50 memories in the project, the best match
   must hold enough of the query's idf (the query word its sentence opens with counting
   twice; less for each query word no memory holds; the bar rises with the log of the
   store's size), or nothing is found; a match barely passing by its own idf is marked weak;
7. limits: default 8, at most 25; memories at most half, docs the rest; pages only: 20.

docs/recall.md has what each step was measured at (bench/quality.py).

A query about the branch (names it, or asks what is open / in progress) gets the branch brief
first. `also` phrasings are each searched alone, through their own cut-offs (steps 5 and 6),
and merged by score relative to their own best (`_merged`). `as_of` answers from the
versions believed at the end of that UTC day, or at a moment given with its zone (memories
only): each version is believed from `written` until `until`, set by a correction or a forget.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from cairn.core import rank
from cairn.core.context import Context, parse_stamp, stamp
from cairn.core.errors import QueryError
from cairn.core.lifecycle import factor_of, state_of
from cairn.core.models import KINDS, Hit, Memory
from cairn.core.rank.recency import MAX_RECENCY_LIFT
from cairn.core.text.analyse import analyse
from cairn.core.text.query import Query, analyse_query
from cairn.io.store import Event
from cairn.io.store.protocol import Store
from cairn.usecases.describe import citation_of
from cairn.usecases.recall.kept import KeywordCache, LsaCache, Segment, keywords, micros

__all__ = [
    "ALL_STEPS",
    "CANDIDATES",
    "KeywordCache",
    "LsaCache",
    "Matched",
    "Recalled",
    "believed_at",
    "check_limit",
    "recall",
    "refresh",
]

FIELDS = ("sentence", "tags", "citation", "reason")
WEIGHTS = tuple(rank.FIELD_WEIGHTS[f] for f in FIELDS)
UNWEIGHTED = (1.0, 1.0, 1.0, 1.0)
# The pipeline's switchable steps. Agents always get all of them; bench/quality.py turns them
# on one at a time to measure what each adds.
ALL_STEPS = frozenset({"weights", "recency", "lsa", "evidence", "cutoff", "gate"})
DOC_WEIGHTS = {"title": 2.0, "body": 1.0}
MAX_ALSO = 3
MAX_QUERY = 1000  # characters in the query and in each of `also`
LINE_CHARS = 240
CANDIDATES = 400
CHECK_CHUNK = 16
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_MOMENT = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?"
)


@dataclass(frozen=True)
class Recalled:
    """The answer to one recall: hits best first (the branch brief first when asked)."""

    query: str
    hits: list[Hit] = field(default_factory=list)
    as_of: str | None = None
    # What the "nothing found" gate read of the query (None: no memory matched a word); for
    # bench/quality.py, which calibrates the gate, and for explaining an empty answer.
    gate: rank.Reading | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """As the MCP tool and `--json` return it."""
        out: dict[str, Any] = {"query": self.query, "results": [h.to_dict() for h in self.hits]}
        if self.as_of:
            out["as_of"] = self.as_of
        return out


class _Scored:
    """One ranked memory or doc page (a plain class: see `Matched`)."""

    __slots__ = ("doc", "key", "keyword", "memory", "score", "weak")

    def __init__(
        self,
        key: str,
        score: float,
        memory: Memory | None = None,
        doc: Any = None,
        weak: bool = False,
        keyword: float | None = None,  # a memory's score before the LSA lift: what step 5 reads
    ) -> None:
        self.key = key
        self.score = score
        self.memory = memory
        self.doc = doc
        self.weak = weak
        self.keyword = keyword


def believed_at(as_of: str) -> str:
    """The instant `as_of` names, as a stored timestamp (UTC, microseconds).

    A day `YYYY-MM-DD` is its last instant in UTC (`...T23:59:59.999999Z`, the spec's "end of
    that day"); a moment `YYYY-MM-DDTHH:MM[:SS[.ffffff]]` keeps the zone it gives (`Z`,
    `+05:30`, `-0500`), and one without a zone is UTC. Anything else is a QueryError.
    """
    text = as_of.strip()
    try:
        if _DAY.fullmatch(text):
            day = date.fromisoformat(text)
            return day.isoformat() + "T23:59:59.999999Z"
        if _MOMENT.fullmatch(text):
            return stamp(parse_stamp(text))
    except ValueError:
        pass  # a form that looks right but names no real date or time: refused below
    raise QueryError(
        "as_of must be a UTC day such as 2026-08-01 (the end of that day) or a moment such as "
        f"2026-08-01T17:00:00+02:00 (with no zone, UTC), not {as_of!r}"
    )


def check_limit(limit: int | None, pages: bool) -> int:
    """The number of results asked for, within the spec's bounds."""
    top = rank.PAGES_LIMIT if pages else rank.MAX_LIMIT
    if limit is None:
        return rank.DEFAULT_LIMIT
    if not isinstance(limit, int) or limit < 1:
        raise QueryError(f"limit must be a whole number from 1 to {top}, not {limit!r}")
    return min(limit, top)


def recall(
    store: Store,
    ctx: Context,
    query: str,
    *,
    also: Sequence[str] = (),
    as_of: str | None = None,
    kind: str | None = None,
    limit: int | None = None,
    lsa: LsaCache | None = None,
    steps: frozenset[str] = ALL_STEPS,
    matcher: Any = None,
) -> Recalled:
    """Search this project's memories and docs; see the module docstring for the rules.

    `lsa` and `matcher` (steps 1 and 2, `_matched`'s signature) are what `recall.lean` swaps
    in to answer without numpy; they must give the same answer. The store's counts (rows
    written, memories, events), which several steps ask for, are read once for the whole
    recall (`Store.holding_counts`: one query instead of five, each a round trip over
    PostgreSQL)."""
    with store.holding_counts(ctx.project):
        return _recall(
            store,
            ctx,
            query,
            also=also,
            as_of=as_of,
            kind=kind,
            limit=limit,
            lsa=lsa,
            steps=steps,
            matcher=matcher,
        )


def _recall(
    store: Store,
    ctx: Context,
    query: str,
    *,
    also: Sequence[str] = (),
    as_of: str | None = None,
    kind: str | None = None,
    limit: int | None = None,
    lsa: LsaCache | None = None,
    steps: frozenset[str] = ALL_STEPS,
    matcher: Any = None,
) -> Recalled:
    """`recall`, with the store's counts held."""
    if not query or not query.strip():
        raise QueryError("recall needs a query: a few words about what you are looking for")
    also = [a for a in also if a and a.strip()]
    if len(also) > MAX_ALSO:
        raise QueryError(f"also takes at most {MAX_ALSO} other phrasings, not {len(also)}")
    if max(len(q) for q in (query, *also)) > MAX_QUERY:
        raise QueryError(
            f"a query is at most {MAX_QUERY} characters; search with a few words, not a text"
        )
    pages = kind == "pages"
    if kind is not None and not pages and kind not in KINDS:
        raise QueryError(f"kind must be 'pages' or one of {', '.join(KINDS)}, not {kind!r}")
    n = check_limit(limit, pages)
    keep, _ = rank.split_limit(n)  # the most memories shown (a brief can only lower it)
    end = believed_at(as_of) if as_of else None

    # Each phrasing is searched alone, through its own cut-offs; the answers are merged after.
    # The gate's reading is the query's own.
    memory_lists: list[list[_Scored]] = []
    doc_lists: list[list[_Scored]] = []
    reading: rank.Reading | None = None
    for phrasing in [query, *also]:
        words = analyse_query(phrasing)
        if not words.terms:
            continue
        if not pages:
            found, read = _memories(store, ctx, words, end, kind, lsa, keep, steps, matcher)
            reading = read if phrasing is query else reading
            memory_lists.append(_cut(found, "cutoff" in steps))
        if end is None:
            doc_lists.append(sorted(_docs(store, ctx, words), key=lambda s: (-s.score, s.key)))

    hits: list[Hit] = []
    brief = None if (pages or end) else _branch_brief(store, ctx, query)
    if brief is not None:
        hits.append(brief)
        n = max(1, n - 1)
    ranked_docs = _merged(doc_lists)
    if pages:
        hits.extend(_doc_hit(s) for s in ranked_docs[:n])
    else:
        ranked_memories = _merged(memory_lists)
        shown, _ = rank.split_limit(n)
        chosen = rank.fill(
            [_memory_hit(s, ctx, end) for s in ranked_memories[:shown]],
            [_doc_hit(s) for s in ranked_docs],
            n,
        )
        hits.extend(chosen)
    return Recalled(query=query, hits=hits, as_of=as_of, gate=reading)


def note_offered(store: Store, ctx: Context, recalled: Recalled) -> None:
    """Record in the session's ledger the memories `recalled` offered (docs and the brief are
    not memories); the step a caller runs after `recall`, which writes nothing itself.
    Nothing without a session, nor for a search of the past (`as_of`)."""
    offered = [h.ref for h in recalled.hits if h.kind not in ("doc", "brief")]
    if not ctx.session or recalled.as_of is not None or not offered:
        return
    with store.transaction():
        store.note_session(ctx)
        store.record_offers(ctx.session, offered, "recall", ctx.tool, ctx.now())


def refresh(store: Store, lsa: LsaCache | None = None, *, every: bool = True) -> None:
    """Bring what recall keeps beside the store up to date with the rows written: the keyword
    postings (rows read into a segment, merged, the files kept: `KeywordCache`), the LSA
    fit when it is due, and the table of every row's words through that fit (extended to the
    rows written, `LsaCache.ready(rows=True)`).

    Every write ends with it. A bulk write (`Cairn.remember_many`, `Cairn.import_`) indexes
    every row it wrote (`every`), so its cost is the write's; a single write (`Cairn.remember`,
    `Cairn.correct`: `every=False`) indexes only once KeywordCache.SEGMENT_ROWS rows wait,
    and otherwise costs a look at the kept files' names. So the next recall, in this process
    or another (which reads the kept files), indexes at most that many rows. A recall does the
    same itself when it finds more, so skipping this is never wrong, only slower.
    """
    cache = keywords(store)
    if cache.keep_up(store, every=every) or every:
        cache.segments_for(store)
        (lsa if lsa is not None else LsaCache()).ready(store, rows=True)


def _merged(answers: Sequence[Sequence[_Scored]]) -> list[_Scored]:
    """The answers of several phrasings (each best first) as one list, best first.

    Scores of different phrasings are not on one scale (a longer query scores higher), so each
    hit is ranked by its score relative to the best of its own phrasing: each phrasing's best
    comes out at 1.0, ahead of every phrasing's runners-up. A hit found by several phrasings
    keeps its best relative score; ties go to the earlier phrasing (the query before `also`),
    then to the order within it. With one phrasing this is that phrasing's own order.
    """
    best: dict[str, tuple[float, int, int, _Scored]] = {}
    for p, answer in enumerate(answers):
        top = answer[0].score if answer else 0.0
        for k, s in enumerate(answer):
            rank_key = (-(s.score / top) if top > 0 else -1.0, p, k, s)
            if s.key not in best or rank_key[:3] < best[s.key][:3]:
                best[s.key] = rank_key
    return [entry[3] for entry in sorted(best.values(), key=lambda entry: entry[:3])]


def _cut(scored: list[_Scored], cut: bool = True) -> list[_Scored]:
    """Best first (ties: newer, then ref), without those under 0.7 of the best.

    The cut-off reads each memory's score before the LSA lift: LSA only re-orders keyword
    matches (step 3), so it neither adds a memory nor, by widening the gap to a lifted best,
    takes one out.
    """
    ratio = rank.CUTOFF if cut else 0.0
    kept = {
        key
        for key, _ in rank.cut_off(
            [(s.key, s.score if s.keyword is None else s.keyword) for s in scored], ratio
        )
    }
    survivors = [s for s in scored if s.key in kept]
    return sorted(
        survivors,
        key=lambda s: rank.sort_key(s.score, s.memory.written if s.memory else "", s.key),
    )


class Matched:
    """Steps 1 and 2 of one phrasing: the CANDIDATES best matches (best first; ties: newer,
    then the later version) with what the later steps read of each, and the rarity counts.

    `pool` are index rowids; `value_of` their score after recency, `held_of` the idf each
    holds (what the gate reads), `written_of` its write time in microseconds; `refs_of` gives
    the refs of some of them (asked only for those shown). (A plain class: a dataclass costs
    a new `cairn recall` process a millisecond to define.)
    """

    __slots__ = (
        "df_of",
        "held_of",
        "idf_of",
        "n_docs",
        "pool",
        "refs_of",
        "value_of",
        "written_of",
    )

    def __init__(
        self,
        n_docs: int,
        df_of: dict[str, int],
        idf_of: dict[str, float],
        pool: list[int],
        value_of: dict[int, float],
        held_of: dict[int, float],
        written_of: dict[int, int],
        refs_of: Any,  # Callable[[Sequence[int]], list[str]]
    ) -> None:
        self.n_docs = n_docs
        self.df_of = df_of
        self.idf_of = idf_of
        self.pool = pool
        self.value_of = value_of
        self.held_of = held_of
        self.written_of = written_of
        self.refs_of = refs_of


def _matched(
    store: Store, ctx: Context, query: Query, kind: str | None, steps: frozenset[str]
) -> Matched | None:
    """Steps 1 and 2 from the postings in memory (numpy): None when no row is visible."""
    import numpy as np

    terms = query.terms
    segments = keywords(store).segments_for(store)
    # N, the mean length and each df among the rows visible from the project (one snapshot
    # of the index), df counting the rows whose fields hold the term as the tf below does.
    seen = [seg.seen_from(ctx.project) for seg in segments]
    n_docs = sum(v.rows for v in seen)
    if not n_docs:
        return None
    avg_len = sum(v.tokens for v in seen) / n_docs
    df_of = {
        t: sum(v.df(seg.postings, t) for seg, v in zip(segments, seen, strict=True)) for t in terms
    }
    idf_of = {t: rank.idf(n_docs, df_of[t]) for t in terms}
    weights = WEIGHTS if "weights" in steps else UNWEIGHTED
    idf = [idf_of[t] for t in terms]
    mass = max(sum(i for t, i in idf_of.items() if df_of[t]), 1e-12)  # idf of the known words
    now_us = micros(ctx.clock())

    # Steps 1 and 2 for every version visible from the project (of `kind`) holding a term:
    # BM25F, recency; and the idf each one holds (what the gate reads).
    bm25: list[tuple[Segment, Any]] = []  # (segment, its rank.Matches)
    for seg, view in zip(segments, seen, strict=True):
        within = view.mask if not kind else view.mask & (seg.kind_of == seg.kinds.get(kind, -1))
        matches = rank.bm25f(
            seg.postings, terms, idf, weights, avg_len, terms, within, memo=seg.memo
        )
        if matches.positions.shape[0]:
            bm25.append((seg, matches))
    # A match under the CANDIDATES-th best BM25F divided by the largest recency lift cannot
    # be lifted into the pool (the lift never lowers one): the rest of steps 1 and 2 skips
    # it. Fewer to lift, same pool.
    floor = _reach(
        [m.scores for _, m in bm25], 1.0 + MAX_RECENCY_LIFT if "recency" in steps else 1.0
    )
    found: list[tuple[Any, ...]] = []
    for seg, matches in bm25:
        at, values = matches.positions, matches.scores
        if floor is not None:
            near = np.flatnonzero(values >= floor)
            at, values, held = at[near], values[near], matches.held_at(near)
        else:
            held = matches.held
        written = seg.postings.written_us[at]
        if "recency" in steps:
            ages = np.maximum(0.0, (now_us - written) / 1e6 / 86400)
            values = values * rank.recency_lifts(ages, held / mass)
        found.append((seg, at, values, written, held))
    if not found:
        return Matched(n_docs, df_of, idf_of, [], {}, {}, {}, None)
    all_values = np.concatenate([f[2] for f in found])
    all_written = np.concatenate([f[3] for f in found])
    all_ids = np.concatenate([f[0].postings.rowids[f[1]] for f in found])
    all_held = np.concatenate([f[4] for f in found])
    if all_ids.shape[0] > CANDIDATES:
        # The CANDIDATES best (ties: newer, then the later version).
        cut = np.partition(all_values, all_values.shape[0] - CANDIDATES)[-CANDIDATES]
        top = np.flatnonzero(all_values >= cut)
    else:
        top = np.arange(all_ids.shape[0])
    pool = top[np.lexsort((-all_ids[top], -all_written[top], -all_values[top]))[:CANDIDATES]]
    pool_ids = all_ids[pool].tolist()
    position_of = dict(zip(pool_ids, pool.tolist(), strict=True))

    def refs_of(ids: Sequence[int]) -> list[str]:
        return _refs_at(found, [position_of[i] for i in ids])

    return Matched(
        n_docs,
        df_of,
        idf_of,
        pool_ids,
        dict(zip(pool_ids, all_values[pool].tolist(), strict=True)),
        dict(zip(pool_ids, all_held[pool].tolist(), strict=True)),
        dict(zip(pool_ids, all_written[pool].tolist(), strict=True)),
        refs_of,
    )


def _reach(scores: Sequence[Any], most: float) -> float | None:
    """The least BM25F that a lift of at most `most` can bring to the CANDIDATES-th best
    (None: there are no more matches than CANDIDATES, all are in the pool)."""
    import numpy as np

    total = sum(int(s.shape[0]) for s in scores)
    if total <= CANDIDATES:
        return None
    kth = rank.kth_largest(np.concatenate(scores), CANDIDATES)
    return kth / most * (1 - 1e-9)


def _memories(
    store: Store,
    ctx: Context,
    query: Query,
    end: str | None,
    kind: str | None,
    lsa: LsaCache | None,
    keep: int | None = None,
    steps: frozenset[str] = ALL_STEPS,
    matcher: Any = None,
) -> tuple[list[_Scored], rank.Reading | None]:
    """Memory candidates scored through steps 1-4, cut (step 5) and gated (step 6); with what
    the gate read of the query.

    Rarity (N, each df, the mean length) is counted among the rows recall can return from
    this project: its own and the workspace-wide ones. Steps 1 and 2 are computed at once for
    every such version holding a query term, from the postings in memory (`_matched`, or
    `matcher`, which must give the same: `recall.lean`'s reads the kept files with the
    standard library); the CANDIDATES best go on. Step 5 reads the score before the LSA lift,
    so it is exact before LSA; whether a version is still current is asked of the store only
    as far down the order as can matter: to the best current one (the cut-off's reference and
    what the gate reads), then to the `keep`-th current one in the final order (None: all).
    """
    terms = query.terms
    matched = (matcher or _matched)(store, ctx, query, kind, steps)
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
            events = _events_by_ref(store.events_for(list(ref_of.values())))
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
        opens = _opening(believed[best] if end is not None else None, store, best, idf_of)
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
            scored = _within_reach(scored, keyword, keep, checked, check)
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
    out: list[_Scored] = []
    for i, value in scored:
        memory = memories[i]
        state = state_of(memory, events.get(memory.ref, []), ctx.clock())
        out.append(
            _Scored(
                memory.ref,
                rank.memory_score(value * state.factor, rare),
                memory=memory,
                keyword=rank.memory_score(value_of[i] * state.factor, rare),
                weak=judged and _weak(reading, held_of[i], memory.text, idf_of),
            )
        )
    return out, reading


def _opening(memory: Memory | None, store: Store, rowid: int, idf_of: dict[str, float]) -> float:
    """`rank.lead` of one memory (read from the store when not given)."""
    if memory is None:
        memory = store.memories_by_ids([rowid])[rowid]
    return rank.lead(analyse(memory.text), idf_of)


def _weak(reading: rank.Reading, held: float, text: str, idf_of: dict[str, float]) -> bool:
    """Whether a served match is weak: the gate's verdict on its own `held` and `lead`."""
    if rank.judge(reading, held, 0.0) == "answer":
        return False  # the word it opens with could only raise its support
    return rank.judge(reading, held, rank.lead(analyse(text), idf_of)) != "answer"


def _within_reach(
    scored: list[tuple[int, float]],
    keyword: Mapping[int, float],
    keep: int,
    checked: dict[int, bool],
    check: Any,
) -> list[tuple[int, float]]:
    """The matches (in keyword order) that the LSA lift could bring into the first `keep`
    current ones: a match under the `keep`-th current one's score divided by the largest
    lift cannot pass it (the lift never lowers one). Fewer for LSA to weigh, same answer."""
    most = rank.lsa_lift(1.0)
    current = 0
    for start in range(0, len(scored), CHECK_CHUNK):
        chunk = [i for i, _ in scored[start : start + CHECK_CHUNK]]
        check([i for i in chunk if i not in checked])
        for i in chunk:
            current += checked[i]
            if current == keep:
                floor = keyword[i] / most * (1 - 1e-9)
                return [(j, v) for j, v in scored if keyword[j] >= floor]
    return scored


def _refs_at(found: Sequence[tuple[Any, ...]], indexes: Sequence[int]) -> list[str]:
    """The refs of the matches at these indexes of the segments' matches laid end to end."""
    import numpy as np

    at = np.asarray(indexes, dtype=np.int64)
    out: list[str] = [""] * at.shape[0]
    start = 0
    for seg, positions, *_ in found:
        end = start + positions.shape[0]
        inside = np.flatnonzero((at >= start) & (at < end))
        if inside.shape[0]:
            rows = positions[at[inside] - start].tolist()
            for k, row in zip(inside.tolist(), rows, strict=True):
                out[k] = seg.refs[row]
        start = end
    return out


def _events_by_ref(events: list[Event]) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for e in events:
        out.setdefault(e.ref, []).append(e)
    return out


def _docs(store: Store, ctx: Context, query: Query) -> list[_Scored]:
    """Doc pages of this project holding every query word in their text (not title alone);
    a word written joined is held as itself or as all its parts, and the reverse."""
    terms = query.terms
    units = query.units()
    n_docs, n_tokens = store.index_stats("docs")
    if not n_docs:
        return []  # no doc indexed: spare the index and its vocabulary
    ids = store.doc_candidates(terms, CANDIDATES)
    pages = store.docs_by_ids(ids)
    avg_len = n_tokens / n_docs if n_docs else 1.0
    df = store.doc_freqs(terms)
    out: list[_Scored] = []
    for page, title, body in pages.values():
        if page.project != ctx.project or page.captured:
            continue
        body_terms = set(body.split())
        if not all(_holds(body_terms, unit) for unit in units):
            continue  # a doc matches only when its text holds all the query's words
        value = rank.score(
            terms, {"title": title.split(), "body": body.split()}, df, n_docs, avg_len, DOC_WEIGHTS
        )
        out.append(_Scored(f"{page.path}#{page.ordinal}", value, doc=page))
    return out


def _holds(words: set[str], unit: tuple[str, ...]) -> bool:
    """Whether `words` hold a query unit (`Query.units`): its first term, or all the rest."""
    return unit[0] in words or (len(unit) > 1 and all(t in words for t in unit[1:]))


def _memory_hit(s: _Scored, ctx: Context, end: str | None) -> Hit:
    memory = s.memory
    assert memory is not None
    citation = citation_of(memory, ctx)
    extra: dict[str, Any] = {}
    if citation.status in ("changed", "gone"):
        extra["note"] = "read the cited code before relying on this"
    if citation.lines:
        extra["lines"] = f"{citation.lines[0]}-{citation.lines[1]}"
    return Hit(
        ref=memory.ref,
        kind=memory.kind,
        line=_one_line(memory.text),
        score=s.score,
        weak=s.weak,
        citation=citation.status,
        until=memory.until if end else None,
        extra=extra,
    )


def _doc_hit(s: _Scored) -> Hit:
    page = s.doc
    first = _one_line(page.text)
    return Hit(
        ref=f"doc:{page.path}#{page.ordinal}",
        kind="doc",
        line=first,
        score=s.score,
        path=page.path,
        heading=page.heading,
    )


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


def _branch_brief(store: Store, ctx: Context, query: str) -> Hit | None:
    """The branch brief when the query names the branch or asks what is open on it."""
    if not ctx.branch:
        return None
    from cairn.usecases.brief import about_branch, branch_brief

    if not about_branch(store, ctx, query):
        return None
    return branch_brief(store, ctx)
