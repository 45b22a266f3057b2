"""The store logs every change to the memories the trigger list holds (migration 0008)."""

from __future__ import annotations

import json

from cairn.api import Cairn
from cairn.usecases.remember import forget, remember, restore, set_pinned
from tests import backends as sqlite_only


def changes(ws: Cairn, after: int) -> list[tuple[str, str]]:
    found = ws.store.trigger_changes(after)
    assert found is not None
    return [(ref, op) for _, ref, op in found]


def test_each_write_to_a_listed_memory_moves_the_generation_once(ws: Cairn) -> None:
    store_id, start = ws.store.trigger_generation()
    assert len(store_id) == 8
    remember(ws.store, ws.ctx, "a plain fact")
    lesson = remember(ws.store, ws.ctx, "gate", when={"tool": "shell", "match": "git push"}).ref
    rule = remember(ws.store, ws.ctx, "one line", tags=["trigger:git-commit"]).ref
    cited = remember(ws.store, ws.ctx, "a holds x", source_ref="a.py").ref
    set_pinned(ws.store, lesson, True)
    ws.store.touch([lesson], ws.ctx.now())
    forget(ws.store, rule)
    restore(ws.store, rule)
    new = remember(ws.store, ws.ctx, "the full gate", replaces=lesson).ref
    assert changes(ws, start) == [
        (lesson, "add"),
        (rule, "add"),
        (cited, "add"),
        (rule, "drop"),
        (rule, "add"),
        (new, "add"),
        (lesson, "drop"),
    ]
    assert ws.store.trigger_generation() == (store_id, start + 7)


def test_an_imported_current_lesson_is_logged_and_an_old_version_is_not(ws: Cairn) -> None:
    _, start = ws.store.trigger_generation()
    base = {
        "type": "memory",
        "kind": "lesson",
        "project": ws.ctx.project,
        "written": "2026-11-01T12:00:00.000000Z",
        "when": {"tool": "shell", "match": "git push"},
    }
    ws.import_(
        [
            json.dumps(
                {
                    **base,
                    "ref": "m-a00001",
                    "text": "old",
                    "status": "superseded",
                    "until": base["written"],
                    "replaced_by": "m-a00002",
                }
            ),
            json.dumps({**base, "ref": "m-a00002", "text": "current", "replaces": "m-a00001"}),
        ]
    )
    assert changes(ws, start) == [("m-a00002", "add")]


@sqlite_only.RAW_LOG
def test_a_log_that_no_longer_reaches_back_says_so(ws: Cairn) -> None:
    _, start = ws.store.trigger_generation()
    with ws.store.transaction():
        ws.store.conn.executemany(
            "INSERT INTO trigger_changes (ref, op) VALUES (?, 'drop')", [("m-000000",)] * 1300
        )
    assert ws.store.trigger_changes(start) is None
    _, now = ws.store.trigger_generation()
    assert ws.store.trigger_changes(now - 10) is not None
    assert ws.store.trigger_changes(now) == []
