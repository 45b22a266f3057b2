"""Fixtures for the `learn` tests: a git repository in the project folder, and a lab."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from learn_git import Lab, Repo, hours

from cairn.api import Cairn


@pytest.fixture
def repo(project: Path) -> Repo:
    made = Repo(project)
    made.git("init", "-q", "-b", "main", at=hours(-48))
    made.commit("README.md", "hello\n", hours(-48), "initial")
    return made


@pytest.fixture
def lab(open_ws: Callable[..., Cairn], repo: Repo, clock: Any) -> Lab:
    return Lab(open_ws(session="", branch="main"), repo, clock)
