"""Cairn's one exception tree.

Every error the library raises on purpose is a ``CairnError``; its message is written for a
person and says what to do. The CLI prints it on one line and exits with ``exit_code``; the
hooks swallow it.

    CairnError
    ├── RefusedError            remember/correct refused the input; nothing was written
    │   ├── EmptySentenceError
    │   ├── SentenceTooLongError
    │   ├── SecretError         a key, token or password in any field
    │   ├── UnknownKindError
    │   ├── TriggerError        a `when` that is malformed, unsafe or matches everything
    │   ├── CitationError       a source_ref that is malformed or points outside the project
    │   └── ImportRefusedError  an import with refused records (`.refusals`, one line each)
    ├── UnknownRefError         a ref naming no memory (replaces, forget, pin, ...)
    ├── QueryError              recall arguments out of range (limit, as_of, also, kind)
    ├── ConflictError           a memory changed under a concurrent edit (revision mismatch)
    ├── StoreError              the store cannot be opened, migrated, read or written
    └── ConfigError             a setting (environment variable, option) that cannot be used
"""

from __future__ import annotations

__all__ = [
    "CairnError",
    "CitationError",
    "ConfigError",
    "ConflictError",
    "EmptySentenceError",
    "ImportRefusedError",
    "QueryError",
    "RefusedError",
    "SecretError",
    "SentenceTooLongError",
    "StoreError",
    "TriggerError",
    "UnknownKindError",
    "UnknownRefError",
]


class CairnError(Exception):
    """Base of every error Cairn raises on purpose."""

    exit_code = 1


class RefusedError(CairnError):
    """The input was refused; nothing was written."""

    exit_code = 3


class EmptySentenceError(RefusedError):
    """The memory's sentence is empty."""


class SentenceTooLongError(RefusedError):
    """The memory's sentence is longer than the limit."""


class SecretError(RefusedError):
    """A field holds something that looks like a secret."""


class UnknownKindError(RefusedError):
    """The kind is not one of the known kinds."""


class TriggerError(RefusedError):
    """A `when` trigger is malformed, unsafe, or matches everything."""


class CitationError(RefusedError):
    """A source_ref is malformed or points outside the project."""


class ImportRefusedError(RefusedError):
    """An import held refused records, so it wrote nothing; `refusals` has one line for each."""

    SHOWN = 20

    def __init__(self, refusals: list[str]) -> None:
        self.refusals = tuple(refusals)
        if len(refusals) == 1:
            super().__init__(f"nothing imported: {refusals[0]}")
            return
        lines = [f"nothing imported: {len(refusals)} refusals"]
        lines += [f"  {line}" for line in refusals[: self.SHOWN]]
        if len(refusals) > self.SHOWN:
            lines.append(f"  and {len(refusals) - self.SHOWN} more")
        super().__init__("\n".join(lines))


class UnknownRefError(CairnError):
    """A ref names no memory."""

    exit_code = 4


class QueryError(CairnError):
    """Arguments of a lookup are out of range."""

    exit_code = 2


class ConflictError(CairnError):
    """The memory changed since it was read (revision mismatch)."""

    exit_code = 5


class StoreError(CairnError):
    """The store cannot be opened, migrated, read or written.

    `cause` names the trouble when Cairn could tell: "full" (the disk), "read-only",
    "locked" (another process holds the store), "damaged", "unreadable"; else "".
    """

    exit_code = 6
    cause = ""


class ConfigError(CairnError):
    """A setting (an environment variable or option) cannot be used as given."""

    exit_code = 2
