"""Memories through the `Store` protocol: versions, revisions, counts, the index rows."""

from __future__ import annotations

import pytest

from cairn.core.errors import ConflictError, UnknownRefError
from cairn.core.models import Trigger
from cairn.io.store.protocol import Store
from tests.store_contract.conftest import T0, memory, put

T1 = "2026-11-02T12:00:00.000000Z"


def test_a_memory_reads_back_as_written(store: Store) -> None:
    m = memory(
        "m-000001",
        "Run make check before pushing",
        kind="lesson",
        tags=("ci", "trigger:git-push"),
        reason="CI is slow",
        source_ref="Makefile:1-3",
        when=Trigger(tool="shell", match="git push"),
        branch="main",
        pinned=True,
        tool="codex",
        session="s1",
        fingerprint="fp",
        gate=True,
    )
    written = put(store, m)
    read = store.get_memory("m-000001")
    assert read == written
    assert (read.text, read.kind, read.tags, read.when) == (m.text, "lesson", m.tags, m.when)
    assert (read.pinned, read.gate, read.fingerprint, read.revision) == (True, True, "fp", 1)
    assert read.last_touched == T0
    assert store.get_memories(["m-000001", "m-nope"]) == {"m-000001": read}


def test_an_unknown_ref_is_refused(store: Store) -> None:
    with pytest.raises(UnknownRefError):
        store.get_memory("m-ffffff")


def test_a_taken_ref_is_drawn_again(store: Store) -> None:
    first = put(store, memory("m-000001", "one"))
    second = put(store, memory("m-000001", "two"))
    assert first.ref == "m-000001" and second.ref != "m-000001"
    assert store.get_memory(second.ref).text == "two"


def test_an_edit_checks_the_revision(store: Store) -> None:
    m = put(store, memory("m-000001", "one"))
    pinned = store.update_memory(m, pinned=True)
    assert pinned.pinned and pinned.revision == 2
    with pytest.raises(ConflictError):
        store.update_memory(m, pinned=False)  # revision 1 is gone
    assert store.get_memory("m-000001").pinned


def test_every_version_of_a_claim_is_kept(store: Store) -> None:
    old = put(store, memory("m-000001", "deploys go out on Fridays"))
    new = put(
        store, memory("m-000002", "deploys go out on Thursdays", replaces=old.ref, written=T1)
    )
    store.update_memory(old, until=T1, replaced_by=new.ref)
    older, newer = store.history_chain(new.ref)
    assert [m.ref for m in older] == [old.ref] and newer == []
    older, newer = store.history_chain(old.ref)
    assert older == [] and [m.ref for m in newer] == [new.ref]
    assert [m.ref for m in store.list_memories(project="/p")] == [new.ref]
    assert {m.ref for m in store.list_memories(project="/p", current=False)} == {old.ref, new.ref}
    assert store.count_memories("/p") == 1
    believed = store.memories_as_of("/p", "2026-11-01T18:00:00.000000Z")
    assert [m.ref for m in believed.values()] == [old.ref]


def test_find_current_sees_the_project_and_the_workspace(store: Store) -> None:
    put(store, memory("m-000001", "Use uv", project="/a"))
    put(store, memory("m-000002", "Tabs are wrong", project="/a", scope="workspace"))
    assert store.find_current("/a", "use uv") is not None
    assert store.find_current("/b", "use uv") is None
    found = store.find_current("/b", "tabs are wrong")
    assert found is not None and found.ref == "m-000002"
    assert (store.count_memories("/a"), store.count_memories("/b"), store.count_memories()) == (
        2,
        1,
        2,
    )


def test_a_forgotten_memory_leaves_the_counts(store: Store) -> None:
    m = put(store, memory("m-000001", "one"))
    store.update_memory(m, status="retired", until=T1)
    assert store.count_memories("/p") == 0
    assert store.list_memories(project="/p") == []
    assert [x.ref for x in store.list_memories(status="retired")] == ["m-000001"]


def test_tags_kinds_and_limits_filter_the_list(store: Store) -> None:
    put(store, memory("m-000001", "one", tags=("a",), written="2026-11-01T10:00:00.000000Z"))
    put(store, memory("m-000002", "two", kind="decision", written="2026-11-01T11:00:00.000000Z"))
    put(store, memory("m-000003", "three", tags=("a",), written="2026-11-01T12:00:00.000000Z"))
    assert [m.ref for m in store.list_memories(project="/p")] == [
        "m-000003",
        "m-000002",
        "m-000001",
    ]
    assert [m.ref for m in store.list_memories(tag="a")] == ["m-000003", "m-000001"]
    assert [m.ref for m in store.list_memories(kind="decision")] == ["m-000002"]
    assert [m.ref for m in store.list_memories(limit=1)] == ["m-000003"]
    assert [m.ref for m in store.memories_with_tag("a", "/p")] == ["m-000003", "m-000001"]
    assert store.memories_with_tag("a", "/q") == []


def test_touch_only_moves_forward(store: Store) -> None:
    put(store, memory("m-000001", "one"))
    store.touch(["m-000001"], T1)
    store.touch(["m-000001"], T0)
    assert store.get_memory("m-000001").last_touched == T1


def test_the_index_rows_are_read_by_rowid(store: Store) -> None:
    assert store.change_count() == 0
    put(store, memory("m-000001", "refused deploys", tags=("ops",)))
    put(store, memory("m-000002", "green builds"))
    rows = store.index_rows_after(0)
    assert [r[1] for r in rows] == ["m-000001", "m-000002"]
    first, second = rows[0][0], rows[1][0]
    assert store.index_rows_after(first) == rows[1:]
    assert store.index_rows_after(0, 1) == rows[:1]  # a page: the first `limit` rows
    assert store.index_rows_after(first, 5) == rows[1:]
    assert store.change_count() == second
    assert store.refs_at_rowids([second, first, -1]) == ["m-000002", "m-000001", ""]
    assert set(store.memories_by_ids([first])) == {first}
    assert store.current_among([first, second]) == {first, second}
    assert store.current_rowids() == [first, second]
    assert "refus" in store.index_words([first])[first]
    # No `memories` row in index_stats: nothing read it (recall counts from its postings).
    assert store.index_stats("memories") == (0, 0)


def test_the_trigger_generation_moves_with_lessons_only(store: Store) -> None:
    store_id, gen = store.trigger_generation()
    assert store_id and gen == 0
    put(store, memory("m-000001", "a plain fact"))
    assert store.trigger_generation() == (store_id, 0)
    lesson = put(store, memory("m-000002", "x", when=Trigger(tool="shell", match="git push")))
    _, gen = store.trigger_generation()
    assert gen > 0
    assert [m.ref for m in store.trigger_memories()] == ["m-000002"]
    store.update_memory(lesson, status="retired", until=T1)
    changes = store.trigger_changes(0)
    assert changes is not None
    assert [(r, op) for _, r, op in changes] == [("m-000002", "add"), ("m-000002", "drop")]
    assert store.trigger_memories() == []


def test_memory_records_are_the_dump_and_unchanged_lines_are_exact(store: Store) -> None:
    import json

    put(store, memory("m-000001", "Redis holds the cache", tags=("ops",), pinned=True))
    put(store, memory("m-000002", "Run the gate", when=Trigger("shell", match="git push")))
    dumped = {r["ref"]: r for r in store.dump(derived=False) if r["type"] == "memory"}
    assert store.memory_records(["m-000001", "m-000002", "m-0000ff"]) == dumped
    line = json.dumps(dumped["m-000001"], ensure_ascii=False, sort_keys=True)
    changed = line.replace('"pinned": true', '"pinned": 1')
    named = store.unchanged_memories([changed, line, "{", "[]"])
    assert named in ({1: "m-000001"}, {})  # a store may name fewer, never a changed line
