"""The LSA fit recall keeps beside the store (`LsaCache`), and the table of every row's words
as the model reads them, which a write extends and a recall only reads.

Kept as `kept.py` keeps the postings: a kept file that is missing, damaged, of another store or
too old is computed afresh and written again, never an error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cairn.core import rank
from cairn.io.store.protocol import Store
from cairn.usecases.recall.kept import _store_mark, _write_npz, keywords
from cairn.usecases.recall.mapped import Vocabulary, read_npz

if TYPE_CHECKING:
    from cairn.core.rank.lsa import DocTerms, Laid

__all__ = ["LsaCache"]


class LsaCache:
    """An LSA model of the workspace, fitted in bounded time when the store changed enough.

    "Changed enough": more than REFIT_SHARE of the memories (at least REFIT_MIN) were written
    since the fit. A fit reads at most `rank.lsa.FIT_SAMPLE` memories and the df of their words
    from the keyword postings, so it costs the same at 10,000 or 100,000 memories (well
    under a second; bench/quality.py --latency times it). Every memory is folded in when it
    is a candidate (its words through the model), so one written after the fit is lifted at
    once; a refit only brings new words into the model.

    A fit is kept beside the store (FILE in its folder, with the store's state it was fitted
    at), so the next process reads it instead of fitting again; a file that is missing,
    unreadable, of another store, or older than the rule above allows is fitted afresh (and
    written again), never an error.
    """

    # Every memory is folded in at once, so a refit only brings new words into the model:
    # once the store grew by half (a refit after each 10% cost a bulk load of 100k memories
    # one more fit per 10,000, bench/quality.py --latency).
    REFIT_SHARE = 0.5
    REFIT_MIN = 20
    FILE = "recall-lsa.npz"

    WORDS_KEPT = 20_000
    TABLE_PAGE = 20_000  # rows read and laid out at a time when the rows' table is extended

    def __init__(self) -> None:
        self.model: Any = None
        self.fitted_at = -1
        self._words: dict[int, DocTerms] = {}
        self._words_of: Any = None  # the model `_words` were looked up in
        # Every row's words as the model reads them (`rank.lsa.doc_rows`), rows 1 to
        # len(starts) - 1 by rowid: (starts, rows of U_k, weights), of `_table_of`'s model.
        self._table: tuple[Any, Any, Any] | None = None
        self._table_of: Any = None

    def ready(self, store: Store, *, rows: bool = False) -> LsaCache | None:
        """This cache, fitted and fresh, or None below MIN_MEMORIES_FOR_LSA memories.

        With `rows` (the step a write ends with, `recall.refresh`), the table of every row's
        words through the model is extended to the rows written since, and kept with the fit:
        a recall then looks none of its candidates' words up. A recall never builds it (a
        second at 100k memories): rows the table does not hold are read and looked up when
        they are candidates, as before.
        """
        n = store.count_memories()
        if not rank.use_lsa(n):
            return None
        changes = store.change_count()
        limit = max(self.REFIT_MIN, self.REFIT_SHARE * n)
        if not (self.model is not None and changes - self.fitted_at <= limit) and not (
            self._load(store) and 0 <= changes - self.fitted_at <= limit
        ):
            self._fit(store, changes)
        if rows and self._extend_table(store, changes):
            self._save(store)
        return self

    def table_rows(self) -> int:
        """The last rowid the rows' table holds for the current model (0: none)."""
        table = self._table if self._table_of is self.model else None
        return 0 if table is None else int(table[0].shape[0]) - 1

    def _extend_table(self, store: Store, last: int) -> bool:
        """Lay out the rows after the table's last through the model (`rank.lsa.doc_rows`),
        TABLE_PAGE at a time; True when it grew."""
        import numpy as np

        from cairn.core.rank.lsa import doc_rows

        covered = self.table_rows()
        if covered >= last:
            return False
        if covered:
            assert self._table is not None
            starts_parts, index_parts, weight_parts = [[part] for part in self._table]
        else:
            starts_parts = [np.zeros(1, dtype=np.int64)]
            index_parts, weight_parts = [], []
        total = int(starts_parts[0][-1])
        after = covered
        while after < last:
            read = [row for row in store.index_rows_after(after, self.TABLE_PAGE) if row[0] <= last]
            if not read:
                break
            # A rowid with no row (none is taken out, but a gap costs nothing) holds no words.
            texts = [""] * (read[-1][0] - after)
            for row in read:
                texts[row[0] - after - 1] = " ".join(row[5:9])
            starts, index, weights = doc_rows(self.model, texts)
            starts_parts.append(starts[1:] + total)
            index_parts.append(index)
            weight_parts.append(weights)
            total += int(starts[-1])
            after = read[-1][0]
        if after == covered:
            return False
        self._table = (
            np.concatenate(starts_parts).astype(np.int64),
            np.concatenate(index_parts).astype(np.int32),
            np.concatenate(weight_parts).astype(np.float64),
        )
        self._table_of = self.model
        return True

    def rerank(
        self, store: Store, scored: Sequence[tuple[int, float]], terms: Sequence[str]
    ) -> list[tuple[int, float]]:
        """Keyword matches re-ordered by their latent closeness to the query (rank.rerank)."""
        laid = self.laid([i for i, _ in scored])
        if laid is not None:
            from cairn.core.rank.lsa import rerank_laid

            return rerank_laid(scored, self.model, terms, laid)
        words = self.words(store, scored)
        hits = [(i, s, doc) for (i, s), doc in zip(scored, words, strict=True)]
        return rank.rerank(hits, self.model, terms)

    def laid(self, ids: Sequence[int]) -> Laid | None:
        """The words of these rows as the model reads them, end to end (`rank.lsa.Laid`),
        read from the rows' table in a few operations: None when the table is not this
        model's or does not hold every row (they are then read one by one, `words`).

        What is read is checked (each range runs forward within the table, each word is a row
        of the model): a table that does not hold together is dropped, as `words` drops it.
        """
        table = self._table if self._table_of is self.model else None
        if table is None or not ids:
            return None
        import numpy as np

        starts, index, weights = table
        at = np.asarray(ids, dtype=np.int64)
        if int(at.min()) < 1 or int(at.max()) > int(starts.shape[0]) - 1:
            return None
        lows, highs = starts[at - 1], starts[at]
        sizes = highs - lows
        if int(sizes.min()) < 0 or int(lows.min()) < 0 or int(highs.max()) > index.shape[0]:
            self._table = None
            return None
        # Each row's range of the table, end to end: an offset per word from its row's low.
        ends = np.cumsum(sizes)
        total = int(ends[-1])
        offsets = np.arange(total, dtype=np.int64) + np.repeat(lows - (ends - sizes), sizes)
        words = index[offsets]
        if total and (int(words.min()) < 0 or int(words.max()) >= len(self.model.vocabulary)):
            self._table = None
            return None
        return words, weights[offsets], np.repeat(np.arange(at.shape[0], dtype=np.int64), sizes)

    def words(self, store: Store, scored: Sequence[tuple[int, float]]) -> list[DocTerms]:
        """The index words of each row as the model reads them (`LsaModel.terms_of`: their
        rows and weights), read and looked up once per row and model: a row's text never
        changes, and the matches of a store's queries recur (WORDS_KEPT rows are kept)."""
        ids = [i for i, _ in scored]
        table = self._table if self._table_of is self.model else None
        from_table: dict[int, DocTerms] = {}
        if table is not None:
            import numpy as np

            starts, index, weights = table
            held = int(starts.shape[0]) - 1
            inside = [i for i in ids if 0 < i <= held]
            at = np.asarray(inside, dtype=np.int64)
            lows, highs = starts[at - 1].tolist(), starts[at].tolist()
            laid = [(index[lo:hi], weights[lo:hi]) for lo, hi in zip(lows, highs, strict=True)]
            if not _sound(laid, lows, highs, len(self.model.vocabulary)):
                # A kept table that does not hold together: the rows are looked up instead.
                self._table = None
            elif len(inside) == len(ids):  # the usual case: every row is in the table
                return laid
            else:
                from_table = dict(zip(inside, laid, strict=True))
        known = self._words
        if self._words_of is not self.model:
            known.clear()
            self._words_of = self.model
        missing = [i for i in ids if i not in from_table and i not in known]
        if missing:
            if len(known) + len(missing) > self.WORDS_KEPT:
                # Full: start again, with every row this call needs (those it knew too).
                known.clear()
                missing = [i for i in ids if i not in from_table]
            read = store.index_words(missing)
            terms_of = self.model.terms_of
            known.update((i, terms_of(Counter(read.get(i, "").split()))) for i in missing)
        return [from_table[i] if i in from_table else known[i] for i in ids]

    def _fit(self, store: Store, changes: int) -> None:
        """Fit on an even sample of the current memories, df from the keyword postings."""
        from cairn.core.rank.lsa import FIT_SAMPLE, fit, from_arrays, to_arrays

        # One row in `every` (by rowid) is read, then evenly thinned to FIT_SAMPLE.
        current = store.current_rowids(max(1, store.count_memories() // FIT_SAMPLE))
        if len(current) > FIT_SAMPLE:
            step = len(current) / FIT_SAMPLE
            current = [current[int(k * step)] for k in range(FIT_SAMPLE)]
        words = store.index_words(current)
        docs = [Counter(words[i].split()) for i in current if i in words]
        segments = keywords(store).segments_for(store)
        vocabulary = {t for doc in docs for t in doc}
        df = {t: sum(seg.postings.df(t) for seg in segments) for t in vocabulary}
        n_docs = sum(seg.postings.n_rows for seg in segments)
        # Numbered as the kept file numbers its terms (sorted), so the rows' table laid out
        # through it holds the file's numbers: the same vectors and idf, the same floats.
        self.model = from_arrays(to_arrays(fit(docs, df, n_docs)))
        self.fitted_at = changes
        self._table = None
        self._save(store)

    def _load(self, store: Store) -> bool:
        """Read the fit kept beside the store, if it is one of this store; True when read.

        The file is mapped, not read (`recall.mapped`): the vectors of the few terms a query
        and its candidates hold are what is read from disk.
        """
        arrays = read_npz(store.home / self.FILE)
        if arrays is None:
            return False
        try:
            fitted_at = int(arrays["fitted_at"])
            if str(arrays["store"]) != _store_mark(store, fitted_at):
                return False
            model = _lsa_model(arrays)
        except Exception:  # any damage (missing or wrong arrays): fit afresh
            return False
        self.model, self.fitted_at = model, fitted_at
        table = _rows_table(arrays, model)
        self._table, self._table_of = table, (model if table is not None else None)
        return True

    def _save(self, store: Store) -> None:
        """Keep this fit beside the store."""
        import numpy as np

        from cairn.core.rank.lsa import to_arrays

        _write_npz(
            store.home / self.FILE,
            {
                "fitted_at": np.int64(self.fitted_at),
                "store": np.str_(_store_mark(store, self.fitted_at)),
                **to_arrays(self.model),
                **self._table_arrays(),
            },
        )

    def _table_arrays(self) -> dict[str, Any]:
        """The rows' table as kept beside the fit (none when it is not this model's)."""
        if self._table is None or self._table_of is not self.model:
            return {}
        starts, index, weights = self._table
        return {"row_starts": starts, "row_terms": index, "row_weights": weights}


def _lsa_model(arrays: Mapping[str, Any]) -> Any:
    """The `rank.lsa.LsaModel` of `to_arrays`' arrays, as mapped: `from_arrays` checks, but
    the vocabulary is looked up in the terms array (`Vocabulary`), not made into a dict, and
    the vectors stay as stored (any float type; numpy widens them where they meet float64)."""
    from cairn.core.rank.lsa import LsaModel

    terms = arrays["terms"]
    idf = arrays["idf"]
    term_vectors = arrays["term_vectors"]
    if terms.ndim != 1 or terms.dtype.kind != "U":
        raise ValueError("the terms are not strings")
    if not all(a.dtype.kind == "f" for a in (idf, term_vectors)):
        raise ValueError("the vectors are not floats")
    n_terms = terms.shape[0]
    if idf.shape != (n_terms,) or term_vectors.ndim != 2 or term_vectors.shape[0] != n_terms:
        raise ValueError("the arrays do not make an LSA model")
    return LsaModel(Vocabulary(terms), idf, term_vectors)


def _rows_table(arrays: Mapping[str, Any], model: Any) -> tuple[Any, Any, Any] | None:
    """The rows' table kept with a fit (`LsaCache._table_arrays`): None when absent or of the
    wrong types and sizes (the rows are then looked up when they are candidates).

    Its contents are checked where a recall reads them (`_sound`), not here: the table is
    mapped, and a check of all of it would read 20 MB at 100k memories into a new process.
    """
    import numpy as np

    try:
        starts, index, weights = arrays["row_starts"], arrays["row_terms"], arrays["row_weights"]
    except KeyError:
        return None
    n = int(index.shape[0])
    if not (
        starts.dtype == np.int64
        and index.dtype == np.int32
        and weights.dtype == np.float64
        and starts.ndim == index.ndim == weights.ndim == 1
        and starts.shape[0] >= 1
        and weights.shape[0] == n
        and int(starts[0]) == 0
        and int(starts[-1]) == n
    ):
        return None
    return starts, index, weights


def _sound(docs: Sequence[Any], lows: Sequence[int], highs: Sequence[int], n_terms: int) -> bool:
    """Whether the rows read from the table hold together: each range runs forward within
    the table (`_rows_table` checked its ends), each word is a row of the model."""
    import numpy as np

    if any(hi < lo for lo, hi in zip(lows, highs, strict=True)):
        return False
    words = [rows for rows, _ in docs if rows.shape[0]]
    if not words:
        return True
    every = np.concatenate(words)
    return int(every.min()) >= 0 and int(every.max()) < n_terms
