"""The reasons a test runs on SQLite only (`CAIRN_TEST_BACKEND=postgresql` skips it, saying
why; see `no_team_store` in tests/conftest.py). Each is a test of what only the SQLite file has,
not a difference in behaviour: PostgreSQL's side of it is tested in tests/test_store_*.py."""

from __future__ import annotations

import pytest

FILE = pytest.mark.sqlite_only(reason="damages, locks, moves or reads the SQLite file itself")
MIGRATIONS = pytest.mark.sqlite_only(reason="reads SQLite's own migrations and tables")
TWO_STORES = pytest.mark.sqlite_only(
    reason="two stores in one test: on PostgreSQL its stores share the test's one database"
)
RAW_LOG = pytest.mark.sqlite_only(
    reason="writes SQLite's trigger change log by hand (PostgreSQL numbers it in a trigger)"
)
HOOK_IMPORTS = pytest.mark.sqlite_only(
    reason="the SQLite hook's import allow-list: over PostgreSQL a firing call imports psycopg"
)
RECALL_IMPORTS = pytest.mark.sqlite_only(
    reason="the SQLite recall process's import deny-list: over PostgreSQL it imports psycopg, "
    "which imports dataclasses and inspect"
)
LINES_IN_SQL = pytest.mark.sqlite_only(
    reason="SQLite compares export lines in SQL; PostgreSQL names none, by design"
)
ONE_SECOND = pytest.mark.sqlite_only(
    reason="reads a 1 s threshold against a local file's speed; a loaded machine's round trips "
    "to a server pass it"
)
KEPT_CURRENT = pytest.mark.sqlite_only(
    reason="SQLite keeps which versions are current between recalls; PostgreSQL asks every time"
)
MILLISECOND_BUDGET = pytest.mark.sqlite_only(
    reason="a 1 ms budget to show no alarm is armed: over PostgreSQL what is left of the budget "
    "also bounds the connect and each statement (by design), so the call rightly answers nothing"
)
