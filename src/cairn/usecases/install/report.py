"""One line of the doctor's report (`cairn doctor`): the agent, scope and check, ok, warn or
fail, what was found, how long it took."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One line of the doctor's report."""

    agent: str
    scope: str
    name: str
    status: Status
    detail: str
    ms: float | None = None
    path: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The check as `--json` prints it."""
        return {
            "agent": self.agent,
            "scope": self.scope,
            "check": self.name,
            "status": self.status,
            "detail": self.detail,
            "ms": None if self.ms is None else round(self.ms, 1),
            "path": self.path,
        }
