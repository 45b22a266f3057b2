"""source_ref parsing, printing, and keeping citations inside the project."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import pytest
from citation_git import Repo
from hypothesis import given
from hypothesis import strategies as st

import cairn.io.citations
from cairn.core.errors import CitationError
from cairn.io.citations import (
    SourceRef,
    cited_paths,
    fingerprint,
    format_source_ref,
    normalise,
    parse_source_ref,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", SourceRef()),
        ("   ", SourceRef()),
        ("src/app.py", SourceRef(path="src/app.py")),
        ("src/app.py:10-24", SourceRef(path="src/app.py", start=10, end=24)),
        ("src/app.py:10", SourceRef(path="src/app.py", start=10, end=10)),
        ("src/app.py: 10 - 24 ", SourceRef(path="src/app.py", start=10, end=24)),
        ("src/app.py#Store", SourceRef(path="src/app.py", symbol="Store")),
        ("src/app.py#Store.open", SourceRef(path="src/app.py", symbol="Store.open")),
        ("src/lib.rs#Store::open", SourceRef(path="src/lib.rs", symbol="Store.open")),
        ("web/a.js#$init", SourceRef(path="web/a.js", symbol="$init")),
        ("3f9c2ab", SourceRef(commit="3f9c2ab")),
        ("3F9C2AB", SourceRef(commit="3f9c2ab")),
        ("a" * 40, SourceRef(commit="a" * 40)),
        ("a" * 41, SourceRef(path="a" * 41)),
        ("abc123", SourceRef(path="abc123")),
        ("./3f9c2ab", SourceRef(path="3f9c2ab")),
        ("bin/3f9c2ab", SourceRef(path="bin/3f9c2ab")),
        ("3f9c2ab.py", SourceRef(path="3f9c2ab.py")),
        ("3f9c2ab:4", SourceRef(path="3f9c2ab", start=4, end=4)),
        ("./src//app.py/", SourceRef(path="src/app.py")),
        ("/abs/app.py:3", SourceRef(path="/abs/app.py", start=3, end=3)),
        ("C:/x/app.py", SourceRef(path="C:/x/app.py")),
        ("notes#v2#Title", SourceRef(path="notes#v2", symbol="Title")),
    ],
)
def test_parse_reads_each_form(text: str, expected: SourceRef) -> None:
    assert parse_source_ref(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("a.py:0", "numbered from 1"),
        ("a.py:0-3", "numbered from 1"),
        ("a.py:24-10", "ends before it starts"),
        ("a.py:ten", "N or N-M"),
        ("a.py:1-x", "N or N-M"),
        ("a.py:1.5", "N or N-M"),
        ("a.py:", "N or N-M"),
        ("a.py:\u0663", "N or N-M"),
        ("a.py:1234567890", "N or N-M"),
        ("a.py#", "write the symbol"),
        ("a.py#1abc", "not a symbol"),
        ("a.py#a b", "not a symbol"),
        ("a.py#A..b", "not a symbol"),
        ("#Store", "names no file"),
        (":10", "names no file"),
        ("./", "names no file"),
        ("a.py:3#Store", "both lines and a symbol"),
        ("a.py\nb.py", "one line"),
        ("a\x00b", "one line"),
        ("a/" * 3000, "characters"),
    ],
)
def test_parse_refuses_malformed_refs_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(CitationError, match=reason):
        parse_source_ref(text)


@pytest.mark.parametrize(
    ("ref", "text"),
    [
        (SourceRef(), ""),
        (SourceRef(commit="3f9c2ab"), "3f9c2ab"),
        (SourceRef(path="a.py"), "a.py"),
        (SourceRef(path="a.py", start=3, end=3), "a.py:3"),
        (SourceRef(path="a.py", start=3, end=9), "a.py:3-9"),
        (SourceRef(path="a.py", symbol="A.b"), "a.py#A.b"),
        (SourceRef(path="3f9c2ab"), "./3f9c2ab"),
        (SourceRef(path="3f9c2ab", start=2, end=2), "3f9c2ab:2"),
    ],
)
def test_format_prints_the_form_parse_reads(ref: SourceRef, text: str) -> None:
    assert format_source_ref(ref) == text
    assert parse_source_ref(text) == ref


@given(st.text(max_size=120))
def test_parse_raises_only_citation_error_and_round_trips(text: str) -> None:
    try:
        ref = parse_source_ref(text)
    except CitationError:
        return
    assert parse_source_ref(format_source_ref(ref)) == ref


_segment = st.text(
    alphabet=st.sampled_from("abcdefABCDEF0123456789_-. #:$é"), min_size=1, max_size=12
)


@given(st.text(alphabet=st.sampled_from("abcdef0123456789:#.-/ \t"), max_size=40))
def test_parse_round_trips_on_ref_punctuation(text: str) -> None:
    try:
        ref = parse_source_ref(text)
    except CitationError:
        return
    assert parse_source_ref(format_source_ref(ref)) == ref


@given(
    st.lists(_segment, min_size=1, max_size=4),
    st.one_of(
        st.just(""),
        st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)).map(lambda r: f":{r[0]}-{r[1]}"),
        st.integers(0, 10**6).map(lambda n: f":{n}"),
        st.from_regex(r"#[A-Za-z_]\w{0,8}((\.|::)[A-Za-z_]\w{0,8}){0,2}", fullmatch=True),
    ),
)
def test_built_refs_round_trip(parts: list[str], suffix: str) -> None:
    try:
        ref = parse_source_ref("/".join(parts) + suffix)
    except CitationError:
        return
    assert parse_source_ref(format_source_ref(ref)) == ref


def test_normalise_keeps_a_relative_path_and_folds_dots(repo: Repo) -> None:
    root = repo.root
    ref = parse_source_ref("src/../src/app.py:3")
    assert normalise(ref, root, None) == SourceRef(path="src/app.py", start=3, end=3)


def test_normalise_makes_an_absolute_path_inside_relative(repo: Repo) -> None:
    file = repo.write("src/app.py", "x = 1\n")
    ref = parse_source_ref(f"{file}#x")
    assert normalise(ref, repo.root, repo.root) == SourceRef(path="src/app.py", symbol="x")


@pytest.mark.parametrize("text", ["../x.py", "src/../../x.py", "/etc/passwd", "/"])
def test_normalise_refuses_a_path_outside_the_project(repo: Repo, text: str) -> None:
    with pytest.raises(CitationError, match="outside the project"):
        normalise(parse_source_ref(text), repo.root, repo.root)


def test_normalise_refuses_the_project_folder_itself(repo: Repo) -> None:
    with pytest.raises(CitationError, match="project folder itself"):
        normalise(parse_source_ref(str(repo.root)), repo.root, None)


def test_normalise_refuses_a_symlink_escaping_the_project(repo: Repo, tmp_path: Path) -> None:
    secret = tmp_path / "outside.txt"
    secret.write_text("private\n")
    (repo.root / "link.txt").symlink_to(secret)
    (repo.root / "linkdir").symlink_to(tmp_path)
    with pytest.raises(CitationError, match="symlink"):
        normalise(parse_source_ref("link.txt:1"), repo.root, None)
    with pytest.raises(CitationError, match="symlink"):
        normalise(parse_source_ref("linkdir/outside.txt"), repo.root, None)


def test_normalise_accepts_a_symlink_that_stays_inside(repo: Repo) -> None:
    repo.write("real.py", "x = 1\n")
    (repo.root / "alias.py").symlink_to(repo.root / "real.py")
    assert normalise(parse_source_ref("alias.py"), repo.root, None).path == "alias.py"


def test_normalise_reads_a_relative_path_from_a_subfolder_cwd(repo: Repo) -> None:
    repo.write("pkg/mod.py", "x = 1\n")
    sub = repo.root / "pkg"
    assert normalise(parse_source_ref("mod.py:1"), repo.root, sub).path == "pkg/mod.py"
    # A path that is not there from cwd is read from the root, as agents usually write it.
    assert normalise(parse_source_ref("pkg/mod.py"), repo.root, sub).path == "pkg/mod.py"


def test_normalise_stores_worktree_paths_relative_to_the_worktree(
    repo: Repo, tmp_path: Path
) -> None:
    repo.write("src/app.py", "x = 1\n")
    repo.commit("init")
    tree = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "feature", str(tree))
    ref = parse_source_ref(f"{tree}/src/app.py:1")
    assert normalise(ref, repo.root, tree / "src").path == "src/app.py"
    assert normalise(parse_source_ref("src/app.py"), repo.root, tree).path == "src/app.py"


def test_normalise_finds_a_real_path_in_a_project_opened_through_a_symlink(
    repo: Repo, tmp_path: Path
) -> None:
    repo.write("src/app.py", "x = 1\n")
    alias = tmp_path / "alias"
    alias.symlink_to(repo.root)
    ref = parse_source_ref(f"{repo.root}/src/app.py")
    assert normalise(ref, alias, None).path == "src/app.py"


def test_normalise_treats_a_name_too_long_for_the_system_as_absent(repo: Repo) -> None:
    name = "a" * 300 + ".py"
    ref = normalise(parse_source_ref(name), repo.root, repo.root)
    assert ref.path == name
    with pytest.raises(CitationError, match="cannot be read"):
        fingerprint(ref, repo.root)


def test_normalise_leaves_commits_and_empty_refs_alone(repo: Repo) -> None:
    assert normalise(SourceRef(commit="3f9c2ab"), repo.root, None) == SourceRef(commit="3f9c2ab")
    assert normalise(SourceRef(), repo.root, None) == SourceRef()


def test_normalise_keeps_paths_relative_to_a_project_inside_a_larger_repo(repo: Repo) -> None:
    project = repo.root / "packages" / "web"
    repo.write("packages/web/index.js", "export const x = 1;\n")
    ref = normalise(parse_source_ref("index.js"), project, project)
    assert ref.path == "index.js"
    assert os.path.isfile(project / ref.path)


def test_cited_paths_names_the_file_or_none() -> None:
    assert cited_paths("src/a.py:3-4") == "src/a.py"
    assert cited_paths(SourceRef(path="b.go", symbol="F")) == "b.go"
    assert cited_paths("3f9c2ab") is None
    assert cited_paths("") is None
    assert cited_paths("a.py:0") is None


def test_package_exports_exactly_the_public_api() -> None:
    public = {
        name
        for name, value in vars(cairn.io.citations).items()
        if not name.startswith("_") and not inspect.ismodule(value) and name != "annotations"
    }
    assert (
        set(cairn.io.citations.__all__)
        == public
        == {
            "SourceRef",
            "check",
            "cited_paths",
            "edit_touches",
            "fingerprint",
            "format_source_ref",
            "locate_symbol",
            "normalise",
            "parse_source_ref",
        }
    )


_SEGMENTS = st.lists(st.sampled_from(["a", "b", "ab", "a.b", "x-y"]), max_size=4)


@given(_SEGMENTS, _SEGMENTS)
def test_is_within_agrees_with_pathlib_parents(path: list[str], root: list[str]) -> None:
    from cairn.io.citations.refs import _is_within

    inside, top = Path("/", *path), Path("/", *root)
    assert _is_within(inside, top) == (inside == top or top in inside.parents)


def test_the_checkout_root_is_the_nearest_folder_holding_git(tmp_path: Path) -> None:
    from cairn.io.citations.refs import _checkout_root

    deep = tmp_path / "outer" / "inner" / "src"
    deep.mkdir(parents=True)
    (tmp_path / "outer" / ".git").mkdir()
    assert _checkout_root(deep) == tmp_path / "outer"
    (tmp_path / "outer" / "inner" / ".git").write_text("gitdir: elsewhere\n")  # a worktree
    assert _checkout_root(deep) == tmp_path / "outer" / "inner"
    (deep / ".git").symlink_to(tmp_path / "missing")  # dangling, still counts
    assert _checkout_root(deep) == deep
