"""Undo (`cairn.usecases.undo`): every action the app offers, taken back, reads exactly as before.

"Exactly" is get_memory's whole record, less `revision`: the revision counts changes and an
undo is one (so an edit opened before the undo is still refused as stale).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cairn.api import Cairn
from cairn.core.errors import ConflictError, UnknownRefError
from tests.conftest import Clock


def _seen(ws: Cairn, *refs: str) -> list[dict[str, Any]]:
    views = ws.get_memory(list(refs))["memories"]
    for view in views:
        view.pop("revision")
    return views


ACTIONS: dict[str, Callable[[Cairn, str], object]] = {
    "confirm": lambda ws, ref: ws.confirm(ref),
    "contradict": lambda ws, ref: ws.contradict(ref),
    "pin": lambda ws, ref: ws.pin(ref),
    "forget": lambda ws, ref: ws.forget(ref),
    "correct": lambda ws, ref: ws.correct(ref, "Deploys go through Fly now"),
}


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_take_back_restores_get_memory_exactly(ws: Cairn, clock: Clock, name: str) -> None:
    ref = ws.remember("Deploys go through Render", source_ref="", tags=["ops"]).ref
    ws.cite([ref])
    clock.advance(days=3)
    user = ws.using(tool="user", session="app")
    was = _seen(ws, ref)
    _, change = user.undoable([ref], lambda: ACTIONS[name](user, ref))
    assert _seen(ws, ref) != was  # the action did something
    clock.advance(minutes=1)
    user.take_back(change)
    assert _seen(ws, ref) == was


def test_take_back_of_a_correction_makes_the_old_version_current_again(ws: Cairn) -> None:
    ref = ws.remember("Deploys go through Render").ref
    done, change = ws.undoable([ref], lambda: ws.correct(ref, "Deploys go through Fly"))
    ws.take_back(change)
    assert [m.ref for m in ws.list()] == [ref]
    assert ws.recall("deploys").hits[0].ref == ref
    # the written version stays in the store, never believed
    retired = ws.store.get_memory(done.ref)
    assert retired.status == "retired" and retired.until == retired.written


def test_take_back_of_a_confirmation_lets_it_count_again(ws: Cairn) -> None:
    ref = ws.remember("Deploys go through Render").ref
    user = ws.using(tool="user")
    counted, change = user.undoable([ref], lambda: user.confirm(ref))
    assert counted
    user.take_back(change)
    assert ws.get_memory(ref)["memories"][0]["evidence"]["confirmed"]["count"] == 0
    assert user.confirm(ref)  # the taken-back one no longer stands in the way


def test_take_back_is_refused_when_the_memory_changed_since(ws: Cairn) -> None:
    ref = ws.remember("Deploys go through Render").ref
    _, change = ws.undoable([ref], lambda: ws.pin(ref))
    ws.forget(ref)  # someone else, since
    after = _seen(ws, ref)
    with pytest.raises(ConflictError, match="changed since"):
        ws.take_back(change)
    assert _seen(ws, ref) == after  # nothing written


def test_take_back_keeps_a_touch_made_since(ws: Cairn, clock: Clock) -> None:
    ref = ws.remember("Deploys go through Render").ref
    user = ws.using(tool="user")
    _, change = user.undoable([ref], lambda: user.confirm(ref))
    clock.advance(hours=1)
    ws.cite([ref])  # a session used it in between
    touched = ws.store.get_memory(ref).last_touched
    user.take_back(change)
    assert ws.store.get_memory(ref).last_touched == touched
    assert ws.get_memory(ref)["memories"][0]["cited"]["count"] == 1


def test_undoable_refuses_an_unknown_ref(ws: Cairn) -> None:
    with pytest.raises(UnknownRefError):
        ws.undoable(["m-000000"], lambda: None)


def test_bulk_take_back_restores_every_memory(ws: Cairn) -> None:
    refs = [ws.remember(f"Fact number {word}").ref for word in ("one", "two", "three")]
    was = _seen(ws, *refs)
    _, change = ws.undoable(refs, lambda: [ws.forget(r) for r in refs])
    ws.take_back(change)
    assert _seen(ws, *refs) == was


def test_contradict_twice_puts_a_memory_out(ws: Cairn) -> None:
    ref = ws.remember("Deploys go through Render").ref
    assert ws.using(tool="user", session="a").contradict(ref)
    assert not ws.using(tool="user", session="a").contradict(ref)  # once a session
    assert ws.using(tool="user", session="b").contradict(ref)
    assert ws.get_memory(ref)["memories"][0]["status"] == "out"


def test_correct_with_a_stale_revision_is_refused(ws: Cairn) -> None:
    ref = ws.remember("Deploys go through Render").ref
    read = ws.store.get_memory(ref).revision
    ws.pin(ref)
    with pytest.raises(ConflictError, match="changed since you read it"):
        ws.correct(ref, "Deploys go through Fly", revision=read)
    assert [m.ref for m in ws.list()] == [ref]


def test_correct_of_a_version_replaced_since_is_refused_as_stale(ws: Cairn) -> None:
    ref = ws.remember("Deploys go through Render").ref
    read = ws.store.get_memory(ref).revision
    ws.correct(ref, "Deploys go through Fly")
    with pytest.raises(ConflictError, match="replaced by"):
        ws.correct(ref, "Deploys go through Heroku", revision=read)


def test_take_back_event_refuses_a_citation_and_an_act(ws: Cairn) -> None:
    from cairn.core.errors import RefusedError

    ref = ws.remember("Deploys go through Render").ref
    ws.cite([ref])
    cited = ws.store.events_for([ref])[0]
    with pytest.raises(RefusedError):
        ws.take_back_event(ref, cited.eid)
    ws.using(tool="user").contradict(ref)
    judged = ws.store.events_for([ref])[-1]
    with pytest.raises(RefusedError):
        ws.take_back_event("m-000000", judged.eid)  # not this memory's
    ws.take_back_event(ref, judged.eid)
    assert ws.get_memory(ref)["memories"][0]["evidence"]["contradicted"]["count"] == 0
