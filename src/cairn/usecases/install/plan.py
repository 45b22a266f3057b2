"""The vocabulary the agent modules share: where to install, what to change, what is there."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cairn.usecases.install.command import Launch
from cairn.usecases.install.files import Edit

Scope = Literal["project", "user"]
SCOPES: tuple[Scope, ...] = ("project", "user")
HOOK_TIMEOUT_S = 5  # the hook stops itself after CAIRN_HOOK_BUDGET (1 s); this is the backstop


@dataclass(frozen=True)
class Target:
    """One install: the scope, the project folder, the user's home, how Cairn is started."""

    scope: Scope
    project: Path
    user_home: Path
    launch: Launch
    store: Path
    trust: bool = False  # Codex: write trust entries for Cairn's hooks (`--trust`)

    @property
    def base(self) -> Path:
        """The folder the agent's config folders live in for this scope."""
        return self.project if self.scope == "project" else self.user_home

    @property
    def backups(self) -> Path:
        """Where setup keeps copies of the files it changes: in Cairn's folder, not the project."""
        return self.store / "backups"

    def xdg_config(self) -> Path:
        """`$XDG_CONFIG_HOME`, else ~/.config."""
        configured = os.environ.get("XDG_CONFIG_HOME")
        return Path(configured) if configured else self.user_home / ".config"


@dataclass
class Plan:
    """What one agent's setup (or uninstall) changes, and what the user must know."""

    edits: list[Edit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class HookSite:
    """One Cairn hook registered in an agent's config, as `cairn doctor` probes it."""

    event: str
    command: str = ""
    argv: tuple[str, ...] = ()
    timeout_s: float = HOOK_TIMEOUT_S
    key: str = ""
    hash: str = ""


@dataclass(frozen=True)
class Installed:
    """What Cairn finds of itself in one agent's config at one scope."""

    agent: str
    scope: Scope
    config: Path
    hooks: tuple[HookSite, ...]
    probe: tuple[str, dict[str, Any]]
    server: dict[str, Any] | None = None
    server_file: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def tool_hook(self) -> HookSite | None:
        """The hook that fires on a tool call (the one doctor feeds its probe payload)."""
        for site in self.hooks:
            if site.event == self.probe[0]:
                return site
        return None
