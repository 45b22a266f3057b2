"""The spec's glob grammar, compiled by hand to RE2 (cairn.core.lessons.glob)."""

from __future__ import annotations

import pytest
import re2
from hypothesis import assume, given
from hypothesis import strategies as st

from cairn.core.errors import TriggerError
from cairn.core.lessons.glob import CHOICE_LIMIT, compile_glob, glob_literals
from cairn.core.lessons.globmatch import glob_matches

# (glob, path, expected): the spec's rules, one or more vectors each.
VECTORS = [
    # no `/`: the file name, at any depth
    ("*.sql", "db/migrations/001.sql", True),
    ("*.sql", "001.sql", True),
    ("*.sql", "001.sql.bak", False),
    ("*.sql", "", False),
    ("Makefile", "Makefile", True),
    ("Makefile", "sub/dir/Makefile", True),
    ("Makefile", "Makefile.bak", False),
    (".env", ".env", True),
    (".env", "x.env", False),
    # case is ignored, on both sides
    ("*.SQL", "db/x.sql", True),
    ("*.sql", "DB/X.SQL", True),
    ("café/*.txt", "CAFÉ/menu.txt", True),
    # a `/` anchors the glob at the root; the path is tested whole
    ("packages/db/**", "packages/db/schema.ts", True),
    ("packages/db/**", "packages/db/a/b/c.ts", True),
    ("packages/db/**", "packages/dbx/a.ts", False),
    ("packages/db/**", "other/packages/db/a.ts", False),
    ("docs/**", "docs", False),
    # a leading `./` is ignored on the path and on the glob
    ("packages/db/**", "./packages/db/a.ts", True),
    ("./packages/db/**", "packages/db/a.ts", True),
    # `**` across folders
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("a/**/b", "a/xb", False),
    ("a/**/b", "ab", False),
    ("**/x.md", "x.md", True),
    ("**/x.md", "docs/deep/x.md", True),
    ("**/x.md", "docs/ax.md", False),
    ("a**b", "a/x/b", True),
    ("**", "anything/at/all", True),
    # `*` and `?` stay inside one folder
    ("src/*.py", "src/a.py", True),
    ("src/*.py", "src/sub/a.py", False),
    ("a*b", "a/b", False),
    ("src/?.py", "src/a.py", True),
    ("src/?.py", "src/ab.py", False),
    ("a?b", "a/b", False),
    # [set]: one character from it, or the bracket text itself
    ("app/[slug]/page.tsx", "app/[slug]/page.tsx", True),
    ("app/[slug]/page.tsx", "app/s/page.tsx", True),
    ("app/[slug]/page.tsx", "app/x/page.tsx", False),
    ("app/[slug]/page.tsx", "app/slug/page.tsx", False),
    ("file[0-9].txt", "file7.txt", True),
    ("file[0-9].txt", "filex.txt", False),
    ("file[!0-9].txt", "filex.txt", True),
    ("file[!0-9].txt", "file7.txt", False),
    ("file[!0-9].txt", "file[!0-9].txt", True),
    ("file[^0-9].txt", "filex.txt", True),
    ("[]]x", "]x", True),
    ("a[/]b", "a/b", False),
    ("a[/]b", "a[/]b", True),
    ("a[!x]b", "a/b", False),
    ("a[+-0]b", "a/b", False),
    ("a[+-0]b", "a.b", True),
    # {choices}
    ("**/*.{ts,tsx}", "src/a.ts", True),
    ("**/*.{ts,tsx}", "src/a.tsx", True),
    ("**/*.{ts,tsx}", "a.tsx", True),
    ("**/*.{ts,tsx}", "src/a.js", False),
    ("*.{ts,tsx}", "deep/dir/a.TS", True),
    ("{src,lib}/**", "lib/x/y.c", True),
    ("{src,lib}/**", "test/x.c", False),
    ("{a,}b", "b", True),
    ("x.{[0-9],md}", "x.7", True),
    # outside a brace, `,` and `}` are plain characters; unicode names work
    ("a,b", "a,b", True),
    ("a}b", "a}b", True),
    ("*.md", "docs/日本語/説明.md", True),
]


@pytest.mark.parametrize(("glob", "path", "expected"), VECTORS)
def test_glob_matches_spec_vector(glob: str, path: str, expected: bool) -> None:
    assert glob_matches(glob, path) is expected


@pytest.mark.parametrize(("glob", "path", "expected"), VECTORS)
def test_compiled_pattern_agrees_with_spec_vector(glob: str, path: str, expected: bool) -> None:
    source = compile_glob(glob)
    assert source.startswith("(?i)^")
    assert source.endswith("$")
    bare = path[2:] if path.startswith("./") else path
    assert (re2.search(source, bare) is not None) is expected


def _recase(text: str, flips: list[bool]) -> str:
    out = []
    for char, flip in zip(text, flips + [False] * len(text), strict=False):
        other = char.swapcase()
        out.append(other if flip and len(other) == 1 else char)
    return "".join(out)


@given(st.sampled_from(VECTORS), st.lists(st.booleans()), st.booleans())
def test_vector_result_survives_case_and_dot_slash(
    vector: tuple[str, str, bool], flips: list[bool], dot_slash: bool
) -> None:
    glob, path, expected = vector
    assume(path)
    path = _recase(path, flips)
    glob = _recase(glob, flips[::-1])
    assert glob_matches(glob, ("./" + path) if dot_slash else path) is expected


def test_glob_with_32_choices_is_accepted() -> None:
    glob = "*.{" + ",".join(f"e{i}" for i in range(CHOICE_LIMIT)) + "}"
    assert glob_matches(glob, "src/a.e31")


@pytest.mark.parametrize(
    ("glob", "message"),
    [
        ("", "is empty"),
        ("./", "is empty"),
        ("a" * 1001, "1001 characters long; at most 1000"),
        ("docs\\api\\*.md", "holds a backslash"),
        ("a/**/b/**", "holds 2 `**`; a glob holds at most one"),
        ("{**,**/x}", "holds 2 `**`"),
        ("*.{ts,tsx", "opens `{` at character 3 and never closes it"),
        ("app/[slug/page.tsx", "opens `[` at character 5 and never closes it"),
        ("[]", "opens `[` at character 1 and never closes it"),
        ("[!]", "opens `[` at character 1 and never closes it"),
        ("*.{" + ",".join(f"e{i}" for i in range(33)) + "}", "offers 33 choices"),
        ("{a,{b,c}}", "nests a `{` inside another"),
        ("file[z-a].txt", "the range `z-a`, which runs backwards"),
        ("a\ud800", "lone surrogate"),
    ],
)
def test_glob_refused_with_message(glob: str, message: str) -> None:
    with pytest.raises(TriggerError, match=r"when\.path") as refused:
        compile_glob(glob)
    assert message in str(refused.value)
    with pytest.raises(TriggerError):
        glob_matches(glob, "a")


def test_long_glob_is_cut_in_the_message() -> None:
    with pytest.raises(TriggerError) as refused:
        compile_glob("x/" * 300 + "**/**")
    assert len(str(refused.value)) < 300


def test_path_with_lone_surrogate_is_matched_without_error() -> None:
    assert glob_matches("*.txt", "a\ud800b.txt")
    assert not glob_matches("*.md", "a\ud800b.txt")


GLOB_TEXT = st.text(alphabet=st.sampled_from("*?[]{},!^-/.\\aZé\ud800") | st.characters())


@given(GLOB_TEXT, st.text())
def test_glob_functions_raise_only_trigger_error(glob: str, path: str) -> None:
    try:
        source = compile_glob(glob)
    except TriggerError:
        with pytest.raises(TriggerError):
            glob_matches(glob, path)
        assert glob_literals(glob) is None
        return
    re2.compile(source)
    assert isinstance(glob_matches(glob, path), bool)
    assert isinstance(glob_literals(glob), tuple)


@pytest.mark.parametrize(
    ("glob", "literals"),
    [
        ("**/*.{ts,tsx}", (".",)),
        ("packages/db/**", ("pac", "age", "/db/")),  # k and s fold beyond ASCII under (?i)
        ("a/**/b", ("a/", "b")),  # the `/` after `**` is optional: `a/b` matches
        ("app/[slug]/page.tsx", ("app/", "/page.t", "x")),
        ("*.{ts,tsx", None),
    ],
)
def test_glob_literals_examples(glob: str, literals: tuple[str, ...] | None) -> None:
    assert glob_literals(glob) == literals


# Case variants RE2's (?i) accepts, including the two beyond ASCII that lowercasing misses.
_FOLDS = {"k": "kK\u212a", "s": "sS\u017f"}
_NAME_CHARS = "abkspKS.-_é\"<&' "


@st.composite
def glob_and_path(draw: st.DrawFn) -> tuple[str, str]:
    """A glob built from the grammar's pieces, with a path the glob matches."""
    globs: list[str] = []
    paths: list[str] = []

    def name() -> tuple[str, str]:
        word = draw(st.text(alphabet=_NAME_CHARS, min_size=1, max_size=5))
        return word, "".join(
            draw(st.sampled_from(_FOLDS.get(c.lower(), c + c.swapcase()))) for c in word
        )

    if draw(st.booleans()):
        globs.append("**/")
        paths.append(draw(st.sampled_from(["", "x/", "x/y/"])))
    for index in range(draw(st.integers(1, 4))):
        if index:
            globs.append("/")
            paths.append("/")
        for _ in range(draw(st.integers(1, 3))):
            piece = draw(st.sampled_from(["name", "star", "qmark", "set", "brace"]))
            if piece == "name":
                word, text = name()
            elif piece == "star":
                word, text = "*", draw(st.text(alphabet="abks.", max_size=3))
            elif piece == "qmark":
                word, text = "?", draw(st.sampled_from("aks.\u212a"))
            elif piece == "set":
                word = "[a-m]"
                text = draw(st.sampled_from(["b", "K", "\u212a", "[a-m]", "[A-M]"]))
            else:
                (first, first_text), (second, second_text) = name(), name()
                word = "{" + first + "," + second + "}"
                text = draw(st.sampled_from([first_text, second_text]))
            globs.append(word)
            paths.append(text)
    glob, path = "".join(globs), "".join(paths)
    if "/" not in glob and draw(st.booleans()):
        path = "deep/er/" + path
    assume(not path.startswith("./"))  # a path's leading `./` is dropped before matching
    return glob, path


@given(glob_and_path())
def test_glob_literals_appear_in_every_matching_path(pair: tuple[str, str]) -> None:
    glob, path = pair
    try:
        matched = glob_matches(glob, path)
    except TriggerError:
        assume(False)
    assert matched, (glob, path)
    literals = glob_literals(glob)
    assert literals is not None
    for literal in literals:
        assert literal in path.lower(), (glob, path, literal)


@given(
    st.text(alphabet="*?[]{},!-/.akKsS\u212a\u017f", max_size=10),
    st.text(alphabet="/.akKsS\u212a\u017f[]", max_size=12),
)
def test_glob_literals_sound_on_random_globs(glob: str, path: str) -> None:
    try:
        matched = glob_matches(glob, path)
    except TriggerError:
        return
    assume(matched)
    for literal in glob_literals(glob) or ():
        assert literal in path.lower()
