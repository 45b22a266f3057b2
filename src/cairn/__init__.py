"""Cairn: local-first memory for AI coding agents.

    import cairn
    with cairn.open() as memory:
        ref = memory.remember("Run `make check` before pushing", kind="lesson",
                              when={"tool": "shell", "match": "git push"}).ref
        memory.get_memory([ref])

Names are resolved lazily (PEP 562): the hook imports `cairn.hooks` on every tool call of every
agent, and must not pay for the store, the citations or the CLI when it needs none of them.
"""

# ruff: noqa: F401 - the TYPE_CHECKING imports below only tell type checkers the lazy names
from __future__ import annotations

import os

TYPE_CHECKING = False  # not `from typing import ...`: typing costs the hook ~5 ms

# Recall's matrices are small (a few thousand by a hundred at most): OpenBLAS's threads only
# wait on each other there, and on a busy two-core machine they made each product 10 to 25
# times slower (bench/quality.py --latency: an LSA fit of 7 s against 0.4 s). Read when numpy
# is first imported; a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"

_WHERE = {
    "Cairn": "cairn.api",
    "open": "cairn.api",
    "KINDS": "cairn.core.models",
    "Citation": "cairn.core.models",
    "Hit": "cairn.core.models",
    "Memory": "cairn.core.models",
    "Trigger": "cairn.core.models",
    "Remembered": "cairn.usecases.remember",
    "CairnError": "cairn.core.errors",
    "CitationError": "cairn.core.errors",
    "ConfigError": "cairn.core.errors",
    "ConflictError": "cairn.core.errors",
    "EmptySentenceError": "cairn.core.errors",
    "ImportRefusedError": "cairn.core.errors",
    "QueryError": "cairn.core.errors",
    "RefusedError": "cairn.core.errors",
    "SecretError": "cairn.core.errors",
    "SentenceTooLongError": "cairn.core.errors",
    "StoreError": "cairn.core.errors",
    "TriggerError": "cairn.core.errors",
    "UnknownKindError": "cairn.core.errors",
    "UnknownRefError": "cairn.core.errors",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> object:
    if name in _WHERE:
        import importlib

        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cairn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])


if TYPE_CHECKING:  # what the lazy names are, for type checkers (so: "unused" imports)
    from cairn.api import Cairn, open
    from cairn.core.errors import (
        CairnError,
        CitationError,
        ConfigError,
        ConflictError,
        EmptySentenceError,
        ImportRefusedError,
        QueryError,
        RefusedError,
        SecretError,
        SentenceTooLongError,
        StoreError,
        TriggerError,
        UnknownKindError,
        UnknownRefError,
    )
    from cairn.core.models import KINDS, Citation, Hit, Memory, Trigger
    from cairn.usecases.remember import Remembered
