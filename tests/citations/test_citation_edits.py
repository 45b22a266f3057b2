"""Does an Edit (its `old_string`) touch the lines or symbol a memory cites?"""

from __future__ import annotations

from typing import Any

from citation_git import Repo

from cairn.io.citations import SourceRef, edit_touches, fingerprint, parse_source_ref

CODE = (
    "import os\n"  # 1
    "\n"  # 2
    "def load(path):\n"  # 3
    "    with open(path) as f:\n"  # 4
    "        return f.read()\n"  # 5
    "\n"  # 6
    "def save(path, text):\n"  # 7
    "    with open(path, 'w') as f:\n"  # 8
    "        f.write(text)\n"  # 9
)


def _cite(repo: Repo, text: str) -> tuple[SourceRef, dict[str, Any]]:
    repo.write("io.py", CODE)
    ref = parse_source_ref(text)
    return ref, fingerprint(ref, repo.root)


def test_an_edit_inside_the_cited_lines_touches_them(repo: Repo) -> None:
    ref, fp = _cite(repo, "io.py:4-5")
    assert edit_touches(ref, fp, repo.root, "        return f.read()")
    assert edit_touches(ref, fp, repo.root, "def load(path):\n    with")


def test_an_edit_elsewhere_does_not_touch_them(repo: Repo) -> None:
    ref, fp = _cite(repo, "io.py:4-5")
    assert not edit_touches(ref, fp, repo.root, "        f.write(text)")
    assert not edit_touches(ref, fp, repo.root, "import os")
    assert not edit_touches(ref, fp, repo.root, "   ")


def test_an_edit_follows_cited_lines_that_moved(repo: Repo) -> None:
    ref, fp = _cite(repo, "io.py:4-5")
    repo.write("io.py", "import sys\nimport json\n" + CODE)
    assert edit_touches(ref, fp, repo.root, "return f.read()")
    assert not edit_touches(ref, fp, repo.root, "import os")


def test_an_edit_inside_a_cited_symbol_touches_it(repo: Repo) -> None:
    ref, fp = _cite(repo, "io.py#save")
    assert edit_touches(ref, fp, repo.root, "f.write(text)")
    assert not edit_touches(ref, fp, repo.root, "return f.read()")


def test_a_bare_file_citation_is_touched_by_any_edit_and_a_commit_by_none(repo: Repo) -> None:
    ref, fp = _cite(repo, "io.py")
    assert edit_touches(ref, fp, repo.root, "import os")
    sha = repo.commit("init")
    commit = parse_source_ref(sha)
    assert not edit_touches(commit, fingerprint(commit, repo.root), repo.root, "import os")


def test_text_no_longer_in_the_file_is_compared_with_the_cited_lines(repo: Repo) -> None:
    ref, fp = _cite(repo, "io.py:4-5")
    # The edit was already applied: old_text is gone from the file, its lines were cited.
    repo.write("io.py", CODE.replace("return f.read()", "return f.read().strip()"))
    assert edit_touches(ref, fp, repo.root, "        return f.read()\n")
    assert not edit_touches(ref, fp, repo.root, "f.write(text + '')")


def test_a_missing_file_is_not_touched(repo: Repo) -> None:
    ref, fp = _cite(repo, "io.py:4-5")
    (repo.root / "io.py").unlink()
    assert not edit_touches(ref, fp, repo.root, "return f.read()")
