"""The adapters, one module per agent, by the name `cairn-hook` and `cairn setup` use."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing: the hook imports this module
if TYPE_CHECKING:
    from types import ModuleType

ADAPTERS = {
    "claude-code": "cairn.hooks.claude_code",
    "claude": "cairn.hooks.claude_code",
    "codex": "cairn.hooks.codex",
    "gemini": "cairn.hooks.gemini",
    "cursor": "cairn.hooks.cursor",
    "opencode": "cairn.hooks.opencode",
}


def adapter(agent: str) -> ModuleType | None:
    """The adapter module for an agent name, or None."""
    name = ADAPTERS.get(agent.lower())
    if not name:
        return None
    __import__(name)  # not importlib: the hook would pay for importing it
    return sys.modules[name]
