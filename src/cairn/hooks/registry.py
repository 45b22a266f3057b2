"""The adapters, one module per agent, by the name `cairn-hook` and `cairn setup` use."""

from __future__ import annotations

import importlib
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
    return importlib.import_module(name) if name else None
