"""Cursor rules files made from the project's lessons (Cursor reportedly drops hook context).

- One `.cursor/rules/cairn-lesson-<glob slug>-<hash>.mdc` per read/edit glob: frontmatter
  `description`, `globs: <the glob>`, `alwaysApply: false`, so Cursor attaches it when the agent
  works on a matching file.
- One short `.cursor/rules/cairn-always.mdc` (`alwaysApply: true`) with the shell lessons and
  the action rules (`trigger:ACTION` tags), at most `ALWAYS_MAX` lines.

Every file carries `MARKER`; only files named `cairn-*.mdc` that carry it are Cairn's, and
only those are rewritten or removed. The lessons are read through the library
(`store.trigger_memories()`), as of setup time: run `cairn setup cursor` again after adding
lessons.
"""

from __future__ import annotations

import hashlib
import re
from contextlib import suppress
from pathlib import Path

from cairn.core.errors import ConflictError, StoreError
from cairn.core.models import Memory
from cairn.usecases.install.files import Edit, read_bytes

MARKER = (
    "<!-- written by `cairn setup cursor` from Cairn's lessons: "
    "`cairn setup cursor` rewrites it, `cairn setup cursor --uninstall` removes it -->"
)
PREFIX = "cairn-"
ALWAYS_FILE = "cairn-always.mdc"
ALWAYS_MAX = 12
TEXT_MAX = 240


def rules_dir(project: Path) -> Path:
    """The project's Cursor rules folder."""
    return project / ".cursor" / "rules"


def lessons(store_home: Path, project: Path) -> list[Memory]:
    """The project's current lessons and action rules ([] when there is no store yet)."""
    # The store opened as `cairn.open` opens it, without the facade (a layer above this one).
    from cairn.core.context import Context
    from cairn.io.store.backends import open_store
    from cairn.io.workspace import project_key
    from cairn.usecases.rekey import adopt_folder

    root = project.resolve()
    ctx = Context(project=project_key(root), root=str(root), cwd=str(root), tool="setup")
    try:
        store = open_store(store_home, create=False)
    except StoreError:
        return []
    try:
        with suppress(StoreError, ConflictError):
            adopt_folder(store, ctx)
        found = store.trigger_memories()
    except StoreError:
        return []
    finally:
        store.close()
    return [
        m
        for m in found
        if (m.scope == "workspace" or m.project == ctx.project)
        and (m.when is not None or m.action_names())
    ]


def _line(memory: Memory) -> str:
    text = " ".join(memory.text.split())
    if memory.reason:
        text += " Why: " + " ".join(memory.reason.split())
    if len(text) > TEXT_MAX:
        text = text[: TEXT_MAX - 1] + "…"
    return f"{text} ({memory.ref})"


def _plain(text: str) -> str:
    """Text safe as a YAML plain scalar in the frontmatter (no `: `, no `#`, one line)."""
    return re.sub(r"[:#\s]+", " ", text).strip()


def files(memories: list[Memory]) -> dict[str, str]:
    """File name -> content of every rules file these lessons make."""
    by_glob: dict[str, list[Memory]] = {}
    always: list[str] = []
    for m in memories:
        if m.when is not None and m.when.tool in ("read", "edit") and m.when.path:
            by_glob.setdefault(m.when.path, []).append(m)
        elif m.when is not None and m.when.tool == "shell":
            always.append(f"- Commands matching `{m.when.match}`: {_line(m)}")
        for action in m.action_names():
            always.append(f"- Before `{action}`: {_line(m)}")
    out: dict[str, str] = {}
    for glob, group in sorted(by_glob.items()):
        slug = re.sub(r"[^a-z0-9]+", "-", glob.lower()).strip("-")[:40] or "files"
        digest = hashlib.sha1(glob.encode("utf-8")).hexdigest()[:6]
        body = "\n".join(
            f"- When {'editing' if m.when and m.when.tool == 'edit' else 'reading'}: {_line(m)}"
            for m in group
        )
        out[f"{PREFIX}lesson-{slug}-{digest}.mdc"] = (
            f"---\ndescription: Cairn lessons for files matching {_plain(glob)}\n"
            f"globs: {glob}\nalwaysApply: false\n---\n{MARKER}\n\n"
            f"Lessons from Cairn memory for files matching `{glob}`:\n\n{body}\n"
        )
    if always:
        shown = always[:ALWAYS_MAX]
        more = len(always) - len(shown)
        tail = ""
        if more:
            tail = f"\n\n{more} more: ask the `cairn` MCP server (`get_action_rules`, `recall`)."
        out[ALWAYS_FILE] = (
            "---\ndescription: Cairn lessons for shell commands and actions\n"
            f"alwaysApply: true\n---\n{MARKER}\n\n"
            "Lessons from Cairn memory. Follow them when you run a matching command or take "
            "the action:\n\n" + "\n".join(shown) + tail + "\n"
        )
    return out


def is_ours(path: Path) -> bool:
    """True for a rules file Cairn wrote (its name and its marker)."""
    if not (path.name.startswith(PREFIX) and path.suffix == ".mdc"):
        return False
    raw = read_bytes(path)
    return raw is not None and MARKER.encode() in raw


def edits(project: Path, wanted: dict[str, str]) -> tuple[list[Edit], list[Path]]:
    """Edits that make Cairn's rules files exactly `wanted` (removing stale ones), and the
    user's own files that happen to bear one of the names (left alone)."""
    folder = rules_dir(project)
    out: list[Edit] = []
    skipped: list[Path] = []
    existing = sorted(folder.glob(f"{PREFIX}*.mdc")) if folder.is_dir() else []
    for path in existing:
        if path.name not in wanted and is_ours(path):
            out.append(Edit(path, read_bytes(path), None, backup=False))
    for name, text in wanted.items():
        path = folder / name
        before = read_bytes(path)
        if before is not None and not is_ours(path):
            skipped.append(path)
            continue
        out.append(Edit(path, before, text.encode("utf-8"), backup=False))
    return out, skipped
