"""Recall's doc pages: those of the project holding every query word, scored by BM25."""

from __future__ import annotations

from cairn.core import rank
from cairn.core.context import Context
from cairn.core.text.query import Query
from cairn.io.store.protocol import Store
from cairn.usecases.recall.matching import CANDIDATES
from cairn.usecases.recall.scored import Scored

DOC_WEIGHTS = {"title": 2.0, "body": 1.0}


def search_docs(store: Store, ctx: Context, query: Query) -> list[Scored]:
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
    out: list[Scored] = []
    for page, title, body in pages.values():
        if page.project != ctx.project or page.captured:
            continue
        body_terms = set(body.split())
        if not all(holds(body_terms, unit) for unit in units):
            continue  # a doc matches only when its text holds all the query's words
        value = rank.score(
            terms, {"title": title.split(), "body": body.split()}, df, n_docs, avg_len, DOC_WEIGHTS
        )
        out.append(Scored(f"{page.path}#{page.ordinal}", value, doc=page))
    return out


def holds(words: set[str], unit: tuple[str, ...]) -> bool:
    """Whether `words` hold a query unit (`Query.units`): its first term, or all the rest."""
    return unit[0] in words or (len(unit) > 1 and all(t in words for t in unit[1:]))
