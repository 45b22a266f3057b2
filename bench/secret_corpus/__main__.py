"""Print a sample of the corpus: `cd bench && ../.venv/bin/python -m secret_corpus [n]`."""

from __future__ import annotations

import random
import sys

from . import FIELDS, fields_of, harmless, secrets


def main() -> None:
    """Print a sample of both halves and the counts."""
    cases = secrets()
    memories = harmless()
    shapes = sorted({c.shape for c in cases})
    print(
        f"{len(cases)} secret placements: {len(cases) // len(FIELDS)} secrets of {len(shapes)} "
        f"shapes in {len(FIELDS)} fields; {len(memories)} harmless memories"
    )
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    rng = random.Random(1)
    for case in rng.sample(cases, min(n, len(cases))):
        print(f"  [{case.shape} / {case.field}] {case.text[:150]}")
    for memory in rng.sample(memories, min(n, len(memories))):
        print(f"  [{memory.id}] {fields_of(memory)}")


main()
