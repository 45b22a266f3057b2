"""Export: the lessons and preferences to write, and the files of a format, written under the
project (a new export removes the files an earlier one wrote and this one does not need)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.core.errors import QueryError, UnknownRefError
from cairn.core.lifecycle import State, state_of
from cairn.core.models import Event, Memory
from cairn.io.regularfile import read_text
from cairn.usecases.rulesfiles.agents_md import agents_file
from cairn.usecases.rulesfiles.disk import GENERATED, RULES_FILE_BYTES, write
from cairn.usecases.rulesfiles.formats import FORMATS, SKILL_NAME, scoped_file, skill_file
from cairn.usecases.rulesfiles.header import tool_glob

if TYPE_CHECKING:
    from cairn.usecases.opened import Opened

EXPORTED_KINDS = ("lesson", "preference")


@dataclass(frozen=True)
class Exported:
    """What an export wrote: the files, the stale files it removed, the memories it holds."""

    format: str
    files: tuple[str, ...]
    removed: tuple[str, ...]
    refs: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """As `cairn export-rules --json` prints it."""
        return {
            "format": self.format,
            "files": list(self.files),
            "removed": list(self.removed),
            "refs": list(self.refs),
        }


# -- choosing ------------------------------------------------------------------------------


def chosen(cairn: Opened, refs: Sequence[str] = ()) -> list[Memory]:
    """The memories to export: these refs, or every current lesson and preference in the index.

    Lessons that stopped firing (contradicted twice, retired) are left out by default: Cairn no
    longer hands them out, so an always-loaded rules file should not either. A resting lesson
    still fires, so it is exported; other resting memories are not.
    """
    store, ctx = cairn.store, cairn.ctx
    if refs:
        found = store.get_memories(refs)
        missing = [r for r in refs if r not in found or not found[r].is_current]
        if missing:
            raise UnknownRefError(
                f"no current memory {', '.join(missing)}; `cairn list` shows the refs"
            )
        picked = [found[r] for r in dict.fromkeys(refs)]
    else:
        found = {
            m.ref: m
            for listed in (
                *(store.list_memories(project=ctx.project, kind=k) for k in EXPORTED_KINDS),
                store.list_memories(project=ctx.project, has_when=True),
            )
            for m in listed
        }
        candidates = sorted(found.values(), key=lambda m: (m.written, m.ref), reverse=True)
        events: dict[str, list[Event]] = {}
        for e in store.events_for([m.ref for m in candidates]):
            events.setdefault(e.ref, []).append(e)
        now = ctx.clock()
        picked = [m for m in candidates if _kept(m, state_of(m, events.get(m.ref, []), now))]
    return sorted(picked, key=lambda m: (m.written, m.ref))


def _kept(memory: Memory, state: State) -> bool:
    """A lesson or rule is exported while it fires (resting too); any other while in the index."""
    return state.fires if memory.when is not None or memory.action_names() else state.in_index


# -- export --------------------------------------------------------------------------------


def export_rules(
    cairn: Opened, fmt: str, out: str | Path | None = None, refs: Sequence[str] = ()
) -> Exported:
    """Write the chosen lessons and preferences as `fmt` files under `out` (the project)."""
    if fmt not in FORMATS:
        raise QueryError(f"unknown rules format {fmt!r}; use one of {', '.join(FORMATS)}")
    root = Path(out) if out is not None else Path(cairn.ctx.root)
    memories = chosen(cairn, refs)
    refs_out = tuple(m.ref for m in memories)
    if fmt == "agents":
        path = root / "AGENTS.md"
        write(path, agents_file(path, memories))
        return Exported(fmt, (str(path),), (), refs_out)
    if fmt == "claude-skill":
        path = root / ".claude" / "skills" / SKILL_NAME / "SKILL.md"
        write(path, skill_file(memories))
        return Exported(fmt, (str(path),), (), refs_out)
    folder, suffix = {
        "claude-rules": (root / ".claude" / "rules", ".md"),
        "cursor": (root / ".cursor" / "rules", ".mdc"),
        "copilot": (root / ".github" / "instructions", ".instructions.md"),
    }[fmt]
    written: list[str] = []
    names: set[str] = set()
    for glob, group in _groups(memories):
        name = _unique(_slug(glob), names)
        path = folder / f"{name}{suffix}"
        write(path, scoped_file(fmt, glob, group))
        written.append(str(path))
    removed = _remove_stale(folder, suffix, set(written))
    return Exported(fmt, tuple(written), tuple(removed), refs_out)


def _groups(memories: Sequence[Memory]) -> list[tuple[str | None, list[Memory]]]:
    """The always-on group first (None), then one group per glob, in first-seen order."""
    groups: dict[str | None, list[Memory]] = {None: []}
    for m in memories:
        key = tool_glob(m.when.path) if m.when and m.when.path else None
        groups.setdefault(key, []).append(m)
    return [(k, v) for k, v in groups.items() if v or (k is None and len(groups) == 1)]


def _slug(glob: str | None) -> str:
    if glob is None:
        return SKILL_NAME
    words = re.sub(r"[^a-z0-9]+", "-", glob.lower()).strip("-")
    return "cairn-" + (words[:48].rstrip("-") or "files")


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}-{n}", n + 1
    taken.add(candidate)
    return candidate


def _remove_stale(folder: Path, suffix: str, keep: set[str]) -> list[str]:
    """Delete the `cairn-*` files an earlier export wrote here and this one did not."""
    removed: list[str] = []
    for path in sorted(folder.glob(f"cairn-*{suffix}")):
        if str(path) in keep or not path.name.endswith(suffix):
            continue
        try:
            if GENERATED in read_text(path, RULES_FILE_BYTES, errors="replace"):
                path.unlink()
                removed.append(str(path))
        except OSError:
            continue
    return removed
