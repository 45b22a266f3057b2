"""Shared fixtures: a workspace store and a project folder in tmp dirs, and a fixed clock."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import cairn
from cairn.api import Cairn

# Hook calls in tests answer in their own process: a resident helper started by one test would
# outlive it. The helper's own tests (tests/hooks/test_hook_resident.py) turn it back on.
os.environ["CAIRN_HOOK_HELPER"] = "0"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime | None = None) -> None:
        self.moment = start or datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> None:
        self.moment += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv("CAIRN_HOME", str(folder))
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


@pytest.fixture
def open_ws(home: Path, project: Path, clock: Clock) -> Iterator[Callable[..., Cairn]]:
    opened: list[Cairn] = []

    def _open(**kw: object) -> Cairn:
        kw.setdefault("project", project)
        kw.setdefault("cwd", project)
        kw.setdefault("tool", "claude-code")
        kw.setdefault("session", "s1")
        kw.setdefault("clock", clock)
        ws = cairn.open(home, **kw)  # type: ignore[arg-type]
        opened.append(ws)
        return ws

    yield _open
    for ws in opened:
        ws.close()


@pytest.fixture
def ws(open_ws: Callable[..., Cairn]) -> Cairn:
    return open_ws()
