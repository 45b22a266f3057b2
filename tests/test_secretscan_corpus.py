"""The secret scan on a sample of the labelled corpus (bench/secret_corpus): the error rates
bench/secret_scan.py reports must hold, so a regression in any rule fails the suite.

The sample is drawn with its own seed, so it is not the set the bench prints: 45 shapes x 5
secrets x 5 fields, and 600 harmless memories. Targets from issue 14: at least 98% of the
secrets refused in every field, at most 0.5% of the harmless memories refused.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest

from cairn.core.errors import SecretError
from cairn.usecases.remember import check_secrets

CORPUS = Path(__file__).resolve().parents[1] / "bench" / "secret_corpus"
SEED = 7


def _load_corpus() -> ModuleType:
    """The bench's corpus package, imported from its folder."""
    spec = importlib.util.spec_from_file_location(
        "secret_corpus", CORPUS / "__init__.py", submodule_search_locations=[str(CORPUS)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["secret_corpus"] = module  # its modules import each other relatively
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def corpus() -> ModuleType:
    return _load_corpus()


def _refused(fields: dict[str, str]) -> bool:
    try:
        check_secrets(fields)
    except SecretError:
        return True
    return False


def test_at_least_98_percent_of_secrets_are_refused_in_every_field(corpus: ModuleType) -> None:
    cases = corpus.secrets(per_shape=5, seed=SEED)
    assert len({c.shape for c in cases}) >= 30 and len(cases) >= 200 * len(corpus.FIELDS)
    by_field: dict[str, list[bool]] = defaultdict(list)
    missed = []
    for case in cases:
        refused = _refused({case.field: case.text})
        by_field[case.field].append(refused)
        if not refused:
            missed.append(f"{case.shape}/{case.field}: {case.text[:100]}")
    rates = {field: sum(hits) / len(hits) for field, hits in by_field.items()}
    assert set(rates) == set(corpus.FIELDS)
    assert min(rates.values()) >= 0.98, (rates, missed)


def test_at_most_half_a_percent_of_harmless_memories_are_refused(corpus: ModuleType) -> None:
    memories = corpus.harmless(600, seed=SEED)
    refused = [m for m in memories if _refused(corpus.fields_of(m))]
    assert len(refused) <= 0.005 * len(memories), [corpus.fields_of(m) for m in refused]


def test_the_corpus_is_the_same_on_every_run(corpus: ModuleType) -> None:
    assert corpus.secrets(per_shape=1, seed=3) == corpus.secrets(per_shape=1, seed=3)
    assert corpus.harmless(50, seed=3) == corpus.harmless(50, seed=3)
    assert corpus.harmless(50, seed=3) != corpus.harmless(50, seed=4)
