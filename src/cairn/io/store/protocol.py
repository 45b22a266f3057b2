"""`Store`: the one interface through which Cairn reads and writes its memory.

Every caller above `cairn.io.store` (use cases, hooks, CLI, MCP) is typed against this protocol and
never sees a connection. Two backends implement it: `SqliteStore` (one file per workspace, the
embedded default) and `PostgresStore` (one database shared by a team's machines). The contract
tests in tests/store_contract/ run against each.

A store has a local folder (`home`, `folder`) even when its rows live on a server: the trigger
list the hooks read first, and the files recall keeps beside the store, are kept there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from contextlib import AbstractContextManager
    from pathlib import Path

    from cairn.core.context import Context
    from cairn.core.models import Event, Memory
    from cairn.io.store.acts import Act, LearnSession, SessionCommit
    from cairn.io.store.measures import OfferCount
    from cairn.io.store.memories import IndexText
    from cairn.io.store.postgres import TriggerWatch
    from cairn.io.store.rows import Progress, SessionRow
    from cairn.io.store.sqlite_docs import DocPage

__all__ = ["Store"]


class Store(Protocol):
    """What every store backend offers (see each method on `SqliteStore` for the rules)."""

    # -- where it is, and its handle ----------------------------------------------------
    @property
    def home(self) -> Path:
        """The local folder: the trigger list and recall's files are kept there."""

    @property
    def folder(self) -> str:
        """`home` as text (the hook's paths: no pathlib)."""

    @property
    def location(self) -> str:
        """Where the memories are, as a person reads it (a file, or a URL without password)."""

    @property
    def read_only(self) -> bool:
        """Was the store opened read-only?"""

    def size(self) -> int:
        """Bytes the memories take where they are stored."""

    def set_busy_ms(self, ms: int) -> int:
        """Wait at most `ms` for another writer's lock from now on; returns the old bound."""

    def close(self) -> None:
        """Release the store."""

    # -- transactions -------------------------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction; nested calls join the outer one."""

    def reading(self) -> AbstractContextManager[None]:
        """One read transaction: every query inside sees the same snapshot."""

    @property
    def in_transaction(self) -> bool:
        """Is a transaction open?"""

    # -- memories -----------------------------------------------------------------------
    def insert_memory(self, memory: Memory, folded: str, index: IndexText) -> Memory:
        """Insert one memory version (a new ref is drawn when its ref is taken)."""

    def get_memory(self, ref: str) -> Memory:
        """One memory by ref (UnknownRefError if none)."""

    def has_memory(self, ref: str) -> bool:
        """Whether a memory version with this ref is stored (any status)."""

    def projects(self) -> list[str]:
        """Every project that holds a memory, in name order."""

    def sentence_words(self, project: str) -> dict[str, str]:
        """The analysed words of each current memory's sentence, by ref (as indexed)."""

    def briefable_count(
        self, project: str, branch: str, fresh_since: str, contradicting: Sequence[str]
    ) -> tuple[int, list[Memory]]:
        """How many memories the session brief may list, and those to judge for strikes."""

    def briefable(self, project: str, branch: str, fresh_since: str, limit: int) -> list[Memory]:
        """The memories the session brief may list: pinned first, then newest first."""

    def take_back_events(self, eids: Sequence[str], at: str) -> int:
        """Mark events taken back (kept, no longer counted); how many were marked."""

    def fires_by_agent(
        self, refs: Sequence[str], channels: Sequence[str]
    ) -> dict[str, tuple[dict[str, int], str]]:
        """Per memory: how often it was handed out through these channels, by tool, and
        when last."""

    def refs_with_events(self, events: Sequence[str], project: str) -> list[str]:
        """Current memories visible from `project` with an event of these kinds that counts."""

    def get_memories(self, refs: Iterable[str]) -> dict[str, Memory]:
        """The memories found among refs."""

    def memories_by_ids(self, ids: Sequence[int]) -> dict[int, Memory]:
        """Memories by index rowid."""

    def update_memory(self, memory: Memory, **changes: Any) -> Memory:
        """Change status/pinned/until/replaced_by/last_touched/cite_fp/gate, checking the
        revision (ConflictError when another writer changed it first)."""

    def touch(self, refs: Iterable[str], at: str) -> None:
        """Mark memories as cited or restated at `at`."""

    def find_current(self, project: str, folded: str) -> Memory | None:
        """The current memory holding this folded sentence, visible from project."""

    def list_memories(self, **filters: Any) -> list[Memory]:
        """Memories newest first (filters: project, kind, tag, status, current, limit)."""

    def memories_with_tag(self, tag: str, project: str) -> list[Memory]:
        """Current memories with this tag, visible from project, newest first."""

    def holds_project(self, project: str) -> bool:
        """Whether a current project-scoped memory, a session or a progress note is stored
        under exactly `project` (workspace-wide memories do not count)."""

    def own_memories(self, project: str) -> list[Memory]:
        """The current project-scoped memories stored under exactly `project`, oldest first."""

    def move_project(self, old: str, new: str) -> int:
        """Sessions, progress notes, acts and learn state of project `old` moved to `new`;
        how many rows moved. An act or learn-state key `new` already holds stays with `old`."""

    def count_memories(self, project: str | None = None) -> int:
        """Current memories in a project (with workspace ones) or the whole workspace."""

    def memories_as_of(self, project: str, end: str) -> dict[int, Memory]:
        """Versions believed at instant `end`, by index rowid."""

    def index_rows_after(self, after: int, limit: int | None = None) -> list[tuple[Any, ...]]:
        """The memory index's versions with a rowid over `after` (the first `limit` of them,
        when given), ascending."""

    def current_rowids(self, every: int = 1) -> list[int]:
        """The rowid of every current memory (of one in `every`), ascending."""

    def index_words(self, ids: Sequence[int]) -> dict[int, str]:
        """The analysed words of these memory rows, by rowid."""

    def trigger_memories(self) -> list[Memory]:
        """Current memories the trigger list needs: lessons, action rules, cited files."""

    def watch_triggers(self) -> TriggerWatch | None:
        """A way to hear at once when another machine changes the trigger list's set (a
        PostgreSQL LISTEN), or None where there is none to hear (SQLite)."""

    def trigger_generation(self) -> tuple[str, int]:
        """(this store's id, its trigger generation)."""

    def trigger_changes(self, after: int) -> list[tuple[int, str, str]] | None:
        """(gen, ref, 'add' | 'drop') after generation `after`; None when not all kept."""

    def history_chain(self, ref: str) -> tuple[list[Memory], list[Memory]]:
        """(versions this one replaced, newest first; versions that replaced it)."""

    def refs_at_rowids(self, ids: Sequence[int]) -> list[str]:
        """The ref of each memory rowid in `ids`, in order ("" where none)."""

    def current_among(self, ids: Sequence[int]) -> set[int]:
        """The rowids among `ids` of current memory versions."""

    def holding_counts(self, project: str) -> AbstractContextManager[None]:
        """Inside, the store's counts are read once, in one query (see `SqliteStore`)."""

    def change_count(self) -> int:
        """Rows ever written to the memory index (grows on every remember)."""

    def index_stats(self, name: str = "docs") -> tuple[int, int]:
        """(rows, total tokens) in the doc index, for BM25's N and average length."""

    # -- docs ---------------------------------------------------------------------------
    def doc_candidates(self, terms: Sequence[str], limit: int) -> list[int]:
        """Rowids of doc pages holding any of `terms`, at most `limit`, best first."""

    def doc_freqs(self, terms: Sequence[str]) -> dict[str, int]:
        """How many doc pages hold each term."""

    def doc_file_hash(self, project: str, path: str) -> str | None:
        """The content hash recorded when this doc file was last indexed."""

    def doc_paths(self, project: str) -> list[str]:
        """Doc files indexed for a project."""

    def doc_signatures(self, project: str) -> dict[str, str]:
        """Doc files indexed for a project, with the stat signature each was read with."""

    def set_doc_signature(self, project: str, path: str, signature: str) -> None:
        """Record the stat signature of a doc file read again and found unchanged."""

    def replace_doc_file(
        self,
        project: str,
        path: str,
        file_hash: str | None,
        pages: Sequence[tuple[str, str, str, str, bool]],
        signature: str = "",
    ) -> None:
        """Swap a doc file's pages (`file_hash=None` removes the file)."""

    def docs_by_ids(self, ids: Sequence[int]) -> dict[int, tuple[DocPage, str, str]]:
        """Doc pages by rowid, with their analysed title and body."""

    # -- evidence, offers and gates -----------------------------------------------------
    def add_events(self, events: Iterable[Event]) -> int:
        """Append evidence events; returns how many were new."""

    def rowids_with_events(self) -> frozenset[int]:
        """The memory rowids whose ref has any event."""

    def events_for(self, refs: Sequence[str]) -> list[Event]:
        """Events on these memories that still count, oldest first."""

    def event_exists(self, ref: str, event: str, tool: str, session: str, day: str) -> bool:
        """Has this tool produced this event on this memory in this session (or day)?"""

    def record_offers(
        self, session: str, refs: Iterable[str], channel: str, tool: str, at: str
    ) -> None:
        """Record memories handed to a session."""

    def offered(self, session: str, channels: Sequence[str]) -> set[str]:
        """Refs already handed to the session through these channels."""

    def claim_gates(
        self, session: str, refs: Sequence[str], tool: str, call: str, at: str
    ) -> list[str]:
        """Claim these gates for one call of `session`; the refs this call claimed."""

    def gates_waiting(self, session: str) -> set[str]:
        """Gates that stopped a call of this session, not yet retried."""

    def note_retries(self, session: str, refs: Iterable[str], call: str, at: str) -> None:
        """Record the first matching call after each gate's denial."""

    # -- sessions and progress ----------------------------------------------------------
    def upsert_session(self, row: SessionRow) -> None:
        """Create a session or update its fields (nothing written when nothing changes)."""

    def write_session(self, row: SessionRow) -> None:
        """`upsert_session` without the check."""

    def session_changes(self, row: SessionRow) -> bool:
        """Would `upsert_session(row)` write anything?"""

    def note_session(self, ctx: Context) -> None:
        """Record the caller's session, when it names one."""

    def end_session(self, session_id: str, at: str) -> None:
        """Mark a session ended."""

    def get_session(self, session_id: str) -> SessionRow | None:
        """One session by id."""

    def sessions(
        self, project: str, branch: str | None = None, limit: int = 20
    ) -> list[SessionRow]:
        """Recent sessions of a project (optionally of one branch), newest first."""

    def cited_in_sessions(self, session_ids: Sequence[str]) -> set[str]:
        """Refs cited by these sessions."""

    def add_progress(self, p: Progress) -> int:
        """Append a progress record; 1 when new, 0 when its pid exists."""

    def progress(self, project: str, branch: str | None = None, limit: int = 200) -> list[Progress]:
        """Progress records of a project (optionally one branch), oldest first."""

    # -- code acts, learn state ---------------------------------------------------------
    def add_act(self, act: Act) -> bool:
        """Record an act and its sessions; False when its key exists."""

    def act_key_exists(self, project: str, key: str) -> bool:
        """Is an act with this key recorded for the project?"""

    def all_acts(self) -> list[Act]:
        """Every act, oldest first."""

    def get_acts(self, aids: Iterable[str]) -> dict[str, Act]:
        """The acts found among these ids."""

    def recent_acts(self, project: str, *, live_only: bool = False, limit: int = 50) -> list[Act]:
        """The project's acts, newest first."""

    def mark_act_undone(self, aid: str, at: str) -> bool:
        """Take an act back (once); False when already undone or unknown."""

    def judged_sessions(
        self, project: str, kinds: Sequence[str], undone_from: str | None = None
    ) -> set[str]:
        """Sessions judged by a live act of these kinds."""

    def act_for_key(self, project: str, key: str) -> Act | None:
        """The act recorded under this key, if any."""

    def learn_sessions_since(self, project: str, since: str) -> list[LearnSession]:
        """Sessions on a branch started at or after `since`, oldest first."""

    def learn_sessions_on_branch(self, project: str, branch: str) -> list[LearnSession]:
        """Every session of the project recorded on this branch, oldest first."""

    def add_session_commits(self, commits: Iterable[SessionCommit]) -> int:
        """Record commits sessions made; how many were new."""

    def session_commits(self, sessions: Sequence[str]) -> dict[str, list[SessionCommit]]:
        """The recorded commits of these sessions."""

    def sessions_of_commits(
        self, shas: Sequence[str], idents: Mapping[str, tuple[str, str]] | None = None
    ) -> dict[str, set[str]]:
        """Sessions that made these commits, by sha."""

    def learn_state(self, project: str, key: str) -> str | None:
        """A value `learn` kept for the project."""

    def set_learn_state(self, project: str, key: str, value: str) -> None:
        """Keep a value for the project."""

    # -- tidy and measures --------------------------------------------------------------
    def decline_proposal(self, pid: str, kind: str, refs: Sequence[str], at: str) -> bool:
        """Remember a declined tidy proposal; False when declined already."""

    def declined_proposals(self) -> set[str]:
        """Ids of every declined tidy proposal."""

    def sight_citations(self, statuses: dict[str, str], at: str) -> dict[str, str]:
        """Record citation statuses seen now; since when each has held."""

    def offer_counts(self, project: str, since: str = "") -> list[OfferCount]:
        """Offers per (memory, channel, tool) since `since`."""

    def fire_counts(self, refs: Sequence[str], channels: Sequence[str]) -> dict[str, int]:
        """How many times each memory was handed out through these channels."""

    def fire_sessions(self, ref: str, channels: Sequence[str]) -> list[tuple[str, str, str]]:
        """(session, tool, first time) of each session a memory was handed to."""

    def cite_counts(self, project: str, since: str = "") -> dict[str, int]:
        """Counted citations per memory since `since`."""

    def hit_counts(self, project: str, since: str = "") -> dict[str, tuple[int, int]]:
        """Per memory: (sessions offered it, those that cited it after)."""

    def gate_counts(
        self, project: str, since: str = ""
    ) -> dict[str, tuple[int, int, int, dict[str, int]]]:
        """Per gate: (denials, retries, retries that differed, denials by agent)."""

    def new_claims(self, project: str, since: str = "") -> list[tuple[str, int]]:
        """How many claims visible from the project were first written when: (day, claims)
        for Cairn's `...Z` stamps, (stamp, claims) for any other form."""

    def sessions_by_tool(self, project: str, since: str = "") -> dict[str, int]:
        """Sessions of a project per tool since `since`."""

    # -- export / import ----------------------------------------------------------------
    def table_columns(self, table: str) -> list[str]:
        """The columns of one of `COPIED_TABLES` (`cairn store copy`), in the schema's order."""

    def table_count(self, table: str) -> int:
        """How many rows one of `COPIED_TABLES` holds."""

    def table_rows(self, table: str, columns: Sequence[str]) -> list[tuple[Any, ...]]:
        """Every row of one of `COPIED_TABLES`, those columns."""

    def load_tables(
        self, tables: Iterable[tuple[str, Sequence[str], Sequence[tuple[Any, ...]]]]
    ) -> None:
        """Insert rows as they are into `COPIED_TABLES` in one transaction, then make the
        derived word indexes again."""

    def dump(self, derived: bool = True) -> Iterator[dict[str, Any]]:
        """Every record of the workspace as plain dicts; `derived`: with each memory's
        analysed index columns."""

    def memory_lines(self) -> Iterator[str]:
        """Every memory version as export writes its line (the JSON of `dump(derived=False)`'s
        record, keys sorted, no spaces), oldest first."""

    def unchanged_memories(self, lines: Sequence[str]) -> dict[int, str]:
        """Of these export lines, those that are, as JSON, exactly a memory version stored
        under its ref (keys in export's order): position -> ref. May name fewer (none, where
        the store cannot tell cheaply); never one that differs."""

    def memory_records(self, refs: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The memories found among refs, by ref, each as `dump(derived=False)` gives it."""

    def load_memory(self, record: dict[str, Any], folded: str, index: IndexText) -> bool:
        """Insert an exported memory version unless its ref exists; True when inserted."""

    def load_memories(self, versions: Sequence[tuple[dict[str, Any], str, IndexText]]) -> int:
        """Insert exported memory versions (record as `cairn.usecases.transfer` checked it, every
        key
        present; folded sentence; analysed text) whose refs are not stored yet (of a ref given
        twice, the first), as `load_memory` one at a time would; how many were inserted."""
