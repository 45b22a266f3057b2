"""The files of each export format: a Claude skill, and the scoped files of Claude rules,
Cursor and Copilot (AGENTS.md, edited in place, is `agents_md`)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from cairn.core.models import Memory
from cairn.usecases.rulesfiles.disk import GENERATED
from cairn.usecases.rulesfiles.markdown import as_sections

FORMATS = ("claude-skill", "claude-rules", "cursor", "copilot", "agents")


SKILL_NAME = "cairn-lessons"


def skill_file(memories: Sequence[Memory]) -> str:
    """The Claude skill (SKILL.md) holding every exported memory."""
    description = (
        "Lessons and preferences this project learned, kept by Cairn. Use before running "
        "shell commands, and before reading or editing the files named here."
    )
    lines = [
        "---",
        f"name: {SKILL_NAME}",
        f"description: {json.dumps(description)}",
        "---",
        GENERATED,
        "",
        "# Lessons of this project",
        *as_sections(memories),
    ]
    return "\n".join(lines) + "\n"


def scoped_file(fmt: str, glob: str | None, memories: Sequence[Memory]) -> str:
    """One file of a scoped format (`fmt`) for the memories of `glob` (None: always on)."""
    title = f"Lessons for `{glob}`" if glob else "Lessons and preferences of this project"
    if fmt == "claude-rules":
        head = ["---", "paths:", f"  - {json.dumps(glob)}", "---"] if glob else []
    elif fmt == "cursor":
        description = f"Cairn lessons for {glob}" if glob else "Cairn lessons and preferences"
        head = [
            "---",
            f"description: {json.dumps(description)}",
            f"globs: {glob}" if glob else "globs:",
            f"alwaysApply: {'false' if glob else 'true'}",
            "---",
        ]
    else:
        head = ["---", f"applyTo: {json.dumps(glob or '**')}", "---"]
    lines = [*head, GENERATED, "", f"# {title}", *as_sections(memories)]
    return "\n".join(lines) + "\n"
