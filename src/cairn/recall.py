"""recall: a query in, ranked memories and doc pages out. Local BM25, no model.

The pipeline, in order (each step a pure function of `cairn.rank`):

1. BM25F candidates: memory versions and doc pages from the FTS5 index holding any query word,
   scored with Lucene's idf over the four fields (sentence > tags > citation > reason);
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from cairn import rank
from cairn.context import Context, parse_stamp
from cairn.describe import citation_of
from cairn.errors import QueryError
from cairn.lifecycle import state_of
from cairn.models import KINDS, Hit, Memory
from cairn.store import Event, SqliteStore
from cairn.text import analyse

FIELDS = ("sentence", "tags", "citation", "reason")
DOC_WEIGHTS = {"title": 2.0, "body": 1.0}
MAX_ALSO = 3
LINE_CHARS = 240
CANDIDATES = 400
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
        if self.model is None or changes - self.fitted_at > max(self.REFIT_MIN,
                                                                 self.REFIT_SHARE * n):
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
    end = end_of_day(as_of) if as_of else None

    memory_hits: dict[str, _Scored] = {}
    doc_hits: dict[str, _Scored] = {}
    for phrasing in [query, *also]:
        terms = list(dict.fromkeys(analyse(phrasing)))
        if not terms:
            continue
        if not pages:
            for s in _memories(store, ctx, terms, end, kind, lsa):
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
        ranked_memories = _cut(list(memory_hits.values()))
        chosen = rank.fill(
            [_memory_hit(s, ctx, end) for s in ranked_memories],
            [_doc_hit(s) for s in ranked_docs],
            n,
        )
        hits.extend(chosen)
    if ctx.session and end is None:
        offered = [h.ref for h in hits if h.kind not in ("doc", "brief")]
        if offered:
            store.record_offers(ctx.session, offered, "recall", ctx.tool, ctx.now())
    return Recalled(query=query, hits=hits, as_of=as_of)


def _cut(scored: list[_Scored]) -> list[_Scored]:
    """Best first (ties: newer, then ref), without those under 0.7 of the best."""
    kept = {key for key, _ in rank.cut_off([(s.key, s.score) for s in scored])}
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
) -> list[_Scored]:
    """Memory candidates scored through steps 1-4 and judged for coverage (step 6)."""
    ids = store.memory_candidates(terms, CANDIDATES)
    if end is None:
        rows = store.memories_by_ids(ids)
        visible = {
            i: m for i, m in rows.items()
            if m.is_current and (m.project == ctx.project or m.scope == "workspace")
        }
    else:
        believed = store.memories_as_of(ctx.project, end)
        visible = {i: believed[i] for i in ids if i in believed}
    if kind:
        visible = {i: m for i, m in visible.items() if m.kind == kind}
    if not visible:
        return []
    n_docs, n_tokens = store.index_stats("memories")
    avg_len = n_tokens / n_docs if n_docs else 1.0
    df = store.doc_freqs(terms)
    idf_of = {t: rank.idf(n_docs, df.get(t, 0)) for t in terms}
    fields = store.index_fields(list(visible))
    events = _events_by_ref(store.events_for([m.ref for m in visible.values()]))
    now = ctx.clock()
    n_project = store.count_memories(ctx.project)

    scored: list[tuple[int, float]] = []
    for i, memory in visible.items():
        tokens = {name: text.split() for name, text in zip(FIELDS, fields[i], strict=True)}
        base = rank.score(terms, tokens, df, n_docs, avg_len)
        if base <= 0:
            continue
        age = max(0.0, (now - parse_stamp(memory.written)).total_seconds() / 86400)
        scored.append((i, base * rank.recency_lift(age)))
    if lsa is not None and lsa.ready(store) is not None:
        scored = lsa.rerank(scored, terms)
    out: list[_Scored] = []
    for i, value in scored:
        memory = visible[i]
        state = state_of(memory, events.get(memory.ref, []), ctx.clock())
        value *= state.factor
        doc_terms = frozenset(t for f in fields[i] for t in f.split())
        verdict = rank.judge_coverage(rank.coverage(terms, doc_terms, idf_of), n_project)
        if verdict == "drop":
            continue
        out.append(_Scored(memory.ref, value, memory=memory, terms=doc_terms,
                           weak=verdict == "weak"))
    return out


def _events_by_ref(events: list[Event]) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for e in events:
        out.setdefault(e.ref, []).append(e)
    return out


def _docs(store: SqliteStore, ctx: Context, terms: list[str]) -> list[_Scored]:
    """Doc pages of this project holding every query word in their text (not title alone)."""
    ids = store.doc_candidates(terms, CANDIDATES)
    pages = store.docs_by_ids(ids)
    n_docs, n_tokens = store.index_stats("docs")
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
        value = rank.score(terms, {"title": title.split(), "body": body.split()}, df, n_docs,
                           avg_len, DOC_WEIGHTS)
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
