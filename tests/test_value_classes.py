"""The firing path's value classes (`cairn.core.value.Value`) behave like frozen dataclasses:
equal and hashed by fields, a repr naming them, no assignment, `replace` and `as_dict`, and
copies and pickles that give back an equal value."""

from __future__ import annotations

import copy
import pickle

import pytest

from cairn.core.firing import FiringEvent, FiringTrigger


def test_values_with_the_same_fields_are_equal_and_hash_alike() -> None:
    one = FiringTrigger("shell", match=r"git push")
    same = FiringTrigger("shell", match=r"git push")
    other = FiringTrigger("shell", match=r"git commit")
    assert one == same
    assert hash(one) == hash(same)
    assert one != other
    assert len({one, same, other}) == 2


def test_a_value_is_never_equal_to_another_class_with_the_same_fields() -> None:
    event = FiringEvent("m1", "fired", "2026-01-01T00:00:00Z")
    assert event != ("m1", "fired", "2026-01-01T00:00:00Z")
    assert event.__eq__(object()) is NotImplemented


def test_the_repr_names_each_field_in_constructor_order() -> None:
    trigger = FiringTrigger("edit", path="src/*.py")
    assert repr(trigger) == "FiringTrigger(tool='edit', match=None, path='src/*.py')"


def test_a_value_cannot_be_changed_or_emptied() -> None:
    trigger = FiringTrigger("shell", match="rm")
    with pytest.raises(AttributeError, match="FiringTrigger is immutable: cannot set 'tool'"):
        trigger.tool = "edit"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="FiringTrigger is immutable: cannot delete 'match'"):
        del trigger.match
    assert trigger.tool == "shell"
    assert trigger.match == "rm"


def test_replace_changes_named_fields_and_refuses_unknown_ones() -> None:
    trigger = FiringTrigger("shell", match="rm")
    changed = trigger.replace(match="rm -rf")
    assert changed == FiringTrigger("shell", match="rm -rf")
    assert trigger.match == "rm"
    with pytest.raises(TypeError, match="FiringTrigger has no field 'glob'"):
        trigger.replace(glob="*.py", zz=1)


def test_as_dict_gives_the_fields_in_constructor_order() -> None:
    event = FiringEvent("m1", "cited", "2026-01-01T00:00:00Z")
    assert list(event.as_dict().items()) == [
        ("ref", "m1"),
        ("event", "cited"),
        ("at", "2026-01-01T00:00:00Z"),
    ]


def test_copies_are_the_value_itself_and_a_pickle_round_trips() -> None:
    trigger = FiringTrigger("edit", path="docs/**")
    assert copy.copy(trigger) is trigger
    assert copy.deepcopy({"t": trigger})["t"] is trigger
    back = pickle.loads(pickle.dumps(trigger))
    assert back == trigger
    assert type(back) is FiringTrigger
