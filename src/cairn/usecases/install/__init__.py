"""Installing Cairn into coding agents: `setup()` writes their hook and MCP config, `doctor()`
checks it. The CLI (`cairn setup`, `cairn doctor`) is a thin shell over these two.

    from cairn.usecases.install import setup, doctor
    result = setup("claude-code", "project", "/work/app", dry_run=True)
    print(result.changes[0].diff)
    for check in doctor("/work/app"):
        print(check.agent, check.name, check.status, check.detail)

One module per agent (claude, codex, gemini, cursor, opencode); `files` and `merge` hold the
rules every config edit follows (see `cairn.usecases.install.files`), `command` the hook command and
why it is the one chosen.
"""

from __future__ import annotations

from cairn.usecases.install.apply import AGENTS, FileChange, SetupResult, setup
from cairn.usecases.install.doctor import Check, doctor
from cairn.usecases.install.files import InstallError
from cairn.usecases.install.plan import SCOPES, Scope

__all__ = [
    "AGENTS",
    "SCOPES",
    "Check",
    "FileChange",
    "InstallError",
    "Scope",
    "SetupResult",
    "doctor",
    "setup",
]
