"""`_canonical`, written with slices for speed, accepts exactly what the per-character check did."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import example, given, settings
from hypothesis import strategies as st

from cairn.core.context import _canonical, _month_days, stamp


def _canonical_by_characters(text: str) -> bool:
    shape = "dddd-dd-ddTdd:dd:dd.ddddddZ" if len(text) == 27 else "dddd-dd-ddTdd:dd:ddZ"
    for want, got in zip(shape, text, strict=True):
        if (want == "d" and got not in "0123456789") or (want != "d" and want != got):
            return False
    month, day = int(text[5:7]), int(text[8:10])
    if not (1 <= month <= 12 and 1 <= day <= _month_days(int(text[0:4]), month)):
        return False
    return int(text[11:13]) < 24 and int(text[14:16]) < 60 and int(text[17:19]) < 60


STAMP_CHARS = st.sampled_from(list("0123456789-T:.Z+ x\u0663"))


@settings(max_examples=500)
@given(
    st.one_of(
        st.text(STAMP_CHARS, min_size=20, max_size=20),
        st.text(STAMP_CHARS, min_size=27, max_size=27),
    )
)
@example("2026-11-01T12:00:00.000000Z")
@example("2026-11-01T12:00:00Z")
@example("2024-02-29T23:59:59Z")
@example("2023-02-29T23:59:59Z")
def test_the_fast_check_agrees_with_the_character_check(text: str) -> None:
    assert _canonical(text) == _canonical_by_characters(text)


@settings(max_examples=300)
@given(st.datetimes(timezones=st.just(UTC)))
def test_every_stamp_written_is_canonical(moment: datetime) -> None:
    text = stamp(moment)
    assert _canonical(text) == _canonical_by_characters(text) == (len(text) == 27)
