"""Memory on the action: lessons and action rules for one tool call.

`lessons_for(call)` returns what rides along on a shell command, a file read or an edit:

- lessons whose `when` matches (a shell regex on the command's first 512 characters, a
  read/edit glob on the path relative to the project);
- lessons and decisions whose source_ref cites the file read or edited;
- action rules (memories tagged `trigger:ACTION`) for each action the parsed command performs;
- on an edit touching lines a memory cites, a question whether that memory still holds.

At most `PER_CALL` (2) memories per call, each once per session, chosen by pinned first, then
evidence (merges and confirmations), then newest. Retired, superseded and out (contradicted
twice, not pinned) memories never fire; a resting one still does (see `cairn.core.lifecycle`).
The call itself is never blocked or changed, with one opt-in exception: a **gate** (a lesson or
rule marked so, or a rule of an action the project lists; see `cairn.usecases.gates`). On a call the
agent lets a hook deny (`gates=True`: a before-tool event with a session), the first matching
call of a session is stopped once with the gates (at most `PER_CALL`) as the reason, and the
claim is recorded before the caller prints anything; later matching calls pass, and the first
of them is noted as the gate's retry.
"""

from __future__ import annotations

import os

from cairn.core.errors import CairnError, QueryError, TriggerError
from cairn.core.lifecycle import factor_of, state_of
from cairn.core.value import Value
from cairn.io.workspace import checkout_dir

# The hook's firing path runs this module: no dataclasses, typing or pathlib at import time
# (they cost that call ~25 ms); the value classes are plain `Value`s. It decides on the full
# store (`Store`: `cairn lessons test`, the app) or on the hook's own reader (`HookStore`),
# whose memories and events hold only the fields read here (`cairn.core.firing`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any, TypeVar

    from cairn.core.context import Context
    from cairn.core.firing import FiringEvent, FiringMemory
    from cairn.core.lessons.prefilter import Entry
    from cairn.core.models import Event, Memory
    from cairn.io.store.hookread import HookStore
    from cairn.io.store.protocol import Store

    CallStore = Store | HookStore
    AnyMemory = Memory | FiringMemory
    AnyEvent = Event | FiringEvent
    M = TypeVar("M", bound=AnyMemory)

PER_CALL = 2
RULES_K = 6
MAX_ACTION = 100
RENDER_BUDGET = 1500
CHANNELS = ("lesson", "rule", "question", "gate")
ALREADY_GIVEN = "already given in this session"
GATE_WAITING = "a gate that stopped an earlier call: waiting for its retry"
HELD = "held for the retry of this call, which a gate stops"
NO_CONTEXT = "this event cannot carry context to the model"
TRIGGER_SKIPPED = "its trigger cannot be matched"


_set = object.__setattr__


class Call(Value):
    """One tool call, normalised: `tool` is shell, read or edit."""

    # Field order is the constructor order (and the repr's), so not sorted.
    __slots__ = ("tool", "command", "paths", "old_text")  # noqa: RUF023
    tool: str
    command: str
    paths: tuple[str, ...]
    old_text: str

    def __init__(
        self, tool: str, command: str = "", paths: tuple[str, ...] = (), old_text: str = ""
    ) -> None:
        _set(self, "tool", tool)
        _set(self, "command", command)
        _set(self, "paths", paths)
        _set(self, "old_text", old_text)


class Fired(Value):
    """A memory that rides along on a call, and why; `gate` when it stops the call once."""

    __slots__ = ("memory", "channel", "why", "gate")  # noqa: RUF023
    memory: AnyMemory
    channel: str
    why: str
    gate: bool

    def __init__(self, memory: AnyMemory, channel: str, why: str, gate: bool = False) -> None:
        _set(self, "memory", memory)
        _set(self, "channel", channel)
        _set(self, "why", why)
        _set(self, "gate", gate)

    def to_dict(self) -> dict[str, Any]:
        """As `cairn lessons test --json` prints it."""
        return {
            "ref": self.memory.ref,
            "channel": self.channel,
            "why": self.why,
            "text": self.memory.text,
            "kind": self.memory.kind,
            "gate": self.gate,
        }


class Decision(Value):
    """What a call gets: the fired memories (at most 2), or the gates that stop it (at most 2,
    and then nothing fires), and what was considered."""

    __slots__ = ("actions", "fired", "matched", "skipped", "gated")  # noqa: RUF023
    actions: list[str]
    fired: list[Fired]
    matched: list[Fired]
    skipped: dict[str, str]
    gated: list[Fired]

    def __init__(
        self,
        actions: list[str] | None = None,
        fired: list[Fired] | None = None,
        matched: list[Fired] | None = None,
        skipped: dict[str, str] | None = None,
        gated: list[Fired] | None = None,
    ) -> None:
        _set(self, "actions", [] if actions is None else actions)
        _set(self, "fired", [] if fired is None else fired)
        _set(self, "matched", [] if matched is None else matched)
        _set(self, "skipped", {} if skipped is None else skipped)
        _set(self, "gated", [] if gated is None else gated)

    def to_dict(self) -> dict[str, Any]:
        """As `cairn lessons test --json` prints it."""
        return {
            "actions": self.actions,
            "lessons": [f.memory.ref for f in self.fired],
            "fired": [f.to_dict() for f in self.fired],
            "gated": [f.to_dict() for f in self.gated],
            "matched": [f.to_dict() for f in self.matched],
            "skipped": self.skipped,
        }


def relative_paths(paths: Iterable[str], ctx: Context) -> list[str]:
    """Paths made relative to the session checkout (else the project), `/`-separated."""
    roots = []
    if ctx.cwd:
        roots.append(checkout_dir(ctx.cwd))
    roots.append(os.path.normpath(ctx.root))
    out: list[str] = []
    for raw in paths:
        if not raw:
            continue
        path = raw if os.path.isabs(raw) else os.path.join(ctx.cwd or ctx.root, raw)
        path = os.path.normpath(path)
        for root in roots:
            rel = _relative_to(path, root)
            if rel is not None:
                out.append(rel)
                break
        else:
            out.append(_posix(raw))
    return list(dict.fromkeys(out))


def _relative_to(path: str, root: str) -> str | None:
    """`path` below `root` (both normalised), as PurePath.relative_to gives it; None if not."""
    if path == root:
        return "."
    prefix = root if root.endswith("/") else root + "/"
    if not path.startswith(prefix):
        return None
    return _posix(path[len(prefix) :])


def _posix(raw: str) -> str:
    """`raw` as PurePosixPath(raw).as_posix() writes it (`.` parts and repeated `/` gone)."""
    if raw.startswith("//") and not raw.startswith("///"):
        lead = "//"  # POSIX keeps exactly two leading slashes
    else:
        lead = "/" if raw.startswith("/") else ""
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    return lead + "/".join(parts) if lead or parts else "."


def recall_for_action(store: Store, ctx: Context, action: str, k: int = RULES_K) -> list[Memory]:
    """Rules for an action: memories tagged `trigger:ACTION`, visible, current, newest first.

    No text search and no scoring: the action name is the key. Superseded and retired rules
    are dropped by the lookup; rules contradicted twice (out) too. A resting rule still fires.
    """
    return _firing_rules(store, ctx, store.memories_with_tag(_action_tag(action), ctx.project), k)


def _action_tag(action: str) -> str:
    """The `trigger:ACTION` tag of an action name (QueryError when it names none)."""
    action = action.strip().lower()
    if not action:
        raise QueryError("an action is one name such as git-commit, not an empty string")
    if len(action) > MAX_ACTION:
        raise QueryError(f"an action is one name such as git-commit, not {len(action)} characters")
    return f"trigger:{action}"


def _firing_rules(store: CallStore, ctx: Context, rules: Sequence[M], k: int) -> list[M]:
    """The first `k` of these rules that fire (see `recall_for_action`)."""
    events = _events_by_ref(store.events_for([m.ref for m in rules]))
    now = ctx.now_micros()
    live = [m for m in rules if state_of(m, events.get(m.ref, []), now).fires]
    return live[: max(0, k)]


def lessons_for(
    store: CallStore,
    ctx: Context,
    call: Call,
    entries: Sequence[Entry] | None = None,
    *,
    record: bool = True,
    lessons: bool = True,
    gates: bool = False,
) -> Decision:
    """What rides along on `call`, or what stops it once (see the module docstring).

    `entries` are the trigger-list candidates the hook's prefilter let through; None reads
    every trigger from the store (for `cairn lessons test`), through `every_trigger`: built
    once per trigger generation, with only the entries that could match read afresh. With
    `record`, the fired memories are written to the session's ledger so they do not fire
    again in this session, and gates are claimed. `lessons`: context added to this call
    reaches the model (False on a before-tool event whose context an agent ignores: nothing
    fires there, nothing is recorded). `gates`: the agent lets this call be denied; needs a
    session, since a gate stops a call only once per session.
    """
    full = entries is None
    every: list[tuple[Entry, Memory]] = []
    if entries is None:
        every = [row for row in every_trigger(_full(store)) if row[0].project in ("*", ctx.project)]
        entries = [entry for entry, _memory in every]
    entries = [e for e in entries if e.project in ("*", ctx.project)]
    actions: list[str] = []
    if call.tool == "shell" and call.command and (full or any(e.kind == "action" for e in entries)):
        # tree-sitter loads only when an action rule could fire on this command.
        from cairn.core.shell import actions as parse_actions
        from cairn.io.workspace import git_aliases

        root = checkout_dir(ctx.cwd) if ctx.cwd else ctx.root
        actions = parse_actions(call.command, git_aliases(root))
    rel = relative_paths(call.paths, ctx) if call.tool in ("read", "edit") else []
    if full:
        # Only the entries that could match are read again from the store (see `_could_match`).
        entries = [e for e, m in every if _could_match(e, m, call, rel, actions, ctx)]
    wanted = {e.ref for e in entries}
    memories = store.get_memories(wanted)
    matched: dict[str, Fired] = {}
    skipped: dict[str, str] = {}
    for entry in entries:
        memory = memories.get(entry.ref)
        if memory is None or not memory.is_current:
            continue
        if memory.scope != "workspace" and memory.project != ctx.project:
            continue
        try:
            fired = _match(entry, memory, call, rel, actions, ctx)
        except TriggerError as exc:
            # A stored trigger the matcher cannot run (saving refuses these; an older Cairn's
            # import or a hand edit may not have): this memory is skipped, never the call.
            skipped[memory.ref] = f"{TRIGGER_SKIPPED}: {exc}"
            continue
        if fired is not None and memory.ref not in matched:
            matched[memory.ref] = fired
    _keep_rules_k(store, ctx, matched, actions, skipped)
    _mark_gates(matched, actions, ctx)
    events = _events_by_ref(store.events_for(list(matched)))
    now = ctx.now_micros()
    live: list[Fired] = []
    for ref, fired in matched.items():
        state = state_of(fired.memory, events.get(ref, []), now)
        if not state.fires:
            skipped[ref] = f"{state.status}: {state.why}"
        else:
            live.append(fired)
    session = ctx.session
    seen = store.offered(session, CHANNELS) if session else set()
    waiting = store.gates_waiting(session) if session and any(f.gate for f in live) else set()
    fresh: list[Fired] = []
    retried: list[str] = []
    for fired in live:
        ref = fired.memory.ref
        if ref in waiting and gates:
            retried.append(ref)  # the first matching call after its denial: the retry
            skipped[ref] = ALREADY_GIVEN
        elif ref in waiting:
            skipped[ref] = GATE_WAITING
        elif ref in seen:
            skipped[ref] = ALREADY_GIVEN
        else:
            fresh.append(fired)
    fresh.sort(
        key=lambda f: (
            not f.memory.pinned,
            -factor_of(events.get(f.memory.ref, [])),
            _newest(f.memory.written),
            f.memory.ref,
        )
    )
    if record and retried:
        from cairn.usecases.gates import call_text

        store.note_retries(session, retried, call_text(call), ctx.now())
    gated: list[Fired] = []
    if gates and (session or not record):  # without recording: what would stop it
        gated = [f for f in fresh if f.gate][:PER_CALL]
        if gated and record:
            from cairn.usecases.gates import call_text

            # The claim is the once-per-session record: committed here, before any denial is
            # printed, so two calls at once never stop the agent twice for one gate.
            refs = [f.memory.ref for f in gated]
            claimed = set(store.claim_gates(session, refs, ctx.tool, call_text(call), ctx.now()))
            for ref in refs:
                if ref not in claimed:
                    skipped[ref] = GATE_WAITING  # a call running at the same moment claimed it
            gated = [f for f in gated if f.memory.ref in claimed]
            fresh = [f for f in fresh if f.memory.ref not in skipped]
    if gated:
        for fired in fresh:
            if fired not in gated:
                skipped[fired.memory.ref] = HELD
        return Decision(
            actions=actions, matched=list(matched.values()), skipped=skipped, gated=gated
        )
    if not lessons:
        for fired in fresh:
            skipped[fired.memory.ref] = NO_CONTEXT
        fresh = []
    chosen = fresh[:PER_CALL]
    for fired in fresh[PER_CALL:]:
        skipped[fired.memory.ref] = f"over the limit of {PER_CALL} per call"
    if record and session and chosen:
        for channel in CHANNELS:
            refs = [f.memory.ref for f in chosen if f.channel == channel]
            if refs:
                store.record_offers(session, refs, channel, ctx.tool, ctx.now())
    return Decision(actions=actions, fired=chosen, matched=list(matched.values()), skipped=skipped)


def _full(store: CallStore) -> Store:
    """`store` when it is the full store: the hook's reader answers only for candidates."""
    from cairn.io.store.hookread import HookStore

    if isinstance(store, HookStore):
        raise TypeError("the hook's store reader needs the trigger list's candidates")
    return store


# What `every_trigger` keeps of one store, for its trigger generation, as one tuple (so a
# thread never reads one generation's memories with another's entries):
# ((folder, store id, generation), memories, rows). Built once per generation per process.
_EVERY: list[Any] = [(None, [], [])]


def every_trigger(store: Store) -> list[tuple[Entry, Memory]]:
    """`entries_for` over `store.trigger_memories()`, each entry with its memory, in that order.

    The list is a function of the memories' trigger columns (ref, project, scope, kind, tags,
    source_ref, when, and whether it is current), and the store's trigger generation moves
    with every change to them in the writing transaction (see `cairn.io.triggerlist`): so it is
    built again only when the generation moved, and a process asking many times (the app's
    "what would this call get") pays for reading and parsing every trigger once. The memories
    are as they were then: only their trigger columns may be trusted (`lessons_for` reads the
    candidates afresh).
    """
    return list(_generation(store)[1])


def trigger_memories(store: Store) -> list[Memory]:
    """`store.trigger_memories()` as of the store's trigger generation (see `every_trigger`:
    only the trigger columns may be trusted)."""
    return list(_generation(store)[0])


def _generation(store: Store) -> tuple[list[Memory], list[tuple[Entry, Memory]]]:
    from cairn.io.triggerlist import entries_for

    with store.reading():
        key = (store.folder, *store.trigger_generation())
        kept = _EVERY[0]
        if kept[0] != key:
            memories = store.trigger_memories()
            kept = (key, memories, [(e, m) for m in memories for e in entries_for(m)])
            _EVERY[0] = kept
    return kept[1], kept[2]


def _could_match(
    entry: Entry, memory: AnyMemory, call: Call, rel: list[str], actions: list[str], ctx: Context
) -> bool:
    """False only when `entry` cannot match `call` whatever its memory's other columns: the
    matchers read nothing but the trigger columns `every_trigger` keeps, except a cited
    memory's edit question and kind, which `_cited` decides once the path is one of `rel`."""
    if entry.kind == "cited":
        from cairn.io.citations import parse_source_ref

        if call.tool not in ("read", "edit"):
            return False
        if entry.needles and entry.needles[0] not in {path.lower() for path in rel}:
            return False  # a cited entry's needle is its path, lowercased (`entries_for`)
        try:
            return parse_source_ref(memory.source_ref).path in rel
        except CairnError:
            return False
    try:
        return _match(entry, memory, call, rel, actions, ctx) is not None
    except TriggerError:
        return True  # skipped with its reason by the real pass


def _keep_rules_k(
    store: CallStore,
    ctx: Context,
    matched: dict[str, Fired],
    actions: list[str],
    skipped: dict[str, str],
) -> None:
    """Keep only the rules `recall_for_action` returns for the call's actions (the RULES_K
    newest that fire): the hook, `cairn rules ACTION` and `get_action_rules` give the same
    rules, never a seventh one over the calls of a session."""
    rules = [ref for ref, fired in matched.items() if fired.channel == "rule"]
    if not rules:
        return
    allowed: set[str] = set()
    for action in actions:
        if any(action in matched[ref].memory.action_names() for ref in rules):
            rules_of = store.memories_with_tag(_action_tag(action), ctx.project)
            allowed.update(m.ref for m in _firing_rules(store, ctx, rules_of, RULES_K))
    for ref in rules:
        if ref not in allowed:
            del matched[ref]
            skipped[ref] = f"not among the {RULES_K} newest rules of its action"


def _mark_gates(matched: dict[str, Fired], actions: list[str], ctx: Context) -> None:
    """Also mark as gates the rules of an action the project's `.cairn/gates` lists (the
    file is read only when an ungated rule matched). A memory marked `gate` is one already
    (`_match`), on its `when` trigger or its action; a cited file or an edit question never."""
    listed: frozenset[str] | None = None
    for ref, fired in matched.items():
        if fired.gate or fired.channel != "rule":
            continue
        if listed is None:
            from cairn.usecases.gates import gated_actions

            listed = gated_actions(checkout_dir(ctx.cwd) if ctx.cwd else ctx.root)
        if listed.intersection(fired.memory.action_names()).intersection(actions):
            matched[ref] = Fired(fired.memory, fired.channel, fired.why, True)


def _newest(written: str) -> tuple[int, ...]:
    """Sort key putting newer timestamps first."""
    return tuple(-ord(c) for c in written)


def _match(
    entry: Entry, memory: AnyMemory, call: Call, rel: list[str], actions: list[str], ctx: Context
) -> Fired | None:
    # Matchers import lazily: a read call never pays for RE2, a shell call never for globs.
    when = memory.when
    if entry.kind == "shell" and call.tool == "shell" and when and when.match:
        from cairn.core.lessons.match import command_matches

        if command_matches(when.match, call.command):
            return Fired(memory, "lesson", f"shell trigger /{when.match}/", memory.gate)
    elif entry.kind in ("read", "edit") and call.tool == entry.kind and when and when.path:
        from cairn.core.lessons.globmatch import glob_matches

        for path in rel:
            if glob_matches(when.path, path):
                return Fired(
                    memory, "lesson", f"{entry.kind} trigger {when.path} on {path}", memory.gate
                )
    elif entry.kind == "action" and entry.extra in actions:
        return Fired(memory, "rule", f"rule for {entry.extra}", memory.gate)
    elif entry.kind == "cited" and call.tool in ("read", "edit"):
        return _cited(memory, call, rel, ctx)
    return None


def _cited(memory: AnyMemory, call: Call, rel: list[str], ctx: Context) -> Fired | None:
    from cairn.io.citations import edit_touches, parse_source_ref

    try:
        ref = parse_source_ref(memory.source_ref)
    except CairnError:
        return None
    if ref.path not in rel:
        return None
    if call.tool == "edit" and call.old_text and memory.fingerprint and (ref.start or ref.symbol):
        from pathlib import Path

        from cairn.core.codec import loads

        own = ctx.root if memory.project == ctx.project else memory.project
        root = Path(checkout_dir(ctx.cwd) if ctx.cwd else own)
        try:
            touched = edit_touches(ref, loads(memory.fingerprint), root, call.old_text)
        except (OSError, ValueError):
            touched = False
        if touched:
            return Fired(
                memory,
                "question",
                f"this edit changes {memory.source_ref}, which it cites: does it still hold?",
            )
    if memory.kind in ("lesson", "decision"):
        return Fired(memory, "lesson", f"cites {ref.path}")
    return None


def _events_by_ref(events: Sequence[AnyEvent]) -> dict[str, list[AnyEvent]]:
    out: dict[str, list[AnyEvent]] = {}
    for e in events:
        out.setdefault(e.ref, []).append(e)
    return out


def render(decision: Decision, budget: int = RENDER_BUDGET) -> str:
    """The short text an agent sees with its call: ref, sentence and why, size-bounded."""
    if not decision.fired:
        return ""
    lines = ["Cairn memory for this call:"]
    for f in decision.fired:
        m = f.memory
        if f.channel == "question":
            line = (
                f"- {m.ref} ({m.kind}) {m.text} — {f.why} If not, correct it with `cairn "
                f"correct {m.ref} ...` or remember the new fact with replaces={m.ref}."
            )
        else:
            label = "rule" if f.channel == "rule" else m.kind
            line = f"- {m.ref} ({label}): {m.text}"
            if m.reason:
                line += f" Why: {m.reason}"
        lines.append(line)
    lines.append("If one of these shaped your work, list its ref in `used` when you remember.")
    text = "\n".join(lines)
    if len(text) > budget:
        text = text[: budget - 1] + "…"
    return text
