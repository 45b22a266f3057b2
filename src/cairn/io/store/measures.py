"""The SQL of tidying and measuring: declines, citation sightings, offer and citation counts.

Each function takes an open `sqlite3.Connection` (a store's `conn`). Counts are limited to
memories visible from a project (its own plus workspace-wide ones) and to rows at or after
`since`, a stored timestamp or a UTC day (`""` counts everything): stamps sort as text.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from cairn.io.store.memories import visible_clause

__all__ = [
    "OfferCount",
    "cite_counts",
    "decline",
    "declined",
    "fire_counts",
    "fire_sessions",
    "gate_counts",
    "hit_counts",
    "new_claims",
    "offer_counts",
    "sessions_by_tool",
    "sight",
]


@dataclass(frozen=True)
class OfferCount:
    """How often one memory was handed out through one channel by one tool."""

    ref: str
    channel: str
    tool: str
    offers: int
    sessions: int


def decline(conn: sqlite3.Connection, pid: str, kind: str, refs: Sequence[str], at: str) -> bool:
    """Remember a declined tidy proposal; False when it was declined already."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO tidy_declines (id, kind, refs, at) VALUES (?, ?, ?, ?)",
        (pid, kind, json.dumps(list(refs)), at),
    )
    return cur.rowcount == 1


def declined(conn: sqlite3.Connection) -> set[str]:
    """Ids of every declined tidy proposal."""
    return {str(r[0]) for r in conn.execute("SELECT id FROM tidy_declines")}


def sight(conn: sqlite3.Connection, statuses: dict[str, str], at: str) -> dict[str, str]:
    """Record each memory's citation status seen now; return since when it has held.

    `statuses` maps every checked ref to its status; only `gone` and `changed` are kept, so a
    citation that was fixed and broke again starts counting afresh.
    """
    conn.executemany(
        "DELETE FROM citation_sightings WHERE ref = ? AND status != ?",
        list(statuses.items()),
    )
    broken = [(ref, status) for ref, status in statuses.items() if status in ("gone", "changed")]
    conn.executemany(
        "INSERT OR IGNORE INTO citation_sightings (ref, status, first_seen) VALUES (?, ?, ?)",
        [(ref, status, at) for ref, status in broken],
    )
    out: dict[str, str] = {}
    for ref, status in broken:
        row = conn.execute(
            "SELECT first_seen FROM citation_sightings WHERE ref = ? AND status = ?",
            (ref, status),
        ).fetchone()
        out[ref] = str(row[0]) if row else at
    return out


def offer_counts(conn: sqlite3.Connection, project: str, since: str = "") -> list[OfferCount]:
    """Offers per (memory, channel, tool) since `since`, and in how many sessions."""
    rows = conn.execute(
        "SELECT o.ref, o.channel, o.tool, count(*), count(DISTINCT o.session) FROM offers o "
        f"JOIN memories m ON m.ref = o.ref WHERE {visible_clause('m')} AND o.at >= ? "
        "GROUP BY o.ref, o.channel, o.tool ORDER BY o.ref, o.channel, o.tool",
        (project, since),
    )
    return [OfferCount(str(r[0]), str(r[1]), str(r[2]), int(r[3]), int(r[4])) for r in rows]


def fire_counts(
    conn: sqlite3.Connection, refs: Sequence[str], channels: Sequence[str]
) -> dict[str, int]:
    """How many times each memory was handed out through these channels (ever)."""
    out: dict[str, int] = {}
    if not refs or not channels:
        return out
    kinds = ",".join("?" * len(channels))
    for i in range(0, len(refs), 500):
        chunk = list(refs[i : i + 500])
        marks = ",".join("?" * len(chunk))
        for ref, n in conn.execute(
            f"SELECT ref, count(*) FROM offers WHERE ref IN ({marks}) AND channel IN ({kinds}) "
            "GROUP BY ref",
            (*chunk, *channels),
        ):
            out[str(ref)] = int(n)
    return out


def fire_sessions(
    conn: sqlite3.Connection, ref: str, channels: Sequence[str]
) -> list[tuple[str, str, str]]:
    """(session, tool, first time) of each session a memory was handed to, oldest first."""
    kinds = ",".join("?" * len(channels))
    rows = conn.execute(
        "SELECT session, tool, min(at) FROM offers "
        f"WHERE ref = ? AND channel IN ({kinds}) GROUP BY session, tool ORDER BY min(at)",
        (ref, *channels),
    )
    return [(str(r[0]), str(r[1]), str(r[2])) for r in rows]


def cite_counts(conn: sqlite3.Connection, project: str, since: str = "") -> dict[str, int]:
    """Counted citations (`cited` evidence) per memory since `since`."""
    rows = conn.execute(
        "SELECT e.ref, count(*) FROM evidence e JOIN memories m ON m.ref = e.ref "
        f"WHERE e.event = 'cited' AND {visible_clause('m')} AND e.at >= ? GROUP BY e.ref",
        (project, since),
    )
    return {str(r[0]): int(r[1]) for r in rows}


def hit_counts(
    conn: sqlite3.Connection, project: str, since: str = ""
) -> dict[str, tuple[int, int]]:
    """Per memory: (sessions it was offered in, those sessions that cited it after the offer).

    Only offers made to a session count (an offer without a session has nothing to follow).
    """
    rows = conn.execute(
        "SELECT o.ref, count(*), sum(EXISTS (SELECT 1 FROM evidence e WHERE e.ref = o.ref "
        "AND e.session = o.session AND e.event = 'cited' AND e.at >= o.first_at)) "
        "FROM (SELECT ref, session, min(at) AS first_at FROM offers "
        "WHERE session != '' AND at >= ? GROUP BY ref, session) o "
        f"JOIN memories m ON m.ref = o.ref WHERE {visible_clause('m')} GROUP BY o.ref",
        (since, project),
    )
    return {str(r[0]): (int(r[1]), int(r[2] or 0)) for r in rows}


def gate_counts(
    conn: sqlite3.Connection, project: str, since: str = ""
) -> dict[str, tuple[int, int, int, dict[str, int]]]:
    """Per gate: (denials, retries seen, retries whose call differed, denials by agent).

    A denial is one session's first matching call, stopped; its retry is the first matching
    call after it in that session (`gate_denials`, migration 0008).
    """
    out: dict[str, tuple[int, int, int, dict[str, int]]] = {}
    rows = conn.execute(
        "SELECT g.ref, g.tool, count(*), count(g.retry_at), "
        "count(CASE WHEN g.retry_at IS NOT NULL AND g.retry_call != g.call THEN 1 END) "
        "FROM gate_denials g "
        f"JOIN memories m ON m.ref = g.ref WHERE {visible_clause('m')} AND g.at >= ? "
        "GROUP BY g.ref, g.tool ORDER BY g.ref, g.tool",
        (project, since),
    )
    for ref, tool, denials, retries, differed in rows:
        n, r, d, by = out.get(str(ref), (0, 0, 0, {}))
        by[str(tool)] = int(denials)
        out[str(ref)] = (n + int(denials), r + int(retries), d + int(differed or 0), by)
    return out


def new_claims(conn: sqlite3.Connection, project: str, since: str = "") -> list[tuple[str, int]]:
    """How many claims visible from the project were first written when (corrections left
    out), counted in SQL: (day, claims) for stamps Cairn wrote (`...Z`, UTC, whose first ten
    characters name the day), (stamp, claims) for any other form; in text order."""
    rows = conn.execute(
        "SELECT CASE WHEN substr(written, length(written), 1) = 'Z' THEN substr(written, 1, 10) "
        "ELSE written END AS day, count(*) FROM memories "
        f"WHERE replaces IS NULL AND {visible_clause()} AND written >= ? GROUP BY 1 ORDER BY 1",
        (project, since),
    )
    return [(str(r[0]), int(r[1])) for r in rows]


def sessions_by_tool(conn: sqlite3.Connection, project: str, since: str = "") -> dict[str, int]:
    """Sessions of a project per tool (agent) started since `since`."""
    rows = conn.execute(
        "SELECT tool, count(*) FROM sessions WHERE project = ? AND started >= ? GROUP BY tool",
        (project, since),
    )
    return {str(r[0]): int(r[1]) for r in rows}
