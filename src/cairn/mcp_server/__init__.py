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

`mcp` is imported in this package and nowhere else in Cairn; `cairn mcp` runs it by name
(`python -m cairn.mcp_server`, `__main__.py`). Modules: `schema` (the tools' arguments), `tools`
(who is calling: the view per call), `server` (the six tools), `stdio` (the transport), `run`
(the command line).
"""

from __future__ import annotations

from cairn.mcp_server.run import main
from cairn.mcp_server.schema import Kind, RecallKind
from cairn.mcp_server.server import build_server, refusal
from cairn.mcp_server.stdio import serve_stdio
from cairn.mcp_server.tools import CLIENT_TOOLS, Tools, client_name, tool_name

__all__ = [
    "CLIENT_TOOLS",
    "Kind",
    "RecallKind",
    "Tools",
    "build_server",
    "client_name",
    "main",
    "refusal",
    "serve_stdio",
    "tool_name",
]
