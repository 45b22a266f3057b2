"""The MCP server: six tools over stdio with the official `mcp` SDK, thin over the library.

    recall({query, cwd, as_of?, also?, kind?, limit?})          -> {"query", "results": [...]}
    get_memory({refs})                                           -> {"memories": [...], "unknown"}
    remember({text, kind?, tags?, reason?, source_ref?, when?, pinned?, replaces?, used?,
              gate?})                                            -> {"ref", "outcome", ...}
    log_mission_progress({goal, step, status, used?})            -> {"pid", "branch", ..., "brief"}
    get_action_rules({action, k?})                               -> {"action", "rules": [...]}
    tidy({accept?, decline?})                                    -> {"proposals": [...]}, ...

Every tool also takes an optional `cwd` (required on recall, as the spec writes it): the folder
the agent works in. Its git root is the project and its checkout gives the branch, read again on
every call, so a worktree session sees its own branch. Without `cwd` a call uses the project the
server was started for (`--project`, else the server's own folder). A `cwd` must name a project
(`cairn.io.workspace.agent_project`): a git checkout, the server's own project or a folder in the
user's home, never `/` or a system folder.

Who is calling. The store is opened once; each call gets a view (`Cairn.using`) with:
- `tool`: `--tool` / `$CAIRN_TOOL` when set, else the name the client gave in its initialize
  request (`clientInfo.name`), mapped to the names the hooks use (`claude-code`, `codex`,
  `gemini`, `cursor`, `opencode`) so echo and confirmation tell the same tools apart on both
  paths; an unknown client keeps its own name, and none at all gives `mcp`.
- `session`: `--session` / `$CAIRN_SESSION` when set, else one random id (`mcp-` + 12 hex) per
  server process and project. Over stdio one process serves one client connection, and the
  SDK gives stdio connections no session id of their own. The session is recorded with its
  branch on every call, so the branch brief lists it, and marked ended when the client closes.

Errors. A `CairnError` (a refusal, an unknown ref, a bad argument, a store that cannot be
written) comes back as a tool error (`isError: true`) carrying the library's message; arguments
that do not fit a tool's schema come back the same way, as one sentence naming the field (never
the SDK's validation dump). Every field has remember's limits; `limit` has recall's (1 to 25).
A store that cannot be opened (its folder is a file, its database is damaged) does not stop the
server: it starts, lists its tools and answers every call with an error saying what is wrong
and what to run, and opens the store again on the next call, so it works once the store is
repaired. An agent never sees "failed to connect" for Cairn.
A line that is not a JSON-RPC message is answered with JSON-RPC's error (-32700,
-32600; `serve_stdio`). The server keeps running.

Calls are serialised by one lock: the SDK runs each tool in a worker thread, and the store is
one SQLite connection.

`mcp` is imported here and nowhere else in Cairn; `cairn mcp` runs this module by name.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sqlite3
import sys
import threading
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import Field, ValidationError

from cairn import __version__
from cairn.api import Cairn
from cairn.api import open as open_cairn
from cairn.core.errors import CairnError
from cairn.core.rank import MAX_LIMIT
from cairn.io.store import SessionRow
from cairn.io.store.backends import open_store
from cairn.io.store.failures import failure
from cairn.io.store.protocol import Store
from cairn.io.workspace import (
    agent_project,
    checkout_root,
    current_branch,
    project_key,
    project_root,
)
from cairn.usecases.calls import RULES_K, recall_for_action
from cairn.usecases.progress import log_mission_progress as log_progress
from cairn.usecases.rekey import adopt_folder

if TYPE_CHECKING:
    from cairn.usecases.recall import Recalled

__all__ = ["CLIENT_TOOLS", "Tools", "build_server", "main", "tool_name"]

T = TypeVar("T")
Kind = Literal["fact", "decision", "preference", "lesson", "rule", "progress"]
RecallKind = Literal["pages", "fact", "decision", "preference", "lesson", "rule", "progress"]

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

INSTRUCTIONS = """\
Cairn is this project's memory: facts, decisions, preferences, lessons, rules and the branch's \
progress, kept on this machine. Before a task, `recall` what the project knows about it (ask \
"what is open" for the branch's goal and open items) and read what you rely on with \
`get_memory`. Right before `git commit`, `gh pr create` or a push, call `get_action_rules` and \
follow the rules it returns. Log each step of your mission with `log_mission_progress`. When \
you learn something a later session needs, `remember` it in one sentence. List the refs of \
memories that shaped your work in `used`, never in your reply."""

Cwd = Annotated[
    str | None,
    Field(
        description="The folder you work in (absolute path); selects the project and branch. "
        "Default: the folder the server was started in."
    ),
]
Used = Annotated[
    list[str] | None,
    Field(
        description="Refs of memories that shaped this work (e.g. ['m-7f3a2c']); each counts "
        "as cited. Unknown refs come back under `unknown_used`."
    ),
]
# recall
Query = Annotated[str, Field(description="A few words about what you are looking for.")]
RecallCwd = Annotated[
    str, Field(description="The folder you work in (absolute path); selects project and branch.")
]
AsOf = Annotated[
    str | None,
    Field(
        description="A UTC day (YYYY-MM-DD): answer from what memory believed at the end of "
        "that day; or a moment (2026-08-01T17:00:00+02:00; no zone means UTC). Memories only; "
        "claims replaced or forgotten since carry `until`."
    ),
]
Also = Annotated[
    list[str] | None,
    Field(description="Up to three other phrasings, each searched alone and merged."),
]
RecallKindArg = Annotated[
    RecallKind | None,
    Field(description="'pages' for docs only (up to 20), or one kind of memory."),
]
Limit = Annotated[
    int | None, Field(ge=1, le=MAX_LIMIT, description="How many results: default 8, at most 25.")
]
# get_memory
TidyId = Annotated[
    str | None, Field(description="A proposal id from the listing (t-...), to accept or decline.")
]
TidyLimit = Annotated[
    int | None,
    Field(ge=1, description="List at most this many proposals (default 50); more come later."),
]
TIDY_LIMIT = 50  # a listing an agent can read: a store of 100k memories has 90k proposals
Refs = Annotated[
    list[str], Field(description="Refs from recall or the session brief, e.g. ['m-7f3a2c'].")
]
# remember
Text = Annotated[str, Field(description="One claim in one sentence (at most 1000 characters).")]
KindArg = Annotated[Kind | None, Field(description="Default fact, or lesson when `when` is given.")]
Tags = Annotated[
    list[str] | None,
    Field(
        description="One-word tags; trigger:ACTION (e.g. trigger:git-commit) makes a rule that "
        "get_action_rules returns before that action."
    ),
]
Reason = Annotated[str | None, Field(description="Why this was written (at most 4000 characters).")]
SourceRef = Annotated[
    str | None,
    Field(description="What it is about: path, path:10-24, path#Symbol, or a commit."),
]
When = Annotated[
    dict[str, str] | None,
    Field(
        description="A trigger that makes it a lesson shown on matching tool calls: "
        "{tool: 'shell', match: REGEX} or {tool: 'read'|'edit', path: GLOB}."
    ),
]
Pinned = Annotated[bool | None, Field(description="Pin it: always in the brief, never rests.")]
Gate = Annotated[
    bool | None,
    Field(
        description="Make this lesson (with `when`) or rule (tag trigger:ACTION) a gate: the "
        "first matching call of a session is stopped once, with it as the reason, before the "
        "call runs. Only when the user asks for a rule to be enforced before the action."
    ),
]
Replaces = Annotated[
    str | None,
    Field(description="Ref of the claim this corrects; the old one is superseded, history kept."),
]
# log_mission_progress
Goal = Annotated[
    str, Field(description="The branch's goal, the same words each time (at most 500 chars).")
]
Step = Annotated[str, Field(description="The step this record is about (at most 500 chars).")]
Status = Annotated[str, Field(description="open, in_progress, blocked or done.")]
# get_action_rules
Action = Annotated[
    str, Field(description="The action about to run: git-commit, git-push, pr-create, ...")
]
K = Annotated[int, Field(ge=1, le=MAX_LIMIT, description="At most this many rules (default 6).")]


def _recall(
    ws: Cairn,
    query: str,
    also: Sequence[str],
    as_of: str | None,
    kind: str | None,
    limit: int | None,
) -> Recalled:
    """The recall tool's steps: catch up with git and the docs, search, note what was offered."""
    ws.catch_up(docs=as_of is None)
    recalled = ws.recall(query, also=also, as_of=as_of, kind=kind, limit=limit)
    ws.note_recalled(recalled)
    return recalled


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


def refusal(tool: str, error: ToolError) -> str:
    """One sentence for a refused call: the library's message, or the field a schema refused.

    The SDK prefixes every message with `Error executing tool NAME: ` and, for arguments that
    do not fit the schema, appends pydantic's multi-line dump with a documentation link.
    """
    cause = error.__cause__
    if isinstance(cause, ValidationError):
        problems = cause.errors()
        first = problems[0]
        field = ".".join(str(part) for part in first["loc"]) or "arguments"
        if first["type"] == "missing":
            why = f"`{field}` is required"
        else:
            got = repr(first.get("input"))
            got = got if len(got) <= 60 else got[:57] + "..."
            why = f"`{field}`: {first['msg']} (got {got})"
        more = f", and {len(problems) - 1} more field(s) do not fit" if len(problems) > 1 else ""
        return f"{tool} refused: {why}{more}."
    text = str(error)
    prefix = f"Error executing tool {tool}: "
    return text[len(prefix) :] if text.startswith(prefix) else text


class _Server(MCPServer[Any]):
    """The SDK's server, with every refused call answered in one sentence (`refusal`)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """Call a tool; a `ToolError` comes back with a readable message."""
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            raise ToolError(refusal(name, exc)) from exc.__cause__


def build_server(tools: Tools) -> MCPServer[Any]:
    """The MCP server with its six tools, each a thin call into the library."""
    server: MCPServer[Any] = _Server(
        "cairn", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    def recall(
        query: Query,
        cwd: RecallCwd,
        request: Context,
        as_of: AsOf = None,
        also: Also = None,
        kind: RecallKindArg = None,
        limit: Limit = None,
    ) -> dict[str, Any]:
        """Search this project's memory (facts, decisions, preferences, lessons, rules,
        progress) and its docs: local keyword ranking, no model. Use it before a task, when
        unsure how this project does something, and to ask what is open on the branch (the
        branch brief comes first: goal, open items, recent sessions and commits). Each result
        has a ref, kind, one line, score, `weak` and `citation`; `citation: changed` or `gone`
        means read the code before relying on it. Nothing found is an answer. Read a result in
        full with get_memory; after a thin search, try other phrasings in `also`."""
        return tools.call(
            request,
            cwd,
            lambda c: _recall(c, query, also or (), as_of, kind, limit),
        ).to_dict()

    def get_memory(refs: Refs, request: Context, cwd: Cwd = None) -> dict[str, Any]:
        """Everything known about memories, by ref: the sentence, reason, source_ref, citation
        (same / changed / gone / unchecked: changed or gone means check the code first),
        status, pinned, written, cited, evidence (confirmed, cited, contradicted, by which
        tools) and history (what it replaced, what replaced it, each with until). Use it before
        relying on a memory recall returned. Refs naming no memory come back under `unknown`."""
        return tools.call(request, cwd, lambda c: c.get_memory(refs))

    def remember(
        text: Text,
        request: Context,
        kind: KindArg = None,
        tags: Tags = None,
        reason: Reason = None,
        source_ref: SourceRef = None,
        when: When = None,
        pinned: Pinned = None,
        replaces: Replaces = None,
        used: Used = None,
        gate: Gate = None,
        cwd: Cwd = None,
    ) -> dict[str, Any]:
        """Save one claim a later session should know, in one sentence: a fact, decision,
        preference, lesson (with `when`, it rides along on matching tool calls) or rule (tag
        trigger:ACTION to have it returned before that action). Call it when the user states a
        preference or decision, or at the end of a task for what you learned. Correct an old
        claim with `replaces`. Refused, with the reason: an empty or over-long sentence, a
        secret (key, token, password), an invalid or match-everything trigger, an unknown ref
        to correct. Restating a current claim writes nothing new (outcome echo or confirmed)."""
        fields: dict[str, Any] = {
            "kind": kind,
            "tags": tags,
            "reason": reason,
            "source_ref": source_ref,
            "when": when,
            "pinned": pinned,
            "replaces": replaces,
            "used": used or (),
            "gate": gate,
        }
        return tools.call(request, cwd, lambda c: c.remember(text, **fields)).to_dict()

    def log_mission_progress(
        goal: Goal, step: Step, status: Status, request: Context, used: Used = None, cwd: Cwd = None
    ) -> dict[str, Any]:
        """Record one step of the mission on this branch: the goal, the step and its status
        (open, in_progress, blocked, done). Call it when you plan, start, finish or get stuck
        on a step, so the next session on this branch sees the goal and what is still open
        (recall "what is open"). The latest record of a step decides its status. Returns the
        record and the branch's summary: goal, open, done, last steps."""
        return tools.call(
            request,
            cwd,
            lambda c: log_progress(c.store, c.ctx, goal, step, status, used or ()),
        )

    def get_action_rules(
        action: Action, request: Context, k: K = RULES_K, cwd: Cwd = None
    ) -> dict[str, Any]:
        """The user's rules for an action, newest first: memories tagged trigger:ACTION. Call
        it right before the action (git-commit before committing, pr-create before opening a
        pull request, git-push before pushing) and follow what comes back; an empty list means
        there is no rule."""
        rules = tools.call(request, cwd, lambda c: recall_for_action(c.store, c.ctx, action, k))
        return {
            "action": action,
            "rules": [{"ref": m.ref, "text": m.text, "written": m.written} for m in rules],
        }

    def tidy(
        request: Context,
        accept: TidyId = None,
        decline: TidyId = None,
        limit: TidyLimit = None,
        cwd: Cwd = None,
    ) -> dict[str, Any]:
        """Proposals that keep this project's memory small and true: near-duplicates to merge,
        conflicting claims, citations long gone or changed, lessons that fire but are never
        cited, contradicted pinned memories, resting memories to retire. Without arguments it
        lists them; with `accept` or `decline` (a proposal id) it applies one (as a
        correction, history kept) or declines it (it stays declined until its facts change).
        Ask the user before accepting."""
        from cairn.usecases import tidy as tidying

        def act(c: Cairn) -> dict[str, Any]:
            if accept:
                return {"accepted": tidying.accept(c, accept).to_dict()}
            if decline:
                return {"declined": tidying.decline(c, decline).to_dict()}
            found = tidying.proposals(c, limit=limit or TIDY_LIMIT)
            return {"proposals": [p.to_dict() for p in found]}

        return tools.call(request, cwd, act)

    for fn in (recall, get_memory, remember, log_mission_progress, get_action_rules, tidy):
        server.add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""))
    return server


async def serve_stdio(server: MCPServer[Any], follow: Callable[[], Store] | None = None) -> None:
    """`server.run("stdio")`, but a line that is not a JSON-RPC message gets its answer.

    The SDK's stdio transport drops such a line without a word; JSON-RPC 2.0 answers it with
    an error whose id is null: -32700 (Parse error) for text that is not JSON, -32600
    (Invalid Request) for JSON that is not a request, notification or response.

    `follow` opens a store whose trigger changes are followed while the server runs
    (`cairn.io.triggerlist.follow`: a task in this loop, ended with the server).
    """
    from mcp.server.stdio import stdio_server

    from cairn.io.triggerlist.follow import follow as following

    lowlevel = server._lowlevel_server  # the SDK's own `run_stdio_async` does the same
    async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as tg:
        if follow is not None:
            tg.start_soon(following, follow)
        await lowlevel.run(
            _Answering(read_stream, write_stream),
            write_stream,
            lowlevel.create_initialization_options(),
        )
        tg.cancel_scope.cancel()


class _Answering:
    """A transport's read stream that answers the lines it could not read, and skips them."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item (the SDK restores it for handlers)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        """The next message; a line that was not one is answered with its error first."""
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._write.send(SessionMessage(_unreadable(item)))

    def __aiter__(self) -> _Answering:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        """Close the stream underneath."""
        await self._inner.aclose()

    async def __aenter__(self) -> _Answering:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _unreadable(error: Exception) -> JSONRPCError:
    """The JSON-RPC error answering a line the transport could not read as a message."""
    kinds = {e.get("type") for e in error.errors()} if isinstance(error, ValidationError) else set()
    if "json_invalid" in kinds or not isinstance(error, ValidationError):
        data = ErrorData(code=PARSE_ERROR, message="Parse error: the line is not JSON")
    else:
        data = ErrorData(
            code=INVALID_REQUEST,
            message="Invalid Request: not a JSON-RPC 2.0 request, notification or response",
        )
    return JSONRPCError(jsonrpc="2.0", id=None, error=data)


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the tools over stdio until the client closes the connection."""
    parser = argparse.ArgumentParser(prog="cairn mcp", description="Cairn's MCP server over stdio.")
    parser.add_argument(
        "--home", help="Workspace folder (default: $CAIRN_HOME, else $XDG_DATA_HOME/cairn)."
    )
    parser.add_argument(
        "--project",
        help="Project for calls without cwd (default: $CAIRN_PROJECT, "
        "else the git root of the current folder).",
    )
    parser.add_argument(
        "--tool", help="Tool name to record (default: $CAIRN_TOOL, else the client's name)."
    )
    parser.add_argument(
        "--session",
        help="Session id to record (default: $CAIRN_SESSION, else a random one per project).",
    )
    args = parser.parse_args(argv)
    env = os.environ
    project = args.project or env.get("CAIRN_PROJECT") or None

    def opener() -> Cairn:
        return open_cairn(args.home, project=project, tool="mcp")

    tools = Tools(
        opener=opener,
        tool=args.tool or env.get("CAIRN_TOOL") or None,
        session=args.session or env.get("CAIRN_SESSION") or None,
    )
    try:
        _ = tools.base
    except ToolError as exc:  # a broken store: the server still starts; each call says so
        print(f"cairn mcp: {exc}", file=sys.stderr)
    try:
        anyio.run(serve_stdio, build_server(tools), lambda: open_store(tools.base.store.home))
    except KeyboardInterrupt:  # Ctrl-C in a terminal: stop quietly, like a closed stdin
        pass
    finally:
        try:
            tools.end_sessions()
        finally:
            tools.close()


if __name__ == "__main__":
    main()
