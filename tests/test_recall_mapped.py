"""Kept arrays read by mapping (`cairn.usecases.recall.mapped`): the same arrays as `numpy.load`,
aligned,
and a damaged or foreign file read as none, never an error."""

from __future__ import annotations

import ast
import io
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.api import Cairn
from cairn.usecases import recall as searching
from cairn.usecases.recall import kept
from cairn.usecases.recall.mapped import (
    RowIndex,
    Strings,
    Vocabulary,
    _header_fields,
    read_npz,
    write_npz,
)

ARRAYS = {
    "store": np.str_("m-000001 m-00abcd"),
    "fitted_at": np.int64(42),
    "rowids": np.arange(1, 1001, dtype=np.int64),
    "terms": np.array(["deploy", "render", "a" * 37, "zeta"], dtype=np.str_),
    "counts": np.arange(40, dtype=np.uint8).reshape(4, 10),
    "vectors": np.linspace(0.0, 1.0, 300).reshape(100, 3),
    "flags": np.array([True, False, True]),
    "empty": np.zeros(0, dtype=np.int32),
}


def written(path: Path, arrays: dict[str, object], writer: Callable[..., None]) -> Path:
    with path.open("wb") as out:
        writer(out, arrays)
    return path


def savez(out: io.BufferedWriter, arrays: dict[str, object]) -> None:
    np.savez(out, **arrays)  # type: ignore[arg-type]


@pytest.mark.parametrize("writer", [write_npz, savez], ids=["write_npz", "numpy.savez"])
def test_read_npz_gives_what_numpy_load_gives(tmp_path: Path, writer: Callable[..., None]) -> None:
    path = written(tmp_path / "a.npz", ARRAYS, writer)
    mapped = read_npz(path)
    assert mapped is not None
    with np.load(path) as loaded:
        assert sorted(mapped) == sorted(loaded.files)
        for name in loaded.files:
            assert mapped[name].dtype == loaded[name].dtype
            assert np.array_equal(mapped[name], loaded[name]), name
            assert mapped[name].flags.aligned


def npy_header(fields: dict[str, Any]) -> str:
    """The `.npy` header numpy writes for an array of these fields (`numpy.lib.format`)."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, fields)
    raw = out.getvalue()
    return raw[10 : 10 + int.from_bytes(raw[8:10], "little")].decode("latin1")


@given(
    st.lists(st.integers(0, 2**40), max_size=4),
    st.sampled_from(["<f4", "<f8", "<i8", "|u1", "<U7", ">i4", "|b1", "<i4"]),
    st.booleans(),
)
def test_an_npy_header_reads_without_ast_as_ast_reads_it(
    shape: list[int], descr: str, fortran: bool
) -> None:
    header = npy_header({"descr": descr, "fortran_order": fortran, "shape": tuple(shape)})
    assert _header_fields(header) == ast.literal_eval(header)


def test_the_header_of_an_array_numpy_saves_reads_without_ast() -> None:
    out = io.BytesIO()
    np.save(out, np.zeros((3, 4), dtype="<i8"))
    raw = out.getvalue()
    header = raw[10 : 10 + int.from_bytes(raw[8:10], "little")].decode("latin1")
    assert _header_fields(header) == {"descr": "<i8", "fortran_order": False, "shape": (3, 4)}


def test_an_npy_header_numpy_writes_otherwise_is_still_read() -> None:
    header = npy_header(
        {"descr": [("a", "<i4"), ("b", "<f8")], "fortran_order": False, "shape": (2,)}
    )
    assert _header_fields(header) == {
        "descr": [("a", "<i4"), ("b", "<f8")],
        "fortran_order": False,
        "shape": (2,),
    }
    with pytest.raises(SyntaxError):  # read as a damaged file by the callers
        _header_fields("{'descr': '<f4', 'shape': (2,")


def test_write_npz_aligns_every_array_so_none_is_copied(tmp_path: Path) -> None:
    path = written(tmp_path / "a.npz", ARRAYS, write_npz)
    mapped = read_npz(path)
    assert mapped is not None
    for name, array in mapped.items():
        assert not array.flags.owndata and not array.flags.writeable, name


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not a zip file",
        b"PK\x03\x04garbage",
        b"PK\x05\x06" + bytes(10) + (10**6).to_bytes(4, "little") + bytes(4),
    ],
)
def test_a_damaged_file_reads_as_none(tmp_path: Path, damage: bytes) -> None:
    path = tmp_path / "a.npz"
    path.write_bytes(damage)
    assert read_npz(path) is None


def test_a_truncated_file_reads_as_none(tmp_path: Path) -> None:
    data = written(tmp_path / "a.npz", ARRAYS, write_npz).read_bytes()
    for cut in (len(data) // 3, len(data) - 30, len(data) - 1):
        (tmp_path / "b.npz").write_bytes(data[:cut])
        assert read_npz(tmp_path / "b.npz") is None


def test_compressed_or_pickled_arrays_are_not_read(tmp_path: Path) -> None:
    with (tmp_path / "c.npz").open("wb") as out:
        np.savez_compressed(out, **ARRAYS)  # type: ignore[arg-type]
    assert read_npz(tmp_path / "c.npz") is None
    with (tmp_path / "p.npz").open("wb") as out:
        np.savez(out, objects=np.array([{"a": 1}], dtype=object))
    assert read_npz(tmp_path / "p.npz") is None


def test_a_special_file_is_not_opened_for_long(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.npz")
    assert read_npz(tmp_path / "fifo.npz") is None  # no writer: a blocking open would hang
    assert read_npz(tmp_path) is None
    assert read_npz(tmp_path / "missing.npz") is None


def test_a_member_running_past_the_file_reads_as_none(tmp_path: Path) -> None:
    path = written(tmp_path / "a.npz", {"x": np.arange(10)}, write_npz)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("x.npy")
    at = data.rfind(b"PK\x01\x02")
    data[at + 20 : at + 28] = (info.file_size * 100).to_bytes(4, "little") * 2
    path.write_bytes(bytes(data))
    assert read_npz(path) is None


# -- the loaded forms ----------------------------------------------------------------------
# Analysed terms hold no NUL (numpy's strings drop trailing ones).
term = st.text(st.characters(blacklist_characters="\x00"), min_size=1, max_size=12)


@given(
    st.lists(term, min_size=1, max_size=40, unique=True), st.lists(term, max_size=20), st.booleans()
)
def test_vocabulary_finds_what_a_dict_finds(
    terms: list[str], asked: list[str], ordered: bool
) -> None:
    terms = sorted(terms) if ordered else terms
    reference = {term: k for k, term in enumerate(terms)}
    for dict_after in (10**6, 5):  # a sorted array made a dict, or not
        vocabulary = Vocabulary(np.array(terms, dtype=np.str_))
        vocabulary.dict_after = dict_after
        for term in [*asked, *terms, *asked]:
            assert vocabulary.get(term, -1) == reference.get(term, -1)
            assert vocabulary.get(term) == reference.get(term)
            assert (term in vocabulary) == (term in reference)
        assert list(vocabulary) == terms and len(vocabulary) == len(terms)


@given(st.lists(st.integers(1, 10**6), max_size=50, unique=True), st.booleans())
def test_row_index_finds_what_a_dict_finds(rowids: list[int], ordered: bool) -> None:
    rowids = sorted(rowids) if ordered else rowids
    index = RowIndex(np.array(rowids, dtype=np.int64))
    reference = {rowid: k for k, rowid in enumerate(rowids)}
    asked = [*rowids, 0, 10**6 + 1, *(r + 1 for r in rowids)]
    assert index.positions(asked) == [reference.get(r, -1) for r in asked]


def test_strings_are_str() -> None:
    refs = Strings(np.array(["m-1", "m-22"], dtype=np.str_))
    assert [type(r) for r in refs] == [str, str] and refs[1] == "m-22" and len(refs) == 2


# -- kept files in use -----------------------------------------------------------------------
def fill(ws: Cairn, n: int) -> None:
    topics = ["schema migration runs", "refund ledger entry", "component render detail"]
    for i in range(n):
        ws.remember(f"{topics[i % 3]} number {i} in module{i % 7}")


def answers(ws: Cairn, queries: list[str]) -> list[list[tuple[str, float]]]:
    return [[(h.ref, h.score) for h in ws.recall(q).hits] for q in queries]


def test_kept_postings_with_rows_out_of_range_are_built_again_or_skipped(
    open_ws: Callable[..., Cairn], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searching.KeywordCache, "KEEP_FROM", 20)
    first = open_ws()
    fill(first, 60)
    queries = ["schema migration", "refund ledger"]
    before = answers(first, queries)
    path = home / searching.KeywordCache.FILE
    arrays = read_npz(path)
    assert arrays is not None
    damaged = {name: np.array(value) for name, value in arrays.items()}
    damaged["rows_of"] = damaged["rows_of"] + 10**6  # every posting names no row
    with path.open("wb") as out:
        write_npz(out, damaged)
    after = answers(open_ws(), queries)  # no error: terms whose rows do not fit read as absent
    assert all(hits == [] for hits in after)
    path.unlink()
    assert answers(open_ws(), queries) == before


def test_a_kept_term_whose_rows_do_not_fit_reads_as_held_by_no_memory(
    open_ws: Callable[..., Cairn], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One term of a damaged kept file names no row: it reads as absent everywhere, its df
    # too (what rarity, the gate's unknown words and the recency lift's share read), so the
    # answer is the one for a word no memory holds in its place.
    from cairn.core.text.query import analyse_query

    monkeypatch.setattr(searching.KeywordCache, "KEEP_FROM", 20)
    first = open_ws()
    fill(first, 60)
    first.recall("schema migration")  # indexes the rows and keeps the file
    path = home / searching.KeywordCache.FILE
    arrays = read_npz(path)
    assert arrays is not None
    damaged = {name: np.array(value) for name, value in arrays.items()}
    k = damaged["terms"].tolist().index(analyse_query("refund").terms[0])
    lo, hi = int(damaged["starts"][k]), int(damaged["starts"][k + 1])
    damaged["rows_of"][lo:hi] += 10**6
    with path.open("wb") as out:
        write_npz(out, damaged)
    ws = open_ws()
    got = answers(ws, ["refund ledger entry"])
    assert got == answers(ws, ["zzqxv ledger entry"])
    assert got[0]  # the other words still answer


def test_kept_files_are_aligned_for_mapping(open_ws: Callable[..., Cairn], home: Path) -> None:
    ws = open_ws()
    fill(ws, 220)  # LSA from 200 memories
    ws.recall("schema migration")
    for name in (searching.LsaCache.FILE,):
        arrays = read_npz(home / name)
        assert arrays is not None and all(not a.flags.owndata for a in arrays.values())


def test_kept_lsa_fit_is_read_mapped_with_sorted_terms(
    open_ws: Callable[..., Cairn], home: Path
) -> None:
    ws = open_ws()
    fill(ws, 220)  # LSA from 200 memories
    before = answers(ws, ["schema migration", "refund ledger"])
    fitted = ws._lsa.model
    cache = searching.LsaCache()
    assert cache._load(ws.store)
    vocabulary = cache.model.vocabulary
    assert isinstance(vocabulary, Vocabulary) and vocabulary.sorted
    for term, row in fitted.vocabulary.items():
        k = vocabulary[term]
        assert cache.model.idf[k] == fitted.idf[row]
        assert np.array_equal(cache.model.term_vectors[k], fitted.term_vectors[row])
    assert answers(open_ws(), ["schema migration", "refund ledger"]) == before


def test_kept_postings_terms_are_sorted_for_binary_search(
    open_ws: Callable[..., Cairn], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(searching.KeywordCache, "KEEP_FROM", 20)
    ws = open_ws()
    fill(ws, 60)
    ws.recall("schema migration")
    arrays = read_npz(home / searching.KeywordCache.FILE)
    assert arrays is not None
    loaded = kept._load_segment(ws.store, home / searching.KeywordCache.FILE)
    assert loaded is not None
    vocabulary = loaded.postings.vocabulary
    assert isinstance(vocabulary, Vocabulary) and vocabulary.sorted
    built = kept._segment(ws.store.index_rows_after(0)).postings
    for term in built.vocabulary:
        a, b = loaded.postings.postings(term), built.postings(term)
        assert a is not None and b is not None
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), term
