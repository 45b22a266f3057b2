"""Properties over what the hook reads before anything else, on any input: the payload's JSON,
the trigger list (torn, foreign or damaged), and the whole hook call.

The shell parser, the glob and regex checks and import records have theirs beside their tests
(tests/shell/test_shell_properties.py, tests/lessons/, tests/test_import_checks.py).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.core import codec
from cairn.core.lessons.prefilter import candidates_from, candidates_in_lines, keys_could_match

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@pytest.fixture
def without_json(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The module state of a hook process, which never imports `json`."""
    for name in [m for m in sys.modules if m == "json" or m.startswith("json.")]:
        monkeypatch.delitem(sys.modules, name)
    yield


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=VALUES, cut=st.integers(min_value=0, max_value=400))
def test_truncated_json_raises_only_value_error(
    without_json: None, value: object, cut: int
) -> None:
    text = json.dumps(value)  # `json` is imported here, then dropped again for the parse
    for name in [m for m in sys.modules if m == "json" or m.startswith("json.")]:
        del sys.modules[name]
    with contextlib.suppress(ValueError):
        codec.loads(text[:cut])


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200))
def test_any_bytes_parse_or_raise_value_error(without_json: None, data: bytes) -> None:
    with contextlib.suppress(ValueError):
        codec.loads(data)


@given(digits=st.integers(min_value=4301, max_value=6000))
def test_a_number_too_long_for_int_is_read_as_a_float(digits: int) -> None:
    value = codec.loads('{"n": ' + "7" * digits + "}")["n"]
    assert isinstance(value, float)


LINE_PARTS = st.sampled_from(
    ["shell", "read", "edit", "action", "cited", "m-7f3a2c", "*", "/p", "w:push", "git push", "\t"]
)
LIST_TEXT = st.lists(
    st.lists(LINE_PARTS | st.text(max_size=12), max_size=8).map("\t".join), max_size=12
).map(lambda lines: "".join(line + "\n" for line in lines))
HEADERS = st.sampled_from(["", "# cairn trigger list v1 gen:0011223344556677\n", "#gen:00\n"])


@settings(max_examples=400)
@given(
    header=HEADERS,
    text=LIST_TEXT | st.text(max_size=300),
    keys=st.binary(max_size=200),
    data=st.binary(max_size=200) | st.just(b'{"tool_input": {"command": "git push"}}'),
)
def test_a_damaged_trigger_list_never_raises(
    header: str, text: str, keys: bytes, data: bytes
) -> None:
    keys_could_match(keys, data)
    candidates_from(keys, header + text, data)
    candidates_in_lines((header + text).splitlines(keepends=True), data)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.binary(max_size=300)
    | VALUES.map(
        lambda v: json.dumps(
            {"tool_name": "Bash", "tool_input": {"command": "git push", "x": v}}
        ).encode()
    ),
    event=st.sampled_from(["PreToolUse", "PostToolUse", "SessionStart", "Stop", "x"]),
)
def test_the_hook_on_any_payload_exits_0_and_never_decides(
    hook: Callable[..., tuple[int, str]], lessons: dict[str, str], data: bytes, event: str
) -> None:
    status, out = hook("claude-code", event, data)
    assert status == 0
    if out:
        answer = json.loads(out)
        text = json.dumps(answer)
        assert "permissionDecision" not in text and '"decision"' not in text
        assert answer.get("continue", True) is not False
