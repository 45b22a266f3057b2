"""Tidy proposals: small reviewed changes that keep memory short and true.

`proposals(cairn)` looks at the project's current memories and proposes, each with the rule
that finds it:

- **merge** (near-duplicates): the Jaccard index of the two sentences' analysed word sets
  (`cairn.text.analyse`: folded, stopwords dropped, stemmed) is at least `DUPLICATE_JACCARD`
  (0.6). The merged sentence is the one holding more distinct words (it says more); on a tie,
  the newer one.
- **conflict** (same subject, different claim): the sentences share at least `SUBJECT_WORDS`
  (2) words, not counting numbers and negations, and those words make a Jaccard index of at
  least `SUBJECT_JACCARD` (0.5); and they differ in negation (one says not / no / never /
  cannot / without / n't, the other does not), in their numbers (`Postgres 15` against
  `Postgres 16`), or in exactly one word each (a swapped name, tool or value: `fly` against
  `render`). The newer claim is proposed to supersede the older one.
- **stale-citation**: the cited file is `gone`, or the cited code `changed`, for at least
  `STALE_AFTER` (14 days). How long is bounded from what is known: the first time tidy saw the
  status (recorded in the store), and the file's modification time (for `gone`, that of the
  nearest folder still there), never before the memory was written.
- **broad-lesson**: a lesson with a `when` handed out at least `BROAD_FIRES` (10) times and never
  cited. The offers ledger records which session a lesson fired in, not the command or path it
  fired on, so the narrower trigger is derived from the lesson's own pattern: a shell regex is
  anchored to the start of a command (or after `;`, `&`, `|`, `(`) and made to end on a word
  boundary; a read glob becomes the same glob on edits. When neither applies (an edit glob, an
  already anchored regex) the proposal is to retire the lesson. The sessions it fired in are
  listed so a person can judge.
- **pinned-contradicted**: a pinned memory contradicted at least twice with no confirmation
  since (pinning is all that keeps it in the index); accepting unpins it.
- **retire**: a resting memory (not cited or restated for 30 days) idle for `RETIRE_AFTER`
  (60 days). Lessons and action rules are left out: a resting one still fires on its calls, and
  one that fires without being cited is judged by **broad-lesson** instead.

Two lessons with different triggers, or two action rules for different actions, are never
compared for a merge or conflict: each holds in its own situation.

Pairs are never all compared (that took 24 GB at 100k memories). `cairn.text.overlap` finds,
from each sentence's rarest words, every pair that can reach either overlap (merge: 0.6 on the
words; conflict: 0.5 and 2 words on the subject words), and nothing else it can rule out by
the sentences' lengths and where their first shared word stands; the words each candidate
shares are counted in bulk, and the rules above are asked of all candidates at once, so only
pairs that are proposed reach `_compare`, which decides. The proposals are those all-pairs
scoring made (tests/test_tidy_pairs.py checks it on random stores), with one limit: a memory
is named in at most `PAIRS_PER_MEMORY` (3) merge or conflict proposals not declined, in the
order they are found; its other pairs wait for a later run (accepting one retires or rewrites
it anyway, and a memory with 400 near-duplicates gave 400 proposals).

Each proposal has a stable id: a hash of its kind, its refs and the facts it rests on (the
sentences; the citation status; the trigger and the doubling band of its fire count; the
contradictions; the last touch), followed by the refs themselves (`t-3f9a2c1d0e-1a2b3c-4d5e6f`),
so accepting or declining one looks only at the memories it names: their proposals are made
again, and an id none of them has any more is refused as stale (at 100k memories, finding it by
rerunning the whole tidy took 30 s). A declined id is remembered in the store and filtered out
by its hash (the part before the refs, all an id held before), so the proposal does not come
back until one of its facts changes. Accepting applies it through
the library, with history: a merge or conflict corrects one memory to the chosen sentence and
forgets the other; narrowing corrects the lesson's `when`; retiring forgets; unpinning unpins.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.context import DAY_US, micros, parse_stamp, stamp, stamp_micros
from cairn.describe import citation_of
from cairn.errors import TriggerError, UnknownRefError
from cairn.lessons.triggers import parse_when
from cairn.lifecycle import CONTRADICTING, STRIKES, state_of, strikes
from cairn.models import Event, Memory, Trigger
from cairn.text import analyse, fold
from cairn.text.overlap import Rows, distinct
from cairn.workspace import checkout_root

if TYPE_CHECKING:
    from cairn.opened import Opened

__all__ = [
    "BROAD_FIRES",
    "DUPLICATE_JACCARD",
    "PAIRS_PER_MEMORY",
    "RETIRE_AFTER",
    "STALE_AFTER",
    "SUBJECT_JACCARD",
    "SUBJECT_WORDS",
    "Applied",
    "Proposal",
    "accept",
    "decline",
    "jaccard",
    "narrower_trigger",
    "negated",
    "proposal_id",
    "proposals",
]

DUPLICATE_JACCARD = 0.6
SUBJECT_JACCARD = 0.5
SUBJECT_WORDS = 2
STALE_AFTER = timedelta(days=14)
BROAD_FIRES = 10
RETIRE_AFTER = timedelta(days=60)
FIRE_CHANNELS = ("lesson",)
PAIR_BATCH = 20_000  # pairs compared between two progress reports
CITATION_BATCH = 200  # citations checked between two progress reports
PAIRS_PER_MEMORY = 3
_SLACK = 1e-9  # float error only ever lets a pair through to `_compare`, which decides
SHOWN_SESSIONS = 5

_ID = re.compile(r"t-([0-9a-f]{10})((?:-[0-9a-f]{6}){1,2})")
_NEGATION_WORDS = frozenset(analyse("not no never cannot without"))
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|without)\b|n['\u2019]t\b")
_ANCHOR = r"(?:^|[;&|(]\s*)"
_WORD_END = r"(?:\s|$)"

Progress = Callable[[str, int, int], None]
"""Told the step under way, how far it is and how far it goes: (step, done, total)."""


@dataclass(frozen=True)
class Proposal:
    """One tidy proposal: what to change, why, and the facts it rests on."""

    id: str
    kind: str
    action: str
    refs: tuple[str, ...]
    why: str
    texts: tuple[str, ...]
    text: str | None = None
    when: dict[str, str] | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The proposal as `cairn tidy --json` prints it."""
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "action": self.action,
            "refs": list(self.refs),
            "why": self.why,
            "texts": list(self.texts),
        }
        if self.text is not None:
            out["text"] = self.text
        if self.when is not None:
            out["when"] = self.when
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class Applied:
    """What accepting a proposal did: refs written, forgotten and unpinned."""

    proposal: Proposal
    written: tuple[str, ...] = ()
    retired: tuple[str, ...] = ()
    unpinned: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """As `cairn tidy accept --json` prints it."""
        return {
            "id": self.proposal.id,
            "kind": self.proposal.kind,
            "action": self.proposal.action,
            "written": list(self.written),
            "retired": list(self.retired),
            "unpinned": list(self.unpinned),
        }


def proposals(
    cairn: Opened,
    *,
    include_declined: bool = False,
    limit: int | None = None,
    progress: Progress | None = None,
) -> list[Proposal]:
    """Every tidy proposal for the project, declined ones left out unless asked for.

    `limit` stops the search once that many are found (in the order listed in the module
    docstring). `progress(step, done, total)` is called between batches of the long steps.
    """
    store, ctx = cairn.store, cairn.ctx
    report: Progress = progress or _quiet
    memories = [m for m in store.list_memories(project=ctx.project) if m.kind != "progress"]
    # The words the index already holds: analysing 100k sentences again took seconds.
    stored = store.sentence_words(ctx.project)
    words = [
        frozenset(stored[m.ref].split()) if m.ref in stored else frozenset(analyse(m.text))
        for m in memories
    ]
    events = _by_ref(store.events_for([m.ref for m in memories]))
    now = ctx.clock()
    declined = {_key(pid) for pid in store.declined_proposals()}
    hidden = frozenset() if include_declined else declined
    steps: list[Callable[[], Iterable[Proposal]]] = [
        lambda: _pairs(memories, words, declined, report),
        lambda: _stale_citations(cairn, memories, now, report),
        lambda: _broad_lessons(cairn, memories, events),
        lambda: _pinned_contradicted(memories, events),
        lambda: _resting(memories, events, now),
    ]
    found: list[Proposal] = []
    for step in steps:
        for proposal in step():
            if _key(proposal.id) in hidden:
                continue
            found.append(proposal)
            if limit is not None and len(found) >= limit:
                return found
    return found


def _quiet(step: str, done: int, total: int) -> None:
    """No progress shown."""


def decline(cairn: Opened, pid: str) -> Proposal:
    """Decline a proposal: it stays out of `proposals` until the facts it rests on change."""
    proposal = _find(cairn, pid)
    with cairn.store.transaction():
        cairn.store.decline_proposal(proposal.id, proposal.kind, proposal.refs, cairn.ctx.now())
    return proposal


def accept(cairn: Opened, pid: str) -> Applied:
    """Apply a proposal through the library (corrections keep their history)."""
    proposal = _find(cairn, pid)
    if proposal.action == "merge":
        return _merge(cairn, proposal)
    if proposal.action == "narrow":
        when = dict(proposal.when or {})
        result = cairn.correct(proposal.refs[0], proposal.texts[0], when=when)
        return Applied(proposal, written=(result.ref,))
    if proposal.action == "unpin":
        cairn.unpin(proposal.refs[0])
        return Applied(proposal, unpinned=(proposal.refs[0],))
    cairn.forget(proposal.refs[0])
    return Applied(proposal, retired=(proposal.refs[0],))


def _find(cairn: Opened, pid: str) -> Proposal:
    """The proposal with this id, made again from the memories the id names alone."""
    pid = pid.strip()
    found = _ID.fullmatch(pid)
    if found is None:
        raise UnknownRefError(
            f"no tidy proposal {pid!r}: an id looks like t-3f9a2c1d0e-1a2b3c-4d5e6f; "
            "`cairn tidy` lists them"
        )
    refs = tuple(f"m-{ref}" for ref in found.group(2).split("-")[1:])
    for proposal in _proposals_on(cairn, refs):
        if proposal.id == pid:
            return proposal
    raise UnknownRefError(
        f"tidy proposal {pid!r} no longer holds: {' or '.join(refs)} changed since it was "
        "listed (corrected, forgotten, or the facts it rests on moved); `cairn tidy` lists "
        "the current ones"
    )


def _proposals_on(cairn: Opened, refs: Sequence[str]) -> list[Proposal]:
    """Every proposal naming exactly these refs, made by the same rules as `proposals` from
    these memories alone (declined ones included): a pair's merge or conflict, or one
    memory's stale citation, broad lesson, contradicted pin or rest.

    The one difference: a pair past `PAIRS_PER_MEMORY` is found here though `proposals` holds
    it back for a later run; its facts hold, so it may be accepted or declined."""
    store, ctx = cairn.store, cairn.ctx
    if len(set(refs)) != len(refs):
        return []  # a memory is never paired with itself
    found = store.get_memories(refs)
    memories = [
        found[ref]
        for ref in refs
        if ref in found
        and found[ref].until is None
        and found[ref].status != "retired"
        and (found[ref].project == ctx.project or found[ref].scope == "workspace")
        and found[ref].kind != "progress"
    ]
    if len(memories) != len(refs):
        return []
    if len(memories) == 2:
        a, b = _older_newer(*memories)
        if _different_situations(a, b):
            return []
        stored = store.sentence_words(ctx.project)
        wa, wb = (
            frozenset(stored[m.ref].split()) if m.ref in stored else frozenset(analyse(m.text))
            for m in (a, b)
        )
        pair = _compare(a, b, wa, wb)
        return [pair] if pair is not None else []
    events = _by_ref(store.events_for(refs))
    now = ctx.clock()
    return [
        *_stale_citations(cairn, memories, now, _quiet),
        *_broad_lessons(cairn, memories, events),
        *_pinned_contradicted(memories, events),
        *_resting(memories, events, now),
    ]


def _merge(cairn: Opened, proposal: Proposal) -> Applied:
    """Correct one memory to the chosen sentence and forget the other, in one transaction."""
    keep = cairn.store.get_memory(proposal.detail["correct"])
    drop = cairn.store.get_memory(proposal.detail["retire"])
    tags = tuple(dict.fromkeys((*keep.tags, *drop.tags)))
    fields: dict[str, Any] = {
        "tags": tags,
        # The trigger decides what a memory is: the kind follows the one that brings it.
        "kind": keep.kind if keep.when is not None else drop.kind,
        "pinned": keep.pinned or drop.pinned,
    }
    if not keep.reason and drop.reason:
        fields["reason"] = drop.reason
    if not keep.source_ref and drop.source_ref:
        fields["source_ref"] = drop.source_ref
    if keep.when is None and drop.when is not None:
        fields["when"] = drop.when
    with cairn.triggers.writing(), cairn.store.transaction():
        # The dropped memory holds the chosen sentence: forget it first, so the correction
        # is the one current memory saying it.
        cairn.forget(drop.ref)
        result = cairn.correct(keep.ref, str(proposal.text), **fields)
    return Applied(proposal, written=(result.ref,), retired=(drop.ref,))


# -- near-duplicates and conflicts -----------------------------------------------------------


def _pairs(
    memories: Sequence[Memory],
    words: Sequence[frozenset[str]],
    declined: Collection[str],
    report: Progress,
) -> Iterator[Proposal]:
    """Merge and conflict proposals, in the order of the memories (then of their partners).

    Only pairs that can meet a rule are compared: those reaching `DUPLICATE_JACCARD` on their
    words or `SUBJECT_JACCARD` with `SUBJECT_WORDS` shared on their subject words, found by
    prefix filtering (`cairn.text.overlap`), which misses none of them. A memory is named in
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


# -- stale citations -------------------------------------------------------------------------


def _stale_citations(
    cairn: Opened, memories: Sequence[Memory], now: datetime, report: Progress
) -> list[Proposal]:
    ctx = cairn.ctx
    seen: list[tuple[Memory, str, str]] = []
    statuses: dict[str, str] = {}
    cited = [m for m in memories if m.source_ref and m.fingerprint]
    for k, m in enumerate(cited):
        if k % CITATION_BATCH == 0:
            report("checking citations", k, len(cited))
        citation = citation_of(m, ctx)
        statuses[m.ref] = citation.status
        if citation.status in ("gone", "changed"):
            seen.append((m, citation.status, citation.path))
    if not statuses:
        return []
    with cairn.store.transaction():
        first = cairn.store.sight_citations(statuses, ctx.now())
    out: list[Proposal] = []
    for m, status, path in seen:
        since = parse_stamp(first[m.ref])
        bound = _file_bound(path, _roots(m, cairn), status)
        if bound is not None:
            since = min(since, bound)
        since = max(since, parse_stamp(m.written))
        if now - since < STALE_AFTER:
            continue
        days = (now - since).days
        said = "is gone (file missing)" if status == "gone" else "changed"
        out.append(
            _proposal(
                "stale-citation",
                "retire",
                (m.ref,),
                f"the cited code {m.source_ref} {said} at least {days} days ago; "
                "retire it, or decline if it still holds",
                (m.text,),
                {"status": status, "source_ref": m.source_ref},
                detail={"status": status, "source_ref": m.source_ref, "since": stamp(since)},
            )
        )
    return out


def _roots(memory: Memory, cairn: Opened) -> list[Path]:
    roots = [checkout_root(cairn.ctx.cwd)] if cairn.ctx.cwd else []
    own = cairn.ctx.root if memory.project == cairn.ctx.project else memory.project
    return [*roots, Path(own)]


def _file_bound(path: str, roots: Sequence[Path], status: str) -> datetime | None:
    """A time by which the citation was already broken, from the file system.

    Changed: the file's last modification (the breaking edit came at or before it). Gone: the
    last modification of the nearest folder still there (removing an entry changes it).
    """
    if not path:
        return None
    for root in roots:
        target = root / path
        if status == "changed":
            if target.exists():
                return datetime.fromtimestamp(target.stat().st_mtime, UTC)
            continue
        for folder in target.parents:
            if folder.exists():
                return datetime.fromtimestamp(folder.stat().st_mtime, UTC)
    return None


# -- lessons that fire often and help nobody -------------------------------------------------


def _broad_lessons(
    cairn: Opened, memories: Sequence[Memory], events: dict[str, list[Event]]
) -> list[Proposal]:
    lessons = [m for m in memories if m.when is not None]
    store = cairn.store
    fires = store.fire_counts([m.ref for m in lessons], FIRE_CHANNELS)
    out: list[Proposal] = []
    for m in lessons:
        n = fires.get(m.ref, 0)
        cited = sum(1 for e in events.get(m.ref, []) if e.event == "cited")
        if n < BROAD_FIRES or cited or m.when is None:
            continue
        sessions = store.fire_sessions(m.ref, FIRE_CHANNELS)
        shown = []
        for session, tool, at in sessions[:SHOWN_SESSIONS]:
            row = cairn.store.get_session(session) if session else None
            shown.append(
                {"session": session, "tool": tool, "at": at, "branch": row.branch if row else ""}
            )
        narrower = narrower_trigger(m.when)
        facts = {"when": m.when.to_dict(), "fires_band": int(math.log2(n)), "cited": 0}
        detail: dict[str, Any] = {
            "fires": n,
            "sessions": len({s for s, _, _ in sessions}),
            "tools": sorted({t for _, t, _ in sessions if t}),
            "fired_in": shown,
            "limitation": "the offers ledger does not record the command or path a lesson "
            "fired on; the narrower trigger comes from the lesson's own pattern",
        }
        base = f"fired {n} times in {detail['sessions']} sessions and was never cited"
        if narrower is not None:
            out.append(
                _proposal(
                    "broad-lesson",
                    "narrow",
                    (m.ref,),
                    f"{base}; narrow its trigger",
                    (m.text,),
                    facts,
                    when=narrower.to_dict(),
                    detail=detail,
                )
            )
        else:
            out.append(
                _proposal(
                    "broad-lesson",
                    "retire",
                    (m.ref,),
                    f"{base}; no narrower trigger follows from {m.when.pattern!r}: retire it",
                    (m.text,),
                    facts,
                    detail=detail,
                )
            )
    return out


def narrower_trigger(when: Trigger) -> Trigger | None:
    """A narrower trigger derived from the pattern alone, or None when none can be.

    Shell: the regex must start a command (or follow `;`, `&`, `|`, `(`) and end on a word
    boundary. Read: the same glob, on edits only. Edit: none (a glob cannot be narrowed without
    knowing the paths it fired on).
    """
    candidate: Trigger | None = None
    if when.tool == "shell" and when.match:
        pattern = when.match
        starts = pattern.startswith(("^", _ANCHOR))
        ends = pattern.endswith(("$", _WORD_END))
        if starts and ends:
            return None
        head = "" if starts else _ANCHOR
        tail = "" if ends else _WORD_END
        candidate = Trigger("shell", match=f"{head}(?:{pattern}){tail}")
    elif when.tool == "read" and when.path:
        candidate = Trigger("edit", path=when.path)
    if candidate is None:
        return None
    try:
        return parse_when(candidate)
    except TriggerError:
        return None


# -- pinned but contradicted; resting too long ------------------------------------------------


def _pinned_contradicted(
    memories: Sequence[Memory], events: dict[str, list[Event]]
) -> list[Proposal]:
    out: list[Proposal] = []
    for m in memories:
        mine = events.get(m.ref, [])
        n = strikes(mine)
        if not m.pinned or n < STRIKES:
            continue
        last = [e for e in mine if e.event in CONTRADICTING][-1]
        out.append(
            _proposal(
                "pinned-contradicted",
                "unpin",
                (m.ref,),
                f"pinned, yet contradicted {n} times with no confirmation since "
                f"(last: {last.event} at {last.at[:10]}); unpin it so the evidence counts",
                (m.text,),
                {"strikes": n, "last": last.eid},
                detail={"strikes": n, "last": {"event": last.event, "at": last.at}},
            )
        )
    return out


def _resting(
    memories: Sequence[Memory], events: dict[str, list[Event]], now: datetime
) -> list[Proposal]:
    out: list[Proposal] = []
    now_us = micros(now)  # once, not once per memory: tidy reads every memory
    after_us = RETIRE_AFTER // timedelta(microseconds=1)
    for m in memories:
        if m.when is not None or m.action_names():
            continue  # still fires while resting (see the module docstring)
        idle_us = now_us - stamp_micros(m.last_touched or m.written)
        if idle_us < after_us:
            continue
        state = state_of(m, events.get(m.ref, []), now_us)
        if state.status != "resting":
            continue
        out.append(
            _proposal(
                "retire",
                "retire",
                (m.ref,),
                f"resting: not cited or restated for {idle_us // DAY_US} days; retire it",
                (m.text,),
                {"last_touched": m.last_touched},
                detail={"last_touched": m.last_touched},
            )
        )
    return out


# -- shared ----------------------------------------------------------------------------------


def proposal_id(kind: str, refs: Sequence[str], facts: dict[str, Any]) -> str:
    """The stable id of a proposal: a hash of its kind, refs and the facts it rests on, then
    the refs (in order, without their `m-`), so the id says which memories to look at."""
    ordered = sorted(refs)
    payload = json.dumps([kind, ordered, facts], sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:10]
    return "-".join(["t", digest, *(ref.removeprefix("m-") for ref in ordered)])


def _key(pid: str) -> str:
    """What a declined id is matched on: `t-` and the hash, without the refs (an id declined
    before ids named their refs is that part alone)."""
    return pid[:12]


def _proposal(
    kind: str,
    action: str,
    refs: tuple[str, ...],
    why: str,
    texts: tuple[str, ...],
    facts: dict[str, Any],
    *,
    text: str | None = None,
    when: dict[str, str] | None = None,
    detail: dict[str, Any] | None = None,
) -> Proposal:
    return Proposal(
        id=proposal_id(kind, refs, facts),
        kind=kind,
        action=action,
        refs=refs,
        why=why,
        texts=texts,
        text=text,
        when=when,
        detail=detail or {},
    )


def _by_ref(events: Iterable[Event]) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for e in events:
        out.setdefault(e.ref, []).append(e)
    return out
