"""Shared fixtures: a workspace store and a project folder in tmp dirs, and one test clock.

Every test runs on the test clock: `$CAIRN_NOW` is set to its moment, so the library, the CLI,
the hook (in this process or a child) and the MCP server all read the same "now", and moving
the clock moves it for all of them. No test reads the system clock by accident.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

import cairn
from cairn.api import Cairn
from cairn.core.context import CLOCK_ENV, stamp
from cairn.usecases.recall import Recalled

# Hypothesis' per-example deadline is a timed assertion: on a loaded 2-core machine a property
# test of untouched code failed at 200 ms. Speed is measured in bench/, never in tests.
settings.register_profile("cairn", deadline=None)
settings.load_profile("cairn")

START = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
# `pg_cluster`: a throwaway PostgreSQL cluster for the store tests that run on both backends.
pytest_plugins = ("tests.pgcluster",)
# `CAIRN_TEST_BACKEND=postgresql` runs the tests on PostgreSQL (`make test` does, for the
# store-facing files it lists in STORE_FACING): see `no_team_store`.
BACKEND_ENV = "CAIRN_TEST_BACKEND"


def test_backend() -> str:
    """The backend the store-facing tests run on: `$CAIRN_TEST_BACKEND`, SQLite by default."""
    chosen = os.environ.get(BACKEND_ENV, "sqlite") or "sqlite"
    if chosen not in ("sqlite", "postgresql"):
        raise pytest.UsageError(f"{BACKEND_ENV} must be sqlite or postgresql, not {chosen!r}")
    return chosen


class Clock:
    """A clock the test moves by hand; it also sets `$CAIRN_NOW` for every other path."""

    def __init__(self, start: datetime | None = None, publish: bool = False) -> None:
        self.publish = publish
        self.moment = start or START

    @property
    def moment(self) -> datetime:
        return self._moment

    @moment.setter
    def moment(self, value: datetime) -> None:
        self._moment = value
        if self.publish:
            os.environ[CLOCK_ENV] = stamp(value)

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> None:
        self.moment += timedelta(**delta)


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The one clock of the test (autouse: the CLI and hooks read it through `$CAIRN_NOW`)."""
    monkeypatch.setenv(CLOCK_ENV, stamp(START))
    return Clock(publish=True)


@pytest.fixture(autouse=True)
def no_team_store(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """No test reaches a team's database from the environment it was started in, and none
    leaves one set for the next (`cairn --store` sets it for the rest of its process).

    With `CAIRN_TEST_BACKEND=postgresql`, each test instead gets a fresh database of the
    session's throwaway cluster in `$CAIRN_DATABASE_URL`, so every store it opens (through
    `cairn.open`, the CLI, a hook or the MCP server, in this process or a child) is a
    `PostgresStore`; a test marked `sqlite_only` is skipped there, with its reason.
    """
    monkeypatch.delenv("CAIRN_DATABASE_URL", raising=False)
    if test_backend() != "postgresql":
        yield
        return
    only = request.node.get_closest_marker("sqlite_only")
    if only is not None:
        pytest.skip(f"SQLite only: {only.kwargs.get('reason') or only.args[0]}")
    cluster = request.getfixturevalue("pg_cluster")
    url = cluster.new_database()
    monkeypatch.setenv("CAIRN_DATABASE_URL", url)
    # A firing hook on PostgreSQL imports psycopg and connects: about 200 ms at rest, past the
    # 1 s budget on a loaded 2-core machine, where the hook then answers nothing and a test of
    # what it answers fails for the machine's load. Here it gets the time it needs; the
    # budget's cut-off over PostgreSQL is tested in tests/test_store_team.py (down, hung).
    monkeypatch.setenv("CAIRN_HOOK_BUDGET", "30")
    yield
    cluster.drop_database(url)


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


def search(ws: Cairn, query: str, **options: Any) -> Recalled:
    """A recall as the CLI, the MCP server and the app run it: `catch_up` (git, changed docs),
    the search (which writes nothing), then `note_recalled` (the session's offers)."""
    ws.catch_up(docs=options.get("as_of") is None)
    found = ws.recall(query, **options)
    ws.note_recalled(found)
    return found
