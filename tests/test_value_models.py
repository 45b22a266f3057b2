"""The value classes a new `cairn recall --json` process defines (`cairn.core.models`, the
query, the gate's reading, the store's rows, recall's and docs' answers) are `Value` classes,
not dataclasses, and keep what `@dataclass(frozen=True)` gave them: constructor order and
defaults, equality and hashing by fields, a repr naming the fields, `replace`, `as_dict`, no
assignment, pickles that round-trip."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest

from cairn.core.models import Citation, Event, Hit, Memory, Trigger
from cairn.core.rank.blend import sort_key
from cairn.core.rank.gate import SIZE_REFERENCE, Reading
from cairn.core.rank.lsa import LsaModel
from cairn.core.text.query import Query
from cairn.core.value import Value
from cairn.io.store.memories import IndexText
from cairn.io.store.rows import Progress
from cairn.io.store.sqlite_docs import DocPage
from cairn.usecases.docs import DocWatch, Indexed
from cairn.usecases.recall import Recalled

TRIGGER = Trigger("shell", match="git push")
MEMORY = Memory("m-000001", "Deploys go through the queue.", "fact", "/p", tags=("deploy",))
HIT = Hit("m-000001", "fact", "Deploys go through the queue.", 0.5)
# One of each class, positionally where the old dataclass was built so.
VALUES: list[Value] = [
    TRIGGER,
    MEMORY,
    Citation("same", "src/a.py", (1, 4)),
    HIT,
    Event("e1", "m-000001", "cited", "cli", "s1", "2026-01-01T00:00:00.000000Z"),
    Query(["deploy", "queue"], {"preprod": ("pre", "prod")}),
    Reading(1.5, 0, 2.0, 11.1),
    IndexText("deploy queue", "deploy", "", ""),
    Progress("p1", "/p", "main", "ship", "step", "done", "cli", "s1", "2026-01-01"),
    DocPage(1, "/p", "README.md", "Setup", 0, "Run make."),
    Indexed(3, 1, 0, 7),
    Recalled("deploy", [HIT], None),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_a_converted_value_is_equal_to_its_rebuild_and_immutable(value: Value) -> None:
    fields = value.as_dict()
    assert list(fields) == list(type(value).__slots__)
    rebuilt = type(value)(**fields)
    assert rebuilt == value
    assert rebuilt is not value
    assert pickle.loads(pickle.dumps(value)) == value
    assert copy.deepcopy(value) is value
    first = next(iter(fields))
    with pytest.raises(AttributeError, match="is immutable"):
        setattr(value, first, fields[first])
    assert not hasattr(value, "__dict__")
    assert not hasattr(type(value), "__dataclass_fields__")


def test_memory_keeps_its_defaults_order_and_repr() -> None:
    memory = Memory("m-000002", "Use uv.", "preference", "/p")
    assert (memory.tags, memory.scope, memory.status, memory.revision, memory.gate) == (
        (),
        "project",
        "active",
        1,
        False,
    )
    assert repr(memory).startswith(
        "Memory(ref='m-000002', text='Use uv.', kind='preference', project='/p', tags=(), "
    )
    assert repr(memory).endswith("last_touched='', fingerprint='', gate=False)")
    assert list(memory.as_dict())[-3:] == ["last_touched", "fingerprint", "gate"]


def test_replace_changes_a_memory_s_named_fields_only() -> None:
    retired = MEMORY.replace(status="retired", until="2026-02-01T00:00:00.000000Z")
    assert not retired.is_current
    assert MEMORY.is_current
    assert retired.replace(status="active", until=None) == MEMORY
    assert hash(retired.replace(status="active", until=None)) == hash(MEMORY)
    with pytest.raises(TypeError, match="Memory has no field 'colour'"):
        MEMORY.replace(colour="red")


def test_memories_and_triggers_hash_by_their_fields() -> None:
    same = Memory("m-000001", "Deploys go through the queue.", "fact", "/p", tags=("deploy",))
    assert len({MEMORY, same, MEMORY.replace(text="Other.")}) == 2
    assert len({TRIGGER, Trigger("shell", "git push"), Trigger("edit", path="*.py")}) == 2


def test_none_for_a_hit_s_extra_or_an_event_s_detail_is_an_empty_dict_of_its_own() -> None:
    one, two = Hit("r", "fact", "l", 1.0, extra=None), Hit("r", "fact", "l", 1.0)
    assert one.extra == two.extra == {}
    assert one.extra is not two.extra
    assert one == two
    first = Event("e", "r", "cited", "t", "s", "at", None, None)
    second = Event("e", "r", "cited", "t", "s", "at")
    assert first.detail == second.detail == {}
    assert first.detail is not second.detail
    assert first == second


def test_a_hit_with_extra_fields_cannot_be_hashed_as_before() -> None:
    with pytest.raises(TypeError, match="unhashable"):
        hash(HIT)


def test_a_query_s_groups_default_to_an_empty_dict() -> None:
    query = Query(["deploy"])
    assert query.groups == {}
    assert query == Query(["deploy"], {})
    assert repr(query) == "Query(terms=['deploy'], groups={})"


def test_a_reading_defaults_and_replace_as_the_gate_reads_it() -> None:
    reading = Reading(1.5, 0, 2.0, 11.1)
    assert (reading.n_docs, reading.lead) == (SIZE_REFERENCE, 0.0)
    led = reading.replace(lead=3.0)
    assert led == Reading(1.5, 0, 2.0, 11.1, SIZE_REFERENCE, 3.0)
    assert reading.lead == 0.0
    assert hash(led) == hash(Reading(1.5, 0, 2.0, 11.1, lead=3.0))


def test_a_recalled_answer_compares_and_shows_without_its_gate_reading() -> None:
    reading = Reading(1.5, 0, 2.0, 11.1)
    with_gate = Recalled("deploy", [HIT], None, gate=reading)
    assert with_gate == Recalled("deploy", [HIT])
    assert with_gate.gate is reading
    assert Recalled("deploy").hits == []
    assert repr(with_gate) == f"Recalled(query='deploy', hits=[{HIT!r}], as_of=None)"
    assert with_gate.replace(as_of="2026-01-01").gate is reading


def test_indexed_prints_its_counts_in_order() -> None:
    assert Indexed(3, 1, 0, 7, pending=1).to_dict() == {
        "files": 3,
        "changed": 1,
        "removed": 0,
        "pages": 7,
        "withheld": 0,
        "pending": 1,
    }


def test_an_lsa_model_is_equal_only_to_itself() -> None:
    idf = np.ones(2)
    vectors = np.zeros((2, 1), dtype=np.float32)
    model = LsaModel({"a": 0, "b": 1}, idf, vectors)
    twin = LsaModel({"a": 0, "b": 1}, idf, vectors)
    assert model == model
    assert model != twin
    assert len({model, twin}) == 2
    assert model.dims == 1
    with pytest.raises(AttributeError, match="is immutable"):
        model.idf = idf  # type: ignore[misc]


def test_sort_key_orders_higher_scores_then_newer_then_smaller_refs() -> None:
    keys = [
        sort_key(0.5, "2026-01-01", "m-b"),
        sort_key(0.9, "2025-01-01", "m-z"),
        sort_key(0.5, "2026-03-01", "m-c"),
        sort_key(0.5, "2026-01-01", "m-a"),
        sort_key(0.5, "", "m-0"),
    ]
    order = [key[2] for key in sorted(keys)]
    assert order == ["m-z", "m-c", "m-a", "m-b", "m-0"]
    assert sort_key(0.5, "x", "r") == sort_key(0.5, "x", "r")


def test_a_doc_watch_starts_empty_and_changes_in_place(tmp_path: Any) -> None:
    watch = DocWatch(str(tmp_path))
    assert (watch.files, watch.indexed, watch.cursor, watch.pending) == ({}, None, 0, True)
    assert watch.real_root == str(tmp_path.resolve())
    watch.cursor = 3
    watch.pending = False
    assert (watch.cursor, watch.pending) == (3, False)
    with pytest.raises(AttributeError):
        watch.colour = "red"  # type: ignore[attr-defined]
