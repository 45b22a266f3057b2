"""The arguments of the MCP tools: their types and the descriptions a model reads, each limit
the library's own (remember's lengths, recall's 1 to 25)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from cairn.core.rank import MAX_LIMIT

Kind = Literal["fact", "decision", "preference", "lesson", "rule", "progress"]


RecallKind = Literal["pages", "fact", "decision", "preference", "lesson", "rule", "progress"]


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
