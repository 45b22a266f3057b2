"""recall: a query in, ranked memories and doc pages out. Local BM25, no model.

The pipeline, in order (each step a pure function of `cairn.core.rank`):

0. the query's words (`cairn.core.text.query`): analysed as memories are, less its question and
   filler words ("can", "should", "into", "please");
1. BM25F candidates: memory versions visible from the project holding a query word, scored
   with Lucene's idf over the four fields (sentence > tags > citation > reason) from postings
   held in memory (`rank.postings`, `KeywordCache`), rarity counted among the versions visible
   from the project, and of them the CANDIDATES best; doc pages from the FTS5 index;
2. recency: a newer near-tie on the same subject comes first (`rank.near_ties`): among the
   first 32 matches, a newer one holding every query word passes an older one that does too
   when its lift (x1.05 written today, halving every 30 days) over the older's reaches the
   older's lead, and ties it; between matches on different subjects the keyword strength
   alone decides;
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
from collections.abc import Sequence
from datetime import date
from typing import Any

from cairn.core import rank
from cairn.core.context import Context, parse_stamp, stamp
from cairn.core.errors import QueryError
from cairn.core.models import KINDS, Hit
from cairn.core.text.query import analyse_query
from cairn.core.value import Value
from cairn.io.store.protocol import Store
from cairn.usecases.recall.branch import brief_if_asked
from cairn.usecases.recall.docsearch import search_docs
from cairn.usecases.recall.hits import doc_hit, memory_hit
from cairn.usecases.recall.kept import KeywordCache, keywords
from cairn.usecases.recall.lsa import LsaCache
from cairn.usecases.recall.matching import CANDIDATES, FIELDS, Matched
from cairn.usecases.recall.memories import search_memories
from cairn.usecases.recall.scored import Scored

__all__ = [
    "ALL_STEPS",
    "CANDIDATES",
    "FIELDS",
    "KeywordCache",
    "LsaCache",
    "Matched",
    "Recalled",
    "analyse_query",
    "believed_at",
    "check_limit",
    "note_offered",
    "recall",
    "refresh",
]

# The pipeline's switchable steps. Agents always get all of them; bench/quality.py turns them
# on one at a time to measure what each adds.
ALL_STEPS = frozenset({"weights", "recency", "lsa", "evidence", "cutoff", "gate"})
MAX_ALSO = 3
MAX_QUERY = 1000  # characters in the query and in each of `also`
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_MOMENT = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?"
)


class Recalled(Value):
    """The answer to one recall: hits best first (the branch brief first when asked).

    Two answers are equal when their query, hits and `as_of` are; `gate` is neither compared
    nor shown in the repr.
    """

    __slots__ = ("query", "hits", "as_of", "gate")  # noqa: RUF023
    query: str
    hits: list[Hit]
    as_of: str | None
    # What the "nothing found" gate read of the query (None: no memory matched a word); for
    # bench/quality.py, which calibrates the gate, and for explaining an empty answer.
    gate: rank.Reading | None

    def __init__(
        self,
        query: str,
        hits: list[Hit] | None = None,
        as_of: str | None = None,
        gate: rank.Reading | None = None,
    ) -> None:
        self._assign(query, [] if hits is None else hits, as_of, gate)

    def _values(self) -> tuple[Any, ...]:
        return (self.query, self.hits, self.as_of)

    def __repr__(self) -> str:
        return f"Recalled(query={self.query!r}, hits={self.hits!r}, as_of={self.as_of!r})"

    def to_dict(self) -> dict[str, Any]:
        """As the MCP tool and `--json` return it."""
        out: dict[str, Any] = {"query": self.query, "results": [h.to_dict() for h in self.hits]}
        if self.as_of:
            out["as_of"] = self.as_of
        return out


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

    `lsa` and `matcher` (steps 1 and 2, `match_keywords`'s signature) are what `recall.lean` swaps
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
    memory_lists: list[list[Scored]] = []
    doc_lists: list[list[Scored]] = []
    reading: rank.Reading | None = None
    for phrasing in [query, *also]:
        words = analyse_query(phrasing)
        if not words.terms:
            continue
        if not pages:
            found, read = search_memories(store, ctx, words, end, kind, lsa, keep, steps, matcher)
            reading = read if phrasing is query else reading
            memory_lists.append(_cut(found, "cutoff" in steps))
        if end is None:
            doc_lists.append(
                sorted(search_docs(store, ctx, words), key=lambda s: (-s.score, s.key))
            )

    hits: list[Hit] = []
    brief = None if (pages or end) else brief_if_asked(store, ctx, query)
    if brief is not None:
        hits.append(brief)
        n = max(1, n - 1)
    ranked_docs = _merged(doc_lists)
    if pages:
        hits.extend(doc_hit(s) for s in ranked_docs[:n])
    else:
        ranked_memories = _merged(memory_lists)
        shown, _ = rank.split_limit(n)
        chosen = rank.fill(
            [memory_hit(s, ctx, end) for s in ranked_memories[:shown]],
            [doc_hit(s) for s in ranked_docs],
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


def _merged(answers: Sequence[Sequence[Scored]]) -> list[Scored]:
    """The answers of several phrasings (each best first) as one list, best first.

    Scores of different phrasings are not on one scale (a longer query scores higher), so each
    hit is ranked by its score relative to the best of its own phrasing: each phrasing's best
    comes out at 1.0, ahead of every phrasing's runners-up. A hit found by several phrasings
    keeps its best relative score; ties go to the earlier phrasing (the query before `also`),
    then to the order within it. With one phrasing this is that phrasing's own order.
    """
    best: dict[str, tuple[float, int, int, Scored]] = {}
    for p, answer in enumerate(answers):
        top = answer[0].score if answer else 0.0
        for k, s in enumerate(answer):
            rank_key = (-(s.score / top) if top > 0 else -1.0, p, k, s)
            if s.key not in best or rank_key[:3] < best[s.key][:3]:
                best[s.key] = rank_key
    return [entry[3] for entry in sorted(best.values(), key=lambda entry: entry[:3])]


def _cut(scored: list[Scored], cut: bool = True) -> list[Scored]:
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
