"""BM25F over a memory's fields, as SQLite FTS5's ``bm25()`` combines columns, Lucene's idf.

Symbols: N documents, df(t) documents holding term t, tf_f(t, d) occurrences of t in field f
of document d, w_f the field's weight, |d| the document's length in tokens over all fields
(unweighted), avgdl the mean of |d| over the corpus.

    idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))              Lucene
    tf~(t, d)   = sum_f w_f * tf_f(t, d)                                  FTS5 bm25()
    score(q, d) = sum over distinct t in q of
                  idf(t) * tf~ * (k1 + 1) / (tf~ + k1 * (1 - b + b * |d| / avgdl))

Where the references differ:
- FTS5 uses idf = ln((N - df + 0.5) / (df + 0.5)), floored at 1e-6 when it turns negative;
  Lucene's ``1 +`` inside the log keeps every idf positive and still ordered by rarity.
- ``rank_bm25.BM25Okapi`` uses FTS5's idf with a floor of 0.25 x the mean idf.
- ``bm25s`` with ``method="lucene"`` drops the constant ``(k1 + 1)`` factor (as Lucene 8 did),
  so its scores are ours divided by 2.2; ranking is the same. ``method="atire"`` with
  ``idf_method="lucene"`` is this formula exactly.
- FTS5 and rank_bm25 count a repeated query term once per occurrence; here it counts once, so
  "test the tests" does not outweigh "test".
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["FIELD_WEIGHTS", "K1", "B", "idf", "saturated", "score", "term_score"]

K1 = 1.2
"""Term-frequency saturation: the usual default (FTS5, Lucene, bm25s)."""

B = 0.75
"""Length normalisation: the usual default (FTS5, Lucene, bm25s)."""

# Relative to the sentence, which weighs 1: a memory that is all sentence (most are) scores
# as plain BM25 does, k1's saturation unchanged. With the sentence at 2 (2, 1.8, 1.2, 1, the
# weights until issue 13), every sentence word's tf was doubled, which acts as k1 halved:
# that moved WordNet by +0.006 and GCIDE by -0.012 nDCG@10 on memories that have no other
# field (docs/recall.md). The order is the spec's: sentence > tags > citation > reason.
FIELD_WEIGHTS: dict[str, float] = {
    "sentence": 1.0,
    "tags": 0.9,
    "citation": 0.6,
    "reason": 0.5,
}
"""Weight of each memory field in the combined tf: sentence > tags > citation > reason."""


def idf(n_docs: int, df: int) -> float:
    """Lucene's idf: ln(1 + (N - df + 0.5) / (df + 0.5)); positive even when df == N.

    A df over N (counts read a moment apart while a memory was added) is taken as N, so a
    stale count cannot turn a score negative.
    """
    if n_docs < 0 or df < 0:
        raise ValueError(f"n_docs and df must be >= 0, got n_docs={n_docs}, df={df}")
    df = min(df, n_docs)
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def term_score(
    tf: float, doc_len: float, avg_len: float, idf: float, k1: float = K1, b: float = B
) -> float:
    """One term's BM25 weight: idf * tf*(k1+1) / (tf + k1*(1 - b + b*doc_len/avg_len)).

    A term absent from the document (tf <= 0) scores 0.
    """
    if tf <= 0:
        return 0.0
    if avg_len <= 0:
        raise ValueError(f"avg_len must be > 0 when a term occurs, got {avg_len}")
    return saturated(tf, doc_len, avg_len, idf, k1, b)


@overload
def saturated(
    tf: float, doc_len: float, avg_len: float, idf: float, k1: float = K1, b: float = B
) -> float: ...
@overload
def saturated(
    tf: NDArray[np.float64],
    doc_len: NDArray[np.float64],
    avg_len: float,
    idf: float,
    k1: float = K1,
    b: float = B,
) -> NDArray[np.float64]: ...
def saturated(
    tf: Any, doc_len: Any, avg_len: float, idf: float, k1: float = K1, b: float = B
) -> Any:
    """The module's formula, the one place it is written: idf * tf*(k1+1) / (tf + k1*(1 - b +
    b*doc_len/avg_len)), for tf > 0 and avg_len > 0 (unchecked).

    Floats or numpy arrays alike (`cairn.core.rank.postings.bm25f` scores every row holding a term
    at once), with the same operations in the same order: the same floats either way. It is
    `saturated_by` of the document's `length_norm`: a caller scoring many terms over the same
    documents computes each document's norm once, to the same floats.
    """
    return saturated_by(tf, length_norm(doc_len, avg_len, k1, b), idf, k1)


def length_norm(doc_len: Any, avg_len: float, k1: float = K1, b: float = B) -> Any:
    """The formula's length term, k1*(1 - b + b*doc_len/avg_len) (floats or numpy arrays)."""
    return k1 * (1.0 - b + b * doc_len / avg_len)


def saturated_by(tf: Any, norm: Any, idf: float, k1: float = K1) -> Any:
    """The formula given the document's `length_norm`: idf * tf*(k1+1) / (tf + norm)."""
    return idf * tf * (k1 + 1.0) / (tf + norm)


def score(
    query_terms: Sequence[str],
    fields: Mapping[str, Sequence[str]],
    df: Mapping[str, int],
    n_docs: int,
    avg_len: float,
    weights: Mapping[str, float] = FIELD_WEIGHTS,
) -> float:
    """BM25F of one document: the module formula summed over the distinct query terms.

    `fields` maps a field name to its analysed tokens; every field named must have a weight.
    `df` maps a term to how many of the `n_docs` documents hold it; `avg_len` is the mean
    total length (tokens over all fields) of those documents.
    """
    unknown = [name for name in fields if name not in weights]
    if unknown:
        raise ValueError(f"no weight for field(s) {sorted(unknown)}; weights has {sorted(weights)}")
    counts = {name: Counter(tokens) for name, tokens in fields.items()}
    doc_len = sum(len(tokens) for tokens in fields.values())
    total = 0.0
    for term in dict.fromkeys(query_terms):
        weighted_tf = sum(weights[name] * count[term] for name, count in counts.items())
        if weighted_tf > 0:
            total += term_score(weighted_tf, doc_len, avg_len, idf(n_docs, df.get(term, 0)))
    return total
