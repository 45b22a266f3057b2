"""Writing memory: remember, correct, forget/restore, pin/unpin, gate on/off, and citing (`used`).

Every refusal happens before the first write, so a refused call writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cairn.core.context import Context, stamp, utcnow
from cairn.core.errors import (
    ConflictError,
    EmptySentenceError,
    RefusedError,
    SecretError,
    SentenceTooLongError,
    TriggerError,
    UnknownKindError,
    UnknownRefError,
)
from cairn.core.lessons.triggers import parse_when, split_gate
from cairn.core.models import KINDS, MAX_REF, MAX_REFS, Memory, Trigger
from cairn.core.secretscan import find_secret, may_hold_secret
from cairn.core.text import analyse_fields, tokenize
from cairn.io.citations import (
    SourceRef,
    fingerprint,
    format_source_ref,
    normalise,
    parse_source_ref,
)
from cairn.io.store import Event, IndexText, new_eid, new_ref
from cairn.io.store.protocol import Store

MAX_SENTENCE = 1000
MAX_TAG = 100
MAX_TAGS = 20
MAX_REASON = 4000
SCOPES = ("project", "workspace")
# What a stored memory's status can be: `correct` supersedes, `forget` retires, `restore`
# makes active again (resting is worked out when read, never stored).
MEMORY_STATUSES = ("active", "superseded", "retired")
Outcome = Literal["new", "corrected", "echo", "confirmed"]


@dataclass(frozen=True)
class Remembered:
    """What remember did: the ref to cite, and whether it wrote, echoed or confirmed."""

    ref: str
    outcome: Outcome
    counted: bool = True
    unknown_used: tuple[str, ...] = ()
    memory: Memory | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The result as the MCP tool and `--json` print it."""
        out: dict[str, Any] = {"ref": self.ref, "outcome": self.outcome}
        if self.outcome == "confirmed":
            out["counted"] = self.counted
        if self.unknown_used:
            out["unknown_used"] = list(self.unknown_used)
        return out


def folded_sentence(text: str) -> str:
    """The sentence as compared for restatements: folded words, punctuation ignored."""
    return " ".join(tokenize(text))


def index_text(
    text: str | tuple[list[str], str], tags: Sequence[str], source_ref: str, reason: str
) -> IndexText:
    """The analysed fields recall searches (`text` may be given as its `tokenize` tokens and
    itself, a pair). A citation is a path: its parts are not joined (`src/app.py` is no word
    anyone types as `srcapppy`), as the given-tokens form with no text says."""
    cited = (tokenize(source_ref), "")
    sentence, tag_text, citation, why = analyse_fields([text, " ".join(tags), cited, reason])
    return IndexText(sentence=sentence, tags=tag_text, citation=citation, reason=why)


def check_sentence(text: str) -> str:
    """The sentence stripped, or a refusal: empty or over the limit."""
    text = " ".join(text.split())
    if not text:
        raise EmptySentenceError("refused: the memory is empty; write one claim in one sentence")
    if len(text) > MAX_SENTENCE:
        raise SentenceTooLongError(
            f"refused: the sentence is {len(text)} characters, over the {MAX_SENTENCE} limit; "
            "keep one claim per memory and put the detail in `reason` or the cited file"
        )
    return text


def check_kind(kind: str) -> str:
    """The kind, or a refusal naming the known kinds."""
    if kind not in KINDS:
        raise UnknownKindError(f"refused: unknown kind {kind!r}; use one of {', '.join(KINDS)}")
    return kind


def check_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Tags stripped and de-duplicated, in order; refuse an over-long tag, or more than
    MAX_TAGS of them."""
    out: dict[str, None] = {}
    for tag in tags:
        tag = str(tag).strip()
        if not tag:
            continue
        if len(tag) > MAX_TAG or len(tag.split()) > 1:  # split() cuts at any c.isspace()
            raise RefusedError(f"refused: tag {tag[:40]!r} must be one word of at most {MAX_TAG}")
        if tag[:8].lower() == "trigger:":
            tag = "trigger:" + check_action(tag[8:])
        out[tag] = None
        if len(out) > MAX_TAGS:
            raise RefusedError(
                f"refused: more than {MAX_TAGS} tags; keep the few words a search for this "
                "memory would use"
            )
    return tuple(out)


def check_action(action: str) -> str:
    """The action of a `trigger:ACTION` tag, lowercased, or a refusal naming the known forms
    (`cairn rules --list` shows them all)."""
    from cairn.core.shell.actions import known_action  # the parser's table, only for a rule

    name = action.strip().lower()
    problem = known_action(name)
    if problem:
        raise RefusedError(
            f"refused: unknown action {action!r} in trigger:{action} ({problem}); an action is "
            "git-SUBCOMMAND (git-commit, git-push), PROGRAM-SUBCOMMAND for npm, pnpm, yarn, "
            "bun, docker, kubectl, helm, terraform, tofu, cargo, pip, uv, poetry, twine, go, "
            "make-TARGET, or a gh command (pr-create, issue-list, release-create, gh-api); "
            "`cairn rules --list` lists every form"
        )
    return name


def check_used(used: Iterable[str]) -> tuple[str, ...]:
    """The refs of `used`, de-duplicated, in order; refuse more than MAX_REFS, or a ref
    longer than MAX_REF characters."""
    out: dict[str, None] = {}
    for ref in used:
        if not ref:
            continue
        ref = str(ref)
        if len(ref) > MAX_REF:
            raise RefusedError(f"refused: {ref[:20]!r}... in `used` is not a ref (m-7f3a2c)")
        out[ref] = None
        if len(out) > MAX_REFS:
            raise RefusedError(
                f"refused: `used` lists more than {MAX_REFS} refs; list the memories that "
                "shaped this work"
            )
    return tuple(out)


def check_secrets(fields: dict[str, str]) -> None:
    """Refuse when any field holds something that looks like a secret."""
    if not may_hold_secret("\n".join(fields.values())):
        return  # the common case: one quick look at all fields instead of a scan of each
    for name, value in fields.items():
        found = find_secret(value) if value else None
        if found:
            raise SecretError(
                f"refused: the {name} looks like it holds {found}; remove the secret and say "
                "where it is kept instead (e.g. 'the deploy token is in the CI secret store')"
            )


def check_reason(reason: str) -> str:
    """The reason with its whitespace collapsed, or a refusal over the limit."""
    reason = " ".join(reason.split())
    if len(reason) > MAX_REASON:
        raise RefusedError(
            f"refused: the reason is {len(reason)} characters, over the {MAX_REASON} limit; "
            "say why in a few sentences and cite the file that holds the detail"
        )
    return reason


# Kinds that never ride along on a call: a `when` given with one is refused.
UNTRIGGERED = frozenset({"fact", "progress"})


def check_gate(gate: bool, when: Trigger | None, tags: Sequence[str]) -> bool:
    """The gate flag, or a refusal: only a lesson (`when`) or a rule (`trigger:ACTION`) can
    be a gate, since a gate stops the first call its trigger matches in a session."""
    if gate and when is None and not _has_action(tags):
        raise RefusedError(
            "refused: only a lesson with `when` or a rule tagged trigger:ACTION can be a gate "
            "(a gate stops the first matching call of a session once, with itself as the "
            "reason); give it a trigger or leave gate off"
        )
    return gate


def _has_action(tags: Sequence[str]) -> bool:
    return any(t.startswith("trigger:") for t in tags)


def check_scope(scope: str) -> str:
    """The scope, or a refusal naming the two scopes."""
    if scope not in SCOPES:
        raise RefusedError(f"refused: scope must be 'project' or 'workspace', not {scope!r}")
    return scope


def check_citation(source_ref: str, project: Path, cwd: Path | None = None) -> SourceRef:
    """The source_ref parsed, its path made relative to the project (`normalise` refuses a
    path outside it)."""
    src = parse_source_ref(source_ref)
    return normalise(src, project, cwd) if src.path else src


@dataclass(frozen=True)
class Checked:
    """A memory's fields as they are stored, once every rule of `check_memory` passed."""

    text: str
    kind: str
    tags: tuple[str, ...]
    reason: str
    when: Trigger | None
    scope: str
    citation: SourceRef

    @property
    def source_ref(self) -> str:
        """The citation as stored."""
        return format_source_ref(self.citation)


def check_memory(
    text: str,
    *,
    kind: str,
    tags: Iterable[str],
    reason: str,
    when: object,
    scope: str,
    source_ref: str,
    project: Path,
    cwd: Path | None = None,
) -> Checked:
    """Every rule a memory's own fields must pass, in one place (`remember` and `import`).

    `when` is None or what `parse_when` reads. Raises a `RefusedError` subclass naming the
    first rule broken; returns the fields normalised as they are stored.
    """
    text = check_sentence(text)
    kind = check_kind(kind)
    tag_tuple = check_tags(tags)
    reason = check_reason(reason)
    trigger = parse_when(when, str(project)) if when is not None else None
    scope = check_scope(scope)
    check_secrets(
        {
            "sentence": text,
            "reason": reason,
            "tags": " ".join(tag_tuple),
            "source_ref": source_ref,
            "trigger": trigger.pattern if trigger else "",
        }
    )
    citation = check_citation(source_ref, project, cwd)
    return Checked(text, kind, tag_tuple, reason, trigger, scope, citation)


def remember(
    store: Store,
    ctx: Context,
    text: str,
    *,
    kind: str | None = None,
    tags: Iterable[str] | None = None,
    reason: str | None = None,
    source_ref: str | None = None,
    when: object = None,
    scope: str | None = None,
    pinned: bool | None = None,
    replaces: str | None = None,
    used: Iterable[str] = (),
    gate: bool | None = None,
) -> Remembered:
    """Save one claim (or correct one with `replaces`); return its ref and what happened.

    Restating a current claim (same folded sentence, visible from the project) writes no new
    memory: from the tool that wrote it, it is an echo; from another tool, a confirmation,
    counted once per tool per session (once a day without a session). A `gate` given with a
    restatement is set on the claim restated.

    `gate` (or `gate` inside `when`) makes a lesson or rule a gate (see `cairn.usecases.gates`); a
    correction keeps the old version's gate unless told otherwise.
    """
    when, when_gate = split_gate(when)
    if gate is not None and when_gate is not None and gate != when_gate:
        raise RefusedError("refused: `gate` and `when.gate` disagree; give it once")
    asked_gate = gate if gate is not None else when_gate
    old = store.get_memory(replaces) if replaces else None
    if old is not None and not old.is_current:
        newer = f" by {old.replaced_by}" if old.replaced_by else ""
        raise UnknownRefError(
            f"refused: {old.ref} is no longer current (replaced{newer} or forgotten); "
            "correct the current version"
        )
    if kind is not None and when is not None and kind in UNTRIGGERED:
        raise TriggerError(
            f"refused: a {kind} takes no `when`; a `when` makes a lesson that rides along on "
            "matching calls: drop the kind (or give kind lesson), or drop the `when`"
        )
    if kind is None:
        kind = old.kind if old else "fact"
        if when is not None and kind in UNTRIGGERED:
            kind = "lesson"  # a `when` makes a lesson
    checked = check_memory(
        text,
        kind=kind,
        tags=tags if tags is not None else (old.tags if old else ()),
        reason=reason if reason is not None else (old.reason if old else ""),
        # None is absent; anything else (`{}`, `[]`, `0`, `""`) must be a valid `when`.
        when=when,
        scope=scope or (old.scope if old else "project"),
        source_ref=source_ref if source_ref is not None else (old.source_ref if old else ""),
        project=Path(ctx.root),
        cwd=Path(ctx.cwd or ctx.root),
    )
    text, kind, tag_tuple, reason = checked.text, checked.kind, checked.tags, checked.reason
    trigger = checked.when or (old.when if old else None)
    if trigger is not None and trigger.problem():
        # Only an inherited trigger can get here: one a hand edit or an older Cairn let in.
        raise TriggerError(
            f"refused: the trigger of {replaces} cannot be matched ({trigger.problem()}); "
            "give the correction a new `when`"
        )
    if asked_gate is not None:
        gated = asked_gate  # checked below, on this memory or on the one it restates
    else:  # a correction keeps its gate while it still has a trigger to stop calls on
        gated = bool(old and old.gate) and (trigger is not None or _has_action(tag_tuple))
    scope, src, source = checked.scope, checked.citation, checked.source_ref
    fp = json.dumps(fingerprint(src, Path(ctx.root)), sort_keys=True) if source else ""
    now = ctx.now()
    tokens = tokenize(text)  # once, for both the restatement check and the index
    folded = " ".join(tokens)
    index = index_text((tokens, text), tag_tuple, source, reason)
    used_refs = check_used(used)

    with store.transaction():
        store.note_session(ctx)
        known = store.get_memories(used_refs) if used_refs else {}
        unknown_used = tuple(u for u in used_refs if u not in known)
        if known:
            cite(store, ctx, [u for u in used_refs if u in known])
        if old is None:
            same = store.find_current(ctx.project, folded)
            if same is not None:
                if asked_gate is not None and asked_gate != same.gate:
                    check_gate(asked_gate, same.when, same.tags)
                    store.update_memory(same, gate=asked_gate)
                return _restated(store, ctx, same, unknown_used)
        check_gate(gated, trigger, tag_tuple)  # a refusal rolls the transaction back
        memory = Memory(
            ref=new_ref(),
            text=text,
            kind=kind,
            project=ctx.project,
            tags=tag_tuple,
            reason=reason,
            source_ref=source,
            when=trigger,
            scope=scope,  # type: ignore[arg-type]
            branch=ctx.branch,
            pinned=bool(pinned if pinned is not None else (old.pinned if old else False)),
            tool=ctx.tool,
            session=ctx.session,
            written=now,
            replaces=old.ref if old else None,
            last_touched=now,
            fingerprint=fp,
            gate=gated,
        )
        stored = store.insert_memory(memory, folded, index)
        if old is not None:
            store.update_memory(old, until=now, replaced_by=stored.ref, status="superseded")
    return Remembered(stored.ref, "corrected" if old else "new", True, unknown_used, stored)


def remember_many(
    store: Store, ctx: Context, items: Iterable[Mapping[str, Any]], *, index: bool = True
) -> list[Remembered]:
    """Save many claims in one transaction, each exactly as `remember` saves it: all or none;
    then (unless `index` is False: the caller does it) bring what recall keeps beside the
    store up to date (`cairn.usecases.recall.refresh`: the rows written indexed, the LSA fit when
    due).

    Each item holds `remember`'s arguments (`text` and the keyword fields). An item refused
    rolls the whole batch back. A bulk load pays one commit instead of one per memory (the
    commit is a third of a `remember`), and its indexing is the write's: the next recall, in
    this process or another, reads the kept files instead of indexing the batch and fitting
    LSA itself (seconds at 100k). Inside a caller's transaction the rows are not committed
    yet, so the indexing is left to the next write or recall. `Cairn.remember_many` runs it
    inside the trigger list's after-write step and indexes after that step (so the list is
    not held stale while the batch is indexed); on a bare store, the next `cairn.open()`
    brings the list up to date.
    """
    with store.transaction():
        done = [remember(store, ctx, **item) for item in items]
    if index and not store.in_transaction:
        from cairn.usecases.recall import refresh

        refresh(store)
    return done


def _restated(
    store: Store, ctx: Context, same: Memory, unknown_used: tuple[str, ...]
) -> Remembered:
    """Record an echo (the writer again) or a confirmation (another tool)."""
    now = ctx.now()
    if same.tool == ctx.tool:
        # An echo does not count as a confirmation, but the writer restated it: it wakes.
        store.add_events([Event(new_eid(), same.ref, "echo", ctx.tool, ctx.session, now)])
        store.touch([same.ref], now)
        return Remembered(same.ref, "echo", False, unknown_used)
    counted = not store.event_exists(same.ref, "confirmed", ctx.tool, ctx.session, ctx.today())
    if counted:
        store.add_events([Event(new_eid(), same.ref, "confirmed", ctx.tool, ctx.session, now)])
        store.touch([same.ref], now)
    return Remembered(same.ref, "confirmed", counted, unknown_used)


def cite(store: Store, ctx: Context, refs: Iterable[str]) -> list[str]:
    """Record that the session used these memories; each tool counts once per session/day.

    Returns the refs whose citation counted. The session is recorded (`note_session`) so
    that the acts on its branch (merge, revert, discard) judge what it cited.
    """
    now = ctx.now()
    refs = list(dict.fromkeys(refs))
    counted = [
        ref
        for ref in refs
        if not store.event_exists(ref, "cited", ctx.tool, ctx.session, ctx.today())
    ]
    if not refs:
        return counted
    with store.transaction():
        store.note_session(ctx)
        store.add_events(Event(new_eid(), r, "cited", ctx.tool, ctx.session, now) for r in counted)
        store.touch(refs, now)
    return counted


def confirm(store: Store, ctx: Context, ref: str) -> bool:
    """The user (or a tool) confirms a memory by hand; True when it counted."""
    return _judge(store, ctx, ref, "confirmed")


def contradict(store: Store, ctx: Context, ref: str) -> bool:
    """The user (or a tool) says a memory no longer holds; True when it counted.

    Counted once per tool per session (once a day without a session), as a confirmation is;
    two contradictions since the last confirmation put it out (`cairn.core.lifecycle`).
    """
    return _judge(store, ctx, ref, "contradicted")


def _judge(store: Store, ctx: Context, ref: str, event: str) -> bool:
    memory = store.get_memory(ref)
    if store.event_exists(memory.ref, event, ctx.tool, ctx.session, ctx.today()):
        return False
    now = ctx.now()
    with store.transaction():
        store.note_session(ctx)
        store.add_events([Event(new_eid(), memory.ref, event, ctx.tool, ctx.session, now)])
        store.touch([memory.ref], now)
    return True


def correct(
    store: Store,
    ctx: Context,
    ref: str,
    text: str,
    *,
    revision: int | None = None,
    **fields: Any,
) -> Remembered:
    """Supersede `ref` with a new sentence; unspecified fields carry over; history is kept.

    With `revision` (the one the caller read), a memory changed since, or no longer current,
    is refused with a `ConflictError` and nothing is written.
    """
    if revision is not None:
        old = store.get_memory(ref)
        if old.revision != revision or not old.is_current:
            newer = f", replaced by {old.replaced_by}" if old.replaced_by else ""
            raise ConflictError(
                f"{ref} changed since you read it (revision {revision}, now {old.revision}"
                f"{newer}); read it again and retry"
            )
    return remember(store, ctx, text, replaces=ref, **fields)


def forget(store: Store, ref: str, *, at: str | None = None) -> Memory:
    """Retire a memory (soft: kept in history, undone by `restore`).

    The forget ends the version at `at` (default: now): it sets `until`, so `as_of` still
    finds it believed before then. Forgetting it again keeps the first moment.
    """
    memory = store.get_memory(ref)
    if memory.status == "retired":
        return memory
    if memory.until is not None:
        raise UnknownRefError(f"{ref} was replaced by {memory.replaced_by}; forget that one")
    return store.update_memory(memory, status="retired", until=at or stamp(utcnow()))


def restore(store: Store, ref: str) -> Memory:
    """Bring a forgotten memory back: the forget is undone, so the version reads as believed
    throughout, as an act taken back by `cairn review undo` reads as never recorded."""
    memory = store.get_memory(ref)
    if memory.status != "retired":
        return memory
    return store.update_memory(memory, status="active", until=None)


def set_gate(store: Store, ref: str, gate: bool) -> Memory:
    """Make a lesson or rule a gate, or an ordinary one again (in place, like a pin)."""
    memory = store.get_memory(ref)
    if not memory.is_current:
        newer = f" by {memory.replaced_by}" if memory.replaced_by else ""
        raise UnknownRefError(
            f"{ref} is no longer current (replaced{newer} or forgotten); gate the current version"
        )
    if memory.gate == gate:
        return memory
    check_gate(gate, memory.when, memory.tags)
    return store.update_memory(memory, gate=gate)


def set_pinned(store: Store, ref: str, pinned: bool) -> Memory:
    """Pin (always in the brief, never rests) or unpin a memory."""
    memory = store.get_memory(ref)
    if memory.pinned == pinned:
        return memory
    return store.update_memory(memory, pinned=pinned)
