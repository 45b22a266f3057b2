"""recall: a query in, ranked memories and doc pages out. Local BM25, no model.

The pipeline, in order (each step a pure function of `cairn.rank`):

1. BM25F candidates: memory versions holding a query word, scored with Lucene's idf over the
   four fields (sentence > tags > citation > reason) from postings held in memory
   (`rank.postings`, `KeywordCache`), only those that can pass step 6 (`_required`), and of
   them the CANDIDATES best checked for visibility; doc pages from the FTS5 index;
2. recency lift (slight: a newer near-tie on the same subject comes first);
3. LSA re-ranking once the workspace holds 200 memories (lift at most x2, only re-orders);
4. evidence factor: merges and confirmations lift, reverts/discards/contradictions lower,
   clamped to [x0.5, x2];
5. cut-off: a memory under 0.7 of the best memory's score is left out (the best stays); the
   score it reads is the one before the LSA lift, since LSA only re-orders the keyword matches
   (it adds none, and removes none by widening the gap to a lifted best);
6. coverage: from 50 memories in the project, a memory covering too little of the query is
   dropped and a barely passing one marked weak;
7. limits: default 8, at most 25; memories at most half, docs the rest; pages only: 20.

A query about the branch (names it, or asks what is open / in progress) gets the branch brief
first. `also` phrasings are each searched alone, through their own cut-offs (steps 5 and 6),
and merged by score relative to their own best (`_merged`). `as_of` answers from the
versions believed at the end of that UTC day, or at a moment given with its zone (memories
only): each version is believed from `written` until `until`, set by a correction or a forget.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from cairn import rank
from cairn.context import Context, parse_stamp, stamp
from cairn.describe import citation_of
from cairn.errors import QueryError
from cairn.lifecycle import factor_of, state_of
from cairn.models import KINDS, Hit, Memory
from cairn.recall.kept import KeywordCache, LsaCache, Segment, keywords, micros
from cairn.store import Event, SqliteStore
from cairn.text import analyse

__all__ = [
    "ALL_STEPS",
    "CANDIDATES",
    "KeywordCache",
    "LsaCache",
    "Recalled",
    "believed_at",
    "check_limit",
    "recall",
]

FIELDS = ("sentence", "tags", "citation", "reason")
WEIGHTS = tuple(rank.FIELD_WEIGHTS[f] for f in FIELDS)
UNWEIGHTED = (1.0, 1.0, 1.0, 1.0)
# The pipeline's switchable steps. Agents always get all of them; bench/quality.py turns them
# on one at a time to measure what each adds.
ALL_STEPS = frozenset({"weights", "recency", "lsa", "evidence", "cutoff", "coverage"})
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

    def to_dict(self) -> dict[str, Any]:
        """As the MCP tool and `--json` return it."""
        out: dict[str, Any] = {"query": self.query, "results": [h.to_dict() for h in self.hits]}
        if self.as_of:
            out["as_of"] = self.as_of
        return out


@dataclass(frozen=True)
class _Scored:
    key: str
    score: float
    memory: Memory | None = None
    doc: Any = None
    weak: bool = False
    keyword: float | None = None  # a memory's score before the LSA lift: what step 5 reads


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
    store: SqliteStore,
    ctx: Context,
    query: str,
    *,
    also: Sequence[str] = (),
    as_of: str | None = None,
    kind: str | None = None,
    limit: int | None = None,
    lsa: LsaCache | None = None,
    steps: frozenset[str] = ALL_STEPS,
) -> Recalled:
    """Search this project's memories and docs; see the module docstring for the rules."""
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
    memory_lists: list[list[_Scored]] = []
    doc_lists: list[list[_Scored]] = []
    for phrasing in [query, *also]:
        terms = list(dict.fromkeys(analyse(phrasing)))
        if not terms:
            continue
        if not pages:
            found = _memories(store, ctx, terms, end, kind, lsa, keep, steps)
            memory_lists.append(_cut(found, "cutoff" in steps))
        if end is None:
            doc_lists.append(sorted(_docs(store, ctx, terms), key=lambda s: (-s.score, s.key)))

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
    if ctx.session and end is None:
        offered = [h.ref for h in hits if h.kind not in ("doc", "brief")]
        if offered:
            with store.transaction():
                store.note_session(ctx)
                store.record_offers(ctx.session, offered, "recall", ctx.tool, ctx.now())
    return Recalled(query=query, hits=hits, as_of=as_of)


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


def _memories(
    store: SqliteStore,
    ctx: Context,
    terms: list[str],
    end: str | None,
    kind: str | None,
    lsa: LsaCache | None,
    keep: int | None = None,
    steps: frozenset[str] = ALL_STEPS,
) -> list[_Scored]:
    """Memory candidates scored through steps 1-4 and judged for coverage (step 6).

    Steps 1, 2 and 6 are computed at once for every version visible from the project that
    holds a `required` term (one holding none cannot cover half the query, step 6), from the
    postings in memory; the CANDIDATES best go on. Step 5 reads the score before the LSA lift,
    so it is exact before LSA; whether a version is still current is asked of the store only
    as far down the order as can matter: to the best current one (the cut-off's reference),
    then to the `keep`-th current one in the final order (None: all).
    """
    import numpy as np

    segments = keywords(store).segments_for(store)
    # N, the mean length and each df from the postings: one snapshot of the index, with df
    # counting the rows whose fields hold the term as the tf below counts it.
    n_docs = sum(seg.postings.n_rows for seg in segments)
    if not n_docs:
        return []
    avg_len = sum(seg.postings.total_length for seg in segments) / n_docs
    idf_of = {t: rank.idf(n_docs, sum(seg.postings.df(t) for seg in segments)) for t in terms}
    n_project = store.count_memories(ctx.project)
    if "coverage" not in steps:
        n_project = 0  # the coverage rule applies from 50 memories: never, here
    judged = n_project >= rank.MIN_MEMORIES_FOR_COVERAGE  # else every match is kept
    required = _required(terms, idf_of, n_project)
    weights = WEIGHTS if "weights" in steps else UNWEIGHTED
    idf = [idf_of[t] for t in terms]
    mass = 0.0
    for weight in idf:
        mass += weight  # rank.coverage's sum, in its order
    now_us = micros(ctx.clock())

    # Steps 1, 2 and 6 for every version visible from the project (of `kind`) holding a
    # required term: BM25F, recency, coverage.
    found: list[tuple[Any, ...]] = []
    for seg in segments:
        postings = seg.postings
        matches = rank.bm25f(
            postings, terms, idf, weights, avg_len, required, seg.visible(ctx.project, kind)
        )
        at = matches.positions
        values = matches.scores
        written = postings.written_us[at]
        if "recency" in steps:
            ages = np.maximum(0.0, (now_us - written) / 1e6 / 86400)
            values = values * rank.recency_lifts(ages)
        weak = np.zeros(at.shape[0], dtype=np.bool_)
        if judged:
            held_mass = np.zeros(at.shape[0], dtype=np.float64)
            for k, weight in enumerate(idf):
                held_mass = held_mass + np.where(matches.held[k], weight, 0.0)
            cov = held_mass / mass
            passing = cov >= rank.MIN_COVERAGE
            weak = (cov < rank.WEAK_COVERAGE)[passing]
            at, values, written = at[passing], values[passing], written[passing]
        if at.shape[0]:
            found.append((seg, at, values, written, weak))
    if not found:
        return []
    all_values = np.concatenate([f[2] for f in found])
    all_written = np.concatenate([f[3] for f in found])
    all_ids = np.concatenate([f[0].postings.rowids[f[1]] for f in found])
    all_weak = np.concatenate([f[4] for f in found])
    if all_ids.shape[0] > CANDIDATES:
        # The CANDIDATES best (ties: newer, then the later version).
        cut = np.partition(all_values, all_values.shape[0] - CANDIDATES)[-CANDIDATES]
        top = np.flatnonzero(all_values >= cut)
    else:
        top = np.arange(all_ids.shape[0])
    pool = top[np.lexsort((-all_ids[top], -all_written[top], -all_values[top]))[:CANDIDATES]]
    pool_ids = all_ids[pool].tolist()
    value_of = dict(zip(pool_ids, all_values[pool].tolist(), strict=True))
    weak_of = dict(zip(pool_ids, all_weak[pool].tolist(), strict=True))
    written_of = dict(zip(pool_ids, all_written[pool].tolist(), strict=True))
    refs = dict(zip(pool_ids, _refs_at(found, pool.tolist()), strict=True))

    # Step 4, exact: the evidence factor; then step 5 on the score before the LSA lift (LSA
    # only re-orders what the keywords found, step 3), so it is exact here too.
    events = _events_by_ref(store.events_for(list(refs.values()))) if "evidence" in steps else {}
    no_events = factor_of([])
    factor = {i: factor_of(events[r]) if r in events else no_events for i, r in refs.items()}
    keyword = {i: value * factor[i] for i, value in value_of.items()}
    ranked = sorted(keyword, key=lambda i: -keyword[i])  # stable: ties keep the pool's order

    # Which versions are current (with as_of: believed then) is asked of the store, a chunk
    # at a time and only as far as needed: first down to the best current one (the cut-off's
    # reference), then, in the final order, down to the `keep`-th current one.
    believed = store.memories_as_of(ctx.project, end) if end is not None else {}
    checked: dict[int, bool] = {}

    def check(ids: list[int]) -> None:
        current = store.current_among(ids) if end is None else {i for i in ids if i in believed}
        checked.update((i, i in current) for i in ids)

    best: int | None = None
    for start in range(0, len(ranked), CHECK_CHUNK):
        chunk = ranked[start : start + CHECK_CHUNK]
        check(chunk)
        best = next((i for i in chunk if checked[i]), None)
        if best is not None:
            break
    if best is None:
        return []
    cutoff = rank.CUTOFF if "cutoff" in steps else 0.0
    floor = cutoff * keyword[best] * (1 - 1e-9)
    scored = [(i, value_of[i]) for i in ranked if keyword[i] >= floor and checked.get(i, True)]
    if "lsa" in steps and lsa is not None and lsa.ready(store) is not None:
        scored = lsa.rerank(scored, terms)
    # The order `_cut` gives (ties: newer, then ref); the best of merged phrasings are among
    # each one's best.
    scored.sort(key=lambda item: (-item[1] * factor[item[0]], -written_of[item[0]], refs[item[0]]))
    shown: list[tuple[int, float]] = []
    for start in range(0, len(scored), CHECK_CHUNK):
        chunk = scored[start : start + CHECK_CHUNK]
        unknown = [i for i, _ in chunk if i not in checked]
        if unknown:
            check(unknown)
        shown.extend(item for item in chunk if checked[item[0]])
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
                value * state.factor,
                memory=memory,
                keyword=value_of[i] * state.factor,
                weak=weak_of[i],
            )
        )
    return out


def _required(terms: Sequence[str], idf_of: Mapping[str, float], n_project: int) -> list[str]:
    """The rarest terms, enough that a memory holding none of them covers under half the
    query's idf mass (step 6 drops it); every term while coverage is not judged."""
    if n_project < rank.MIN_MEMORIES_FOR_COVERAGE:
        return list(terms)
    mass = sum(idf_of[t] for t in terms)
    by_rarity = sorted(terms, key=lambda t: -idf_of[t])
    for k in range(len(by_rarity) + 1):
        # Summed afresh, with a margin: a rounding must not make the rule look stricter.
        if sum(idf_of[t] for t in by_rarity[k:]) < rank.MIN_COVERAGE * mass * (1 - 1e-9):
            return by_rarity[:k]
    return by_rarity


def _refs_at(found: Sequence[tuple[Any, ...]], indexes: Sequence[int]) -> list[str]:
    """The refs of the matches at these indexes of the segments' matches laid end to end."""
    bounds: list[tuple[int, Segment, list[int]]] = []
    offset = 0
    for seg, at, *_ in found:
        bounds.append((offset, seg, at.tolist()))
        offset += len(bounds[-1][2])
    out: list[str] = []
    for index in indexes:
        for start, seg, at in reversed(bounds):
            if index >= start:
                out.append(seg.refs[at[index - start]])
                break
    return out


def _events_by_ref(events: list[Event]) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for e in events:
        out.setdefault(e.ref, []).append(e)
    return out


def _docs(store: SqliteStore, ctx: Context, terms: list[str]) -> list[_Scored]:
    """Doc pages of this project holding every query word in their text (not title alone)."""
    n_docs, n_tokens = store.index_stats("docs")
    if not n_docs:
        return []  # no doc indexed: spare the index and its vocabulary
    ids = store.doc_candidates(terms, CANDIDATES)
    pages = store.docs_by_ids(ids)
    avg_len = n_tokens / n_docs if n_docs else 1.0
    df = store.doc_freqs(terms)
    wanted = set(terms)
    out: list[_Scored] = []
    for page, title, body in pages.values():
        if page.project != ctx.project or page.captured:
            continue
        body_terms = set(body.split())
        if not wanted <= body_terms:
            continue  # a doc matches only when its text holds all the query's words
        value = rank.score(
            terms, {"title": title.split(), "body": body.split()}, df, n_docs, avg_len, DOC_WEIGHTS
        )
        out.append(_Scored(f"{page.path}#{page.ordinal}", value, doc=page))
    return out


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


def _branch_brief(store: SqliteStore, ctx: Context, query: str) -> Hit | None:
    """The branch brief when the query names the branch or asks what is open on it."""
    if not ctx.branch:
        return None
    from cairn.brief import about_branch, branch_brief

    if not about_branch(store, ctx, query):
        return None
    return branch_brief(store, ctx)
