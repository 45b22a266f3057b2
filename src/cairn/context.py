"""Who is asking: project, checkout, tool, session, branch, and the clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime


def utcnow() -> datetime:
    """The current time in UTC."""
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """A sortable UTC timestamp: `2026-11-29T13:21:12.123456Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_stamp(text: str) -> datetime:
    """Read back a timestamp written by `stamp` (or any ISO 8601 form; naive means UTC)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Context:
    """The caller of a use case. `project` is the project root; `cwd` the session checkout."""

    project: str
    cwd: str = ""
    tool: str = "cli"
    session: str = ""
    branch: str = ""
    clock: Callable[[], datetime] = field(default=utcnow, compare=False)

    def now(self) -> str:
        """The current time as a stored timestamp."""
        return stamp(self.clock())

    def today(self) -> str:
        """The current UTC day, `YYYY-MM-DD`."""
        return self.now()[:10]
