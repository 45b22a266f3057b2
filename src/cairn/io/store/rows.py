"""Value classes of the rows SQL returns that have no home in `cairn.core.models`: a session as
the hooks and MCP server saw it, and a progress record.
"""

from __future__ import annotations

from cairn.core.value import Value
from cairn.io.store.hookread import SessionRow

# Loaded when the hook opens the store: no dataclasses or typing at import time.
_set = object.__setattr__

__all__ = ["Progress", "SessionRow"]


class Progress(Value):
    """One progress record of log_mission_progress."""

    __slots__ = (  # noqa: RUF023
        "pid",
        "project",
        "branch",
        "goal",
        "step",
        "status",
        "tool",
        "session",
        "at",
    )
    pid: str
    project: str
    branch: str
    goal: str
    step: str
    status: str
    tool: str
    session: str
    at: str

    def __init__(
        self,
        pid: str,
        project: str,
        branch: str,
        goal: str,
        step: str,
        status: str,
        tool: str,
        session: str,
        at: str,
    ) -> None:
        _set(self, "pid", pid)
        _set(self, "project", project)
        _set(self, "branch", branch)
        _set(self, "goal", goal)
        _set(self, "step", step)
        _set(self, "status", status)
        _set(self, "tool", tool)
        _set(self, "session", session)
        _set(self, "at", at)
