"""Tidy proposals: small reviewed changes that keep memory short and true.

`proposals(cairn)` looks at the project's current memories and proposes, each with the rule
that finds it:

- **merge** (near-duplicates): the Jaccard index of the two sentences' analysed word sets
  (`cairn.core.text.analyse`: folded, stopwords dropped, stemmed) is at least `DUPLICATE_JACCARD`
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

Pairs are never all compared (that took 24 GB at 100k memories). `cairn.core.text.overlap` finds,
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

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from cairn.core.errors import UnknownRefError
from cairn.core.text import analyse
from cairn.usecases.tidy.pairs import (
    DUPLICATE_JACCARD,
    PAIRS_PER_MEMORY,
    SUBJECT_JACCARD,
    SUBJECT_WORDS,
    _compare,
    _different_situations,
    _older_newer,
    _pairs,
    jaccard,
    negated,
)
from cairn.usecases.tidy.proposal import (
    Applied,
    Progress,
    Proposal,
    _by_ref,
    _key,
    _quiet,
    proposal_id,
)
from cairn.usecases.tidy.singles import (
    BROAD_FIRES,
    RETIRE_AFTER,
    STALE_AFTER,
    _broad_lessons,
    _pinned_contradicted,
    _resting,
    _stale_citations,
    narrower_trigger,
)

if TYPE_CHECKING:
    from cairn.usecases.opened import Opened

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

_ID = re.compile(r"t-([0-9a-f]{10})((?:-[0-9a-f]{6}){1,2})")


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
