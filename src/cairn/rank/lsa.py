"""Latent semantic analysis, fitted in memory: a lift for keyword matches near the query.

From `MIN_MEMORIES_FOR_LSA` memories in a workspace, recall fits LSA on the analysed memories
and lifts each BM25 candidate by how close it sits to the query in the latent space. It only
re-orders: `rerank` takes the keyword matches and returns the same items, so a memory sharing
no word with the query is never added.

    X[t, d]  = (1 + ln tf(t, d)) * (ln((1 + N) / (1 + df(t))) + 1), each column scaled to
               unit length                                  sublinear tf, smoothed idf
    X       ~= U_k S_k V_k^T                                truncated SVD, k = dims
    d^      = U_k^T x_d,  q^ = U_k^T x_q                    fold into the latent space
    sim     = cos(q^, d^)
    lift    = 1 + max(0, sim)                               in [1, 2]

numpy and scipy are imported inside the functions that need them, so importing this module
(or `cairn.rank`) stays cheap enough for the hook's hot path.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "DEFAULT_DIMS",
    "MAX_LSA_LIFT",
    "MIN_MEMORIES_FOR_LSA",
    "LsaModel",
    "fit",
    "from_arrays",
    "lsa_lift",
    "rerank",
    "to_arrays",
    "use_lsa",
]

K = TypeVar("K")

MIN_MEMORIES_FOR_LSA = 200
"""LSA is fitted only from this many memories in the workspace: below, topics are noise."""

MAX_LSA_LIFT = 2.0
"""The most LSA lifts one match: x2, at cosine 1."""

DEFAULT_DIMS = 64
"""Latent dimensions kept by the truncated SVD (fewer when the corpus is smaller)."""

# A fixed start vector for ARPACK makes the decomposition, and so the ranking, repeatable.
_SEED = 0


def use_lsa(n_workspace_memories: int) -> bool:
    """Whether a workspace has enough memories (>= MIN_MEMORIES_FOR_LSA) for LSA to help."""
    return n_workspace_memories >= MIN_MEMORIES_FOR_LSA


def _tf_weight(count: int) -> float:
    return 1.0 + math.log(count)


@dataclass(frozen=True, eq=False)
class LsaModel:
    """A fitted LSA space: the vocabulary, its idf, U_k, and the unit document vectors."""

    vocabulary: Mapping[str, int]
    idf: NDArray[np.float64]
    term_vectors: NDArray[np.float64]
    doc_vectors: NDArray[np.float64]

    @property
    def dims(self) -> int:
        """Latent dimensions kept (0 when the corpus was too small to decompose)."""
        return int(self.term_vectors.shape[1])

    @property
    def n_docs(self) -> int:
        """Documents the model was fitted on."""
        return int(self.doc_vectors.shape[0])

    def project(self, query_terms: Sequence[str]) -> NDArray[np.float64] | None:
        """The query folded into the latent space, U_k^T x_q; None when no term is known."""
        import numpy as np

        counts = Counter(term for term in query_terms if term in self.vocabulary)
        if not counts or self.dims == 0:
            return None
        rows = [self.vocabulary[term] for term in counts]
        weights = np.array([_tf_weight(count) for count in counts.values()]) * self.idf[rows]
        vector: NDArray[np.float64] = weights @ self.term_vectors[rows]
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            return None
        return vector / norm

    def similarity(self, query_terms: Sequence[str], doc_index: int) -> float:
        """Cosine of the query and document `doc_index` in the latent space, in [-1, 1].

        0 when no query term is in the vocabulary, or `doc_index` names no fitted document
        (one written after the fit): no evidence either way.
        """
        return self._cosine(self.project(query_terms), doc_index)

    def _cosine(self, query: NDArray[np.float64] | None, doc_index: int) -> float:
        if query is None or not 0 <= doc_index < self.n_docs:
            return 0.0
        # Both vectors are unit length (or the document's is zero), so the dot is the cosine.
        return float(self.doc_vectors[doc_index] @ query)


def fit(docs: Sequence[Sequence[str]], dims: int = DEFAULT_DIMS) -> LsaModel:
    """Fit LSA on analysed documents: tf-idf term-document matrix, truncated SVD (svds).

    `dims` is clamped below min(terms, documents), as svds requires; a corpus too small for
    one dimension gives a model whose similarities are all 0. Deterministic for equal input.
    """
    import numpy as np
    from scipy.sparse import csc_array
    from scipy.sparse.linalg import svds

    vocabulary: dict[str, int] = {}
    doc_counts = [Counter(doc) for doc in docs]
    for counts in doc_counts:
        for term in counts:
            vocabulary.setdefault(term, len(vocabulary))
    n_terms, n_docs = len(vocabulary), len(docs)

    df = np.zeros(n_terms)
    for counts in doc_counts:
        df[[vocabulary[term] for term in counts]] += 1
    idf = np.log((1.0 + n_docs) / (1.0 + df)) + 1.0

    rows: list[int] = []
    cols: list[int] = []
    values: list[float] = []
    for col, counts in enumerate(doc_counts):
        column = [
            (vocabulary[term], _tf_weight(count) * float(idf[vocabulary[term]]))
            for term, count in counts.items()
        ]
        # Unit-length columns, so a long document does not dominate the decomposition.
        length = math.sqrt(sum(value * value for _, value in column))
        for row, value in column:
            rows.append(row)
            cols.append(col)
            values.append(value / length)

    k = min(dims, min(n_terms, n_docs) - 1)
    if k < 1:
        return LsaModel(vocabulary, idf, np.zeros((n_terms, 0)), np.zeros((n_docs, 0)))

    matrix = csc_array((values, (rows, cols)), shape=(n_terms, n_docs), dtype=np.float64)
    start = np.random.default_rng(_SEED).uniform(-1.0, 1.0, min(n_terms, n_docs))
    u, s, vt = svds(matrix, k=k, v0=start)
    # U_k^T x_d for a fitted column d is S_k times its row of V_k: no need to re-project.
    doc_vectors = vt.T * s
    norms = np.linalg.norm(doc_vectors, axis=1, keepdims=True)
    # An empty document has a zero vector; dividing by 1 keeps it zero (cosine 0).
    doc_vectors = doc_vectors / np.where(norms == 0.0, 1.0, norms)
    return LsaModel(vocabulary, idf, np.asarray(u, dtype=np.float64), doc_vectors)


def to_arrays(model: LsaModel) -> dict[str, NDArray[Any]]:
    """The model as plain arrays (for `numpy.savez`); `from_arrays` reads them back."""
    import numpy as np

    terms = sorted(model.vocabulary, key=model.vocabulary.__getitem__)
    return {
        "terms": np.array(terms, dtype=np.str_),
        "idf": model.idf,
        "term_vectors": model.term_vectors,
        "doc_vectors": model.doc_vectors,
    }


def from_arrays(arrays: Mapping[str, NDArray[Any]]) -> LsaModel:
    """The model `to_arrays` wrote; ValueError (or KeyError) when the arrays do not fit."""
    import numpy as np

    terms = [str(term) for term in arrays["terms"]]
    idf = np.asarray(arrays["idf"], dtype=np.float64)
    term_vectors = np.asarray(arrays["term_vectors"], dtype=np.float64)
    doc_vectors = np.asarray(arrays["doc_vectors"], dtype=np.float64)
    n_terms = len(terms)
    if (
        idf.shape != (n_terms,)
        or term_vectors.ndim != 2
        or doc_vectors.ndim != 2
        or term_vectors.shape[0] != n_terms
        or term_vectors.shape[1] != doc_vectors.shape[1]
        or len(set(terms)) != n_terms
    ):
        raise ValueError("the arrays do not make an LSA model")
    vocabulary = {term: k for k, term in enumerate(terms)}
    return LsaModel(vocabulary, idf, term_vectors, doc_vectors)


def lsa_lift(similarity: float) -> float:
    """1 + max(0, sim): in [1, 2]; an unrelated or opposed document is not lowered."""
    # min() guards against a cosine rounding just above 1; a NaN falls to max()'s 0.
    return 1.0 + min(1.0, max(0.0, similarity))


def rerank(
    hits: Sequence[tuple[K, float, int]], model: LsaModel | None, query_terms: Sequence[str]
) -> list[tuple[K, float]]:
    """Keyword matches re-ordered by score x lsa_lift(similarity), best first (stable).

    `hits` are (key, score, doc_index) of BM25 candidates; the output holds exactly their
    keys, so no document is added, and no score more than doubles. With no model (a
    workspace under MIN_MEMORIES_FOR_LSA), only the order by score is applied.
    """
    import numpy as np

    query = model.project(query_terms) if model is not None else None
    values = np.array([value for _, value, _ in hits], dtype=np.float64)
    lifts = np.ones(len(hits), dtype=np.float64)
    if model is not None and query is not None and hits:
        index = np.array([i for _, _, i in hits], dtype=np.int64)
        fitted = (index >= 0) & (index < model.n_docs)
        # Both vectors are unit length (or the document's is zero), so the dot is the cosine;
        # lsa_lift of each: 1 + min(1, max(0, sim)), a NaN counting as 0.
        sims = model.doc_vectors[index[fitted]] @ query
        lifts[fitted] = 1.0 + np.where(sims > 0.0, np.minimum(sims, 1.0), 0.0)
    lifted = zip([key for key, _, _ in hits], (values * lifts).tolist(), strict=True)
    return sorted(lifted, key=lambda item: item[1], reverse=True)
