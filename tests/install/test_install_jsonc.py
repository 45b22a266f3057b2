"""Editing JSON and JSONC text in place: the result parses to the new value, and only what
changed is rewritten (compact arrays, comments and spacing of the rest stay)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.usecases.install.jsonc import JsonSyntaxError, parse, patch

scalars = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)
objects = st.dictionaries(st.text(max_size=4), values, max_size=5)


@settings(max_examples=300, deadline=None)
@given(objects, objects, st.sampled_from([None, 2, 4, "\t"]))
def test_a_patch_always_gives_the_new_value(old: Any, new: Any, indent: Any) -> None:
    text = json.dumps(old, indent=indent)
    out = patch(text, parse(text), new)
    assert json.loads(out) == new
    assert patch(out, parse(out), old) == text or json.loads(patch(out, parse(out), old)) == old


@settings(max_examples=200, deadline=None)
@given(objects, st.text(max_size=4), values)
def test_adding_then_removing_a_key_gives_back_the_bytes(old: Any, key: str, value: Any) -> None:
    text = json.dumps(old, indent=2) + "\n"
    if key in old:
        return
    added = patch(text, parse(text), {**old, key: value})
    assert patch(added, parse(added), old) == text


def test_compact_arrays_and_comments_stay() -> None:
    text = (
        "{\n"
        "  // the user's note\n"
        '  "allow": ["Bash(ls:*)", "Read"],\n'
        '  "hooks": {"PreToolUse": []}, /* inline */\n'
        '  "theme": "dark",\n'
        "}\n"
    )
    tree = parse(text, comments=True)
    new = {**tree.value, "hooks": {"PreToolUse": [{"matcher": "Bash"}]}, "mcpServers": {"x": 1}}
    out = patch(text, tree, new)
    assert '"allow": ["Bash(ls:*)", "Read"],' in out
    assert "// the user's note" in out and "/* inline */" in out
    assert parse(out, comments=True).value == new
    back = patch(out, parse(out, comments=True), tree.value)
    assert back == text


def test_comments_are_refused_where_the_agent_reads_plain_json() -> None:
    with pytest.raises(JsonSyntaxError):
        parse('{"a": 1 // no\n}')
    with pytest.raises(JsonSyntaxError):
        parse('{"a": 1,}')
    assert parse('{"a": 1,}', comments=True).value == {"a": 1}
