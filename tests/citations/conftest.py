"""Fixtures for the citation tests: a real git repository, and a cold status cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from citation_git import Repo

from cairn.io.citations.status import clear_cache


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "project"
    root.mkdir()
    made = Repo(root)
    made.git("init", "-q", "-b", "main")
    return made


@pytest.fixture(autouse=True)
def _cold_cache() -> Iterator[None]:
    # Statuses are cached per process; each test starts cold so one cannot see another's.
    clear_cache()
    yield
    clear_cache()
