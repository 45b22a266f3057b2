"""Stamps: what `Context.now` writes, and reading stamps back without `datetime`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.core.context import Context, micros, parse_stamp, stamp, stamp_micros, utcnow

# `stamp` writes four-digit years (strftime writes 999 as "999").
MOMENTS = st.datetimes(
    min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC)
)


@given(MOMENTS)
def test_stamp_micros_reads_a_stamp_as_datetime_does(moment: datetime) -> None:
    text = stamp(moment)
    assert stamp_micros(text) == micros(parse_stamp(text)) == micros(moment)


@given(MOMENTS)
def test_a_stamp_without_fraction_or_with_an_offset_is_read_too(moment: datetime) -> None:
    whole = moment.replace(microsecond=0)
    assert stamp_micros(whole.strftime("%Y-%m-%dT%H:%M:%SZ")) == micros(whole)
    if moment.year < 9999:
        shifted = whole.astimezone(timezone(timedelta(hours=2))).isoformat()
        assert stamp_micros(shifted) == micros(whole)


@pytest.mark.parametrize("text", ["2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "x" * 27])
def test_a_malformed_stamp_is_refused_as_parse_stamp_refuses_it(text: str) -> None:
    with pytest.raises(ValueError):
        parse_stamp(text)
    with pytest.raises(ValueError):
        stamp_micros(text)


def test_the_real_clock_stamps_like_stamp_does() -> None:
    ctx = Context(project="/p")
    before = micros(utcnow())
    text, us = ctx.now(), ctx.now_micros()
    after = micros(utcnow())
    assert len(text) == len(stamp(utcnow())) and text.endswith("Z")
    assert before <= stamp_micros(text) <= us <= after


def test_a_fixed_clock_is_used_as_given() -> None:
    at = datetime(2026, 11, 29, 13, 21, 12, 123456, tzinfo=UTC)
    ctx = Context(project="/p", clock=lambda: at)
    assert ctx.now() == "2026-11-29T13:21:12.123456Z"
    assert ctx.now_micros() == micros(at)
    assert ctx.today() == "2026-11-29"


def test_a_context_keeps_its_folder_apart_from_its_project_key() -> None:
    keyed = Context("git:github.com/acme/app", root="/home/a/app")
    assert (keyed.project, keyed.root) == ("git:github.com/acme/app", "/home/a/app")
    assert keyed.replace(project="git:h/o/other").root == "/home/a/app"
    assert keyed.replace(project="/srv/other").root == "/srv/other"
    by_folder = Context("/srv/app")
    assert by_folder.root == "/srv/app"
    assert by_folder.replace(project="git:h/o/r").root == "git:h/o/r"
    assert keyed != keyed.replace(root="/home/b/app")
