"""The frontmatter header of a rules file: read with python-frontmatter, the globs that scope
the file, and a Cairn glob as the agents' tools write it."""

from __future__ import annotations

import re
from typing import Any

import frontmatter
import yaml

from cairn.core.lessons.globmatch import glob_body

# Globs that scope nothing: a rule under them is always on.
EVERYWHERE = frozenset({"*", "**", "**/*", "**/**", "./**"})


def tool_glob(glob: str) -> str:
    """A Cairn glob as the agents' tools read it: one without `/` matches at any depth (one
    anchored by a leading `/` or `./` only at the root)."""
    body, anchored = glob_body(glob)
    return body if anchored else f"**/{body}"


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(the YAML header, the body) of a rules file, read by python-frontmatter.

    Cursor writes globs unquoted (`globs: **/*.ts`), which YAML reads as an alias and
    refuses: such a header is read again with its plain values quoted. A header that is
    still not YAML counts as none.
    """
    text = text.lstrip("\ufeff")
    if not text.startswith("---") or not frontmatter.checks(text):
        return {}, text
    for attempt in (text, _quoted_header(text)):
        try:
            meta, body = frontmatter.parse(attempt)
        except yaml.YAMLError:
            continue
        return {str(k): v for k, v in meta.items()}, body
    return {}, text


# `key: value` or `- value` lines of a header, the value plain (not quoted, a list or a block),
# without a trailing `# comment`.
_PLAIN = re.compile(r"^(\s*(?:-\s+|[A-Za-z_][\w.-]*:\s+))([^\s'\"\[|>#].*?)(?:\s+#.*)?\s*$")


def _quoted_header(text: str) -> str:
    """The file with its header's plain values single-quoted (YAML's `''` escapes a quote)."""
    head, sep, rest = text[3:].partition("\n---")
    lines = [
        _PLAIN.sub(lambda m: m[1] + "'" + m[2].replace("'", "''") + "'", line)
        for line in head.split("\n")
    ]
    return "---" + "\n".join(lines) + sep + rest


def _scalar(value: str) -> str:
    """One comma-separated glob as written in a header, without its quotes."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _split_commas(text: str) -> list[str]:
    """Split on commas outside `{...}` (a glob's choices hold commas)."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p.strip() for p in parts]


def file_globs(meta: dict[str, Any]) -> list[str]:
    """The globs scoping a whole file (`paths`, `globs`, `applyTo`); [] when always on."""
    if str(meta.get("alwaysApply", "")).lower() == "true":
        return []
    raw: list[str] = []
    for key in ("paths", "globs", "applyTo"):
        value = meta.get(key)
        values = value if isinstance(value, list) else [value] if value else []
        for v in values:
            raw += [_scalar(g) for g in _split_commas(str(v))]
    globs = [g.removeprefix("./") for g in raw if g]
    globs = [g for g in dict.fromkeys(globs) if g not in EVERYWHERE]
    return globs


def scoped(meta: dict[str, Any]) -> bool:
    """Does the frontmatter say when the whole file applies (globs, paths, applyTo, always)?"""
    if str(meta.get("alwaysApply", "")).lower() == "true":
        return True
    return any(meta.get(key) for key in ("globs", "paths", "applyTo"))
