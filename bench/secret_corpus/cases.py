"""The corpus's records: a secret placed in one field, a harmless memory, and the fields as
`remember` scans them."""

from __future__ import annotations

from dataclasses import dataclass

FIELDS = ("sentence", "reason", "tags", "source_ref", "trigger")


@dataclass(frozen=True)
class SecretCase:
    """One secret of `shape`, placed in one field; `text` is that field's whole value."""

    id: str
    shape: str
    field: str
    text: str


@dataclass(frozen=True)
class Memory:
    """One harmless memory as `remember` takes it (`trigger` is a shell regex or a glob)."""

    id: str
    sentence: str
    reason: str = ""
    tags: tuple[str, ...] = ()
    source_ref: str = ""
    trigger: str = ""


@dataclass(frozen=True)
class Instance:
    """One generated secret in its three placements: `mention` reads in prose, `compact` holds
    no whitespace (a tag, a source_ref), `command` is a shell command that carries it."""

    mention: str
    compact: str
    command: str


def fields_of(memory: Memory) -> dict[str, str]:
    """The fields as `remember` scans them: whitespace collapsed, tags joined by spaces."""
    return {
        "sentence": " ".join(memory.sentence.split()),
        "reason": " ".join(memory.reason.split()),
        "tags": " ".join(memory.tags),
        "source_ref": memory.source_ref,
        "trigger": memory.trigger,
    }
