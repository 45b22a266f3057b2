"""The Python API: `cairn.open()` returns a `Cairn`, one workspace seen from one project.

Every entry point (CLI, MCP server, hooks) goes through these same use cases.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from cairn import calls, describe, docs, transfer, triggerlist
from cairn import recall as searching
from cairn import remember as writing
from cairn.context import Context, utcnow
from cairn.models import Memory
from cairn.store import SqliteStore, default_home
from cairn.workspace import checkout_root, current_branch, project_root, refs_signature


class Cairn:
    """A workspace store plus the context of the caller (project, tool, session, branch)."""

    def __init__(self, store: SqliteStore, ctx: Context) -> None:
        self.store = store
        self.ctx = ctx
        self._lsa = searching.LsaCache()
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
        return other

    @property
    def home(self) -> Path:
        """The workspace folder holding the database and the trigger list."""
        return self.store.home

    # -- writing --------------------------------------------------------------------------
    def remember(self, text: str, **fields: Any) -> writing.Remembered:
        """Save one claim; see `cairn.remember.remember` for the fields."""
        result = writing.remember(self.store, self.ctx, text, **fields)
        self._triggers_after(result)
        return result

    def remember_many(self, items: Iterable[dict[str, Any]]) -> builtins.list[writing.Remembered]:
        """Save many claims in one transaction, all or none (`cairn.remember.remember_many`),
        then bring the trigger list and what recall keeps beside the store up to date, so the
        next recall, in this process or another, does not index the batch itself."""
        done = writing.remember_many(self.store, self.ctx, items)
        self.rebuild_triggers()
        searching.refresh(self.store, self._lsa)
        return done

    def correct(self, ref: str, text: str, **fields: Any) -> writing.Remembered:
        """Supersede a claim with a corrected sentence (history kept)."""
        result = writing.correct(self.store, self.ctx, ref, text, **fields)
        self._triggers_after(result)
        return result

    def forget(self, ref: str) -> Memory:
        """Retire a memory (soft; `restore` undoes it)."""
        memory = writing.forget(self.store, ref, at=self.ctx.now())
        if triggerlist.entries_for(memory):
            self.rebuild_triggers()
        return memory

    def restore(self, ref: str) -> Memory:
        """Undo `forget`."""
        memory = writing.restore(self.store, ref)
        triggerlist.append(self.home, triggerlist.entries_for(memory))
        return memory

    def rebuild_triggers(self) -> int:
        """Rewrite the trigger list from the store; returns its number of lines."""
        return triggerlist.rewrite(self.home, self.store.trigger_memories())

    def _triggers_after(self, result: writing.Remembered) -> None:
        """Keep the trigger list in step with a write (append new; rewrite on correction)."""
        if result.outcome == "corrected":
            self.rebuild_triggers()
        elif result.outcome == "new":
            memory = result.memory or self.store.get_memory(result.ref)
            entries = triggerlist.entries_for(memory)
            if entries:  # most memories trigger nothing: no file to touch
                triggerlist.append(self.home, entries)

    def pin(self, ref: str) -> Memory:
        """Pin a memory."""
        return writing.set_pinned(self.store, ref, True)

    def unpin(self, ref: str) -> Memory:
        """Unpin a memory."""
        return writing.set_pinned(self.store, ref, False)

    def confirm(self, ref: str) -> bool:
        """Confirm a memory by hand (the user's confirmation); True when it counted."""
        return writing.confirm(self.store, self.ctx, ref)

    def cite(self, refs: Iterable[str]) -> builtins.list[str]:
        """Record that this session used these memories."""
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
        """Search memories and docs (BM25, local); see `cairn.recall` for the rules.

        When git moved since the last look (a branch merged, reset or deleted), what it means
        for the memories the sessions cited is learned first (`cairn.learn`).
        """
        self.learn_if_moved()
        return searching.recall(
            self.store,
            self.ctx,
            query,
            also=list(also),
            as_of=as_of,
            kind=kind,
            limit=limit,
            lsa=self._lsa,
        )

    def get_memory(self, refs: Iterable[str] | str) -> dict[str, Any]:
        """Full records of memories by ref; unknown refs listed under `unknown`."""
        return describe.get_memory(self.store, self.ctx, [refs] if isinstance(refs, str) else refs)

    def list(self, **filters: Any) -> builtins.list[Memory]:
        """Memories visible from this project, newest first (kind, tag, status, limit)."""
        filters.setdefault("project", self.ctx.project)
        return self.store.list_memories(**filters)

    def lessons_for(self, call: calls.Call, *, record: bool = True) -> calls.Decision:
        """What rides along on a tool call: lessons, action rules, cited-lines questions."""
        decision = calls.lessons_for(self.store, self.ctx, call, record=record)
        if record and decision.fired:
            # Offers were recorded for the session; the hook records its own session row.
            self.store.note_session(self.ctx)
        return decision

    def learn_if_moved(self) -> None:
        """Run `cairn learn` when the project's branches moved (a stat, then one git call)."""
        root = Path(self.ctx.project)
        signature = refs_signature(root)
        if signature is None or signature == self._refs_seen:
            return
        from cairn.learn import learn_if_moved

        learn_if_moved(self.store, self.ctx, root)
        self._refs_seen = signature

    def log_mission_progress(
        self, goal: str, step: str, status: str, used: Iterable[str] = ()
    ) -> dict[str, Any]:
        """Record a step of the branch's mission (feeds the branch brief); `used` are cited."""
        from cairn.progress import log_mission_progress

        return log_mission_progress(self.store, self.ctx, goal, step, status, used)

    def recall_for_action(self, action: str, k: int = calls.RULES_K) -> builtins.list[Memory]:
        """Rules tagged `trigger:ACTION`, newest first (no text search, no scoring)."""
        return calls.recall_for_action(self.store, self.ctx, action, k)

    def index_docs(self, root: str | os.PathLike[str] | None = None) -> docs.Indexed:
        """Index the project's README, docs/ and ADRs for recall (changed files only)."""
        return docs.index_docs(self.store, self.ctx, Path(root) if root else None)

    # -- export / import ------------------------------------------------------------------
    def export(self) -> Iterator[str]:
        """The whole workspace as JSON Lines."""
        return transfer.export_lines(self.store)

    def import_(self, lines: Iterable[str]) -> transfer.Imported:
        """Load an export (idempotent); then bring what recall keeps beside the store up to
        date, so the first recall after a bulk import does not index it."""
        imported = transfer.import_lines(self.store, lines)
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
) -> Cairn:
    """Open the workspace store (default `$CAIRN_HOME`, else `$XDG_DATA_HOME/cairn`).

    The project is the git root of `cwd` (default: the current folder) unless given.
    """
    where = Path(cwd) if cwd else Path.cwd()
    root = Path(project).resolve() if project else project_root(where)
    if project and not where.resolve().is_relative_to(root):
        where = root  # the branch is the project's, not that of an unrelated current folder
    ctx = Context(
        project=str(root),
        cwd=str(where),
        tool=tool,
        session=session,
        branch=branch if branch is not None else current_branch(checkout_root(where)),
        clock=clock,
    )
    store = SqliteStore(Path(home) if home else default_home(), create=create)
    return Cairn(store, ctx)
