"""Reading a rules file's text: each bullet (or, in a scoped file of prose, each paragraph) as
the sentence, reason, kind and trigger of one memory. Reads no file and writes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cairn.core.errors import TriggerError
from cairn.core.lessons.triggers import parse_when
from cairn.core.models import KINDS
from cairn.usecases.rulesfiles.header import file_globs, scoped, split_frontmatter, tool_glob
from cairn.usecases.rulesfiles.markdown import bullets, paragraphs


@dataclass(frozen=True)
class RuleItem:
    """One bullet read from a rules file: its sentence and what it says about kind and trigger."""

    text: str
    reason: str = ""
    kind: str | None = None
    when: dict[str, str] | None = None
    origin: str = ""
    note: str = ""


def read_rules(text: str) -> list[RuleItem]:
    """The bullets of a rules file, with the kind and trigger its frontmatter and comments give."""
    meta, body = split_frontmatter(text)
    globs = file_globs(meta)
    items: list[RuleItem] = []
    for sentence, reason, annotation in bullets(body):
        items.append(_item(sentence, reason, annotation, globs))
    if not items and scoped(meta):
        # A Cursor rule, Copilot instructions or a Claude rule whose body is prose: the body
        # is the rule, one memory a paragraph.
        items = [_item(paragraph, "", {}, globs) for paragraph in paragraphs(body)]
    return items


def _item(sentence: str, reason: str, annotation: dict[str, Any], globs: list[str]) -> RuleItem:
    kind = annotation.get("kind")
    when = annotation.get("when")
    note = ""
    if not isinstance(when, dict):
        when = None
    if when is not None and when.get("path") and globs:
        ours = str(when["path"])
        if ours not in globs and tool_glob(ours) not in globs:
            # The file's globs were edited after the export: they win; the tool stays.
            path, note = _joined(globs)
            when = {"tool": str(when.get("tool", "read")), "path": path}
    elif when is None and globs:
        path, note = _joined(globs)
        when = {"tool": "read", "path": path}
    if kind not in KINDS:
        kind = "lesson" if when else "preference"
    origin = annotation.get("ref")
    return RuleItem(
        sentence, reason, str(kind), when, origin if isinstance(origin, str) else "", note
    )


def _joined(globs: list[str]) -> tuple[str, str]:
    """One Cairn glob for several: `{a,b}` when the grammar allows, else the first."""
    if len(globs) == 1:
        return globs[0], ""
    joined = "{" + ",".join(globs) + "}"
    try:
        parse_when({"tool": "read", "path": joined})
    except TriggerError:
        return globs[0], f"kept the first glob only; dropped {', '.join(globs[1:])}"
    return joined, ""
