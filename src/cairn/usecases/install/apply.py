"""`setup()`: plan an agent's edits, then show them (dry run) or carry them out."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from cairn.io.store import default_home
from cairn.io.workspace import project_root
from cairn.usecases.install import claude, codex, cursor, gemini, opencode
from cairn.usecases.install.command import launch
from cairn.usecases.install.files import BACKUPS_KEPT, InstallError, kept_backups
from cairn.usecases.install.files import apply as apply_edit
from cairn.usecases.install.plan import SCOPES, Scope, Target

AGENTS: dict[str, ModuleType] = {
    "claude-code": claude,
    "codex": codex,
    "gemini": gemini,
    "cursor": cursor,
    "opencode": opencode,
}
ALIASES = {"claude": "claude-code", "gemini-cli": "gemini"}


@dataclass(frozen=True)
class FileChange:
    """One file setup created, updated or deleted (or would, in a dry run)."""

    path: Path
    action: str
    diff: str
    backup: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        """The change as `--json` prints it."""
        return {
            "path": str(self.path),
            "action": self.action,
            "diff": self.diff,
            "backup": str(self.backup) if self.backup else None,
        }


@dataclass(frozen=True)
class SetupResult:
    """What `setup` did for one agent: files changed, their diffs, and notes for the user."""

    agent: str
    scope: Scope
    project: Path
    uninstall: bool
    dry_run: bool
    hook_command: str
    changes: tuple[FileChange, ...]
    notes: tuple[str, ...]

    @property
    def changed(self) -> bool:
        """True when a file changed (or would, in a dry run)."""
        return any(c.action != "unchanged" for c in self.changes)

    def to_dict(self) -> dict[str, Any]:
        """The result as `--json` prints it."""
        return {
            "agent": self.agent,
            "scope": self.scope,
            "project": str(self.project),
            "uninstall": self.uninstall,
            "dry_run": self.dry_run,
            "changed": self.changed,
            "hook_command": self.hook_command,
            "files": [c.to_dict() for c in self.changes],
            "notes": list(self.notes),
        }


def agent_name(agent: str) -> str:
    """The canonical agent name; raises InstallError for an unknown one."""
    name = ALIASES.get(agent.lower(), agent.lower())
    if name not in AGENTS:
        raise InstallError(f"unknown agent {agent!r}: choose one of {', '.join(AGENTS)}")
    return name


def target(
    scope: Scope,
    project_dir: str | os.PathLike[str] | None,
    home: str | os.PathLike[str] | None = None,
    executable: str | None = None,
    *,
    trust: bool = False,
) -> Target:
    """Where to install: the project (git root of the cwd by default) and this Cairn."""
    if scope not in SCOPES:
        raise InstallError(f"unknown scope {scope!r}: choose project or user")
    project = Path(project_dir).expanduser().resolve() if project_dir else project_root()
    how = launch(home, executable, portable=scope == "project")
    store = Path(how.home) if how.home else default_home()
    return Target(scope, project, Path.home(), how, store, trust)


def setup(
    agent: str,
    scope: Scope = "project",
    project_dir: str | os.PathLike[str] | None = None,
    uninstall: bool = False,
    dry_run: bool = False,
    *,
    home: str | os.PathLike[str] | None = None,
    executable: str | None = None,
    trust: bool = False,
) -> SetupResult:
    """Register Cairn's hooks and MCP server in an agent's own files (or remove them).

    `home` is the store folder to write into the hook command (default: none, so the hook
    uses `$CAIRN_HOME` or the default folder); `executable` overrides `sys.executable`;
    `trust` (Codex only) writes trust entries for Cairn's hooks into Codex's config.toml, the
    approval Codex otherwise asks the user for under /hooks.
    Every file is parsed and planned before the first one is written, so a refused file
    leaves all of them untouched.
    """
    name = agent_name(agent)
    where = target(scope, project_dir, home, executable, trust=trust)
    planned = AGENTS[name].plan(where, uninstall)
    changes = []
    for edit in planned.edits:
        backup = None if dry_run else apply_edit(edit, where.backups)
        changes.append(FileChange(edit.path, edit.action, edit.diff(), backup))
    notes = list(planned.notes)
    if not any(c.action != "unchanged" for c in changes):
        notes.insert(
            0,
            "Nothing to remove: Cairn is not installed here."
            if uninstall
            else "Already up to date: nothing changed.",
        )
    if uninstall:
        notes += backup_notes(where.backups, [e.path for e in planned.edits])
    elif scope == "project" and where.launch.home and name != "claude-code":
        notes.append(
            f"The project's hooks run `cairn-hook` with the agent's environment: export "
            f"CAIRN_HOME={where.launch.home} in your shell profile so they read the store "
            f"the MCP server was given (Claude Code alone has a personal settings file for it)."
        )
    probe = AGENTS[name].PROBE_EVENT
    return SetupResult(
        name,
        scope,
        where.project,
        uninstall,
        dry_run,
        where.launch.hook_command(name, probe),
        tuple(changes),
        tuple(notes),
    )


def backup_notes(root: Path, paths: list[Path]) -> list[str]:
    """One note per file of `paths` Cairn keeps copies of: where they are, newest first."""
    kept = kept_backups(root)
    notes = []
    for path in paths:
        found = kept.get(path)
        if found:
            notes.append(
                f"Copies of {path} from before Cairn changed it (the newest {BACKUPS_KEPT} are "
                f"kept): {', '.join(str(p) for p in found)}"
            )
    return notes
