"""Simple globs are matched without RE2, and always exactly as their RE2 pattern matches."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.core.errors import TriggerError
from cairn.core.lessons import glob as globs
from cairn.core.lessons import globmatch

GLOB_PARTS = st.sampled_from(["a", "b", "B", ".", "_", "/", "*", "**", "**/", "sql", "./"])
PATH_PARTS = st.sampled_from(["a", "b", "A", ".", "_", "/", "//", "sql", "é", "\n"])


def _re2_match(glob: str, path: str) -> bool:
    return globs._compiled(glob).fullmatch(globs._strip_dot_slash(path)) is not None


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(GLOB_PARTS, min_size=1, max_size=7).map("".join),
    st.lists(PATH_PARTS, max_size=8).map("".join),
)
def test_a_simple_glob_matches_exactly_as_re2_does(glob: str, path: str) -> None:
    try:
        globs.compile_glob(glob)  # only globs the grammar accepts
    except TriggerError:
        assert globmatch.simple(glob) is None  # a refused glob always goes to the grammar
        return
    simple = globmatch.simple(glob)
    if simple is not None:
        assert globmatch.glob_matches(glob, path) == _re2_match(glob, path), (glob, path)


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("packages/db/**", "packages/db/schema.sql", True),
        ("packages/db/**", "packages/db", False),
        ("packages/db/**", "other/packages/db/x", False),
        ("db/migrations/*.sql", "db/migrations/0001.sql", True),
        ("db/migrations/*.sql", "db/migrations/old/0001.sql", False),
        ("*.sql", "deep/down/x.SQL", True),
        ("src/**/*.ts", "src/a/b/c.ts", True),
        ("src/**/*.ts", "src/c.ts", True),
        ("src/**/*.ts", "srcx/c.ts", False),
        ("**/test_*.py", "tests/unit/test_x.py", True),
        ("**/test_*.py", "test_x.py", True),
    ],
)
def test_simple_globs(glob: str, path: str, expected: bool) -> None:
    assert globmatch.simple(glob) is not None
    assert globmatch.glob_matches(glob, path) is expected
    assert _re2_match(glob, path) is expected


@pytest.mark.parametrize(
    "glob", ["*.{ts,tsx}", "file?.md", "[abc].md", "docs/é/*.md", "**", "a/**/b/**"]
)
def test_globs_with_more_syntax_go_to_re2(glob: str) -> None:
    assert globmatch.simple(glob) is None


@settings(max_examples=2000, deadline=None)
@given(st.lists(GLOB_PARTS, min_size=1, max_size=7).map("".join), st.data())
def test_paths_built_to_match_a_simple_glob_agree_with_re2(glob: str, data: st.DataObject) -> None:
    try:
        globs.compile_glob(glob)  # only globs the grammar accepts
    except TriggerError:
        assert globmatch.simple(glob) is None  # a refused glob always goes to the grammar
        return
    simple = globmatch.simple(glob)
    if simple is None:
        return
    # A path shaped by the glob itself (wildcards filled in, letters' case changed, a folder
    # or two in front), so that most of them match and the matching side is tested too.
    out = [data.draw(st.sampled_from(["", "x/", "y/z/"]))]
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append(data.draw(st.sampled_from(["", "x/", "x/y/"])))
            i += 3
        elif glob.startswith("**", i):
            out.append(data.draw(st.sampled_from(["", "x", "x/y", "/"])))
            i += 2
        elif glob[i] == "*":
            out.append(data.draw(st.sampled_from(["", "q", "a.", "/"])))
            i += 1
        else:
            out.append(glob[i].upper() if data.draw(st.booleans()) else glob[i])
            i += 1
    path = "".join(out)
    assert globmatch.glob_matches(glob, path) == _re2_match(glob, path), (glob, path)
