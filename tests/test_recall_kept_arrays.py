"""Kept arrays a recall maps: unusual but valid files read as numpy reads them, anything the
readers cannot map safely reads as none (the caller computes afresh), and the loaded forms
(`Vocabulary`, `RowIndex`, `Strings`, `Raw`) answer as a dict or a list would."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from cairn.usecases.recall.mapped import (
    Raw,
    RowIndex,
    Strings,
    Vocabulary,
    raw_npz,
    read_npz,
    write_npz,
)


def _npz(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for name, data in members.items():
            zf.writestr(f"{name}.npy", data)
    return path


def _npy(array: np.ndarray, version: tuple[int, int] | None = None) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array(out, array, version=version, allow_pickle=False)
    return out.getvalue()


def test_npy_members_of_format_version_2_and_3_are_read(tmp_path: Path) -> None:
    array = np.arange(12, dtype=np.int64).reshape(3, 4)
    path = _npz(tmp_path / "v2.npz", {"a": _npy(array, (2, 0)), "b": _npy(array, (3, 0))})
    mapped = read_npz(path)
    assert mapped is not None
    assert np.array_equal(mapped["a"], array) and np.array_equal(mapped["b"], array)
    raw = raw_npz(path)
    assert raw is not None
    assert list(raw["a"].items()) == list(range(12)) and raw["a"].shape == (3, 4)


def test_an_unknown_npy_version_reads_as_none(tmp_path: Path) -> None:
    data = bytearray(_npy(np.arange(3, dtype=np.int64)))
    data[6] = 9  # the major version byte
    path = _npz(tmp_path / "v9.npz", {"a": bytes(data)})
    assert read_npz(path) is None
    assert raw_npz(path) is None


def test_a_member_that_is_not_npy_reads_as_none(tmp_path: Path) -> None:
    path = _npz(tmp_path / "text.npz", {"a": b"just some text, not an array"})
    assert read_npz(path) is None and raw_npz(path) is None


def test_an_empty_or_special_file_reads_as_none(tmp_path: Path) -> None:
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    assert read_npz(empty) is None and raw_npz(empty) is None
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    assert read_npz(fifo) is None and raw_npz(fifo) is None
    assert raw_npz(tmp_path / "missing.npz") is None
    link = tmp_path / "link.npz"
    link.symlink_to(empty)
    assert raw_npz(link) is None  # never followed


def test_the_stdlib_reader_refuses_what_it_cannot_read_without_numpy(tmp_path: Path) -> None:
    cube = tmp_path / "cube.npz"
    with cube.open("wb") as out:
        write_npz(out, {"cube": np.zeros((2, 2, 2), dtype=np.int64)})
    assert read_npz(cube) is not None  # numpy reads it
    assert raw_npz(cube) is None  # more than two dimensions
    complex_ = tmp_path / "complex.npz"
    with complex_.open("wb") as out:
        write_npz(out, {"z": np.array([1 + 2j])})
    assert read_npz(complex_) is not None
    assert raw_npz(complex_) is None  # a dtype the stdlib reader does not know


def test_raw_arrays_refuse_the_wrong_reading(tmp_path: Path) -> None:
    path = tmp_path / "mixed.npz"
    with path.open("wb") as out:
        write_npz(out, {"n": np.arange(3, dtype=np.int32), "s": np.array(["ab", "cde"])})
    raw = raw_npz(path)
    assert raw is not None
    numbers, strings = raw["n"], raw["s"]
    assert isinstance(numbers, Raw) and list(numbers.items()) == [0, 1, 2]
    assert [strings.string(k) for k in range(len(strings))] == ["ab", "cde"]
    with pytest.raises(ValueError, match="not a number array"):
        strings.items()
    with pytest.raises(ValueError, match="not a strings array"):
        _ = numbers.width
    only = raw_npz(path, only="s")
    assert only is not None and set(only) == {"s"}


def test_row_index_answers_as_a_dict_would() -> None:
    for rowids in ([3, 5, 9], [9, 3, 5]):
        index = RowIndex(np.array(rowids, dtype=np.int64))
        expected = {r: k for k, r in enumerate(rowids)}
        assert index[5] == expected[5] and index.get(9) == expected[9]
        assert index.get(4) is None and index.get(4, -1) == -1
        with pytest.raises(KeyError):
            index[4]
        assert list(index) == rowids and len(index) == 3
        assert index.positions([9, 4, 3]) == [expected[9], -1, expected[3]]


def test_vocabulary_answers_as_a_dict_would_after_many_lookups() -> None:
    terms = ["zeta", "alpha", "mid", "alpha"]  # unsorted, with a repeat: the first one counts
    vocabulary = Vocabulary(np.array(terms))
    assert not vocabulary.sorted
    with pytest.raises(KeyError):
        vocabulary["nope"]
    for n in range(Vocabulary.LOOKUPS + 5):  # past LOOKUPS, a dict is made
        assert vocabulary.get(f"missing-{n}") is None
    assert vocabulary["alpha"] == 1 and vocabulary["mid"] == 2 and "zeta" in vocabulary
    assert vocabulary.get("nope", -1) == -1
    assert list(vocabulary) == terms and len(vocabulary) == 4


def test_strings_slice_as_a_list_would() -> None:
    strings = Strings(np.array(["m-000001", "m-000002", "m-000003"]))
    assert strings[1:] == ["m-000002", "m-000003"]
    assert strings[-1] == "m-000003"
    assert all(type(s) is str for s in strings[:])
