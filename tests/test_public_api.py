"""The public surface of `import cairn` is exactly the names in `__all__`."""

from __future__ import annotations

import subprocess
import sys

import cairn

PUBLIC = {
    "Cairn",
    "open",
    "KINDS",
    "Citation",
    "Hit",
    "Memory",
    "Trigger",
    "Remembered",
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
}


def test_all_is_exactly_the_public_names() -> None:
    assert set(cairn.__all__) == PUBLIC


def test_every_public_name_resolves() -> None:
    for name in cairn.__all__:
        assert getattr(cairn, name) is not None


def test_every_error_is_a_cairn_error() -> None:
    for name in cairn.__all__:
        value = getattr(cairn, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, cairn.CairnError)


def test_importing_cairn_is_lazy() -> None:
    code = "import sys, cairn; print(sorted(m for m in sys.modules if m.startswith('cairn')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['cairn']"
