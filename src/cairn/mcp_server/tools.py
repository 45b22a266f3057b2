"""Who is calling and on which project: the open workspace behind the server, one view per
call (project and branch from the call's `cwd`, the tool from the client's name, a session
per project), calls one at a time, a library error turned into the tool's error."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from cairn.api import Cairn
from cairn.core.errors import CairnError
from cairn.io.store import SessionRow
from cairn.io.store.failures import failure
from cairn.io.workspace import (
    agent_project,
    checkout_root,
    current_branch,
    project_key,
    project_root,
)
from cairn.usecases.rekey import adopt_folder

T = TypeVar("T")


# (prefix of clientInfo.name, the tool name the hooks record): Claude Code says `claude-code`,
# Codex `codex-mcp-client`, Gemini CLI `gemini-cli-mcp-client`, Cursor `cursor-vscode`.
CLIENT_TOOLS = (
    ("claude-code", "claude-code"),
    ("codex", "codex"),
    ("gemini", "gemini"),
    ("cursor", "cursor"),
    ("opencode", "opencode"),
)


UNUSABLE = (
    "Cairn's memory is unavailable: {why}. Nothing was read or saved; carry on without it, "
    "and tell the user to run `cairn doctor` in a terminal."
)


def tool_name(client: str | None) -> str:
    """The tool name recorded for a client: the hooks' name for a known agent, else its own."""
    name = "-".join((client or "").strip().lower().split())
    for prefix, tool in CLIENT_TOOLS:
        if name.startswith(prefix):
            return tool
    return name or "mcp"


def client_name(request: Context) -> str | None:
    """The `clientInfo.name` of the connection a tool call came on, if the client gave one."""
    try:
        params = request.session.client_params
    except ValueError:  # called in-process, outside any client request
        return None
    return str(params.client_info.name) if params is not None else None


class Tools:
    """The open workspace behind the server: one view per call, calls one at a time."""

    def __init__(
        self,
        base: Cairn | None = None,
        *,
        opener: Callable[[], Cairn] | None = None,
        tool: str | None = None,
        session: str | None = None,
    ) -> None:
        self._base = base
        self._opener = opener
        self.tool = tool
        self.session = session
        self._sessions: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def base(self) -> Cairn:
        """The open workspace, opened now if it could not be opened before (ToolError if not)."""
        if self._base is None:
            if self._opener is None:
                raise ToolError(UNUSABLE.format(why="no store was given to the server"))
            try:
                self._base = self._opener()
            except CairnError as exc:
                raise ToolError(UNUSABLE.format(why=str(exc).rstrip("."))) from exc
            except (sqlite3.DatabaseError, OSError) as exc:
                raise ToolError(UNUSABLE.format(why=str(exc).rstrip("."))) from exc
        return self._base

    def close(self) -> None:
        """Close the store, if it was opened."""
        if self._base is not None:
            self._base.close()

    def view(self, cwd: str | None, client: str | None) -> Cairn:
        """The workspace as seen by this caller from `cwd` (its project, branch and session)."""
        base = self.base.ctx
        if cwd:
            folder, project = agent_project(cwd, base=base.cwd or base.root, own_project=base.root)
            where = Path(folder)
        else:
            # The server's own folder when it belongs to the default project (a worktree keeps
            # its branch), else the project folder itself.
            project = base.root
            own = bool(base.cwd) and str(project_root(base.cwd)) == project
            where = Path(base.cwd) if own else Path(project)
        if not self.session and project not in self._sessions:
            self._sessions[project] = f"mcp-{uuid.uuid4().hex[:12]}"
        session = self.session or self._sessions[project]
        view = self.base.using(
            project=project_key(project),
            root=project,
            cwd=str(where),
            branch=current_branch(checkout_root(where)),
            tool=self.tool or tool_name(client),
            session=session,
        )
        ctx = view.ctx
        if ctx.project != base.project:  # the base's own project moved when it was opened
            adopt_folder(view.store, ctx)
        self.base.store.upsert_session(
            SessionRow(session, ctx.tool, ctx.project, ctx.branch, ctx.cwd, ctx.now(), None)
        )
        return view

    def call(self, request: Context, cwd: str | None, action: Callable[[Cairn], T]) -> T:
        """Run `action` on the caller's view; a library error becomes the tool's error."""
        with self._lock:
            base = self.base
            # The server lives as long as the client: each call checks the trigger list
            # against the store (cheaply) and repairs it, as every `cairn.open()` does.
            base.check_triggers()
            try:
                return action(self.view(cwd, client_name(request)))
            except CairnError as exc:
                raise ToolError(str(exc)) from exc
            except sqlite3.DatabaseError as exc:
                # A fault met while reading rows, past the `execute` that explains most.
                raise ToolError(str(failure(exc, base.store.location))) from exc

    def end_sessions(self) -> None:
        """Mark the sessions this server recorded as ended (the client closed the connection)."""
        with self._lock:
            if self._base is None:
                return
            for session in set(self._sessions.values()):
                self._base.store.end_session(session, self._base.ctx.now())
