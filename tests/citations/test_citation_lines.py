"""Folding, splitting and finding a cited block of lines again."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.io.citations.lines import find_block, fold_line, read_lines, split_lines


def test_fold_line_strips_ends_and_folds_inner_whitespace() -> None:
    assert fold_line("\t  x  =\t 1 \r") == "x = 1"
    assert fold_line("   ") == ""


@given(st.text())
def test_fold_line_is_idempotent(line: str) -> None:
    assert fold_line(fold_line(line)) == fold_line(line)


def test_split_lines_numbers_lines_as_editors_do() -> None:
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\nb") == ["a", "b"]
    assert split_lines("a\x0cb\u2028c\n") == ["a\x0cb\u2028c"]
    assert split_lines("") == []


def test_read_lines_replaces_undecodable_bytes(tmp_path: Path) -> None:
    file = tmp_path / "bin.txt"
    file.write_bytes(b"ok\n\xff\xfe\n")
    assert read_lines(file) == ["ok", "\ufffd\ufffd"]
    with pytest.raises(FileNotFoundError):
        read_lines(tmp_path / "absent")


def test_find_block_prefers_the_occurrence_nearest_the_old_line() -> None:
    lines = ["a", "x", "y", "b", "c", "x", "y", "d"]
    assert find_block(lines, ["x", "y"], 5) == 6
    assert find_block(lines, ["x", "y"], 3) == 2


def test_find_block_breaks_a_distance_tie_by_the_recorded_context() -> None:
    lines = ["top", "x", "y", "m1", "m2", "x", "y", "end"]  # the block at lines 2 and 6
    assert find_block(lines, ["x", "y"], 4, above=["m2"], below=["end"]) == 6
    assert find_block(lines, ["x", "y"], 4, above=["top"], below=["m1"]) == 2
    assert find_block(lines, ["x", "y"], 4) == 2  # no context: the earlier one


def test_find_block_is_none_when_the_block_is_absent_or_too_long() -> None:
    assert find_block(["a", "b"], ["a", "c"], 1) is None
    assert find_block(["a"], ["a", "a"], 1) is None
    assert find_block(["a"], [], 1) is None
