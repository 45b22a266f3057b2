"""The store boundary: above `cairn.io.store`, code holds a `Store` and never a connection.

Read from the source with `ast`: no module outside src/cairn/io/store/ reaches a `.conn`, calls
the connection-taking functions of `cairn.io.store.acts` or `cairn.io.store.measures`, or names the
SQLite class except where a store is opened.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "cairn"
STORE = SRC / "io" / "store"
# Where a store is opened from a URL or a folder: the only places that name a backend.
OPENERS = {"api.py", "hooks/run.py", "install/doctor.py"}
# What callers may take from the SQL modules: value classes and constants, not functions of
# a connection.
VALUES = {"ACTS", "SOURCES", "Act", "LearnSession", "SessionCommit", "OfferCount", "new_aid"}


def _outside_store() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if STORE not in p.parents)


def test_no_connection_is_used_outside_the_store() -> None:
    found = []
    for path in _outside_store():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "conn":
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert found == []


def test_the_sql_modules_are_reached_only_through_the_store() -> None:
    found = []
    for path in _outside_store():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in (
                "cairn.io.store.acts",
                "cairn.io.store.measures",
            ):
                found += [
                    f"{path.relative_to(SRC)}: {a.name}" for a in node.names if a.name not in VALUES
                ]
            elif isinstance(node, ast.ImportFrom) and node.module == "cairn.io.store":
                found += [
                    f"{path.relative_to(SRC)}: module {a.name}"
                    for a in node.names
                    if a.name in ("acts", "measures", "memories", "evidence", "connection")
                ]
    assert found == []


def test_callers_hold_the_protocol_not_the_sqlite_class() -> None:
    named = []
    for path in _outside_store():
        rel = path.relative_to(SRC).as_posix()
        if rel in OPENERS:
            continue
        if "SqliteStore" in path.read_text(encoding="utf-8").replace("`SqliteStore", ""):
            named.append(rel)
    assert named == []
