"""bench/labelled.py's GCIDE reader on a hand-written excerpt in GCIDE's dictd layout: senses,
their definitions and quotations, and the senses taken from WordNet left out."""

from __future__ import annotations

import gzip
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

LABELLED = Path(__file__).resolve().parents[1] / "bench" / "labelled.py"

# The layout of /usr/share/dictd/gcide.dict.dz (decompressed), entries as GCIDE prints them.
EXCERPT = """\
Affect \\Af*fect"\\, v. t. [imp. & p. p. {Affected}; p. pr. & vb.
   n. {Affecting}.] [L. affectus, p. p. of afficere.]
   1. To act upon; to produce an effect or change upon.
      [1913 Webster]

            As might affect the earth with cold heat. --Milton.
      [1913 Webster]

            The climate affected their health and spirits.
                                                  --Macaulay.
      [1913 Webster]

   2. To influence or move, as the feelings or passions; to
      touch.
      [1913 Webster]

   Syn: To influence; operate; act on.
        [1913 Webster]

Aband \\A*band"\\, v. t.
   1. To abandon. [Obs.]
      [1913 Webster]

            Enforced the kingdom to aband. --Spenser.
      [1913 Webster]

1st-class \\1st-class\\ n.
   1. a class mail comprising letters, postcards, and other mail
      sealed against inspection.

   Syn: first-class, first-class mail
        [WordNet 1.5]
"""


def _labelled() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_labelled", LABELLED)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_labelled"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def dictionary(tmp_path: Path) -> Path:
    path = tmp_path / "gcide.dict.dz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(EXCERPT)
    return path


def test_gcide_senses_read_definitions_and_quotations(dictionary: Path) -> None:
    senses = list(_labelled().gcide_senses(dictionary))
    assert [(s.word, s.definition) for s in senses] == [
        ("Affect", "To act upon; to produce an effect or change upon."),
        ("Affect", "To influence or move, as the feelings or passions; to touch."),
        ("Aband", "To abandon. [Obs.]"),
        (
            "1st-class",
            "a class mail comprising letters, postcards, and other mail sealed against inspection.",
        ),
    ]
    assert senses[0].quotes == (
        "As might affect the earth with cold heat.",
        "The climate affected their health and spirits.",
    )
    assert senses[1].quotes == ()
    assert senses[2].quotes == ("Enforced the kingdom to aband.",)
    assert [s.source for s in senses] == ["[1913 Webster]"] * 3 + [""]


def test_gcide_set_keeps_websters_senses_and_asks_their_quotations(
    dictionary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labelled = _labelled()
    monkeypatch.setattr(labelled, "GCIDE_FILE", dictionary)
    data = labelled.gcide(n=3, n_queries=2)
    assert sorted(item.text for item in data.items) == [
        "Aband: To abandon. [Obs.]",
        "Affect: To act upon; to produce an effect or change upon.",
        "Affect: To influence or move, as the feelings or passions; to touch.",
    ]
    ids = {item.text: item.id for item in data.items}
    by_answer = {next(iter(q.relevant)): q.text for q in data.queries}
    assert by_answer[ids["Aband: To abandon. [Obs.]"]] == "Enforced the kingdom to aband."
    affect = ids["Affect: To act upon; to produce an effect or change upon."]
    assert by_answer[affect] in {
        "As might affect the earth with cold heat.",
        "The climate affected their health and spirits.",
    }


def test_ages_drawn_again_keep_the_memories_and_queries(
    dictionary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bench/quality.py --age-seed: the same set with other ages, the same set without one.
    labelled = _labelled()
    monkeypatch.setattr(labelled, "GCIDE_FILE", dictionary)
    first = labelled.gcide(n=3, n_queries=2)
    assert labelled.gcide(n=3, n_queries=2, age_seed=None) == first
    again = [labelled.gcide(n=3, n_queries=2, age_seed=seed) for seed in range(4)]
    for data in again:
        assert data.queries == first.queries
        assert [(i.id, i.text) for i in data.items] == [(i.id, i.text) for i in first.items]
        assert all(0 <= i.age_days < 400 for i in data.items)
    assert labelled.gcide(n=3, n_queries=2, age_seed=1) == again[1]
    assert len({tuple(i.age_days for i in d.items) for d in [first, *again]}) > 1
