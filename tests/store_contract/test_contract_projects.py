"""Rows of a project moved to another name (a folder to its repository key), per backend."""

from __future__ import annotations

from cairn.io.store import SessionRow
from cairn.io.store.protocol import Store
from cairn.io.store.rows import Progress
from tests.store_contract.conftest import T0, memory, put


def test_what_a_project_holds_is_told_apart_from_workspace_memories(store: Store) -> None:
    assert not store.holds_project("/p")
    put(store, memory("m-aaaaa1", "Workspace-wide sentence", project="/p", scope="workspace"))
    assert not store.holds_project("/p") and store.own_memories("/p") == []
    mine = put(store, memory("m-aaaaa2", "Own sentence", project="/p"))
    put(store, memory("m-aaaaa3", "Elsewhere", project="/q"))
    assert store.holds_project("/p")
    assert [m.ref for m in store.own_memories("/p")] == [mine.ref]
    store.update_memory(mine, until=T0, status="retired")
    assert not store.holds_project("/p") and store.own_memories("/p") == []
    store.upsert_session(SessionRow("s1", "cli", "/p", "main", "/p", T0, None))
    assert store.holds_project("/p")


def test_sessions_progress_acts_and_learn_state_move(store: Store) -> None:
    store.upsert_session(SessionRow("s1", "cli", "/p", "main", "/p", T0, None))
    store.add_progress(Progress("p1", "/p", "main", "goal", "step", "done", "cli", "s1", T0))
    store.set_learn_state("/p", "heads", "old")
    store.set_learn_state("/p", "learned_at", T0)
    store.set_learn_state("git:h/o/r", "heads", "kept")
    moved = store.move_project("/p", "git:h/o/r")
    assert moved == 3  # the session, the note, learned_at; `heads` the key already holds
    assert [s.id for s in store.sessions("git:h/o/r")] == ["s1"]
    assert [p.pid for p in store.progress("git:h/o/r")] == ["p1"]
    assert store.learn_state("git:h/o/r", "heads") == "kept"
    assert store.learn_state("git:h/o/r", "learned_at") == T0
    assert store.learn_state("/p", "heads") == "old"
    assert not store.holds_project("/p")
