"""Who is asking: project, checkout, tool, session, branch, and the clock."""

from __future__ import annotations

import os
import time

from cairn.core.value import Value

# `datetime` is imported where a datetime is made or read, not here: a hook call that fires a
# lesson needs only the current stamp and whole microseconds, and `datetime` would cost it
# ~2 ms. `now()` and `now_micros()` use `time` directly when the clock is the real one.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime
    from typing import Any

SECOND_US = 1_000_000
DAY_US = 86_400 * SECOND_US
# The one clock: when set, every path (library, CLI, hook, MCP) reads "now" from here, an ISO
# 8601 moment (`2026-11-01T12:00:00Z`), instead of the system clock. Tests set it; so can a
# user replaying a scenario. Unset, the system clock is used.
CLOCK_ENV = "CAIRN_NOW"


def utcnow() -> datetime:
    """The current time in UTC: `$CAIRN_NOW` when set, else the system clock."""
    from datetime import UTC, datetime

    fixed = os.environ.get(CLOCK_ENV)
    if fixed:
        return _fixed_moment(fixed)
    return datetime.now(UTC)


def now_micros() -> int:
    """`micros(utcnow())`, without `datetime` when the system clock is used."""
    fixed = os.environ.get(CLOCK_ENV)
    if fixed:
        return micros(_fixed_moment(fixed))
    return time.time_ns() // 1000


def now_seconds() -> float:
    """The current Unix time in seconds, from the same clock as `utcnow`."""
    return now_micros() / SECOND_US


def _fixed_moment(text: str) -> datetime:
    from cairn.core.errors import ConfigError

    try:
        return parse_stamp(text.strip())
    except ValueError:
        raise ConfigError(
            f"${CLOCK_ENV} must be an ISO 8601 moment such as 2026-11-01T12:00:00Z, not {text!r}"
        ) from None


def stamp(moment: datetime) -> str:
    """A sortable UTC timestamp: `2026-11-29T13:21:12.123456Z`."""
    from datetime import UTC

    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_stamp(text: str) -> datetime:
    """Read back a timestamp written by `stamp` (or any ISO 8601 form; naive means UTC)."""
    from datetime import UTC, datetime

    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def micros(moment: datetime) -> int:
    """A moment as whole microseconds since the Unix epoch (exact, unlike a float)."""
    from datetime import UTC, datetime, timedelta

    return (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


def stamp_micros(text: str) -> int:
    """`micros(parse_stamp(text))`, without `datetime` for the form `stamp` writes."""
    if len(text) in (20, 27) and text[-1] == "Z" and text[10] == "T" and _canonical(text):
        days = _days_from_civil(int(text[0:4]), int(text[5:7]), int(text[8:10]))
        seconds = days * 86_400 + int(text[11:13]) * 3600 + int(text[14:16]) * 60
        seconds += int(text[17:19])
        fraction = int(text[20:26]) if len(text) == 27 else 0
        return seconds * SECOND_US + fraction
    return micros(parse_stamp(text))


def _canonical(text: str) -> bool:
    """`YYYY-MM-DDTHH:MM:SS[.ffffff]Z` with digits where digits go and a valid date."""
    # Slices and str methods, not a loop over characters: tidy reads 100k stamps.
    long = len(text) == 27
    digits = text[0:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19]
    digits += text[20:26] if long else ""
    marks = text[4] + text[7] + text[10] + text[13] + text[16] + text[19:20] + text[-1]
    if not (digits.isascii() and digits.isdigit()):
        return False
    if marks != ("--T::.Z" if long else "--T::ZZ"):
        return False
    month, day = int(text[5:7]), int(text[8:10])
    if not (1 <= month <= 12 and 1 <= day <= _month_days(int(text[0:4]), month)):
        return False
    return int(text[11:13]) < 24 and int(text[14:16]) < 60 and int(text[17:19]) < 60


def _month_days(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def _stamp_of_micros(us: int) -> str:
    seconds, fraction = divmod(us, SECOND_US)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{fraction:06d}Z"


class Context(Value):
    """The caller of a use case. `project` is the project's key (`cairn.io.workspace.project_key`:
    its repository's remote, else its folder); `root` the project's folder on this machine
    (default: `project`); `cwd` the session checkout.

    Two contexts are equal when they name the same caller, whatever their clocks.
    """

    # Field order is the constructor order (and the repr's), so not sorted.
    __slots__ = ("project", "cwd", "tool", "session", "branch", "clock", "root")  # noqa: RUF023
    project: str
    cwd: str
    tool: str
    session: str
    branch: str
    clock: Callable[[], datetime]
    root: str

    def __init__(
        self,
        project: str,
        cwd: str = "",
        tool: str = "cli",
        session: str = "",
        branch: str = "",
        clock: Callable[[], datetime] = utcnow,
        root: str = "",
    ) -> None:
        _set = object.__setattr__
        _set(self, "project", project)
        _set(self, "cwd", cwd)
        _set(self, "tool", tool)
        _set(self, "session", session)
        _set(self, "branch", branch)
        _set(self, "clock", clock)
        _set(self, "root", root or project)

    def _values(self) -> tuple[Any, ...]:
        return (self.project, self.cwd, self.tool, self.session, self.branch, self.root)

    def replace(self, **changes: Any) -> Context:
        """A copy with some fields changed; a new `project` named by its folder (or replacing
        one named so) is its own root."""
        moved = "project" in changes and "root" not in changes
        if moved and (self.root == self.project or changes["project"].startswith("/")):
            changes["root"] = changes["project"]
        return super().replace(**changes)

    def now(self) -> str:
        """The current time as a stored timestamp."""
        if self.clock is utcnow:
            return _stamp_of_micros(now_micros())
        return stamp(self.clock())

    def now_micros(self) -> int:
        """The current time in whole microseconds since the Unix epoch."""
        if self.clock is utcnow:
            return now_micros()
        return micros(self.clock())

    def today(self) -> str:
        """The current UTC day, `YYYY-MM-DD`."""
        return self.now()[:10]
