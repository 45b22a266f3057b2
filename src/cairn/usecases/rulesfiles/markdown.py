"""The Markdown of a rules file, both ways: the bullets Cairn writes (sections by trigger, each
bullet with its `<!-- cairn {...} -->` comment and a nested `Why:`), and the bullets and
paragraphs an import reads back."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from cairn.core.models import Memory

_ANNOTATION = re.compile(r"\s*<!--\s*cairn\s+(\{.*?\})\s*-->\s*$")


_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")


_FENCE = re.compile(r"^\s*(```|~~~)")


_WHY = re.compile(r"^why\s*:\s*", re.IGNORECASE)


# -- writing -------------------------------------------------------------------------------


def _heading(m: Memory) -> tuple[int, str]:
    """Section order and title for a memory's trigger."""
    when = m.when
    if when is None:
        return 3, "Always"
    if when.tool == "shell":
        return 0, f"Before running a command matching `{when.match}`"
    verb = "reading" if when.tool == "read" else "editing"
    return (1 if when.tool == "read" else 2), f"When {verb} `{when.path}`"


def _annotation(m: Memory) -> str:
    data: dict[str, Any] = {"ref": m.ref, "kind": m.kind}
    if m.when is not None:
        data["when"] = m.when.to_dict()
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # `>` never appears outside a JSON string here; escaped, no pattern can close the comment.
    return f"<!-- cairn {text.replace('>', chr(92) + 'u003e')} -->"


def as_sections(memories: Sequence[Memory], level: str = "##") -> list[str]:
    """The memories as Markdown: a section per trigger (`level` its heading), a bullet each."""
    sections: dict[tuple[int, str], list[Memory]] = {}
    for m in memories:
        sections.setdefault(_heading(m), []).append(m)
    lines: list[str] = []
    for (_order, title), group in sorted(sections.items()):
        lines += ["", f"{level} {title}", ""]
        for m in group:
            lines.append(f"- {m.text} {_annotation(m)}")
            if m.reason:
                lines.append(f"  - Why: {m.reason}")
    return lines


# -- reading -------------------------------------------------------------------------------


def bullets(body: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(sentence, reason, Cairn annotation) for each bullet outside code fences."""
    found: list[list[Any]] = []  # [sentence, reason, annotation, indent]
    current: list[Any] | None = None
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced, current = not fenced, None
            continue
        if fenced:
            continue
        if not line.strip():
            current = None
            continue
        bullet = _BULLET.match(line)
        if bullet:
            indent, content = len(bullet.group(1).expandtabs()), bullet.group(2)
            if current is not None and indent > current[3] and _WHY.match(content):
                current[1] = _WHY.sub("", content).strip()
                continue
            current = [content, "", {}, indent]
            found.append(current)
        elif current is not None and line[:1].isspace() and not line.lstrip().startswith("#"):
            current[0] += " " + line.strip()
        else:
            current = None
    out: list[tuple[str, str, dict[str, Any]]] = []
    for sentence, reason, _, _ in found:
        annotation: dict[str, Any] = {}
        match = _ANNOTATION.search(sentence)
        if match:
            sentence = sentence[: match.start()]
            try:
                loaded = json.loads(match.group(1))
            except (ValueError, RecursionError):  # a hand-edited comment is not Cairn's
                loaded = {}
            annotation = loaded if isinstance(loaded, dict) else {}
        sentence = " ".join(sentence.split())
        if any(c.isalnum() for c in sentence):
            out.append((sentence, " ".join(reason.split()), annotation))
    return out


def paragraphs(body: str) -> list[str]:
    """The prose paragraphs of a rules file's body: not headings, code or HTML comments."""
    out: list[str] = []
    current: list[str] = []
    fenced = False
    for line in [*body.splitlines(), ""]:
        if _FENCE.match(line):
            fenced = not fenced
            continue
        stripped = line.strip()
        if fenced or stripped.startswith(("#", "<!--")) or not stripped:
            if current:
                out.append(" ".join(current))
            current = []
            continue
        current.append(stripped)
    return [p for p in out if any(c.isalnum() for c in p)]
