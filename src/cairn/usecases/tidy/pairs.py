"""Near-duplicates and conflicts: the pairs of memories tidy proposes to merge or settle.

The rules are in `cairn.usecases.tidy`'s docstring."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any

from cairn.core.models import Memory
from cairn.core.text import analyse, fold
from cairn.core.text.overlap import Rows, distinct
from cairn.usecases.tidy.proposal import Progress, Proposal, _key, _proposal

DUPLICATE_JACCARD = 0.6
SUBJECT_JACCARD = 0.5
SUBJECT_WORDS = 2
PAIR_BATCH = 20_000  # pairs compared between two progress reports
PAIRS_PER_MEMORY = 3
_SLACK = 1e-9  # float error only ever lets a pair through to `_compare`, which decides
_NEGATION_WORDS = frozenset(analyse("not no never cannot without"))
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|without)\b|n['\u2019]t\b")


def _pairs(
    memories: Sequence[Memory],
    words: Sequence[frozenset[str]],
    declined: Collection[str],
    report: Progress,
) -> Iterator[Proposal]:
    """Merge and conflict proposals, in the order of the memories (then of their partners).

    Only pairs that can meet a rule are compared: those reaching `DUPLICATE_JACCARD` on their
    words or `SUBJECT_JACCARD` with `SUBJECT_WORDS` shared on their subject words, found by
    prefix filtering (`cairn.core.text.overlap`), which misses none of them. A memory is named in
    at most `PAIRS_PER_MEMORY` proposals not declined: past that, its further pairs are left
    for the next run (accepting one retires or rewrites it anyway).
    """
    declined = {_key(pid) for pid in declined}
    # Each distinct word is judged once, not once per sentence holding it.
    aside = frozenset(w for w in frozenset().union(*words) if _is_number(w)) | _NEGATION_WORDS
    total = len(memories)

    def finding(step: str) -> Callable[[int, int], None]:
        return lambda done, whole: report(step, done, whole)

    import numpy as np

    rows = Rows(words)
    core_rows = rows.without(aside)
    duplicates = rows.candidate_pairs(
        DUPLICATE_JACCARD, progress=finding("finding near-duplicates")
    )
    subject_pairs = core_rows.candidate_pairs(
        SUBJECT_JACCARD, SUBJECT_WORDS, progress=finding("finding shared subjects")
    )
    size, core = rows.lengths, core_rows.lengths
    negation = np.fromiter((negated(m.text) for m in memories), dtype=bool, count=total)
    # Equal values, equal numbers (0: none): number sets, triggers, action names.
    numeric = aside - _NEGATION_WORDS
    numbers = _numbered(w & numeric for w in words)
    # A conflict is a negation on one side only, numbers on both, or one word swapped (so
    # subjects of one size): the other pairs of one subject can only be merges.
    sx, sy = np.divmod(subject_pairs, max(total, 1))
    may_conflict = (
        negation[sx]
        | negation[sy]
        | ((numbers[sx] > 0) & (numbers[sy] > 0))
        | (core[sx] == core[sy])
    )
    keys = distinct(np.concatenate((duplicates, subject_pairs[may_conflict])))
    x, y = np.divmod(keys, max(total, 1))
    # What `_compare` asks, for every candidate at once: only pairs it may propose are left
    # for it (slack only ever keeps a pair at a float boundary; `_compare` decides).
    shared, same = rows.shared(x, y), core_rows.shared(x, y)
    merge = shared >= DUPLICATE_JACCARD * (size[x] + size[y] - shared) - _SLACK
    same_subject = (same >= SUBJECT_WORDS) & (
        same >= SUBJECT_JACCARD * (core[x] + core[y] - same) - _SLACK
    )
    triggers = _numbered(m.when for m in memories)
    actions = _numbered(frozenset(m.action_names()) for m in memories)
    conflict = same_subject & (
        (negation[x] != negation[y])
        | _both_and_differ(numbers, x, y)
        | ((core[x] - same == 1) & (core[y] - same == 1))
    )
    # `_different_situations`, for every candidate at once.
    kept = (merge | conflict) & ~(
        _both_and_differ(triggers, x, y) | _both_and_differ(actions, x, y)
    )
    pairs = list(zip(x[kept].tolist(), y[kept].tolist(), strict=True))
    named = [0] * total
    for k, (i, j) in enumerate(pairs):
        if k % PAIR_BATCH == 0:
            report("comparing memories", k, len(pairs))
        if named[i] >= PAIRS_PER_MEMORY or named[j] >= PAIRS_PER_MEMORY:
            continue
        a, b = _older_newer(memories[i], memories[j])
        wa, wb = (words[i], words[j]) if a is memories[i] else (words[j], words[i])
        found = _compare(a, b, wa, wb)
        if found is None:
            continue
        yield found
        if _key(found.id) not in declined:
            named[i] += 1
            named[j] += 1
    report("comparing memories", len(pairs), len(pairs))


def _subject(words: frozenset[str]) -> frozenset[str]:
    """The words a conflict's subject is judged on: no numbers, no negations."""
    return frozenset(w for w in words if not _is_number(w) and w not in _NEGATION_WORDS)


def _numbered(values: Iterable[Any]) -> Any:
    """A numpy array numbering each value: equal values get equal numbers, and an empty one
    (None, an empty set) gets 0."""
    import numpy as np

    seen: dict[Any, int] = {}
    return np.array([seen.setdefault(v, len(seen) + 1) if v else 0 for v in values], dtype=np.int64)


def _both_and_differ(numbers: Any, x: Any, y: Any) -> Any:
    """For each pair: both have a value and the values differ."""
    nx, ny = numbers[x], numbers[y]
    return (nx > 0) & (ny > 0) & (nx != ny)


def _different_situations(x: Memory, y: Memory) -> bool:
    """Two lessons on different triggers, or two rules for different actions: both can hold."""
    if x.when is not None and y.when is not None and x.when != y.when:
        return True
    return bool(x.action_names() and y.action_names()) and set(x.action_names()) != set(
        y.action_names()
    )


def _older_newer(x: Memory, y: Memory) -> tuple[Memory, Memory]:
    return (x, y) if (x.written, x.ref) <= (y.written, y.ref) else (y, x)


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """Shared words over all words of two word sets (0 for two empty sets)."""
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


def negated(text: str) -> bool:
    """Does the sentence hold a negation: not, no, never, cannot, without, or n't?"""
    return _NEGATION.search(fold(text)) is not None


def _is_number(word: str) -> bool:
    return not word.isalpha() and any(c.isdigit() for c in word)


def _compare(a: Memory, b: Memory, wa: frozenset[str], wb: frozenset[str]) -> Proposal | None:
    """A conflict or merge proposal for two memories (a older), or None."""
    nums_a, nums_b = {w for w in wa if _is_number(w)}, {w for w in wb if _is_number(w)}
    core_a, core_b = _subject(wa), _subject(wb)
    same_subject = (
        len(core_a & core_b) >= SUBJECT_WORDS and jaccard(core_a, core_b) >= SUBJECT_JACCARD
    )
    if same_subject:
        why = ""
        only_a, only_b = core_a - core_b, core_b - core_a
        if negated(a.text) != negated(b.text):
            why = "one says the opposite of the other (a negation differs)"
        elif nums_a and nums_b and nums_a != nums_b:
            why = (
                f"same subject, different numbers: {', '.join(sorted(nums_a))} "
                f"vs {', '.join(sorted(nums_b))}"
            )
        elif len(only_a) == 1 and len(only_b) == 1:
            why = f"same subject, one word differs: {next(iter(only_a))} vs {next(iter(only_b))}"
        if why:
            return _proposal(
                "conflict",
                "merge",
                (a.ref, b.ref),
                f"conflicting claims: {why}; the newer claim would supersede the older",
                (a.text, b.text),
                {"texts": [a.text, b.text]},
                text=b.text,
                detail={"correct": a.ref, "retire": b.ref},
            )
    score = jaccard(wa, wb)
    if score >= DUPLICATE_JACCARD:
        # The sentence with more distinct words says more; on a tie the newer one wins.
        chosen, other = (a, b) if len(wa) > len(wb) else (b, a)
        return _proposal(
            "merge",
            "merge",
            (a.ref, b.ref),
            f"near-duplicates (word overlap {score:.2f} >= {DUPLICATE_JACCARD})",
            (a.text, b.text),
            {"texts": [a.text, b.text]},
            text=chosen.text,
            detail={"correct": other.ref, "retire": chosen.ref, "overlap": round(score, 3)},
        )
    return None
