"""recall: a query in, ranked memories and doc pages out. Local BM25, no model.

The pipeline, in order (each step a pure function of `cairn.rank`):

1. BM25F candidates: memory versions and doc pages from the FTS5 index holding any query word,
   scored with Lucene's idf over the four fields (sentence > tags > citation > reason); the
   index is asked only for memories that can pass step 6 (`_candidates` says how);
2. recency lift (slight: a newer near-tie on the same subject comes first);
3. LSA re-ranking once the workspace holds 200 memories (lift at most x2, only re-orders);
4. evidence factor: merges and confirmations lift, reverts/discards/contradictions lower,
   clamped to [x0.5, x2];
5. cut-off: a memory under 0.7 of the best memory's score is left out (the best stays);
6. coverage: from 50 memories in the project, a memory covering too little of the query is
   dropped and a barely passing one marked weak;
7. limits: default 8, at most 25; memories at most half, docs the rest; pages only: 20.

A query about the branch (names it, or asks what is open / in progress) gets the branch brief
first. `also` phrasings are searched alone and merged by best score. `as_of` answers from the
versions believed at the end of that UTC day (memories only).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from cairn import rank
from cairn.context import Context, parse_stamp
from cairn.describe import citation_of
from cairn.errors import QueryError
from cairn.lifecycle import factor_of, state_of
from cairn.models import KINDS, Hit, Memory
from cairn.store import Event, SqliteStore
from cairn.text import analyse

FIELDS = ("sentence", "tags", "citation", "reason")
WEIGHTS = tuple(rank.FIELD_WEIGHTS[f] for f in FIELDS)
UNWEIGHTED = (1.0, 1.0, 1.0, 1.0)
# The pipeline's switchable steps. Agents always get all of them; bench/quality.py turns them
# on one at a time to measure what each adds.
ALL_STEPS = frozenset({"weights", "recency", "lsa", "evidence", "cutoff", "coverage"})
DOC_WEIGHTS = {"title": 2.0, "body": 1.0}
MAX_ALSO = 3
LINE_CHARS = 240
CANDIDATES = 400
MAX_COVERING_SETS = 32
_OPEN_WORDS = re.compile(
    r"(?i)\b(what(?:'s| is)? (?:still )?open|open items?|in[- ]progress|work in progress|wip|"
    r"what(?:'s| is)? left|left to do|remaining|pending|todo|to-do|unfinished|ongoing)\b"
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
    terms: frozenset[str] = frozenset()
    weak: bool = False


class LsaCache:
    """An LSA model of the workspace, fitted in memory and refitted when the store grew.

    "Changed enough": more than REFIT_SHARE of the memories (at least REFIT_MIN) were written
    since the fit. Memories written after the fit get no lift until the next one.
    """

    REFIT_SHARE = 0.1
    REFIT_MIN = 20

    def __init__(self) -> None:
        self.model: Any = None
        self.index: dict[int, int] = {}
        self.fitted_at = -1

    def ready(self, store: SqliteStore) -> LsaCache | None:
        """This cache, fitted and fresh, or None below MIN_MEMORIES_FOR_LSA memories."""
        n = store.count_memories()
        if not rank.use_lsa(n):
            return None
        changes = store.change_count()
        if self.model is None or changes - self.fitted_at > max(
            self.REFIT_MIN, self.REFIT_SHARE * n
        ):
            from cairn.rank.lsa import fit

            rows = store.current_index_fields()
            self.model = fit([text.split() for _, text in rows])
            self.index = {rowid: k for k, (rowid, _) in enumerate(rows)}
            self.fitted_at = changes
        return self

    def rerank(
        self, scored: Sequence[tuple[int, float]], terms: Sequence[str]
    ) -> list[tuple[int, float]]:
        """Keyword matches re-ordered by their latent closeness to the query (lift <= x2)."""
        hits = [(i, s, self.index.get(i, -1)) for i, s in scored]
        return rank.rerank(hits, self.model, terms)


def end_of_day(day: str) -> str:
    """The last instant of a UTC day `YYYY-MM-DD`, as a stored timestamp."""
    try:
        parsed = date.fromisoformat(day.strip()[:10])
    except ValueError as exc:
        raise QueryError(f"as_of must be a UTC day like 2026-08-01, not {day!r}") from exc
    return (parsed + timedelta(days=1)).isoformat() + "T00:00:00.000000Z"


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
    pages = kind == "pages"
    if kind is not None and not pages and kind not in KINDS:
        raise QueryError(f"kind must be 'pages' or one of {', '.join(KINDS)}, not {kind!r}")
    n = check_limit(limit, pages)
    keep, _ = rank.split_limit(n)  # the most memories shown (a brief can only lower it)
    end = end_of_day(as_of) if as_of else None

    memory_hits: dict[str, _Scored] = {}
    doc_hits: dict[str, _Scored] = {}
    for phrasing in [query, *also]:
        terms = list(dict.fromkeys(analyse(phrasing)))
        if not terms:
            continue
        if not pages:
            for s in _memories(store, ctx, terms, end, kind, lsa, keep, steps):
                if s.key not in memory_hits or s.score > memory_hits[s.key].score:
                    memory_hits[s.key] = s
        if end is None:
            for s in _docs(store, ctx, terms):
                if s.key not in doc_hits or s.score > doc_hits[s.key].score:
                    doc_hits[s.key] = s

    hits: list[Hit] = []
    brief = None if (pages or end) else _branch_brief(store, ctx, query)
    if brief is not None:
        hits.append(brief)
        n = max(1, n - 1)
    ranked_docs = sorted(doc_hits.values(), key=lambda s: (-s.score, s.key))
    if pages:
        hits.extend(_doc_hit(s) for s in ranked_docs[:n])
    else:
        ranked_memories = _cut(list(memory_hits.values()), "cutoff" in steps)
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
            store.record_offers(ctx.session, offered, "recall", ctx.tool, ctx.now())
    return Recalled(query=query, hits=hits, as_of=as_of)


def _cut(scored: list[_Scored], cut: bool = True) -> list[_Scored]:
    """Best first (ties: newer, then ref), without those under 0.7 of the best."""
    ratio = rank.CUTOFF if cut else 0.0
    kept = {key for key, _ in rank.cut_off([(s.key, s.score) for s in scored], ratio)}
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

    Rules that decide alone are applied as early as they can be: a memory holding none of the
    `required` terms cannot cover half the query (step 6), so the index is not asked for it;
    a memory that could not reach 0.7 of the best score even with the largest LSA lift is cut
    (step 5) before LSA; and of the rest only the `keep` best (the most that can be shown;
    None: all) are read in full. Scores are the ones the steps give, to the last bit.
    """
    n_docs, n_tokens = store.index_stats("memories")
    df = store.doc_freqs(terms)
    idf_of = {t: rank.idf(n_docs, df.get(t, 0)) for t in terms}
    n_project = store.count_memories(ctx.project)
    if "coverage" not in steps:
        n_project = 0  # the coverage rule applies from 50 memories: never, here
    ids = _candidates(store, terms, df, idf_of, n_project)
    believed: dict[int, Memory] = {}
    if end is None:
        rows = store.visible_index_rows(ids, ctx.project, kind)
    else:
        believed = store.memories_as_of(ctx.project, end)
        visible = [i for i in ids if i in believed and (not kind or believed[i].kind == kind)]
        fields = store.index_fields(visible)
        rows = [
            (i, believed[i].ref, believed[i].written, len(_words(fields[i])), *_four(fields[i]))
            for i in visible
        ]
    if not rows:
        return []
    avg_len = n_tokens / n_docs if n_docs else 1.0
    now = ctx.clock()

    # Steps 1, 2 and 6 for every candidate: BM25F, recency, coverage.
    first: list[tuple[int, str, float, rank.Verdict]] = []
    texts: dict[int, Sequence[str]] = {}
    written: dict[int, str] = {}
    judged = n_project >= rank.MIN_MEMORIES_FOR_COVERAGE  # else every match is kept
    for row in rows:
        rowid, ref, when, doc_len = row[:4]
        four = row[4:]
        tfs = _weighted_tfs(terms, four, WEIGHTS if "weights" in steps else UNWEIGHTED)
        held = {t for t, tf in zip(terms, tfs, strict=True) if tf > 0}
        if not held:
            continue  # scores 0 (every idf is > 0)
        verdict: rank.Verdict = "keep"
        if judged:
            verdict = rank.judge_coverage(rank.coverage(terms, held, idf_of), n_project)
            if verdict == "drop":
                continue
        # rank.score's sum, term by term in the same order (skipping zeros changes no float).
        base = 0.0
        for term, tf in zip(terms, tfs, strict=True):
            if tf > 0:
                base += rank.term_score(tf, doc_len, avg_len, idf_of[term])
        age = max(0.0, (now - parse_stamp(when)).total_seconds() / 86400)
        lift = rank.recency_lift(age) if "recency" in steps else 1.0
        first.append((rowid, ref, base * lift, verdict))
        texts[rowid] = four
        written[rowid] = when
    if not first:
        return []

    # Steps 4 and 5 ahead of time, so that only memories that can be shown are read: the
    # evidence factor is exact; before LSA, a match stays if its largest lift could make it.
    events = _events_by_ref(store.events_for([ref for _, ref, _, _ in first]))
    no_events = factor_of([])
    if "evidence" not in steps:
        events = {}
    factor = {ref: factor_of(events[ref]) if ref in events else no_events for _, ref, _, _ in first}
    refs = {rowid: ref for rowid, ref, _, _ in first}
    lifted = "lsa" in steps and lsa is not None and lsa.ready(store) is not None
    most = rank.MAX_LSA_LIFT if lifted else 1.0
    # LSA lifts by 1 to `most`: value x factor is a floor of each final score and
    # value x most x factor a ceiling. A match whose ceiling is under 0.7 of the best floor,
    # or under the `keep`-th best floor, can be neither shown nor the best.
    cutoff = rank.CUTOFF if "cutoff" in steps else 0.0
    floors = sorted((value * factor[ref] for _, ref, value, _ in first), reverse=True)
    floor = cutoff * floors[0] * (1 - 1e-9)
    if keep is not None and len(floors) >= keep:
        floor = max(floor, floors[keep - 1])
    scored = [(i, value) for i, ref, value, _ in first if value * most * factor[ref] >= floor]
    if lifted and lsa is not None:
        scored = lsa.rerank(scored, terms)
    final = {i: value * factor[refs[i]] for i, value in scored}
    floor = cutoff * max(final.values()) * (1 - 1e-9)
    scored = [(i, value) for i, value in scored if final[i] >= floor]
    if keep is not None and len(scored) > keep:
        # The order `_cut` gives; the best of the merged phrasings are among each one's best.
        scored.sort(key=lambda item: rank.sort_key(final[item[0]], written[item[0]], refs[item[0]]))
        del scored[keep:]

    verdicts = {rowid: verdict for rowid, _, _, verdict in first}
    memories = believed if end is not None else store.memories_by_ids([i for i, _ in scored])
    out: list[_Scored] = []
    for i, value in scored:
        memory = memories[i]
        state = state_of(memory, events.get(memory.ref, []), ctx.clock())
        value *= state.factor
        doc_terms = frozenset(_words(texts[i]))
        out.append(
            _Scored(memory.ref, value, memory=memory, terms=doc_terms, weak=verdicts[i] == "weak")
        )
    return out


def _words(fields: Sequence[str]) -> list[str]:
    return [word for text in fields for word in text.split()]


def _four(fields: Sequence[str]) -> tuple[str, str, str, str]:
    return fields[0], fields[1], fields[2], fields[3]


def _candidates(
    store: SqliteStore,
    terms: Sequence[str],
    df: Mapping[str, int],
    idf_of: Mapping[str, float],
    n_project: int,
) -> list[int]:
    """The pool of step 1: rowids of at most CANDIDATES versions, among those that can pass
    step 6 (coverage). Ranking matches is most of the index's cost, so it is avoided when it
    need not decide: when every memory covering enough of the query fits in the pool, the pool
    is all of them; else it is the best by FTS5's bm25() with the field weights among those
    holding a `_required` term (read unranked when they fit).
    """
    judged = n_project >= rank.MIN_MEMORIES_FOR_COVERAGE
    groups = _covering(terms, idf_of) if judged else None
    if groups is not None:
        ids = store.memories_holding(groups, CANDIDATES + 1)
        if len(ids) <= CANDIDATES:
            return ids
    required = _required(terms, idf_of, n_project)
    # FTS5 counts a plain word exactly; a word it splits (e.g. at a combining mark) it may still
    # match as a phrase, so only plain words are trusted to be absent or few.
    rows_held = sum(df.get(t, 0) for t in required)
    exact = all(t.isascii() and t.isalnum() for t in required)
    if exact and not rows_held:
        return []
    ranked = rows_held > CANDIDATES or not exact
    return store.memory_candidates(
        terms, CANDIDATES, required=required, weights=WEIGHTS, ranked=ranked
    )


def _covering(terms: Sequence[str], idf_of: Mapping[str, float]) -> list[list[str]] | None:
    """The smallest sets of terms holding half the query's idf mass (a memory must hold all of
    one of them, or step 6 drops it); None when there are too many to ask the index for."""
    floor = rank.MIN_COVERAGE * sum(idf_of[t] for t in terms) * (1 - 1e-9)
    by_rarity = sorted(terms, key=lambda t: -idf_of[t])
    weights = [idf_of[t] for t in by_rarity]
    after = [sum(weights[k:]) for k in range(len(weights) + 1)]
    found: list[list[str]] = []

    def extend(start: int, chosen: list[str], mass: float) -> bool:
        # Terms are taken rarest first, so a set is closed as soon as it reaches the floor:
        # without its last (lightest) term it did not, so no smaller set inside it does.
        for k in range(start, len(by_rarity)):
            if mass + after[k] < floor:
                return True  # the rest cannot reach the floor, from here or later
            if mass + weights[k] >= floor:
                found.append([*chosen, by_rarity[k]])
                if len(found) > MAX_COVERING_SETS:
                    return False
            elif not extend(k + 1, [*chosen, by_rarity[k]], mass + weights[k]):
                return False
        return True

    return found if extend(0, [], 0.0) else None


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


def _weighted_tfs(
    terms: Sequence[str], fields: Sequence[str], weights: Sequence[float] = WEIGHTS
) -> list[float]:
    """BM25F's tf~ of each term in one memory: sum over FIELDS of weight x count.

    Summed in `rank.score`'s order, leaving out fields without the term (adding 0.0 changes no
    float), so `rank.term_score` of these gives the same score to the last bit. A field not
    holding the term even as a substring is not split or counted: most of the speed.
    """
    out: list[float] = []
    split: list[list[str] | None] = [None] * len(fields)
    for term in terms:
        weighted_tf = 0.0
        for k, text in enumerate(fields):
            if term in text:
                words = split[k]
                if words is None:
                    words = split[k] = text.split()
                count = words.count(term)
                if count:
                    weighted_tf += weights[k] * count
        out.append(weighted_tf)
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
    df = store.doc_freqs(terms, table="doc")
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
    """The branch brief when the query names the branch or asks what is open."""
    from cairn.brief import branch_brief

    if not ctx.branch:
        return None
    branch_terms = set(analyse(ctx.branch.replace("/", " ")))
    query_terms = set(analyse(query))
    names_branch = bool(branch_terms) and branch_terms <= query_terms
    if not (names_branch or _OPEN_WORDS.search(query) or ctx.branch.lower() in query.lower()):
        return None
    return branch_brief(store, ctx)
