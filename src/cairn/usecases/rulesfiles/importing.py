"""Import: rules files (or folders of them) read into memories through `remember`, each bullet
with its outcome; a file that cannot be read, or holds nothing to import, is listed as skipped."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.core.errors import QueryError, RefusedError
from cairn.io.regularfile import read_text
from cairn.usecases.remember import folded_sentence
from cairn.usecases.rulesfiles.disk import RULES_FILE_BYTES, read_failure
from cairn.usecases.rulesfiles.read import RuleItem, read_rules

if TYPE_CHECKING:
    from cairn.usecases.opened import Opened

IMPORT_TOOL = "import"


@dataclass(frozen=True)
class ImportedRule:
    """What happened to one bullet: new, echo, held (already known) or refused."""

    path: str
    text: str
    outcome: str
    ref: str = ""
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """As `cairn import-rules --json` lists it."""
        out = {"path": self.path, "text": self.text, "outcome": self.outcome}
        if self.ref:
            out["ref"] = self.ref
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class RulesImported:
    """Every bullet an import read, with its outcome."""

    items: list[ImportedRule] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """How many bullets had each outcome."""
        out: dict[str, int] = {}
        for item in self.items:
            out[item.outcome] = out.get(item.outcome, 0) + 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """As `cairn import-rules --json` prints it."""
        return {"counts": self.counts(), "items": [i.to_dict() for i in self.items]}


def import_rules(cairn: Opened, paths: Iterable[str | Path]) -> RulesImported:
    """Read rules files (or folders of them) into memories, through `remember`."""
    writer = cairn.using(tool=IMPORT_TOOL)
    items: list[ImportedRule] = []
    # One refresh of the trigger list for the whole import (each remember joins this block).
    with cairn.triggers.writing():
        for path in _files(paths):
            try:
                text = read_text(path, RULES_FILE_BYTES)
            except (OSError, UnicodeDecodeError) as exc:
                items.append(
                    ImportedRule(str(path), "", SKIPPED, reason=f"cannot read: {read_failure(exc)}")
                )
                continue
            found = read_rules(text)
            if not found:
                items.append(ImportedRule(str(path), "", SKIPPED, reason=NOTHING_TO_IMPORT))
            for item in found:
                items.append(_import_one(writer, str(path), item))
    return RulesImported(items)


SKIPPED = "skipped"


NOTHING_TO_IMPORT = (
    "nothing to import: no bullet list, and no rule text under frontmatter that scopes the "
    "file (globs, paths, applyTo or alwaysApply: true)"
)


def _files(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".md", ".mdc"))
        elif path.exists():
            out.append(path)  # not a regular file (a FIFO): reading it says so
        else:
            raise QueryError(f"no file or folder {path}")
    return list(dict.fromkeys(out))


def _import_one(writer: Opened, path: str, item: RuleItem) -> ImportedRule:
    held = writer.store.find_current(writer.ctx.project, folded_sentence(item.text))
    if held is not None and held.tool != IMPORT_TOOL:
        return ImportedRule(path, item.text, "held", held.ref, "already in memory")
    try:
        result = writer.remember(
            item.text, kind=item.kind, when=item.when, reason=item.reason or None
        )
    except RefusedError as exc:
        return ImportedRule(path, item.text, "refused", reason=str(exc))
    return ImportedRule(path, item.text, result.outcome, result.ref, item.note)
