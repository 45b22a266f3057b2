"""Value classes of the rows SQL returns that have no home in `cairn.core.models`: a session as
the hooks and MCP server saw it, and a progress record.
"""

from __future__ import annotations

from cairn.core.value import Value
from cairn.io.store.hookread import SessionRow

__all__ = ["Progress", "SessionRow"]


class Progress(Value):
    """One progress record of log_mission_progress."""

    # Field order is the constructor order (and the repr's), so not sorted.
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
        self._assign(pid, project, branch, goal, step, status, tool, session, at)
