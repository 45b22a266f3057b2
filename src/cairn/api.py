"""The Python API: `cairn.open()` returns a `Cairn`, one workspace seen from one project.

Every entry point (CLI, MCP server, hooks) goes through these same use cases.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import suppress
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from cairn.core.context import Context, utcnow
from cairn.core.errors import ConflictError, StoreError
from cairn.io.store import default_home
from cairn.io.store.backends import open_store
from cairn.io.store.protocol import Store
from cairn.io.workspace import (
    checkout_dir,
    checkout_root,
    current_branch,
    project_key,
    project_root,
    refs_signature,
)

if TYPE_CHECKING:
    from cairn.core.models import Memory
    from cairn.io.triggerlist import TriggerList
    from cairn.usecases import calls, docs, transfer, undo
    from cairn.usecases import recall as searching
    from cairn.usecases import remember as writing

# The use cases are imported by the methods that run them: a new process (`cairn recall`)
# loads what its one command needs, not every use case (tens of ms at start).
T = TypeVar("T")
RULES_K = 6  # `calls.RULES_K`, pinned equal by a test


class Cairn:
    """A workspace store plus the context of the caller (project, tool, session, branch)."""

    def __init__(self, store: Store, ctx: Context) -> None:
        self.store = store
        self.ctx = ctx
        self._triggers: TriggerList | None = None
        from cairn.usecases.recall import LsaCache

        self._lsa = LsaCache()
        self._refs_seen: tuple[int, ...] | None = None

    # -- lifecycle of the handle ----------------------------------------------------------
    def close(self) -> None:
        """Close the store."""
        self.store.close()

    def __enter__(self) -> Cairn:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def using(self, **changes: Any) -> Cairn:
        """The same store seen by another caller (e.g. `using(tool="codex", session="s1")`)."""
        other = Cairn(self.store, self.ctx.replace(**changes))
        other._lsa = self._lsa
        other._triggers = self.triggers
        return other

    @property
    def triggers(self) -> TriggerList:
        """The trigger list beside the store (`cairn.io.triggerlist`): every write that may
        change memories runs inside `triggers.writing()`, the one step that keeps it in step
        with the store. Made on first use: a recall's process never reads the list."""
        if self._triggers is None:
            from cairn.io.triggerlist import TriggerList

            self._triggers = TriggerList(self.store)
        return self._triggers

    @triggers.setter
    def triggers(self, triggers: TriggerList) -> None:
        self._triggers = triggers

    @property
    def home(self) -> Path:
        """The workspace folder holding the database and the trigger list."""
        return self.store.home

    # -- writing --------------------------------------------------------------------------
    def remember(self, text: str, **fields: Any) -> writing.Remembered:
        """Save one claim; see `cairn.usecases.remember.remember` for the fields."""
        from cairn.usecases import remember as writing

        with self.triggers.writing():
            done = writing.remember(self.store, self.ctx, text, **fields)
        self._indexed()
        return done

    def remember_many(
        self, items: Iterable[Mapping[str, Any]]
    ) -> builtins.list[writing.Remembered]:
        """Save many claims in one transaction, all or none
        (`cairn.usecases.remember.remember_many`),
        then bring what recall keeps beside the store up to date, so the next recall, in this
        process or another, does not index the batch itself."""
        from cairn.usecases import recall as searching
        from cairn.usecases import remember as writing

        with self.triggers.writing():
            done = writing.remember_many(self.store, self.ctx, items, index=False)
        searching.refresh(self.store, self._lsa)
        return done

    def correct(
        self, ref: str, text: str, *, revision: int | None = None, **fields: Any
    ) -> writing.Remembered:
        """Supersede a claim with a corrected sentence (history kept); with `revision`, one
        changed since it was read is refused (`ConflictError`)."""
        from cairn.usecases import remember as writing

        with self.triggers.writing():
            done = writing.correct(self.store, self.ctx, ref, text, revision=revision, **fields)
        self._indexed()
        return done

    def _indexed(self) -> None:
        """After a single write: index the rows written once enough wait (`recall.refresh`),
        so no recall indexes a long run of single writes at once."""
        from cairn.usecases import recall as searching

        searching.refresh(self.store, self._lsa, every=False)

    def forget(self, ref: str) -> Memory:
        """Retire a memory (soft; `restore` undoes it)."""
        from cairn.usecases import remember as writing

        with self.triggers.writing():
            return writing.forget(self.store, ref, at=self.ctx.now())

    def restore(self, ref: str) -> Memory:
        """Undo `forget`."""
        from cairn.usecases import remember as writing

        with self.triggers.writing():
            return writing.restore(self.store, ref)

    def check_triggers(self, *, thorough: bool = False) -> str:
        """Check the trigger list against the store and repair it when stale
        (`cairn.io.triggerlist.TriggerList.ensure`): `current`, `repaired` or `busy`; `failed`
        when it cannot be read or written, which never fails the caller (doctor reports it)."""
        import sqlite3

        try:
            return self.triggers.ensure(thorough=thorough)
        except (OSError, StoreError, sqlite3.Error):
            return "failed"

    def rebuild_triggers(self) -> int:
        """Rewrite the trigger list from the store; returns its number of lines."""
        return self.triggers.rebuild()

    # Pinning changes no trigger-list line (nor `trigger_memories`), so it needs no refresh.
    def pin(self, ref: str) -> Memory:
        """Pin a memory."""
        from cairn.usecases import remember as writing

        return writing.set_pinned(self.store, ref, True)

    def unpin(self, ref: str) -> Memory:
        """Unpin a memory."""
        from cairn.usecases import remember as writing

        return writing.set_pinned(self.store, ref, False)

    def gate(self, ref: str, on: bool = True) -> Memory:
        """Make a lesson or rule a gate (or, `on=False`, an ordinary one again)."""
        from cairn.usecases import remember as writing

        return writing.set_gate(self.store, ref, on)

    def gate_action(self, action: str, on: bool = True) -> builtins.list[str]:
        """Make every rule of `action` a gate in this project (or stop): edits the committed
        `.cairn/gates` of the checkout; returns the actions it lists."""
        from cairn.usecases.gates import set_gated_action

        return set_gated_action(self._checkout(), action, on)

    def gated_actions(self) -> frozenset[str]:
        """The actions whose rules are gates in this project (`.cairn/gates`)."""
        from cairn.usecases.gates import gated_actions

        return gated_actions(self._checkout())

    def _checkout(self) -> str:
        """The checkout the caller works in (a worktree's own folder), else the project."""
        return checkout_dir(self.ctx.cwd) if self.ctx.cwd else self.ctx.root

    def confirm(self, ref: str) -> bool:
        """Confirm a memory by hand (the user's confirmation); True when it counted."""
        from cairn.usecases import remember as writing

        return writing.confirm(self.store, self.ctx, ref)

    def contradict(self, ref: str) -> bool:
        """Say by hand that a memory no longer holds; True when it counted."""
        from cairn.usecases import remember as writing

        return writing.contradict(self.store, self.ctx, ref)

    def undoable(self, refs: Iterable[str], action: Callable[[], T]) -> tuple[T, undo.Change]:
        """Run `action` on these memories and return its result with what it changed, for
        `take_back` (`cairn.usecases.undo`)."""
        from cairn.usecases import undo

        was = undo.before(self.store, refs)
        result = action()
        return result, undo.after(self.store, was)

    def take_back(self, change: undo.Change) -> None:
        """Put the memories an action changed back as they were
        (`cairn.usecases.undo.take_back`)."""
        from cairn.usecases import undo

        with self.triggers.writing():
            undo.take_back(self.store, change, self.ctx.now())

    def take_back_event(self, ref: str, eid: str) -> None:
        """Take back one confirmation or contradiction of a memory (`cairn.usecases.undo`)."""
        from cairn.usecases import undo

        with self.triggers.writing():
            undo.take_back_event(self.store, ref, eid, self.ctx.now())

    def cite(self, refs: Iterable[str]) -> builtins.list[str]:
        """Record that this session used these memories."""
        from cairn.usecases import remember as writing

        return writing.cite(self.store, self.ctx, refs)

    # -- reading --------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        also: Iterable[str] = (),
        as_of: str | None = None,
        kind: str | None = None,
        limit: int | None = None,
    ) -> searching.Recalled:
        """Search memories and docs (BM25, local); see `cairn.usecases.recall` for the rules.

        A query: it writes nothing to the store and runs no git. Its effects are steps the
        caller runs, as the CLI, the MCP server and the app do: `catch_up` before (learn what
        git moved, index the doc files that changed) and `note_recalled` after (record what
        was offered to the session, so the ledger and `used` see it).
        """
        return self._recall(query, also=also, as_of=as_of, kind=kind, limit=limit)

    def catch_up(self, *, docs: bool = True) -> None:
        """Bring the store up to what a search should see: when git moved since the last look
        (a branch merged, reset or deleted), learn what it means for the memories the
        sessions cited (`learn_if_moved`); with `docs`, index the doc files that changed since
        the last look, a few at a time (`refresh_docs`; an `as_of` search reads no docs)."""
        self.learn_if_moved()
        if docs:
            self.refresh_docs()

    def note_recalled(self, recalled: searching.Recalled) -> None:
        """Record the memories a recall offered to this session (none without a session, or
        for an `as_of` search of the past)."""
        from cairn.usecases import recall as searching

        searching.note_offered(self.store, self.ctx, recalled)

    def _recall(
        self,
        query: str,
        *,
        also: Iterable[str] = (),
        as_of: str | None = None,
        kind: str | None = None,
        limit: int | None = None,
        lean: Any = None,
    ) -> searching.Recalled:
        """`recall`; with `lean` (a `cairn.usecases.recall.lean.Lean`), steps 1-3 read the kept
        files
        without numpy (`cairn recall --json` in a new process), to the same answer."""
        from cairn.usecases import recall as searching

        return searching.recall(
            self.store,
            self.ctx,
            query,
            also=list(also),
            as_of=as_of,
            kind=kind,
            limit=limit,
            lsa=self._lsa if lean is None else lean,
            matcher=None if lean is None else lean.matched,
        )

    def get_memory(self, refs: Iterable[str] | str) -> dict[str, Any]:
        """Full records of memories by ref; unknown refs listed under `unknown`."""
        from cairn.usecases import describe

        return describe.get_memory(self.store, self.ctx, [refs] if isinstance(refs, str) else refs)

    def list(self, **filters: Any) -> builtins.list[Memory]:
        """Memories visible from this project, newest first (kind, tag, status, limit)."""
        filters.setdefault("project", self.ctx.project)
        return self.store.list_memories(**filters)

    def lessons_for(
        self, call: calls.Call, *, record: bool = True, gates: bool = False
    ) -> calls.Decision:
        """What rides along on a tool call: lessons, action rules, cited-lines questions; with
        `gates` (a call the agent lets be denied), the gates that stop it once instead."""
        from cairn.usecases import calls

        decision = calls.lessons_for(self.store, self.ctx, call, record=record, gates=gates)
        if record and decision.fired:
            # Offers were recorded for the session; the hook records its own session row.
            self.store.note_session(self.ctx)
        return decision

    def learn_if_moved(self) -> None:
        """Run `cairn learn` when the project's branches moved (a stat, then one git call).

        The stat fingerprint is kept with the learn state, per checkout folder, once git has
        answered: a new process (each `cairn recall`) that finds the refs as they were at the
        last look asks git nothing."""
        root = Path(self.ctx.root)
        signature = refs_signature(root)
        if signature is None or signature == self._refs_seen:
            return
        key, value = f"refs_stat {root}", " ".join(map(str, signature))
        if self.store.learn_state(self.ctx.project, key) == value:
            self._refs_seen = signature
            return
        from cairn.usecases.codeacts import learn_if_moved

        learn_if_moved(self.store, self.ctx, root, (key, value))
        self._refs_seen = signature

    def log_mission_progress(
        self, goal: str, step: str, status: str, used: Iterable[str] = ()
    ) -> dict[str, Any]:
        """Record a step of the branch's mission (feeds the branch brief); `used` are cited."""
        from cairn.usecases.progress import log_mission_progress

        return log_mission_progress(self.store, self.ctx, goal, step, status, used)

    def recall_for_action(self, action: str, k: int = RULES_K) -> builtins.list[Memory]:
        """Rules tagged `trigger:ACTION`, newest first (no text search, no scoring)."""
        from cairn.usecases import calls

        return calls.recall_for_action(self.store, self.ctx, action, k)

    def refresh_docs(self) -> docs.Indexed:
        """Index the doc files that changed since the last look, a few at a time (bounded)."""
        from cairn.usecases import docs

        return docs.refresh_docs(self.store, self.ctx)

    def index_docs(self, root: str | os.PathLike[str] | None = None) -> docs.Indexed:
        """Index the project's README, docs/ and ADRs for recall (changed files only)."""
        from cairn.usecases import docs

        return docs.index_docs(self.store, self.ctx, Path(root) if root else None)

    # -- export / import ------------------------------------------------------------------
    def export(self) -> Iterator[str]:
        """The whole workspace as JSON Lines."""
        from cairn.usecases import transfer

        return transfer.export_lines(self.store)

    def import_(self, lines: Iterable[str]) -> transfer.Imported:
        """Load an export (idempotent); then, when it wrote memories, bring what recall keeps
        beside the store up to date, so the first recall after a bulk import does not index
        it (an import that wrote none, such as a store's export read back, leaves it as it
        was: up to date as far as it was before)."""
        from cairn.usecases import recall as searching
        from cairn.usecases import transfer

        with self.triggers.writing():
            imported = transfer.import_lines(self.store, lines)
        if imported.memories:
            searching.refresh(self.store, self._lsa)
        return imported


def open(
    home: str | os.PathLike[str] | None = None,
    *,
    project: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    tool: str = "python",
    session: str = "",
    branch: str | None = None,
    clock: Callable[[], datetime] = utcnow,
    create: bool = True,
    store: str | None = None,
    check_triggers: bool = True,
) -> Cairn:
    """Open the workspace store (default `$CAIRN_HOME`, else `$XDG_DATA_HOME/cairn`).

    The project is the git root of `cwd` (default: the current folder) unless given. `store`
    (default `$CAIRN_DATABASE_URL`) is a `postgresql://` URL to keep the memories in a shared
    database instead (`cairn.io.store.backends`); the workspace folder then holds this machine's
    trigger list and caches.

    The open checks every line of the trigger list and repairs a stale or damaged one
    (`Cairn.check_triggers`). `check_triggers=False` leaves that to the next reader of the
    list (a hook call, any other open, a write's own refresh): for a handle that only recalls,
    which never reads the list (`cairn recall --json`'s new process; ~6 ms at 100k).
    """
    where = Path(cwd) if cwd else Path.cwd()
    root = Path(project).resolve() if project else project_root(where)
    if project and not where.resolve().is_relative_to(root):
        where = root  # the branch is the project's, not that of an unrelated current folder
    ctx = Context(
        project=project_key(root),
        root=str(root),
        cwd=str(where),
        tool=tool,
        session=session,
        branch=branch if branch is not None else current_branch(checkout_root(where)),
        clock=clock,
    )
    opened = open_store(Path(home) if home else default_home(), url=store, create=create)
    cairn = Cairn(opened, ctx)
    # A store an earlier Cairn wrote holds the project under its folder: moved to its key once
    # (a store locked past its wait, or an edit racing the move, leaves it for the next open).
    moved = 0
    if ctx.root != ctx.project:
        from cairn.usecases.rekey import adopt_folder

        with suppress(StoreError, ConflictError):
            moved = adopt_folder(opened, ctx)
    # Every command and API user finds a stale or damaged trigger list here and repairs it.
    # A recall-only handle does not read it (the hook, a write or the next open does), but a
    # move it made itself, outside the list's after-write step, it brings into the list.
    if check_triggers or moved:
        cairn.check_triggers(thorough=True)
    return cairn
