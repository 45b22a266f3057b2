"""The kept memory counts agree with a real COUNT; remember_many is all or nothing."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

import cairn
from cairn.api import Cairn
from cairn.usecases.remember import remember_many


def real_count(ws: Cairn, project: str | None) -> int:
    sql = "SELECT count(*) FROM memories WHERE until IS NULL AND status != 'retired'"
    args: tuple[str, ...] = ()
    if project is not None:
        sql += " AND (project = ? OR scope = 'workspace')"
        args = (project,)
    return int(ws.store.conn.execute(sql, args).fetchone()[0])


def test_counts_follow_random_writes(open_ws: Callable[..., Cairn], tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    a, b = open_ws(), open_ws(project=other, cwd=other)
    rng = random.Random(7)
    refs: list[str] = []
    for i in range(300):
        ws = rng.choice([a, b])
        move = rng.random()
        if move < 0.5 or not refs:
            scope = "workspace" if rng.random() < 0.2 else "project"
            refs.append(ws.remember(f"claim {i} about part{i}", scope=scope).ref)
        elif move < 0.65:
            current = [r for r in refs if ws.store.get_memory(r).is_current]
            if current:
                refs.append(ws.correct(rng.choice(current), f"corrected claim {i}").ref)
        elif move < 0.8:
            ref = rng.choice(refs)
            if ws.store.get_memory(ref).until is None:
                ws.forget(ref)
        else:
            ws.restore(rng.choice(refs))
        for who in (a, b):
            assert who.store.count_memories(who.ctx.project) == real_count(who, who.ctx.project)
        assert a.store.count_memories() == real_count(a, None)


def test_a_rolled_back_write_leaves_the_count(ws: Cairn) -> None:
    ws.remember("first claim")
    with pytest.raises(cairn.SecretError):
        remember_many(
            ws.store, ws.ctx, [{"text": "second claim"}, {"text": "key AKIAIOSFODNN7EXAMPLE"}]
        )
    assert ws.store.count_memories(ws.ctx.project) == real_count(ws, ws.ctx.project) == 1


def test_remember_many_writes_all_or_nothing(ws: Cairn) -> None:
    done = remember_many(
        ws.store, ws.ctx, [{"text": f"batch claim {i}", "tags": ["b"]} for i in range(5)]
    )
    assert [r.outcome for r in done] == ["new"] * 5
    assert ws.store.count_memories() == 5
    with pytest.raises(cairn.EmptySentenceError):
        remember_many(ws.store, ws.ctx, [{"text": "kept only if all pass"}, {"text": " "}])
    assert ws.store.count_memories() == 5
    assert [h.ref for h in ws.recall("kept only if all pass").hits] == []
