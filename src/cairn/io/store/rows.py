"""Value classes of the rows SQL returns that have no home in `cairn.core.models`: a session as
the hooks and MCP server saw it, and a progress record.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.io.store.hookread import SessionRow

__all__ = ["Progress", "SessionRow"]


@dataclass(frozen=True, slots=True)
class Progress:
    """One progress record of log_mission_progress."""

    pid: str
    project: str
    branch: str
    goal: str
    step: str
    status: str
    tool: str
    session: str
    at: str
