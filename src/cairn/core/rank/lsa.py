"""Latent semantic analysis: a lift for keyword matches near the query, fitted in bounded time.

From `MIN_MEMORIES_FOR_LSA` memories in a workspace, recall lifts each keyword match by how
close it sits to the query in a latent space. It only re-orders: `rerank` takes the keyword
matches and returns the same items, so a memory sharing no word with the query is never added.

    w(t, d)  = (1 + ln tf(t, d)) * idf(t),  idf(t) = ln((1 + N) / (1 + df(t))) + 1
    X        = the w(t, d) of at most FIT_SAMPLE memories (evenly spread over the store), of
               the terms at least two memories hold, each column scaled to unit length
    X       ~= U_k S_k V_k^T             truncated SVD (randomized, numpy), k = DEFAULT_DIMS
    for a match d of query q, with S the words both hold:
    q^      = sum over t in q - S of idf(t) ** QUERY_IDF_POWER * U_k[t]
    d^      = sum over t in d - S of w(t, d) * U_k[t]
    sim     = cos(q^, d^)                (0 when either side has no word left in the model)
    lift    = 1 + LIFT_SHARE * max(0, sim) ** LIFT_POWER      in [1, 1 + LIFT_SHARE] <= x2
               (LIFT_SHARE 0.1, LIFT_POWER 2: a match more than 10% ahead is never passed)

The words a match shares with the query are what its keyword score already counted; left in,
they made every match close to the query that names its word (`residual_similarities`).

Every memory is folded in (d^ from its own words through U_k), so one written after the fit is
lifted at once, and a fit costs the same at 10,000 or 100,000 memories: the SVD sees FIT_SAMPLE
columns at most. The model is U_k and the idf of its terms.

Each choice was measured with bench/quality.py on the labelled sets (docs/recall.md): the
plain tf-idf query with the shared words in it and a lift up to x2 lowered nDCG@10 on the
public set from 0.59 to 0.45 (the query vector led by common words, "please", "head"); the
numbers here move it by less than one query's worth on either set.

numpy and scipy are imported inside the functions that need them, so importing this module
(or `cairn.core.rank`) stays cheap enough for the hook's hot path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any, TypeVar

from cairn.core.value import Value

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "DEFAULT_DIMS",
    "FIT_SAMPLE",
    "LIFT_POWER",
    "LIFT_SHARE",
    "MAX_LSA_LIFT",
    "MIN_MEMORIES_FOR_LSA",
    "QUERY_IDF_POWER",
    "DocTerms",
    "Laid",
    "LsaModel",
    "doc_rows",
    "fit",
    "from_arrays",
    "laid_similarities",
    "lsa_lift",
    "rerank",
    "rerank_laid",
    "residual_similarities",
    "to_arrays",
    "use_lsa",
]

K = TypeVar("K")

DocTerms = tuple["NDArray[np.int64]", "NDArray[np.float64]"]
# Documents end to end: the rows of U_k of their words, the words' weights, and the document
# each word belongs to (0 to n - 1), each document's words in its order.
Laid = tuple["NDArray[np.integer[Any]]", "NDArray[np.float64]", "NDArray[np.int64]"]
"""A document as `LsaModel.terms_of` gives it: its words' rows of U_k and their weights."""

MIN_MEMORIES_FOR_LSA = 200
"""LSA is fitted only from this many memories in the workspace: below, topics are noise."""

MAX_LSA_LIFT = 2.0
"""The most LSA may lift one match (the spec's bound): x2."""

LIFT_SHARE = 0.1
"""The lift at cosine 1, over 1: LSA lifts a match at most x1.1 (within the spec's x2)."""

LIFT_POWER = 2.0
"""The lift grows as the square of the cosine: a match whose other words sit close to the
query's other words is lifted (cos 0.9: x1.081), a loosely related one little (cos 0.5:
x1.025). Measured with bench/recency_seeds.py on the four labelled runs, each public one over
four or five draws of its ages, with recall's near-tie recency (docs/recall.md, "LSA"):
"all steps but the cut-offs" minus plain BM25 with the square is +0.0002 to +0.0023 on every
run and draw, with the fourth power -0.0001 to +0.0020 (under plain on GCIDE's own ages and
one draw at WordNet 100k), with 0.2 x the eighth power down to -0.0005."""

QUERY_IDF_POWER = 2.0
"""Each query word weighs idf ** this in the query vector: the rare word leads."""

DEFAULT_DIMS = 32
"""Latent dimensions kept by the truncated SVD (fewer when the sample is smaller)."""

FIT_SAMPLE = 4000
"""The SVD sees at most this many memories (evenly spread): a fit takes bounded time."""

# A fixed seed makes the decomposition, and so the ranking, repeatable.
_SEED = 0
_OVERSAMPLE = 10
_POWER_ITERATIONS = 4


def use_lsa(n_workspace_memories: int) -> bool:
    """Whether a workspace has enough memories (>= MIN_MEMORIES_FOR_LSA) for LSA to help."""
    return n_workspace_memories >= MIN_MEMORIES_FOR_LSA


class LsaModel(Value):
    """A fitted LSA space: the vocabulary, its idf, and U_k (one row per term).

    Equal only to itself (its arrays have no one truth value), hashed by identity.
    """

    __slots__ = ("vocabulary", "idf", "term_vectors")  # noqa: RUF023
    vocabulary: Mapping[str, int]
    idf: NDArray[np.float64]
    term_vectors: NDArray[np.float32]

    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __init__(
        self,
        vocabulary: Mapping[str, int],
        idf: NDArray[np.float64],
        term_vectors: NDArray[np.float32],
    ) -> None:
        self._assign(vocabulary, idf, term_vectors)

    @property
    def dims(self) -> int:
        """Latent dimensions kept (0 when the corpus was too small to decompose)."""
        return int(self.term_vectors.shape[1])

    def project(self, query_terms: Sequence[str]) -> NDArray[np.float64] | None:
        """The query folded into the latent space, unit length; None when no term is known.

        Each distinct term weighs idf ** QUERY_IDF_POWER (a query names a word once).
        """
        import numpy as np

        rows = [self.vocabulary[t] for t in dict.fromkeys(query_terms) if t in self.vocabulary]
        if not rows or self.dims == 0:
            return None
        weights = self.idf[rows] ** QUERY_IDF_POWER
        vector: NDArray[np.float64] = weights @ self.term_vectors[rows].astype(np.float64)
        norm = float(np.linalg.norm(vector))
        return None if norm == 0.0 else vector / norm

    def terms_of(self, doc: Mapping[str, int]) -> DocTerms:
        """A document's words in the model, in the document's order: their rows of U_k and
        their weights w(t, d) = (1 + ln tf) * idf. What `fold` reads of a document, and all
        it needs: a caller that folds a document often (recall, a memory each time it is a
        candidate) keeps these instead of looking its words up again."""
        import numpy as np

        rows: list[int] = []
        counts: list[int] = []
        vocabulary = self.vocabulary
        for term, count in doc.items():
            row = vocabulary.get(term)
            if row is not None:
                rows.append(row)
                counts.append(count)
        index = np.array(rows, dtype=np.int64)
        weights = (1.0 + np.log(np.array(counts, dtype=np.float64))) * self.idf[index]
        return index, weights

    def fold(self, docs: Sequence[Mapping[str, int]]) -> NDArray[np.float64]:
        """Each document (term -> count) folded in: U_k^T w(., d), unit length (0 if empty)."""
        return self.fold_terms([self.terms_of(doc) for doc in docs])

    def fold_terms(self, docs: Sequence[DocTerms]) -> NDArray[np.float64]:
        """`fold` of documents given by `terms_of`."""
        return self.folded(len(docs), *_laid_out(docs))

    def folded(
        self,
        n_docs: int,
        index: NDArray[np.int64],
        weights: NDArray[np.float64],
        at: NDArray[np.int64],
    ) -> NDArray[np.float64]:
        """`n_docs` documents given end to end (`_laid_out`: the rows of their words, the
        weights, the document each belongs to) folded in: each document's words added in the
        order given from 0.0, as `np.add.at` adds them (`np.add.reduceat` sums pairwise,
        other floats)."""
        import numpy as np

        from cairn.core.rank.postings import in_order_sums

        k = self.dims
        out = np.zeros((n_docs, k), dtype=np.float64)
        if index.shape[0] and k:
            added = weights[:, None] * self.term_vectors[index]
            if added.size <= FOLD_CELLS:
                # One bin per (document, dimension): `np.bincount` adds each bin's weights one
                # by one in the order given, the floats of `np.add.at` in one pass.
                cells = (at[:, None] * k + np.arange(k)).ravel()
                out = in_order_sums(cells, added.ravel(), n_docs * k).reshape(n_docs, k)
            else:
                np.add.at(out, at, added)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        folded: NDArray[np.float64] = out / np.where(norms == 0.0, 1.0, norms)
        return folded

    def similarity(self, query_terms: Sequence[str], doc: Mapping[str, int]) -> float:
        """Cosine of the query and a document (term -> count) in the latent space, in [-1, 1];
        0 when either holds no word of the model."""
        query = self.project(query_terms)
        if query is None:
            return 0.0
        return float(self.fold([doc])[0] @ query)


def doc_rows(
    model: LsaModel, texts: Sequence[str]
) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.float64]]:
    """`LsaModel.terms_of` of many documents at once, laid end to end: (starts, rows of U_k,
    weights), document j's words at `starts[j]:starts[j + 1]`.

    A document is its analysed words in one text (split on spaces, as recall reads a row);
    its words in the model come in the order they first occur, each weighing
    (1 + ln tf) * idf, as `terms_of` of its term counts gives them (the same floats: the
    same operations on each element). What a caller keeps for every row of a store, so that a
    recall looks no candidate's words up (`recall.lsa.LsaCache`).
    """
    import numpy as np

    vocabulary = model.vocabulary
    lookup = vocabulary if isinstance(vocabulary, dict) else dict(vocabulary.items())
    split = [text.split() for text in texts]
    flat = list(chain.from_iterable(split))
    ids = np.array(list(map(lookup.get, flat, repeat(-1, len(flat)))), dtype=np.int64)
    ids = ids.reshape(-1)  # an empty list makes a (0,) array as any other
    doc_of = np.repeat(np.arange(len(split), dtype=np.int64), [len(words) for words in split])
    known = np.flatnonzero(ids >= 0)
    n_terms = max(len(lookup), 1)
    # One key per known token (document, term); a stable sort groups equal keys with their
    # first occurrence first, and the groups put back in order of first occurrence are each
    # document's words in its order.
    keys = doc_of[known] * n_terms + ids[known]
    order = np.argsort(keys, kind="stable")
    grouped = keys[order]
    head = np.flatnonzero(np.concatenate((grouped[:1] >= 0, grouped[1:] != grouped[:-1])))
    counts = np.diff(np.append(head, grouped.shape[0]))
    by_first = np.argsort(order[head], kind="stable")
    pairs = grouped[head][by_first]
    index = pairs % n_terms
    weights = (1.0 + np.log(counts[by_first].astype(np.float64))) * model.idf[index]
    starts = np.searchsorted(pairs // n_terms, np.arange(len(split) + 1, dtype=np.int64))
    return starts.astype(np.int64), index.astype(np.int32), weights.astype(np.float64)


def fit(
    docs: Sequence[Mapping[str, int]],
    df: Mapping[str, int],
    n_docs: int,
    dims: int = DEFAULT_DIMS,
    sample: int = FIT_SAMPLE,
) -> LsaModel:
    """Fit LSA (module formula) on documents given as term -> count, with the df of each
    term over all `n_docs` documents of the store; at most `sample` of `docs`, evenly
    spread, enter the SVD. `dims` is clamped below the matrix's size, as svds requires; a
    corpus too small for one dimension gives a model whose similarities are all 0.
    Deterministic for equal input."""
    import numpy as np
    from scipy.sparse import csr_array

    if len(docs) > sample:
        step = len(docs) / sample
        docs = [docs[int(k * step)] for k in range(sample)]
    vocabulary: dict[str, int] = {}
    for counts in docs:
        for term in counts:
            if df.get(term, 0) >= 2 and term not in vocabulary:
                vocabulary[term] = len(vocabulary)
    terms = list(vocabulary)
    idf = np.log((1.0 + n_docs) / (1.0 + np.array([df[t] for t in terms], dtype=np.float64)))
    idf += 1.0
    rows: list[int] = []
    cols: list[int] = []
    values: list[float] = []
    for col, counts in enumerate(docs):
        held = [(vocabulary[t], c) for t, c in counts.items() if t in vocabulary]
        if not held:
            continue
        at = np.array([r for r, _ in held], dtype=np.int64)
        w = (1.0 + np.log(np.array([c for _, c in held], dtype=np.float64))) * idf[at]
        w /= np.linalg.norm(w)  # unit columns: a long document does not lead the SVD
        rows.extend(at.tolist())
        cols.extend([col] * len(held))
        values.extend(w.tolist())
    n_terms = len(terms)
    k = min(dims, min(n_terms, len(docs)) - 1)
    if k < 1 or not values:
        return LsaModel(vocabulary, idf, np.zeros((n_terms, 0), dtype=np.float32))
    matrix = csr_array((values, (rows, cols)), shape=(n_terms, len(docs)), dtype=np.float64)
    return LsaModel(vocabulary, idf, _left_singular_vectors(matrix, k).astype(np.float32))


def _left_singular_vectors(matrix: Any, k: int) -> NDArray[np.float64]:
    """U_k of a sparse matrix X by randomized SVD (Halko, Martinsson and Tropp 2011,
    algorithms 4.4 and 5.1): a Gaussian sketch of k + OVERSAMPLE columns and POWER_ITERATIONS
    rounds of X X^T; the basis is kept orthonormal through the small Gram matrix (B^T B =
    V L V^T gives B V L^-1/2), and the SVD of the projected Q^T X through the eigenvectors of
    its small Gram matrix: every dense step is (terms x width) by (width x width). numpy
    only; a fixed seed makes it repeatable."""
    import numpy as np

    n_terms, n_docs = matrix.shape
    width = min(k + _OVERSAMPLE, n_docs, n_terms)
    basis = _orthonormal(matrix @ np.random.default_rng(_SEED).standard_normal((n_docs, width)))
    for _ in range(_POWER_ITERATIONS):
        basis = _orthonormal(matrix @ (matrix.T @ basis))
    projected = (matrix.T @ basis).T  # Q^T X: width x n_docs
    values, vectors = np.linalg.eigh(projected @ projected.T)
    order = np.argsort(values)[::-1][:k]
    u: NDArray[np.float64] = basis @ vectors[:, order]
    return u


def _orthonormal(block: NDArray[np.float64]) -> NDArray[np.float64]:
    """An orthonormal basis of the columns of `block` (directions of zero length dropped)."""
    import numpy as np

    values, vectors = np.linalg.eigh(block.T @ block)
    keep = values > values.max() * 1e-12 if values.size else values > 0
    scaled: NDArray[np.float64] = block @ (vectors[:, keep] / np.sqrt(values[keep]))
    return scaled


def to_arrays(model: LsaModel) -> dict[str, NDArray[Any]]:
    """The model as plain arrays (for `numpy.savez`); `from_arrays` reads them back."""
    import numpy as np

    # Terms sorted, their rows with them: a reader of the mapped file finds a term by binary
    # search (`recall.mapped.Vocabulary`); `from_arrays` numbers them by position.
    terms = sorted(model.vocabulary)
    rows = np.array([model.vocabulary[t] for t in terms], dtype=np.int64)
    return {
        "terms": np.array(terms, dtype=np.str_),
        "idf": np.asarray(model.idf)[rows],
        "term_vectors": np.asarray(model.term_vectors)[rows],
    }


def from_arrays(arrays: Mapping[str, NDArray[Any]]) -> LsaModel:
    """The model `to_arrays` wrote; ValueError (or KeyError) when the arrays do not fit."""
    import numpy as np

    terms = [str(term) for term in arrays["terms"]]
    idf = np.asarray(arrays["idf"], dtype=np.float64)
    term_vectors = np.asarray(arrays["term_vectors"], dtype=np.float32)
    n_terms = len(terms)
    if (
        idf.shape != (n_terms,)
        or term_vectors.ndim != 2
        or term_vectors.shape[0] != n_terms
        or len(set(terms)) != n_terms
    ):
        raise ValueError("the arrays do not make an LSA model")
    return LsaModel({term: k for k, term in enumerate(terms)}, idf, term_vectors)


def lsa_lift(similarity: float) -> float:
    """1 + LIFT_SHARE * max(0, sim) ** LIFT_POWER: an unrelated or opposed document is not
    lowered, none is lifted past 1 + LIFT_SHARE (<= MAX_LSA_LIFT)."""
    # min() guards against a cosine rounding just above 1; a NaN falls to max()'s 0.
    lift: float = 1.0 + LIFT_SHARE * min(1.0, max(0.0, similarity)) ** LIFT_POWER
    return lift


def rerank(
    hits: Sequence[tuple[K, float, Mapping[str, int] | DocTerms]],
    model: LsaModel | None,
    query_terms: Sequence[str],
) -> list[tuple[K, float]]:
    """Keyword matches re-ordered by score x lsa_lift(similarity), best first (stable).

    `hits` are (key, score, the document's term counts or `LsaModel.terms_of` them) of
    keyword matches; the output holds exactly their keys, so no document is added, and no
    score is lifted past x(1 + LIFT_SHARE). The similarity of each match is
    `residual_similarities`. With no model (a workspace under MIN_MEMORIES_FOR_LSA), only
    the order by score is applied.
    """
    sims = None
    if model is not None and hits and model.dims:
        sims = residual_similarities(model, query_terms, [doc for _, _, doc in hits])
    return _lifted([(key, value) for key, value, _ in hits], sims)


def rerank_laid(
    scored: Sequence[tuple[K, float]], model: LsaModel, query_terms: Sequence[str], laid: Laid
) -> list[tuple[K, float]]:
    """`rerank` of keyword matches (key, score) whose documents are given end to end (`Laid`,
    in the matches' order)."""
    sims = laid_similarities(model, query_terms, len(scored), laid) if model.dims else None
    return _lifted(scored, sims)


def _lifted(
    scored: Sequence[tuple[K, float]], sims: NDArray[np.float64] | None
) -> list[tuple[K, float]]:
    """The matches' scores times lsa_lift of their similarities (None: no lift), best first
    (stable)."""
    import numpy as np

    values = np.array([value for _, value in scored], dtype=np.float64)
    lifts = np.ones(len(scored), dtype=np.float64)
    if sims is not None:
        clipped = np.where(sims > 0.0, np.minimum(sims, 1.0), 0.0)  # a NaN counts as 0
        lifts = 1.0 + LIFT_SHARE * clipped**LIFT_POWER
    lifted = zip([key for key, _ in scored], (values * lifts).tolist(), strict=True)
    return sorted(lifted, key=lambda item: item[1], reverse=True)


FOLD_CELLS = 1 << 20
"""`LsaModel.folded` sums at most this many (word, dimension) cells by `np.bincount` (16 MB
with their bins): a recall's candidates within reach, not a fit's thousands of documents."""


def _laid_out(
    docs: Sequence[DocTerms],
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
    """The documents' rows and weights end to end, with the document each belongs to."""
    import numpy as np

    if not docs:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64)
    index = np.concatenate([rows for rows, _ in docs])
    weights = np.concatenate([w for _, w in docs])
    at = np.repeat(np.arange(len(docs), dtype=np.int64), [r.shape[0] for r, _ in docs])
    return index, weights, at


def residual_similarities(
    model: LsaModel,
    query_terms: Sequence[str],
    docs: Sequence[Mapping[str, int] | DocTerms],
) -> NDArray[np.float64]:
    """For each document, the cosine in the latent space of the query words it does not hold
    and its words the query does not hold.

    The words both hold are what the keyword score already counted; left in, they make every
    match of a word close to the query that names it, whatever the rest says ("bank" the slope
    and "bank" the building both sit next to "pulled the canoe up the bank"). Without them,
    the cosine says whether the rest of the memory is about what the rest of the query is.
    0 where either side has no word left in the model. A document is its term counts or what
    `LsaModel.terms_of` gives of them (the same floats).
    """
    terms = [d if isinstance(d, tuple) else model.terms_of(d) for d in docs]
    return laid_similarities(model, query_terms, len(terms), _laid_out(terms))


def laid_similarities(
    model: LsaModel, query_terms: Sequence[str], n_docs: int, laid: Laid
) -> NDArray[np.float64]:
    """`residual_similarities` of `n_docs` documents given end to end (`Laid`)."""
    import numpy as np

    vocabulary = model.vocabulary
    rows_of = [vocabulary.get(t) for t in dict.fromkeys(query_terms)]
    asked = [row for row in rows_of if row is not None]
    if not asked or not n_docs:
        return np.zeros(n_docs, dtype=np.float64)
    rows = np.array(asked, dtype=np.int64)
    weighted = (model.idf[rows] ** QUERY_IDF_POWER)[:, None] * model.term_vectors[rows]
    # Which asked words each document holds (a word of the query is in the model, so a
    # document holds it exactly when its row is among the document's rows); the others are
    # its residual words.
    held = np.zeros((n_docs, rows.shape[0]), dtype=np.float64)
    index, weights, at = laid
    order = np.argsort(rows, kind="stable")
    place = np.searchsorted(rows[order], index)
    place[place == rows.shape[0]] = 0
    hit = rows[order][place] == index
    held[at[hit], order[place[hit]]] = 1.0
    queries = (1.0 - held) @ weighted  # each document's residual query, n x k
    rest_of = ~hit
    rest = model.folded(n_docs, index[rest_of], weights[rest_of], at[rest_of])
    norms = np.linalg.norm(queries, axis=1)
    dots = np.einsum("ij,ij->i", rest, queries)
    sims: NDArray[np.float64] = np.where(norms > 0.0, dots / np.where(norms > 0, norms, 1.0), 0.0)
    return sims
