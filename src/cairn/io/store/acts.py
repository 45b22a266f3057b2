"""Code acts (merge, revert, discard), the commits sessions made, and what `learn` has seen.

Tables of migration `0003_code_acts`:

- `acts`: one row per act, from git or from `cairn review`; `key` is unique per project so the
  same git fact is never recorded twice; `undone_at` marks an act taken back (append-only:
  the row stays, its evidence events stop counting).
- `act_sessions`: the sessions an act judged.
- `session_commits`: commits a session made, found on its branch or in a checkout's reflog.
- `learn_state`: small values `learn` keeps per project (the branch heads it last saw).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ACTS = ("merge", "revert", "discard")
SOURCES = ("git", "review")
_ACT_COLUMNS = "aid, project, branch, act, at, source, key, detail, undone_at"


@dataclass(frozen=True)
class Act:
    """One code act: what happened to which branch, when, from which source."""

    aid: str
    project: str
    branch: str
    act: str
    at: str
    source: str
    key: str
    detail: dict[str, Any] = field(default_factory=dict)
    undone_at: str | None = None
    sessions: tuple[str, ...] = ()

    @property
    def live(self) -> bool:
        """Not taken back."""
        return self.undone_at is None

    def to_dict(self) -> dict[str, Any]:
        """The act as `cairn learn --json` and get_memory print it."""
        out: dict[str, Any] = {
            "id": self.aid,
            "act": self.act,
            "branch": self.branch,
            "at": self.at,
            "source": self.source,
            "sessions": list(self.sessions),
            "detail": self.detail,
        }
        if self.undone_at is not None:
            out["undone_at"] = self.undone_at
        return out


@dataclass(frozen=True)
class LearnSession:
    """A session as `learn` needs it: its branch, its window and its last activity."""

    id: str
    project: str
    branch: str
    cwd: str
    started: str
    ended: str | None
    last_activity: str


@dataclass(frozen=True)
class SessionCommit:
    """A commit a session made: sha, author time (stamp), author email, where it was found."""

    session: str
    sha: str
    at: str
    email: str
    found: str

    @property
    def ident(self) -> tuple[str, str]:
        """(author time, author email): what rebase, amend and cherry-pick keep."""
        return (self.at, self.email)


def new_aid() -> str:
    """A globally unique act id."""
    return "a-" + secrets.token_hex(6)


# -- acts -------------------------------------------------------------------------------
def add_act(conn: sqlite3.Connection, act: Act) -> bool:
    """Insert an act and its sessions; False (and nothing written) when its key exists."""
    if act.act not in ACTS or act.source not in SOURCES:
        raise ValueError(f"unknown act {act.act!r} from {act.source!r}")
    cur = conn.execute(
        f"INSERT OR IGNORE INTO acts ({_ACT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            act.aid,
            act.project,
            act.branch,
            act.act,
            act.at,
            act.source,
            act.key,
            json.dumps(act.detail, sort_keys=True),
            act.undone_at,
        ),
    )
    if cur.rowcount != 1:
        return False
    conn.executemany(
        "INSERT OR IGNORE INTO act_sessions (aid, session) VALUES (?, ?)",
        [(act.aid, s) for s in act.sessions],
    )
    return True


def key_exists(conn: sqlite3.Connection, project: str, key: str) -> bool:
    """Is an act (live or undone) with this key recorded for the project?"""
    row = conn.execute("SELECT 1 FROM acts WHERE project = ? AND key = ?", (project, key))
    return row.fetchone() is not None


def _acts(conn: sqlite3.Connection, where: str, args: Sequence[Any]) -> list[Act]:
    rows = conn.execute(f"SELECT {_ACT_COLUMNS} FROM acts WHERE {where}", list(args)).fetchall()
    sessions: dict[str, list[str]] = {}
    aids = [r[0] for r in rows]
    for i in range(0, len(aids), 500):
        chunk = aids[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for aid, session in conn.execute(
            f"SELECT aid, session FROM act_sessions WHERE aid IN ({marks}) ORDER BY session",
            chunk,
        ):
            sessions.setdefault(aid, []).append(session)
    return [
        Act(
            aid=r[0],
            project=r[1],
            branch=r[2],
            act=r[3],
            at=r[4],
            source=r[5],
            key=r[6],
            detail=json.loads(r[7]),
            undone_at=r[8],
            sessions=tuple(sessions.get(r[0], [])),
        )
        for r in rows
    ]


def all_acts(conn: sqlite3.Connection) -> list[Act]:
    """Every act, live or undone, oldest first (export)."""
    return sorted(_acts(conn, "1 = 1", []), key=lambda a: (a.at, a.aid))


def get_acts(conn: sqlite3.Connection, aids: Iterable[str]) -> dict[str, Act]:
    """The acts found among these ids."""
    wanted = list(dict.fromkeys(aids))
    out: dict[str, Act] = {}
    for i in range(0, len(wanted), 500):
        chunk = wanted[i : i + 500]
        marks = ",".join("?" * len(chunk))
        out.update((a.aid, a) for a in _acts(conn, f"aid IN ({marks})", chunk))
    return out


def recent_acts(
    conn: sqlite3.Connection, project: str, *, live_only: bool = False, limit: int = 50
) -> list[Act]:
    """The project's acts, newest first."""
    where = "project = ?" + (" AND undone_at IS NULL" if live_only else "")
    return _acts(conn, f"{where} ORDER BY id DESC LIMIT ?", (project, int(limit)))


def mark_undone(conn: sqlite3.Connection, aid: str, at: str) -> bool:
    """Take an act back (set `undone_at` once); False when it was already undone or unknown."""
    cur = conn.execute(
        "UPDATE acts SET undone_at = ? WHERE aid = ? AND undone_at IS NULL", (at, aid)
    )
    return cur.rowcount == 1


def judged_sessions(
    conn: sqlite3.Connection, project: str, acts: Sequence[str], undone_from: str | None = None
) -> set[str]:
    """Sessions judged by a live act of these kinds (or by an undone one from `undone_from`).

    An act taken back frees its sessions for a review by hand, but the same git fact is not
    learned again: pass `undone_from="git"` when learning from git.
    """
    marks = ",".join("?" * len(acts))
    sql = (
        "SELECT DISTINCT s.session FROM act_sessions s JOIN acts a ON a.aid = s.aid "
        f"WHERE a.project = ? AND a.act IN ({marks}) AND (a.undone_at IS NULL"
    )
    args: list[Any] = [project, *acts]
    if undone_from is not None:
        sql += " OR a.source = ?"
        args.append(undone_from)
    sql += ")"
    return {r[0] for r in conn.execute(sql, args)}


def act_for_key(conn: sqlite3.Connection, project: str, key: str) -> Act | None:
    """The act recorded under this key, if any."""
    found = _acts(conn, "project = ? AND key = ?", (project, key))
    return found[0] if found else None


# -- sessions and their commits ---------------------------------------------------------
_SESSION_SQL = (
    "SELECT s.id, s.project, s.branch, s.cwd, s.started, s.ended, max(s.started, "
    "coalesce((SELECT max(e.at) FROM evidence e WHERE e.session = s.id), ''), "
    "coalesce((SELECT max(o.at) FROM offers o WHERE o.session = s.id), '')) "
    "FROM sessions s WHERE s.project = ? AND s.branch != ''"
)


def sessions_since(conn: sqlite3.Connection, project: str, since: str) -> list[LearnSession]:
    """Sessions of the project on a branch that started at or after `since`, oldest first."""
    rows = conn.execute(_SESSION_SQL + " AND s.started >= ? ORDER BY s.started", (project, since))
    return [LearnSession(*r) for r in rows]


def sessions_on_branch(conn: sqlite3.Connection, project: str, branch: str) -> list[LearnSession]:
    """Every session of the project recorded on this branch, oldest first."""
    rows = conn.execute(_SESSION_SQL + " AND s.branch = ? ORDER BY s.started", (project, branch))
    return [LearnSession(*r) for r in rows]


def add_session_commits(conn: sqlite3.Connection, commits: Iterable[SessionCommit]) -> int:
    """Record commits sessions made (a pair already known is skipped); how many were new."""
    before = conn.total_changes
    conn.executemany(
        "INSERT OR IGNORE INTO session_commits (session, sha, at, email, found) "
        "VALUES (?, ?, ?, ?, ?)",
        [(c.session, c.sha, c.at, c.email, c.found) for c in commits],
    )
    return conn.total_changes - before


def session_commits(
    conn: sqlite3.Connection, sessions: Sequence[str]
) -> dict[str, list[SessionCommit]]:
    """The recorded commits of these sessions, oldest (by author time) first."""
    out: dict[str, list[SessionCommit]] = {}
    for i in range(0, len(sessions), 500):
        chunk = list(sessions[i : i + 500])
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(
            "SELECT session, sha, at, email, found FROM session_commits "
            f"WHERE session IN ({marks}) ORDER BY at, sha",
            chunk,
        ):
            out.setdefault(row[0], []).append(SessionCommit(*row))
    return out


def sessions_of_commits(
    conn: sqlite3.Connection,
    shas: Sequence[str],
    idents: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, set[str]]:
    """Sessions that made these commits, by sha.

    `idents` gives a commit's (author time, author email): a rebased, amended or
    cherry-picked commit keeps them, so they find the session of a commit whose sha changed.
    """
    out: dict[str, set[str]] = {}
    for sha in dict.fromkeys(shas):
        rows = conn.execute("SELECT session FROM session_commits WHERE sha = ?", (sha,))
        found = {r[0] for r in rows}
        if not found and idents and sha in idents:
            at, email = idents[sha]
            rows = conn.execute(
                "SELECT session FROM session_commits WHERE at = ? AND email = ?", (at, email)
            )
            found = {r[0] for r in rows}
        if found:
            out[sha] = found
    return out


# -- learn_state ------------------------------------------------------------------------
def get_state(conn: sqlite3.Connection, project: str, key: str) -> str | None:
    """A value `learn` kept for the project."""
    row = conn.execute(
        "SELECT value FROM learn_state WHERE project = ? AND key = ?", (project, key)
    ).fetchone()
    return str(row[0]) if row else None


def set_state(conn: sqlite3.Connection, project: str, key: str, value: str) -> None:
    """Keep a value for the project (replacing the old one)."""
    conn.execute(
        "INSERT INTO learn_state (project, key, value) VALUES (?, ?, ?) "
        "ON CONFLICT (project, key) DO UPDATE SET value = excluded.value",
        (project, key, value),
    )
