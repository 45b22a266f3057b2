"""The open facade is what tidy, rules and stats take (`cairn.usecases.opened.Opened`)."""

from __future__ import annotations

import inspect
from pathlib import Path

import cairn
from cairn.api import Cairn
from cairn.usecases.opened import Opened

WRITES = ("using", "remember", "correct", "forget", "unpin")


def test_an_open_store_and_its_other_callers_are_opened(ws: Cairn) -> None:
    assert isinstance(ws, Opened)
    assert isinstance(ws.using(tool="import"), Opened)


def test_the_facades_writes_take_what_the_use_cases_pass(ws: Cairn) -> None:
    for name in WRITES:
        wanted = inspect.signature(getattr(Opened, name)).parameters
        given = inspect.signature(getattr(ws, name)).parameters
        for param in wanted.values():
            if param.name == "self":
                continue
            assert param.name in given, f"Cairn.{name} lacks {param.name}"
            assert given[param.name].kind == param.kind, f"Cairn.{name}({param.name})"


def test_something_without_the_writes_is_not_opened(home: Path, project: Path) -> None:
    class ReadOnly:
        def __init__(self, ws: Cairn) -> None:
            self.store, self.ctx, self.triggers = ws.store, ws.ctx, ws.triggers

    with cairn.open(home, project=project) as ws:
        assert not isinstance(ReadOnly(ws), Opened)
