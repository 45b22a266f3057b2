"""Pure ranking layer: one function per formula, each citing it in its docstring.

- `bm25`: BM25F over a memory's fields with Lucene's idf; query coverage.
- `recency`: a newer near-tie on the same subject comes first (a slight lift by age).
- `evidence`: merges and confirmations lift, reverts and discards lower (x2 .. x0.5).
- `lsa`: latent semantic analysis re-ordering keyword matches (numpy/scipy, imported lazily).
- `postings`: BM25F of every memory holding a query word at once (numpy, imported lazily).
- `blend`: the cut-off, result limits and tie-breaks.
- `gate`: the "nothing found" gate on the best keyword match.

No I/O. Importing this package loads only the standard library: numpy and scipy are imported
inside `lsa.fit` and the model's methods, never here.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing: the hook imports this package

_WHERE = {
    "B": "cairn.core.rank.bm25",
    "CUTOFF": "cairn.core.rank.blend",
    "DEFAULT_LIMIT": "cairn.core.rank.blend",
    "FIELD_COUNT": "cairn.core.rank.postings",
    "FIELD_WEIGHTS": "cairn.core.rank.bm25",
    "K1": "cairn.core.rank.bm25",
    "LsaModel": "cairn.core.rank.lsa",
    "MAX_EVIDENCE_FACTOR": "cairn.core.rank.evidence",
    "MAX_LIMIT": "cairn.core.rank.blend",
    "MAX_LSA_LIFT": "cairn.core.rank.lsa",
    "MIN_EVIDENCE_FACTOR": "cairn.core.rank.evidence",
    "LEAD_WEIGHT": "cairn.core.rank.gate",
    "MIN_SUPPORT": "cairn.core.rank.gate",
    "SIZE_REFERENCE": "cairn.core.rank.gate",
    "SIZE_SLOPE": "cairn.core.rank.gate",
    "MIN_MEMORIES_FOR_GATE": "cairn.core.rank.blend",
    "MIN_MEMORIES_FOR_LSA": "cairn.core.rank.lsa",
    "Postings": "cairn.core.rank.postings",
    "PAGES_LIMIT": "cairn.core.rank.blend",
    "Reading": "cairn.core.rank.gate",
    "UNKNOWN_PENALTY": "cairn.core.rank.gate",
    "WEAK_SUPPORT": "cairn.core.rank.gate",
    "bm25f": "cairn.core.rank.postings",
    "kth_largest": "cairn.core.rank.postings",
    "build_postings": "cairn.core.rank.postings",
    "merge_postings": "cairn.core.rank.postings",
    "memory_score": "cairn.core.rank.blend",
    "memory_scores": "cairn.core.rank.blend",
    "cut_off": "cairn.core.rank.blend",
    "evidence_factor": "cairn.core.rank.evidence",
    "fill": "cairn.core.rank.blend",
    "judge": "cairn.core.rank.gate",
    "lead": "cairn.core.rank.gate",
    "support": "cairn.core.rank.gate",
    "threshold": "cairn.core.rank.gate",
    "idf": "cairn.core.rank.bm25",
    "lsa_lift": "cairn.core.rank.lsa",
    "recency_lift": "cairn.core.rank.recency",
    "near_ties": "cairn.core.rank.recency",
    "rerank": "cairn.core.rank.lsa",
    "score": "cairn.core.rank.bm25",
    "sort_key": "cairn.core.rank.blend",
    "split_limit": "cairn.core.rank.blend",
    "term_score": "cairn.core.rank.bm25",
    "use_lsa": "cairn.core.rank.lsa",
}


__all__ = [
    "CUTOFF",
    "DEFAULT_LIMIT",
    "FIELD_COUNT",
    "FIELD_WEIGHTS",
    "K1",
    "LEAD_WEIGHT",
    "MAX_EVIDENCE_FACTOR",
    "MAX_LIMIT",
    "MAX_LSA_LIFT",
    "MIN_EVIDENCE_FACTOR",
    "MIN_MEMORIES_FOR_GATE",
    "MIN_MEMORIES_FOR_LSA",
    "MIN_SUPPORT",
    "PAGES_LIMIT",
    "SIZE_REFERENCE",
    "SIZE_SLOPE",
    "UNKNOWN_PENALTY",
    "WEAK_SUPPORT",
    "B",
    "LsaModel",
    "Postings",
    "Reading",
    "bm25f",
    "build_postings",
    "cut_off",
    "evidence_factor",
    "fill",
    "idf",
    "judge",
    "kth_largest",
    "lead",
    "lsa_lift",
    "memory_score",
    "memory_scores",
    "merge_postings",
    "near_ties",
    "recency_lift",
    "rerank",
    "score",
    "sort_key",
    "split_limit",
    "support",
    "term_score",
    "threshold",
    "use_lsa",
]


def __getattr__(name: str) -> object:
    # Lazy (PEP 562): the hook needs `evidence_factor`, not the LSA machinery or blend.
    if name in _WHERE:
        import importlib

        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cairn.core.rank' has no attribute {name!r}")


if TYPE_CHECKING:
    from cairn.core.rank.blend import (
        CUTOFF,
        DEFAULT_LIMIT,
        MAX_LIMIT,
        MIN_MEMORIES_FOR_GATE,
        PAGES_LIMIT,
        cut_off,
        fill,
        memory_score,
        memory_scores,
        sort_key,
        split_limit,
    )
    from cairn.core.rank.bm25 import FIELD_WEIGHTS, K1, B, idf, score, term_score
    from cairn.core.rank.evidence import MAX_EVIDENCE_FACTOR, MIN_EVIDENCE_FACTOR, evidence_factor
    from cairn.core.rank.gate import (
        LEAD_WEIGHT,
        MIN_SUPPORT,
        SIZE_REFERENCE,
        SIZE_SLOPE,
        UNKNOWN_PENALTY,
        WEAK_SUPPORT,
        Reading,
        judge,
        lead,
        support,
        threshold,
    )
    from cairn.core.rank.lsa import (
        MAX_LSA_LIFT,
        MIN_MEMORIES_FOR_LSA,
        LsaModel,
        lsa_lift,
        rerank,
        use_lsa,
    )
    from cairn.core.rank.postings import (
        FIELD_COUNT,
        Postings,
        bm25f,
        build_postings,
        kth_largest,
        merge_postings,
    )
    from cairn.core.rank.recency import near_ties, recency_lift
