"""Statuses are cached per (file, inode, mtime, size, fingerprint); a touched file is re-read."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from citation_git import Repo

from cairn.core.models import Citation
from cairn.io.citations import check, fingerprint, parse_source_ref, status

HOUR_NS = 3600 * 10**9


def _age(file: Path, ns_ago: int) -> None:
    """Set the file's mtime in the past, out of the window where a rewrite could hide."""
    when = time.time_ns() - ns_ago
    os.utime(file, ns=(when, when))


@pytest.fixture
def compares(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths whose status was computed (not served from the cache), in order."""
    seen: list[str] = []
    real: Callable[..., Citation] = status._compare

    def counting(ref: Any, fp: Any, file: Path, info: Any) -> Citation:
        seen.append(file.name)
        return real(ref, fp, file, info)

    monkeypatch.setattr(status, "_compare", counting)
    return seen


def test_a_second_check_of_an_unchanged_file_is_served_from_the_cache(
    repo: Repo, compares: list[str]
) -> None:
    file = repo.write("a.py", "def f():\n    return 1\n")
    ref = parse_source_ref("a.py#f")
    fp = fingerprint(ref, repo.root)
    _age(file, HOUR_NS)
    first = check(ref, fp, [repo.root])
    second = check(ref, fp, [repo.root])
    assert first == second and first.status == "same"
    assert compares == ["a.py"]


def test_a_new_mtime_invalidates_the_cached_status(repo: Repo, compares: list[str]) -> None:
    file = repo.write("a.py", "def f():\n    return 1\n")
    ref = parse_source_ref("a.py#f")
    fp = fingerprint(ref, repo.root)
    then = time.time_ns() - 2 * HOUR_NS
    os.utime(file, ns=(then, then))
    assert check(ref, fp, [repo.root]).status == "same"
    # Same size, different body, same mtime: the cache cannot tell, and says what it saw.
    file.write_text("def f():\n    return 2\n")
    os.utime(file, ns=(then, then))
    assert check(ref, fp, [repo.root]).status == "same"  # mtime and size as cached: stale
    _age(file, HOUR_NS)
    assert check(ref, fp, [repo.root]).status == "changed"
    assert compares == ["a.py", "a.py"]


def test_a_new_size_invalidates_the_cached_status(repo: Repo, compares: list[str]) -> None:
    file = repo.write("n.txt", "a\nb\nc\n")
    ref = parse_source_ref("n.txt:2")
    fp = fingerprint(ref, repo.root)
    _age(file, HOUR_NS)
    assert check(ref, fp, [repo.root]).lines == (2, 2)
    file.write_text("z\na\nb\nc\n")
    _age(file, HOUR_NS)
    assert check(ref, fp, [repo.root]).lines == (3, 3)
    assert compares == ["n.txt", "n.txt"]


def test_a_recently_written_file_is_not_cached(repo: Repo, compares: list[str]) -> None:
    _age(repo.write("a.txt", "x\n"), 0)  # written now, by the process's clock
    ref = parse_source_ref("a.txt")
    fp = fingerprint(ref, repo.root)
    check(ref, fp, [repo.root])
    check(ref, fp, [repo.root])
    assert compares == ["a.txt", "a.txt"]


def test_each_fingerprint_has_its_own_cache_entry(repo: Repo, compares: list[str]) -> None:
    file = repo.write("n.txt", "a\nb\nc\n")
    _age(file, HOUR_NS)
    one, two = parse_source_ref("n.txt:1"), parse_source_ref("n.txt:3")
    fp_one, fp_two = fingerprint(one, repo.root), fingerprint(two, repo.root)
    assert check(one, fp_one, [repo.root]).lines == (1, 1)
    assert check(two, fp_two, [repo.root]).lines == (3, 3)
    assert check(one, fp_one, [repo.root]).lines == (1, 1)
    assert compares == ["n.txt", "n.txt"]


def test_the_cache_drops_the_least_recently_used_entry() -> None:
    lru = status._Lru(2)
    a, b, c = Citation("same"), Citation("changed"), Citation("gone")
    lru.put("a", a)
    lru.put("b", b)
    assert lru.get("a") is a  # "b" is now the oldest
    lru.put("c", c)
    assert (lru.get("a"), lru.get("b"), lru.get("c")) == (a, None, c)
