"""same / changed / gone / unchecked on real files in real git repositories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from citation_git import Repo

from cairn.core.errors import CitationError
from cairn.core.models import Citation
from cairn.io.citations import SourceRef, check, fingerprint, normalise, parse_source_ref

BODY = "".join(f"line {n}\n" for n in range(1, 31))


def save(repo: Repo, text: str) -> tuple[SourceRef, dict[str, Any]]:
    """What remember stores: the normalised ref and its fingerprint, through JSON."""
    ref = normalise(parse_source_ref(text), repo.root, repo.root)
    fp = json.loads(json.dumps(fingerprint(ref, repo.root)))
    return ref, fp


def test_a_bare_file_is_same_until_its_bytes_change(repo: Repo) -> None:
    repo.write("conf.toml", "a = 1\n")
    repo.commit()
    ref, fp = save(repo, "conf.toml")
    assert fp["kind"] == "file" and fp["size"] == 6
    assert check(ref, fp, [repo.root]) == Citation("same", "conf.toml")
    repo.write("conf.toml", "a = 2\n")  # same size: the hash decides
    assert check(ref, fp, [repo.root]).status == "changed"
    repo.write("conf.toml", "a = 10\n")
    assert check(ref, fp, [repo.root]).status == "changed"


def test_a_line_range_is_found_again_after_lines_inserted_above(repo: Repo) -> None:
    repo.write("notes.txt", BODY)
    repo.commit()
    ref, fp = save(repo, "notes.txt:10-14")
    assert fp["lines"] == [f"line {n}" for n in range(10, 15)]
    assert fp["above"] == ["line 7", "line 8", "line 9"]
    assert fp["below"] == ["line 15", "line 16", "line 17"]
    assert check(ref, fp, [repo.root]) == Citation("same", "notes.txt", (10, 14))
    repo.write("notes.txt", "new 1\nnew 2\nnew 3\n" + BODY)
    repo.commit("insert above")
    assert check(ref, fp, [repo.root]) == Citation(
        "same", "notes.txt", (13, 17), note="moved from 10-14"
    )


def test_a_line_range_ignores_reindentation_and_crlf(repo: Repo) -> None:
    repo.write("a.py", "def f():\n    x = 1\n    return x\n")
    ref, fp = save(repo, "a.py:2-3")
    repo.write("a.py", "if True:\r\n    def f():\r\n        x  =  1\r\n        return x\r\n")
    assert check(ref, fp, [repo.root]) == Citation("same", "a.py", (3, 4), note="moved from 2-3")


def test_a_line_range_is_changed_when_a_cited_line_is_edited(repo: Repo) -> None:
    repo.write("notes.txt", BODY)
    repo.commit()
    ref, fp = save(repo, "notes.txt:10-14")
    repo.write("notes.txt", BODY.replace("line 12\n", "line twelve\n"))
    repo.commit("edit")
    assert check(ref, fp, [repo.root]) == Citation(
        "changed", "notes.txt", (10, 14), note="lines 10-14 changed"
    )


def test_a_repeated_block_is_found_nearest_its_old_place(repo: Repo) -> None:
    block = "retry()\nsleep(1)\n"
    repo.write("r.txt", block + "a\nb\nc\nd\n" + block + "e\n")
    ref, fp = save(repo, "r.txt:7-8")
    repo.write("r.txt", "x\n" + block + "a\nb\nc\nd\n" + block + "e\n")
    assert check(ref, fp, [repo.root]).lines == (8, 9)


def test_a_file_deleted_is_gone(repo: Repo) -> None:
    repo.write("src/old.py", "def f():\n    return 1\n")
    repo.commit()
    refs = [save(repo, t) for t in ("src/old.py", "src/old.py:1-2", "src/old.py#f")]
    repo.git("rm", "-q", "src/old.py")
    repo.commit("delete")
    for ref, fp in refs:
        result = check(ref, fp, [repo.root])
        assert (result.status, result.note) == ("gone", "file missing")
    assert check(*refs[1], [repo.root]).lines == (1, 2)


def test_a_file_renamed_is_gone(repo: Repo) -> None:
    repo.write("src/old.py", "def f():\n    return 1\n")
    repo.commit()
    ref, fp = save(repo, "src/old.py#f")
    repo.git("mv", "src/old.py", "src/new.py")
    repo.commit("rename")
    assert check(ref, fp, [repo.root]).status == "gone"


def test_a_commit_is_unchecked(repo: Repo) -> None:
    sha = repo.commit("first")
    ref, fp = save(repo, sha)
    assert fp == {"v": 1, "kind": "commit", "commit": sha}
    result = check(ref, fp, [repo.root])
    assert result.status == "unchecked" and sha in result.note


def test_nothing_cited_is_unchecked(repo: Repo) -> None:
    ref, fp = save(repo, "")
    assert fp == {"v": 1, "kind": "none"}
    assert check(ref, fp, [repo.root]) == Citation("unchecked", note="nothing cited")


def test_a_symbol_without_a_grammar_is_unchecked_until_its_file_goes(repo: Repo) -> None:
    repo.write("README.md", "# Install\n\nrun make\n")
    ref, fp = save(repo, "README.md#Install")
    assert fp["unchecked"].startswith("no grammar for .md files")
    result = check(ref, fp, [repo.root])
    assert result.status == "unchecked" and "no grammar" in result.note
    (repo.root / "README.md").unlink()
    assert check(ref, fp, [repo.root]).status == "gone"


def test_a_file_missing_when_saved_is_gone_then_changed_once_written(repo: Repo) -> None:
    ref, fp = save(repo, "later.py:1-2")
    assert fp == {"v": 1, "kind": "lines", "missing": True}
    assert check(ref, fp, [repo.root]).status == "gone"
    repo.write("later.py", "a\nb\n")
    result = check(ref, fp, [repo.root])
    assert result.status == "changed" and "did not exist" in result.note


def test_a_folder_is_unchecked(repo: Repo) -> None:
    repo.write("src/a.py", "x = 1\n")
    ref, fp = save(repo, "src")
    assert fp == {"v": 1, "kind": "dir", "missing": False}
    assert check(ref, fp, [repo.root]).status == "unchecked"


def test_a_file_replaced_by_a_folder_is_changed(repo: Repo) -> None:
    repo.write("thing", "x\n")
    ref, fp = save(repo, "thing:1")
    (repo.root / "thing").unlink()
    (repo.root / "thing").mkdir()
    assert check(ref, fp, [repo.root]) == Citation("changed", "thing", note="now a folder")


def test_a_symbol_is_gone_where_no_grammar_can_find_it(repo: Repo) -> None:
    repo.write("a.py", "def f():\n    return 1\n")
    ref, fp = save(repo, "a.py#f")
    result = check(SourceRef(path="a.txt", symbol="f"), fp, [repo.root])
    assert result.status == "gone"
    repo.write("a.txt", "def f():\n    return 1\n")
    assert check(SourceRef(path="a.txt", symbol="f"), fp, [repo.root]).status == "gone"
    assert check(ref, fp, [repo.root]).status == "same"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a.py:3-9", "a.py has 2 lines"),
        ("a.py#nope", "defines no 'nope' \\(it defines f, g\\)"),
        ("src#f", "is a folder"),
    ],
)
def test_fingerprint_refuses_a_ref_that_cannot_be_right(
    repo: Repo, text: str, message: str
) -> None:
    repo.write("a.py", "def f(): pass\ndef g(): pass\n")
    repo.write("src/b.py", "")
    with pytest.raises(CitationError, match=message):
        save(repo, text)


@pytest.mark.parametrize("fp", [{}, {"v": 99, "kind": "file"}, {"kind": "lines"}])
def test_an_unknown_fingerprint_is_unchecked(repo: Repo, fp: dict[str, Any]) -> None:
    repo.write("a.py", "x = 1\n")
    result = check(SourceRef(path="a.py"), fp, [repo.root])
    assert result.status == "unchecked"


@pytest.mark.parametrize(
    "broken",
    [{"start": "1"}, {"lines": "line 1"}, {"above": [1, 2]}, {"end": None}],
)
def test_a_malformed_line_fingerprint_is_unchecked(repo: Repo, broken: dict[str, Any]) -> None:
    repo.write("notes.txt", BODY)
    ref, fp = save(repo, "notes.txt:1-2")
    result = check(ref, {**fp, **broken}, [repo.root])
    assert result == Citation("unchecked", "notes.txt", note="the fingerprint is malformed")


def test_a_fingerprint_of_another_kind_is_unchecked(repo: Repo) -> None:
    repo.write("a.py", "x = 1\n")
    _, fp = save(repo, "a.py")
    result = check(SourceRef(path="a.py", start=1, end=1), fp, [repo.root])
    assert result == Citation(
        "unchecked", "a.py", note="the fingerprint does not match the source_ref"
    )


def test_the_session_checkout_is_read_before_the_project(repo: Repo, tmp_path: Path) -> None:
    repo.write("src/app.py", BODY)
    repo.write("src/only_main.py", "x = 1\n")
    repo.commit("init")
    ref, fp = save(repo, "src/app.py:5-6")
    tree = tmp_path / "worktree"
    repo.git("worktree", "add", "-q", "-b", "feature", str(tree))
    (tree / "src" / "app.py").write_text(BODY.replace("line 5\n", "line five\n"))
    (tree / "src" / "only_main.py").unlink()
    assert check(ref, fp, [tree, repo.root]).status == "changed"
    assert check(ref, fp, [repo.root]).status == "same"
    # A file the checkout lacks is read from the next root.
    other, other_fp = save(repo, "src/only_main.py")
    assert check(other, other_fp, [tree, repo.root]).status == "same"
    assert check(other, other_fp, [tree]).status == "gone"
