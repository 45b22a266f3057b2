"""The SQLite store's code acts, learn state and measures: `SqliteStore` methods over
`cairn.io.store.acts` and `cairn.io.store.measures`.

Those modules hold the SQL and take a connection; this class is how the rest of Cairn reaches
them, so that no connection is handed out of `cairn.io.store` (the `Store` protocol). Each write
runs in the store's transaction (joining the caller's when one is open).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from cairn.io.store.acts import Act, LearnSession, SessionCommit
    from cairn.io.store.connection import Connection
    from cairn.io.store.measures import OfferCount
    from cairn.io.store.transaction import Transaction


class SqliteLedger:
    """Acts, the commits sessions made, learn state, tidy declines and measures."""

    conn: Connection
    if TYPE_CHECKING:

        def transaction(self) -> Transaction: ...  # SqliteStore's

    # -- code acts ----------------------------------------------------------------------
    def add_act(self, act: Act) -> bool:
        """Record an act and its sessions; False (nothing written) when its key exists."""
        from cairn.io.store import acts

        with self.transaction():
            return acts.add_act(self.conn, act)

    def act_key_exists(self, project: str, key: str) -> bool:
        """Is an act (live or undone) with this key recorded for the project?"""
        from cairn.io.store import acts

        return acts.key_exists(self.conn, project, key)

    def all_acts(self) -> list[Act]:
        """Every act, live or undone, oldest first (export)."""
        from cairn.io.store import acts

        return acts.all_acts(self.conn)

    def get_acts(self, aids: Iterable[str]) -> dict[str, Act]:
        """The acts found among these ids."""
        from cairn.io.store import acts

        return acts.get_acts(self.conn, aids)

    def recent_acts(self, project: str, *, live_only: bool = False, limit: int = 50) -> list[Act]:
        """The project's acts, newest first."""
        from cairn.io.store import acts

        return acts.recent_acts(self.conn, project, live_only=live_only, limit=limit)

    def mark_act_undone(self, aid: str, at: str) -> bool:
        """Take an act back (once); False when it was already undone or is unknown."""
        from cairn.io.store import acts

        with self.transaction():
            return acts.mark_undone(self.conn, aid, at)

    def judged_sessions(
        self, project: str, kinds: Sequence[str], undone_from: str | None = None
    ) -> set[str]:
        """Sessions judged by a live act of these kinds (or an undone one from `undone_from`)."""
        from cairn.io.store import acts

        return acts.judged_sessions(self.conn, project, kinds, undone_from=undone_from)

    def act_for_key(self, project: str, key: str) -> Act | None:
        """The act recorded under this key, if any."""
        from cairn.io.store import acts

        return acts.act_for_key(self.conn, project, key)

    # -- sessions and their commits -----------------------------------------------------
    def learn_sessions_since(self, project: str, since: str) -> list[LearnSession]:
        """Sessions on a branch that started at or after `since`, oldest first."""
        from cairn.io.store import acts

        return acts.sessions_since(self.conn, project, since)

    def learn_sessions_on_branch(self, project: str, branch: str) -> list[LearnSession]:
        """Every session of the project recorded on this branch, oldest first."""
        from cairn.io.store import acts

        return acts.sessions_on_branch(self.conn, project, branch)

    def add_session_commits(self, commits: Iterable[SessionCommit]) -> int:
        """Record commits sessions made (known pairs skipped); how many were new."""
        from cairn.io.store import acts

        with self.transaction():
            return acts.add_session_commits(self.conn, commits)

    def session_commits(self, sessions: Sequence[str]) -> dict[str, list[SessionCommit]]:
        """The recorded commits of these sessions, oldest (by author time) first."""
        from cairn.io.store import acts

        return acts.session_commits(self.conn, sessions)

    def sessions_of_commits(
        self, shas: Sequence[str], idents: Mapping[str, tuple[str, str]] | None = None
    ) -> dict[str, set[str]]:
        """Sessions that made these commits, by sha (`idents` finds rewritten commits)."""
        from cairn.io.store import acts

        return acts.sessions_of_commits(self.conn, shas, idents)

    def learn_state(self, project: str, key: str) -> str | None:
        """A value `learn` kept for the project."""
        from cairn.io.store import acts

        return acts.get_state(self.conn, project, key)

    def set_learn_state(self, project: str, key: str, value: str) -> None:
        """Keep a value for the project (replacing the old one)."""
        from cairn.io.store import acts

        with self.transaction():
            acts.set_state(self.conn, project, key, value)

    # -- tidy ---------------------------------------------------------------------------
    def decline_proposal(self, pid: str, kind: str, refs: Sequence[str], at: str) -> bool:
        """Remember a declined tidy proposal; False when it was declined already."""
        from cairn.io.store import measures

        with self.transaction():
            return measures.decline(self.conn, pid, kind, refs, at)

    def declined_proposals(self) -> set[str]:
        """Ids of every declined tidy proposal."""
        from cairn.io.store import measures

        return measures.declined(self.conn)

    def sight_citations(self, statuses: dict[str, str], at: str) -> dict[str, str]:
        """Record each memory's citation status seen now; return since when it has held."""
        from cairn.io.store import measures

        with self.transaction():
            return measures.sight(self.conn, statuses, at)

    # -- measures -----------------------------------------------------------------------
    def offer_counts(self, project: str, since: str = "") -> list[OfferCount]:
        """Offers per (memory, channel, tool) since `since`, and in how many sessions."""
        from cairn.io.store import measures

        return measures.offer_counts(self.conn, project, since)

    def fire_counts(self, refs: Sequence[str], channels: Sequence[str]) -> dict[str, int]:
        """How many times each memory was handed out through these channels (ever)."""
        from cairn.io.store import measures

        return measures.fire_counts(self.conn, refs, channels)

    def fire_sessions(self, ref: str, channels: Sequence[str]) -> list[tuple[str, str, str]]:
        """(session, tool, first time) of each session a memory was handed to, oldest first."""
        from cairn.io.store import measures

        return measures.fire_sessions(self.conn, ref, channels)

    def cite_counts(self, project: str, since: str = "") -> dict[str, int]:
        """Counted citations per memory since `since`."""
        from cairn.io.store import measures

        return measures.cite_counts(self.conn, project, since)

    def hit_counts(self, project: str, since: str = "") -> dict[str, tuple[int, int]]:
        """Per memory: (sessions offered it, those that cited it after the offer)."""
        from cairn.io.store import measures

        return measures.hit_counts(self.conn, project, since)

    def gate_counts(
        self, project: str, since: str = ""
    ) -> dict[str, tuple[int, int, int, dict[str, int]]]:
        """Per gate: (denials, retries seen, retries whose call differed, denials by agent)."""
        from cairn.io.store import measures

        return measures.gate_counts(self.conn, project, since)

    def new_claims(self, project: str, since: str = "") -> list[tuple[str, int]]:
        """How many claims visible from the project were first written when (corrections left
        out): (day, claims) for Cairn's `...Z` stamps, (stamp, claims) for any other form."""
        from cairn.io.store import measures

        return measures.new_claims(self.conn, project, since)

    def sessions_by_tool(self, project: str, since: str = "") -> dict[str, int]:
        """Sessions of a project per tool (agent) started since `since`."""
        from cairn.io.store import measures

        return measures.sessions_by_tool(self.conn, project, since)
