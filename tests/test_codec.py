"""cairn.core.codec reads and writes JSON exactly as the `json` module does."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.core import codec

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@given(VALUES)
def test_dumps_writes_what_json_dumps_writes(value: object) -> None:
    assert codec.dumps(value) == json.dumps(value)
    assert codec.dumps(value, sort_keys=True) == json.dumps(value, sort_keys=True)


@given(VALUES)
def test_loads_reads_back_what_json_writes(value: object) -> None:
    text = json.dumps(value, indent=2)
    assert codec.loads(text) == json.loads(text)
    assert codec.loads(text.encode()) == json.loads(text.encode())


def test_tuples_non_string_keys_and_special_floats_follow_json() -> None:
    value = {1: (1, 2.5), None: [True], 2.0: float("inf"), False: -math.inf}
    assert codec.dumps(value) == json.dumps(value)
    assert math.isnan(codec.loads("NaN"))
    assert codec.dumps(float("nan")) == json.dumps(float("nan"))


@pytest.mark.parametrize(
    "text", ["", "   ", "{", '{"a": 1} x', "[1,]", "nul", '"\\x"', "\ufeff{}", "{'a': 1}"]
)
def test_loads_refuses_what_json_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        codec.loads(text)


def test_loads_takes_bytes_with_a_bom_as_json_does() -> None:
    data = b'\xef\xbb\xbf{"a": [1, "\xc3\xa9"]}'
    assert codec.loads(data) == json.loads(data) == {"a": [1, "é"]}


def test_dumps_refuses_objects_json_cannot_write() -> None:
    with pytest.raises(TypeError):
        codec.dumps({"a": object()})
    with pytest.raises(TypeError):
        codec.dumps({(1, 2): 1})
