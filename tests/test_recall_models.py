"""What recall derives from the store: postings and LSA, kept fresh and kept beside the store."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import cairn
from cairn.api import Cairn
from cairn.core.rank import lsa as lsa_module
from cairn.io.store import memories as kept_memories
from cairn.usecases import recall as searching
from cairn.usecases.recall import kept, matching
from cairn.usecases.remember import remember_many
from tests import backends as sqlite_only

TOPICS = ["postgres migration schema", "react component render", "payments refund ledger"]


def fill_topics(ws: Cairn, n: int = 210) -> None:
    remember_many(
        ws.store, ws.ctx, [{"text": f"{TOPICS[i % 3]} detail {i} note"} for i in range(n)]
    )


def answers(ws: Cairn, queries: Sequence[str]) -> list[list[tuple[str, float]]]:
    return [[(h.ref, h.score) for h in ws.recall(q, limit=25).hits] for q in queries]


def count_calls(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls: list[int] = []
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


# -- postings in memory --------------------------------------------------------------------
def test_a_memory_written_after_a_recall_is_found_by_the_next(ws: Cairn) -> None:
    ws.remember("the gateway timeout is thirty seconds")
    assert len(ws.recall("gateway timeout").hits) == 1
    for i in range(12):  # more segments than are kept apart: they are merged
        newer = ws.remember(f"kestrel gateway {i} restarts nightly").ref
        assert newer in {h.ref for h in ws.recall(f"kestrel gateway {i}").hits}


def test_matches_out_of_the_recency_lifts_reach_are_skipped_without_changing_the_pool(
    ws: Cairn, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # More matches than CANDIDATES, of many strengths and ages: the pool (and all the
    # later steps read of it) is the same whether the matches no lift can bring into it are
    # skipped or not.
    words = ["kestrel", "gateway", "timeout", "retry", "ledger"]
    for i in range(searching.CANDIDATES + 150):
        held = " ".join(words[: 1 + i % 5])
        clock.advance(days=1)
        ws.remember(f"{held} note {i} " + "padding " * (i % 7))
    query = searching.analyse_query("kestrel gateway timeout retry ledger")

    def pool() -> tuple[Any, ...]:
        got = matching.match_keywords(ws.store, ws.ctx, query, None, searching.ALL_STEPS)
        assert got is not None
        return got.pool, got.value_of, got.held_of, got.written_of

    skipped = pool()
    monkeypatch.setattr(matching, "reach", lambda scores, most: None)
    assert pool() == skipped
    assert len(skipped[0]) == searching.CANDIDATES


def test_a_retired_or_replaced_memory_leaves_recall_at_once(ws: Cairn) -> None:
    old = ws.remember("we deploy the api with fly").ref
    assert [h.ref for h in ws.recall("deploy api").hits] == [old]
    new = ws.correct(old, "we deploy the api with render").ref
    assert [h.ref for h in ws.recall("deploy api").hits] == [new]
    ws.forget(new)
    assert ws.recall("deploy api").hits == []


def test_another_projects_matches_do_not_crowd_out_this_ones(
    open_ws: Callable[..., Cairn], tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = open_ws(project=other, cwd=other)
    remember_many(
        elsewhere.store,
        elsewhere.ctx,
        [
            {"text": f"kestrel gateway timeout kestrel {i}"}
            for i in range(searching.CANDIDATES + 50)
        ],
    )
    here = open_ws()
    mine = here.remember("the kestrel gateway timeout is thirty seconds, once").ref
    assert [h.ref for h in here.recall("kestrel gateway timeout").hits] == [mine]


def test_postings_are_kept_beside_a_big_store_and_read_by_the_next_process(
    open_ws: Callable[..., Cairn], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searching.KeywordCache, "KEEP_FROM", 20)
    first = open_ws()
    fill_topics(first, 60)
    queries = ["schema migration", "refund ledger detail 7", "render"]
    before = answers(first, queries)
    assert (home / searching.KeywordCache.FILE).exists()
    built = count_calls(monkeypatch, kept, "_segment")
    second = open_ws()
    assert answers(second, queries) == before
    assert built == []  # read, not built
    newer = second.remember("postgres migration schema lock timeout").ref
    assert newer in {h.ref for h in second.recall("schema lock timeout").hits}
    assert len(built) == 1  # only the row written since


@pytest.mark.parametrize("damage", [b"", b"not a zip file", b"PK\x03\x04garbage"])
def test_damaged_postings_file_is_built_again_never_an_error(
    open_ws: Callable[..., Cairn], home: Path, monkeypatch: pytest.MonkeyPatch, damage: bytes
) -> None:
    monkeypatch.setattr(searching.KeywordCache, "KEEP_FROM", 20)
    first = open_ws()
    fill_topics(first, 60)
    before = answers(first, ["schema migration"])
    (home / searching.KeywordCache.FILE).write_bytes(damage)
    assert answers(open_ws(), ["schema migration"]) == before
    assert (home / searching.KeywordCache.FILE).stat().st_size > 1000  # written again


def test_postings_file_of_another_store_is_not_read(
    open_ws: Callable[..., Cairn], home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searching.KeywordCache, "KEEP_FROM", 20)
    first = open_ws()
    fill_topics(first, 60)
    answers(first, ["schema migration"])
    other_home = tmp_path / "other-home"  # another store, as many rows, other refs
    second = cairn.open(other_home, project=first.ctx.project, cwd=first.ctx.cwd)
    try:
        fill_topics(second, 60)
        other_home.joinpath(searching.KeywordCache.FILE).write_bytes(
            (home / searching.KeywordCache.FILE).read_bytes()
        )
        refs = {m.ref for m in second.list(limit=100)}
        for hits in answers(second, ["schema migration", "render"]):
            assert hits and {ref for ref, _ in hits} <= refs
    finally:
        second.close()


# -- LSA kept beside the store -------------------------------------------------------------
@sqlite_only.FILE
def test_lsa_fit_is_kept_beside_the_store_and_reused_by_the_next_process(
    open_ws: Callable[..., Cairn], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = open_ws()
    fill_topics(first)
    queries = ["schema migration", "refund ledger", "component render detail"]
    before = answers(first, queries)
    assert (home / searching.LsaCache.FILE).exists()
    # The model (the term vectors) and every row's words through it: smaller than the store
    # it was fitted on (the database with its write-ahead log, where the rows are until a
    # checkpoint).
    lsa_size = (home / searching.LsaCache.FILE).stat().st_size
    assert lsa_size < sum(p.stat().st_size for p in home.glob("cairn.db*"))
    fits = count_calls(monkeypatch, lsa_module, "fit")
    second = open_ws()
    assert answers(second, queries) == before
    assert fits == []


def test_a_bulk_write_fits_lsa_so_no_recall_after_it_does(
    open_ws: Callable[..., Cairn], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The library's bulk writer (not only Cairn.remember_many) ends with the derived-state
    # step: the fit is the write's, never the next recall's (seconds at 100k memories).
    first = open_ws()
    fits = count_calls(monkeypatch, lsa_module, "fit")
    fill_topics(first)
    assert len(fits) == 1
    assert (home / searching.LsaCache.FILE).exists()
    first.recall("schema migration")
    open_ws().recall("refund ledger")
    assert len(fits) == 1


def test_a_bulk_write_inside_a_callers_transaction_leaves_the_indexing_to_later(
    open_ws: Callable[..., Cairn], home: Path
) -> None:
    # Uncommitted rows are not indexed into files another process would read.
    ws = open_ws()
    with ws.store.transaction():
        fill_topics(ws)
    assert not (home / searching.LsaCache.FILE).exists()
    assert ws.recall("schema migration").hits  # the recall indexes them itself


def test_a_store_changed_enough_since_the_kept_fit_is_fitted_again(
    open_ws: Callable[..., Cairn], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = open_ws()
    fill_topics(first)
    first.recall("schema migration")
    fits = count_calls(monkeypatch, lsa_module, "fit")
    # Refit once the rows written since the fit are over REFIT_SHARE of the memories then:
    # a rows over 210 + a memories, so from a = share / (1 - share) x 210.
    share = searching.LsaCache.REFIT_SHARE
    allowed = max(searching.LsaCache.REFIT_MIN, int(share / (1 - share) * 210))
    rows = [{"text": f"ledger entry {i}"} for i in range(allowed - 10)]
    remember_many(first.store, first.ctx, rows)
    open_ws().recall("schema migration")
    assert fits == []  # within the rule: the kept fit still serves
    remember_many(first.store, first.ctx, [{"text": f"ledger row {i}"} for i in range(20)])
    open_ws().recall("schema migration")
    assert len(fits) == 1


@pytest.mark.parametrize("damage", [b"", b"not a zip file", b"PK\x03\x04garbage"])
def test_a_damaged_lsa_file_is_fitted_again_never_an_error(
    open_ws: Callable[..., Cairn], home: Path, monkeypatch: pytest.MonkeyPatch, damage: bytes
) -> None:
    first = open_ws()
    fill_topics(first)
    before = answers(first, ["schema migration"])
    (home / searching.LsaCache.FILE).write_bytes(damage)
    fits = count_calls(monkeypatch, lsa_module, "fit")
    assert answers(open_ws(), ["schema migration"]) == before
    assert len(fits) == 1
    assert (home / searching.LsaCache.FILE).stat().st_size > 1000  # written again


# -- the cut-off and LSA -------------------------------------------------------------------
class _LiftTheBest(searching.LsaCache):
    """An LSA whose closeness doubles the best match and leaves the others: the widest gap
    a lift can open."""

    def rerank(
        self, store: Any, scored: Sequence[tuple[int, float]], terms: Sequence[str]
    ) -> list[tuple[int, float]]:
        best = max(scored, key=lambda item: item[1])[0]
        lifted = [(i, s * 2.0 if i == best else s) for i, s in scored]
        return sorted(lifted, key=lambda item: -item[1])


def test_lsa_lift_never_pushes_a_match_under_the_cut_off(ws: Cairn) -> None:
    # One rare word, held by a short memory and a longer one: thin matches, where a doubled
    # best would put the other under 0.7 of it (a strong match's score saturates).
    fill_topics(ws)
    best = ws.remember("kestrel timeout is thirty seconds").ref
    near = ws.remember(
        "kestrel retried twice after a long wait in the busy gateway queue of the billing worker"
    ).ref
    unlifted = searching.recall(ws.store, ws.ctx, "kestrel", lsa=None)
    plain = {h.ref: h.score for h in unlifted.hits}
    assert set(plain) == {best, near}
    lifted = searching.recall(ws.store, ws.ctx, "kestrel", lsa=_LiftTheBest())
    hits = lifted.hits
    assert {h.ref for h in hits} == {best, near}  # still kept, though now under 0.7 x the top
    assert hits[1].score < searching.rank.CUTOFF * hits[0].score
    assert lifted.gate is not None
    rare = lifted.gate.rare
    top = rare * max(plain.values()) / (1 - max(plain.values()))  # the best's strength
    assert hits[0].score == pytest.approx(searching.rank.memory_score(2 * top, rare))


def test_kind_and_workspace_scope_are_decided_from_the_postings(
    open_ws: Callable[..., Cairn], tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = open_ws(project=other, cwd=other)
    shared = elsewhere.remember("kestrel gateway runs behind the edge proxy", scope="workspace")
    elsewhere.remember("kestrel gateway logs go to loki")  # that project's own: not seen here
    here = open_ws()
    fact = here.remember("kestrel gateway listens on port 8443", kind="fact").ref
    decision = here.remember("kestrel gateway stays behind the proxy", kind="decision").ref
    seen = {h.ref for h in here.recall("kestrel gateway", limit=25).hits}
    assert seen == {shared.ref, fact, decision}
    assert {h.ref for h in here.recall("kestrel gateway", kind="decision").hits} == {decision}


def test_segments_merged_after_bulk_loads_answer_as_one_built_afresh(
    open_ws: Callable[..., Cairn], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searching.KeywordCache, "REBUILD_MIN", 5)
    monkeypatch.setattr(searching.KeywordCache, "MAX_SEGMENTS", 2)
    merges = count_calls(monkeypatch, kept.rank, "merge_postings")
    first = open_ws()
    queries = ["schema migration", "refund ledger", "render detail 7", "note"]
    for batch in range(6):
        rows = [{"text": f"{TOPICS[(i + batch) % 3]} batch {batch} item {i}"} for i in range(30)]
        remember_many(first.store, first.ctx, rows)
        answers(first, queries)  # each load read as a further segment, merged as it grows
    assert merges  # the segments were merged, not read again
    assert answers(first, queries) == answers(open_ws(), queries)


def test_a_bulk_write_indexes_itself_so_the_next_process_does_not(
    open_ws: Callable[..., Cairn], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searching.KeywordCache, "KEEP_FROM", 20)
    first = open_ws()
    first.remember_many([{"text": f"{TOPICS[i % 3]} detail {i} note"} for i in range(210)])
    assert (home / searching.KeywordCache.FILE).exists()
    assert (home / searching.LsaCache.FILE).exists()
    builds = count_calls(monkeypatch, kept.rank, "build_postings")
    fits = count_calls(monkeypatch, lsa_module, "fit")
    second = open_ws()
    assert answers(second, ["schema migration"]) == answers(first, ["schema migration"])
    assert builds == [] and fits == []  # read from the kept files: the write paid for them


@sqlite_only.TWO_STORES
def test_an_import_indexes_itself_so_the_next_process_does_not(
    open_ws: Callable[..., Cairn], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searching.KeywordCache, "KEEP_FROM", 20)
    source = open_ws()
    fill_topics(source)
    lines = list(source.export())
    target_home = tmp_path / "target"
    target = cairn.open(target_home, project=source.ctx.project, cwd=source.ctx.cwd)
    try:
        target.import_(lines)
        assert (target_home / searching.KeywordCache.FILE).exists()
        assert (target_home / searching.LsaCache.FILE).exists()
    finally:
        target.close()


def test_lsa_looks_a_candidates_words_up_once_per_fit(
    ws: Cairn, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A recall folds its candidates in through the model; what it read of each row (its
    # words' rows of the model and their weights) is kept, so the same query again reads no
    # word from the store and looks none up in the model, to the same answer.
    fill_topics(ws)
    queries = ["schema migration", "refund ledger"]
    first = answers(ws, queries)
    model = ws._lsa.model
    assert model is not None
    reads = count_calls(monkeypatch, type(ws.store), "index_words")
    lookups = count_calls(monkeypatch, type(model), "terms_of")
    assert answers(ws, queries) == first
    assert (reads, lookups) == ([], [])
    # A new fit numbers its words afresh: each row is looked up again in it.
    ws._lsa.model = lsa_module.from_arrays(lsa_module.to_arrays(model))
    assert answers(ws, queries) == first
    assert lookups


def test_a_write_lays_out_every_rows_words_so_no_recall_looks_them_up(
    open_ws: Callable[..., Cairn], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The step a write ends with keeps every row's words through the model beside the fit:
    # a recall of queries it never saw, in this process or a new one, reads no candidate's
    # words from the store and looks none up in the model, to the answer of looking them up.
    first = open_ws()
    fill_topics(first)
    queries = ["schema migration", "refund ledger", "component render detail"]
    looked_up = searching.LsaCache()
    looked_up.ready(first.store)
    assert looked_up.table_rows() == 210
    looked_up._table = None  # the fit alone: every candidate looked up, as before
    expected = [
        [
            (h.ref, h.score)
            for h in searching.recall(first.store, first.ctx, q, limit=25, lsa=looked_up).hits
        ]
        for q in queries
    ]
    reads = count_calls(monkeypatch, type(first.store), "index_words")
    lookups = count_calls(monkeypatch, lsa_module.LsaModel, "terms_of")
    assert answers(first, queries) == expected
    assert answers(open_ws(), queries) == expected
    assert (reads, lookups) == ([], [])
    # Rows written since are added to it by the next write's step, which keeps it again.
    remember_many(first.store, first.ctx, [{"text": "schema migration runbook for ledger"}])
    second = open_ws()
    assert second._lsa.ready(second.store) is not None
    assert second._lsa.table_rows() == second.store.change_count()


@sqlite_only.KEPT_CURRENT
def test_a_memory_forgotten_by_another_process_leaves_this_ones_recall_at_once(
    open_ws: Callable[..., Cairn], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whether a version is current is kept between recalls (a warm recall asks about the
    # same candidates again), until the store changes: another connection's commit, or a
    # write of this one.
    reader, writer = open_ws(), open_ws()
    kept_ref = reader.remember("we deploy the api with fly").ref
    other = reader.remember("the api deploy runs on render").ref
    assert {h.ref for h in reader.recall("deploy api").hits} == {kept_ref, other}
    asked = count_calls(monkeypatch, kept_memories, "current_among")
    assert {h.ref for h in reader.recall("deploy api").hits} == {kept_ref, other}
    assert asked == []  # unchanged store: nothing asked again
    writer.forget(other)
    assert [h.ref for h in reader.recall("deploy api").hits] == [kept_ref]
    reader.forget(kept_ref)
    assert reader.recall("deploy api").hits == []
    assert asked


def _kept_lsa_arrays(home: Path) -> dict[str, Any]:
    """The arrays of the LSA file kept beside the store, by name."""
    import numpy as np

    with np.load(home / searching.LsaCache.FILE) as kept_file:
        return {name: kept_file[name] for name in kept_file.files}


def _write_kept_lsa_arrays(home: Path, arrays: dict[str, Any]) -> None:
    """Write the kept LSA file again from `arrays` (a damaged file that still reads)."""
    import numpy as np

    with (home / searching.LsaCache.FILE).open("wb") as out:
        np.savez(out, **arrays)


def test_a_kept_rows_table_that_does_not_hold_together_is_looked_up_instead(
    open_ws: Callable[..., Cairn], home: Path
) -> None:
    # A table whose words are no rows of the model (a damaged file that still reads) is
    # dropped where a recall reads it: the candidates are looked up, to the same answer.
    import numpy as np

    first = open_ws()
    fill_topics(first)
    queries = ["schema migration", "refund ledger"]
    before = answers(first, queries)
    arrays = _kept_lsa_arrays(home)
    arrays["row_terms"] = arrays["row_terms"] + np.int32(1_000_000)
    _write_kept_lsa_arrays(home, arrays)
    second = open_ws()
    assert answers(second, queries) == before
    assert second._lsa.table_rows() == 0


def test_a_kept_rows_table_whose_ranges_run_past_its_end_is_looked_up_instead(
    open_ws: Callable[..., Cairn], home: Path
) -> None:
    # Ranges of the table that run past its end or backwards (a damaged file whose first and
    # last marks still read right) are caught where a recall reads its candidates' rows at
    # once: the table is dropped and the candidates looked up, to the same answer.

    first = open_ws()
    fill_topics(first)
    queries = ["schema migration", "refund ledger"]
    before = answers(first, queries)
    arrays = _kept_lsa_arrays(home)
    starts = arrays["row_starts"].copy()
    starts[1:-1] = starts[-1] + 7
    arrays["row_starts"] = starts
    _write_kept_lsa_arrays(home, arrays)
    second = open_ws()
    assert second._lsa.ready(second.store) is not None and second._lsa.table_rows() == 210
    assert answers(second, queries) == before
    assert second._lsa.table_rows() == 0


def test_rows_written_after_the_table_are_looked_up_beside_it(
    open_ws: Callable[..., Cairn],
) -> None:
    # Rows the table does not hold yet (written inside a caller's transaction, which leaves
    # the indexing to later) are looked up; those it holds are read from it.
    ws = open_ws()
    fill_topics(ws)
    with ws.store.transaction():
        remember_many(
            ws.store, ws.ctx, [{"text": f"schema migration ledger {i} rollout"} for i in range(30)]
        )
    assert ws._lsa.ready(ws.store) is not None
    assert ws._lsa.table_rows() == 210 < ws.store.change_count()
    mixed = answers(ws, ["schema migration ledger"])
    ws._lsa._table = None  # every candidate looked up
    assert answers(ws, ["schema migration ledger"]) == mixed
    assert any(ref for ref, _ in mixed[0])


def test_a_full_words_cache_keeps_the_rows_the_recall_asks_for(
    open_ws: Callable[..., Cairn], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rows looked up (not in the table) are kept up to WORDS_KEPT; when a recall's new
    # rows would pass it, the cache starts again: with every row that recall needs, those it
    # knew included (it dropped them, and the recall failed with a KeyError).
    ws = open_ws()
    fill_topics(ws)
    lsa = ws._lsa
    assert lsa.ready(ws.store) is not None
    lsa._table = None  # every candidate looked up
    monkeypatch.setattr(searching.LsaCache, "WORDS_KEPT", 60)
    model = lsa.model
    assert model is not None
    words = ws.store.index_words(list(range(1, 81)))

    def expected(ids: range) -> list[Any]:
        return [model.terms_of(Counter(words[i].split())) for i in ids]

    def same(got: list[Any], want: list[Any]) -> bool:
        return all(
            (a[0] == b[0]).all() and (a[1] == b[1]).all() for a, b in zip(got, want, strict=True)
        )

    assert same(lsa.words(ws.store, [(i, 1.0) for i in range(1, 41)]), expected(range(1, 41)))
    # 40 known, 40 more asked with 20 of them: over 60, so the cache starts again.
    asked = range(21, 81)
    assert same(lsa.words(ws.store, [(i, 1.0) for i in asked]), expected(asked))


@sqlite_only.KEPT_CURRENT
def test_a_recall_reads_the_stores_data_version_with_its_counts(
    open_ws: Callable[..., Cairn],
) -> None:
    # Which versions are current is kept until the store changes; the mark that says so
    # (SQLite's data_version) is read in the one query of the recall's counts, not asked
    # again before each look at the candidates. Another connection's forget still shows at
    # once.
    reader, writer = open_ws(), open_ws()
    refs = [reader.remember(f"the api deploy step {i} runs on render").ref for i in range(40)]
    statements: list[str] = []
    reader.store.conn.set_trace_callback(statements.append)
    found = [h.ref for h in reader.recall("deploy api render", limit=8).hits]
    assert found
    # (The counts' query reads it through the pragma's table, traced as "-- PRAGMA ...".)
    assert not [s for s in statements if s.startswith("PRAGMA data_version")]
    writer.forget(found[0])
    assert found[0] not in {h.ref for h in reader.recall("deploy api render", limit=8).hits}
    assert set(refs) >= set(found)


def test_a_rolled_back_forget_leaves_the_memory_current(ws: Cairn) -> None:
    ref = ws.remember("we deploy the api with fly").ref
    assert [h.ref for h in ws.recall("deploy api").hits] == [ref]
    with pytest.raises(RuntimeError), ws.store.transaction():
        ws.store.conn.execute("UPDATE memories SET status = 'retired' WHERE ref = ?", (ref,))
        assert ws.recall("deploy api").hits == []  # this connection sees its own write
        raise RuntimeError("rolled back")
    assert [h.ref for h in ws.recall("deploy api").hits] == [ref]
