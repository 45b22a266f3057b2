"""Tidy's pair finder against the all-pairs scoring it replaced, on small random stores."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.core.models import Memory, Trigger
from cairn.core.text import analyse
from cairn.usecases import tidy
from cairn.usecases.tidy import pairs

VOCABULARY = [
    "deploy",
    "staging",
    "production",
    "postgres",
    "redis",
    "api",
    "worker",
    "queue",
    "tests",
    "fixtures",
    "16",
    "15",
    "3",
    "not",
    "never",
    "without",
    "uses",
    "runs",
    "needs",
    "fly",
    "render",
]
SENTENCES = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=8).map(" ".join)
TRIGGERS = st.sampled_from([None, Trigger("shell", match="git push"), Trigger("read", path="*.py")])


@st.composite
def stores(draw: st.DrawFn) -> list[Memory]:
    texts = draw(st.lists(SENTENCES, max_size=30))
    return [
        Memory(
            ref=f"m{k:03d}",
            text=text,
            kind=draw(st.sampled_from(["fact", "decision", "lesson"])),
            project="/p",
            when=draw(TRIGGERS),
            written=f"2026-01-{1 + draw(st.integers(0, 27)):02d}T00:00:00.000000Z",
        )
        for k, text in enumerate(texts)
    ]


def _words(memories: Sequence[Memory]) -> list[frozenset[str]]:
    return [frozenset(analyse(m.text)) for m in memories]


def _all_pairs(memories: Sequence[Memory]) -> list[tidy.Proposal]:
    """The scoring tidy did before: every pair sharing a word, in index order."""
    words = [frozenset(analyse(m.text)) for m in memories]
    out = []
    for i in range(len(memories)):
        for j in range(i + 1, len(memories)):
            if not words[i] & words[j] or pairs._different_situations(memories[i], memories[j]):
                continue
            a, b = pairs._older_newer(memories[i], memories[j])
            wa, wb = (words[i], words[j]) if a is memories[i] else (words[j], words[i])
            found = pairs._compare(a, b, wa, wb)
            if found is not None:
                out.append(found)
    return out


def _quiet(step: str, done: int, total: int) -> None:
    pass


@settings(max_examples=200, deadline=None)
@given(memories=stores())
def test_the_pair_finder_proposes_exactly_what_all_pairs_scoring_did(
    memories: list[Memory],
) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pairs, "PAIRS_PER_MEMORY", len(memories) + 1)
        found = list(pairs._pairs(memories, _words(memories), (), _quiet))
    assert found == _all_pairs(memories)


@settings(max_examples=100, deadline=None)
@given(memories=stores())
def test_a_memory_is_named_in_at_most_the_cap_and_the_rest_come_in_order(
    memories: list[Memory],
) -> None:
    found = list(pairs._pairs(memories, _words(memories), (), _quiet))
    every = _all_pairs(memories)
    named: dict[str, int] = {}
    for p in found:
        for ref in p.refs:
            named[ref] = named.get(ref, 0) + 1
    assert all(n <= pairs.PAIRS_PER_MEMORY for n in named.values())
    # What is listed is the all-pairs list with the pairs past a memory's cap left out.
    expected, counts = [], dict.fromkeys((m.ref for m in memories), 0)
    for p in every:
        if all(counts[r] < pairs.PAIRS_PER_MEMORY for r in p.refs):
            expected.append(p)
            for r in p.refs:
                counts[r] += 1
    assert found == expected


def test_declined_pairs_do_not_use_up_a_memory_s_cap() -> None:
    memories = [
        Memory(
            ref=f"m{k}",
            text="deploy staging with fly always",
            kind="fact",
            project="/p",
            written=f"2026-01-0{k + 1}T00:00:00.000000Z",
        )
        for k in range(8)
    ]
    first = list(pairs._pairs(memories, _words(memories), (), _quiet))
    assert sum("m0" in p.refs for p in first) == pairs.PAIRS_PER_MEMORY
    declined = {p.id for p in first if "m0" in p.refs}
    again = list(pairs._pairs(memories, _words(memories), declined, _quiet))
    shown = [p for p in again if p.id not in declined]
    assert sum("m0" in p.refs for p in shown) == pairs.PAIRS_PER_MEMORY


def test_a_store_s_indexed_words_give_the_same_pairs_as_analysing_again(ws) -> None:  # type: ignore[no-untyped-def]
    import random

    rng = random.Random(7)
    words = [*VOCABULARY, "pre-production", "Node.js", "e-mail", "CI/CD", "préproduction"]
    texts = list(dict.fromkeys(" ".join(rng.sample(words, rng.randint(2, 6))) for _ in range(80)))
    ws.remember_many({"text": t} for t in texts)
    memories = [m for m in ws.store.list_memories(project=ws.ctx.project)]
    expected = [p for p in _all_pairs(memories)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pairs, "PAIRS_PER_MEMORY", len(memories) + 1)
        found = [p for p in tidy.proposals(ws) if p.kind in ("merge", "conflict")]
    assert expected and found == expected


def _letters(k: int) -> str:
    """A made-up word of letters only (digits would make it a number)."""
    out = ""
    while True:
        out += "bcdfghjklmnpqrstvwxz"[k % 20]
        k //= 20
        if not k:
            return f"zu{out}ka"


def test_pairs_sharing_only_common_words_are_never_scored_one_by_one() -> None:
    # 300 sentences sharing two words (service, uses): all-pairs scoring compared all 44,850
    # pairs one by one (at 100k memories, 5 billion: killed at 24 GB). None can meet a rule,
    # and none is scored.
    memories = [
        Memory(
            ref=f"m{k:03d}",
            text=f"The service uses {_letters(3 * k)} with {_letters(3 * k + 1)} "
            f"and {_letters(3 * k + 2)}",
            kind="fact",
            project="/p",
            written=f"2026-01-01T00:00:{k % 60:02d}.{k:06d}Z",
        )
        for k in range(300)
    ]
    scored: list[tuple[str, str]] = []
    compare = pairs._compare

    def counting(a: Memory, b: Memory, wa: frozenset[str], wb: frozenset[str]) -> object:
        scored.append((a.ref, b.ref))
        return compare(a, b, wa, wb)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pairs, "_compare", counting)
        found = list(pairs._pairs(memories, _words(memories), (), _quiet))
    assert found == [] and scored == []
