"""The server and its six tools, each a few lines calling the library, and the one sentence a
refused call comes back with."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import ValidationError

from cairn import __version__
from cairn.api import Cairn
from cairn.mcp_server.schema import (
    TIDY_LIMIT,
    Action,
    Also,
    AsOf,
    Cwd,
    Gate,
    Goal,
    K,
    KindArg,
    Limit,
    Pinned,
    Query,
    Reason,
    RecallCwd,
    RecallKindArg,
    Refs,
    Replaces,
    SourceRef,
    Status,
    Step,
    Tags,
    Text,
    TidyId,
    TidyLimit,
    Used,
    When,
)
from cairn.mcp_server.tools import Tools
from cairn.usecases.calls import RULES_K, recall_for_action
from cairn.usecases.progress import log_mission_progress as log_progress

if TYPE_CHECKING:
    from cairn.usecases.recall import Recalled

INSTRUCTIONS = """\
Cairn is this project's memory: facts, decisions, preferences, lessons, rules and the branch's \
progress, kept on this machine. Before a task, `recall` what the project knows about it (ask \
"what is open" for the branch's goal and open items) and read what you rely on with \
`get_memory`. Right before `git commit`, `gh pr create` or a push, call `get_action_rules` and \
follow the rules it returns. Log each step of your mission with `log_mission_progress`. When \
you learn something a later session needs, `remember` it in one sentence. List the refs of \
memories that shaped your work in `used`, never in your reply."""


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
