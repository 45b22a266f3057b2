"""Measuring memory: what was handed out, what was used, and what the hooks cost.

- per memory: offered through the brief, recall and lessons on tool calls (the `lesson`,
  `rule` and `question` channels counted together as `lesson`), cited, and the hit rate: of the
  sessions it was offered to, the share that cited it at or after the first offer;
- per lesson (any memory that rode on a tool call): fires, and fires by agent (the tool that
  recorded the offer);
- per gate (a lesson or rule that stopped a call once; see `cairn.usecases.gates`): denials
(sessions
  whose first matching call it stopped), retries seen (the same action called again in that
  session) and how many of those retries differed from the stopped call (a rewritten commit
  message: the rule changed what the agent did), with denials by agent;
- per agent: sessions, fires, and from the hook's own timing log (`hook-timing.log` and its
  rotated `hook-timing.log.1` beside the store; one line per call: unix time, agent, event,
  milliseconds, memories fired, and how it was answered: `prefilter` or `process`) hook calls
  and latency p50 / p95 (nearest-rank percentiles);
- the store: file size (database plus write-ahead log), current memories, and growth: new
  claims (corrections left out) per ISO week, from the first claim (or `since`) to this week,
  at most the last `GROWTH_WEEKS` weeks.

`since` (a UTC day, `YYYY-MM-DD`) keeps offers, citations, sessions, timing lines and claims from
that day on. Offers, citations and sessions are those of the project; the timing log holds no
project, so its figures cover the whole workspace.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.core.context import parse_stamp
from cairn.core.errors import QueryError
from cairn.io.regularfile import read_text

if TYPE_CHECKING:
    from cairn.usecases.opened import Opened

__all__ = [
    "GROWTH_WEEKS",
    "TIMING_LOGS",
    "AgentStats",
    "GateStats",
    "HookCall",
    "LessonStats",
    "MemoryStats",
    "Stats",
    "StoreStats",
    "bar",
    "percentile",
    "read_timing",
    "sparkline",
    "stats",
    "weekly",
]

GROWTH_WEEKS = 52
TIMING_LOGS = ("hook-timing.log.1", "hook-timing.log")
# The hook rotates its log at 1 MB; a log far past that was not written by it.
TIMING_LOG_READ = 16 << 20
LESSON_CHANNELS = ("lesson", "rule", "question", "gate")
SPARK = "▁▂▃▄▅▆▇█"
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class MemoryStats:
    """How one memory was handed out and used."""

    ref: str
    kind: str
    text: str
    offered: dict[str, int]
    cited: int
    offered_sessions: int
    hit_sessions: int

    @property
    def hit_rate(self) -> float | None:
        """Share of the sessions it was offered to that cited it afterwards (None: no offers)."""
        if not self.offered_sessions:
            return None
        return self.hit_sessions / self.offered_sessions

    def to_dict(self) -> dict[str, Any]:
        """As `cairn stats --json` prints it."""
        rate = self.hit_rate
        return {
            "ref": self.ref,
            "kind": self.kind,
            "text": self.text,
            "offered": self.offered,
            "cited": self.cited,
            "offered_sessions": self.offered_sessions,
            "hit_sessions": self.hit_sessions,
            "hit_rate": None if rate is None else round(rate, 4),
        }


@dataclass(frozen=True)
class LessonStats:
    """How often a memory rode along on tool calls, by agent."""

    ref: str
    text: str
    fires: int
    by_agent: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        """As `cairn stats --json` prints it."""
        return {"ref": self.ref, "text": self.text, "fires": self.fires, "by_agent": self.by_agent}


@dataclass(frozen=True)
class GateStats:
    """What one gate did: calls it stopped, retries seen after them, retries that differed."""

    ref: str
    text: str
    denials: int
    retries: int
    differed: int
    by_agent: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        """As `cairn stats --json` prints it."""
        return {
            "ref": self.ref,
            "text": self.text,
            "denials": self.denials,
            "retries": self.retries,
            "differed": self.differed,
            "by_agent": self.by_agent,
        }


@dataclass(frozen=True)
class AgentStats:
    """One agent: its sessions, the memories it fired, its hook calls and their latency."""

    agent: str
    sessions: int
    fires: int
    hook_calls: int
    p50_ms: float | None
    p95_ms: float | None

    def to_dict(self) -> dict[str, Any]:
        """As `cairn stats --json` prints it."""
        return {
            "agent": self.agent,
            "sessions": self.sessions,
            "fires": self.fires,
            "hook_calls": self.hook_calls,
            "p50_ms": self.p50_ms,
            "p95_ms": self.p95_ms,
        }


@dataclass(frozen=True)
class StoreStats:
    """The store file and how fast it grows."""

    path: str
    bytes: int
    memories: int
    growth: list[tuple[str, int]]

    def to_dict(self) -> dict[str, Any]:
        """As `cairn stats --json` prints it."""
        return {
            "path": self.path,
            "bytes": self.bytes,
            "memories": self.memories,
            "growth": [{"week": w, "new": n} for w, n in self.growth],
        }


@dataclass(frozen=True)
class HookCall:
    """One line of the hook timing log."""

    at: float
    agent: str
    event: str
    ms: float
    fired: int
    # How it was answered: `prefilter` (the fast path alone) or `process` (the slow path ran
    # too); '' in lines of older versions, `helper` in those of versions with a resident helper.
    via: str = ""


@dataclass(frozen=True)
class Stats:
    """Everything `cairn stats` shows."""

    since: str | None
    store: StoreStats
    memories: list[MemoryStats] = field(default_factory=list)
    lessons: list[LessonStats] = field(default_factory=list)
    agents: list[AgentStats] = field(default_factory=list)
    gates: list[GateStats] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """As `cairn stats --json` prints it."""
        return {
            "since": self.since,
            "store": self.store.to_dict(),
            "memories": [m.to_dict() for m in self.memories],
            "lessons": [x.to_dict() for x in self.lessons],
            "gates": [g.to_dict() for g in self.gates],
            "agents": [a.to_dict() for a in self.agents],
        }


def stats(cairn: Opened, since: str | None = None) -> Stats:
    """Measure the project's memory (see the module docstring), from `since` (a UTC day) on."""
    if since is not None and not _valid_day(since):
        raise QueryError(f"--since must be a UTC day such as 2026-11-01, not {since!r}")
    store, ctx = cairn.store, cairn.ctx
    project, start = ctx.project, since or ""

    offers = store.offer_counts(project, start)
    cites = store.cite_counts(project, start)
    hits = store.hit_counts(project, start)
    denied = store.gate_counts(project, start)
    refs = list(dict.fromkeys([o.ref for o in offers] + list(cites) + list(denied)))
    found = store.get_memories(refs)

    offered: dict[str, dict[str, int]] = {}
    fired: dict[str, dict[str, int]] = {}
    for o in offers:
        channel = "lesson" if o.channel in LESSON_CHANNELS else o.channel
        counts = offered.setdefault(o.ref, {"brief": 0, "recall": 0, "lesson": 0})
        counts[channel] = counts.get(channel, 0) + o.offers
        if o.channel in LESSON_CHANNELS:
            by_agent = fired.setdefault(o.ref, {})
            by_agent[o.tool] = by_agent.get(o.tool, 0) + o.offers
    memories = []
    for ref in refs:
        counts = dict(offered.get(ref, {"brief": 0, "recall": 0, "lesson": 0}))
        counts["total"] = sum(counts.values())
        sessions, hit = hits.get(ref, (0, 0))
        m = found.get(ref)
        memories.append(
            MemoryStats(
                ref,
                m.kind if m else "?",
                m.text if m else "",
                counts,
                cites.get(ref, 0),
                sessions,
                hit,
            )
        )
    memories.sort(key=lambda s: (-s.offered["total"], -s.cited, s.ref))
    lessons = sorted(
        (
            LessonStats(
                ref,
                found[ref].text if ref in found else "",
                sum(by.values()),
                dict(sorted(by.items())),
            )
            for ref, by in fired.items()
        ),
        key=lambda x: (-x.fires, x.ref),
    )
    gates = sorted(
        (
            GateStats(
                ref, found[ref].text if ref in found else "", n, r, d, dict(sorted(by.items()))
            )
            for ref, (n, r, d, by) in denied.items()
        ),
        key=lambda g: (-g.denials, g.ref),
    )
    calls = read_timing(store.home, since)
    agents = _agents(calls, fired, store.sessions_by_tool(project, start))
    growth = weekly(store.new_claims(project, start), since, ctx.clock())
    return Stats(
        since,
        StoreStats(store.location, store.size(), store.count_memories(project), growth),
        memories,
        lessons,
        agents,
        gates,
    )


def _valid_day(text: str) -> bool:
    if not _DAY.match(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _agents(
    calls: Sequence[HookCall], fired: dict[str, dict[str, int]], sessions: dict[str, int]
) -> list[AgentStats]:
    fires: dict[str, int] = {}
    for by_agent in fired.values():
        for agent, n in by_agent.items():
            fires[agent] = fires.get(agent, 0) + n
    timings: dict[str, list[float]] = {}
    for call in calls:
        timings.setdefault(call.agent, []).append(call.ms)
    names = sorted(set(fires) | set(timings) | set(sessions))
    return [
        AgentStats(
            name,
            sessions.get(name, 0),
            fires.get(name, 0),
            len(timings.get(name, [])),
            percentile(timings.get(name, []), 50),
            percentile(timings.get(name, []), 95),
        )
        for name in names
        if name
    ]


def read_timing(home: Path, since: str | None = None) -> list[HookCall]:
    """The hook timing log lines (rotated file first), from `since` (a UTC day) on."""
    start = datetime.fromisoformat(since).replace(tzinfo=UTC).timestamp() if since else None
    out: list[HookCall] = []
    for name in TIMING_LOGS:
        try:
            text = read_text(
                Path(home) / name, TIMING_LOG_READ, follow=False, partial=True, errors="replace"
            )
        except OSError:
            continue
        for line in text.splitlines():
            call = _timing_line(line)
            if call is not None and (start is None or call.at >= start):
                out.append(call)
    return out


def _timing_line(line: str) -> HookCall | None:
    parts = line.rstrip("\n").split("\t")
    if len(parts) not in (5, 6):  # 6: how the call was answered (older lines have 5)
        return None
    try:
        at, ms, fired = float(parts[0]), float(parts[3]), int(parts[4])
    except ValueError:
        return None
    if not (math.isfinite(at) and math.isfinite(ms)):
        return None
    return HookCall(at, parts[1], parts[2], ms, fired, parts[5] if len(parts) == 6 else "")


def percentile(values: Iterable[float], p: float) -> float | None:
    """The nearest-rank percentile: the smallest value with at least p% of values at or below."""
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def weekly(
    written: Iterable[tuple[str, int]], since: str | None, now: datetime
) -> list[tuple[str, int]]:
    """New claims per ISO week (`2026-W44`), zero weeks included, up to this week, from
    (when, claims) pairs (`Store.new_claims`): `when` a UTC day, or a stamp."""
    # A stamp Cairn wrote (`...Z`, UTC) names its day in its first ten characters, and the
    # store counts those per day (10k claims are a few hundred days); parse any other form.
    days: dict[date | str, int] = {}
    for text, n in written:
        key: date | str = (
            text[:10] if len(text) == 10 or text.endswith("Z") else parse_stamp(text).date()
        )
        days[key] = days.get(key, 0) + n
    counts: dict[date, int] = {}
    for key, n in days.items():
        day = date.fromisoformat(key) if isinstance(key, str) else key
        monday = day - timedelta(days=day.weekday())
        counts[monday] = counts.get(monday, 0) + n
    this_week = now.date() - timedelta(days=now.date().weekday())
    if since:
        first_day = date.fromisoformat(since)
        first = first_day - timedelta(days=first_day.weekday())
    elif counts:
        first = min(counts)
    else:
        first = this_week
    first = max(first, this_week - timedelta(weeks=GROWTH_WEEKS - 1))
    out: list[tuple[str, int]] = []
    week = first
    while week <= this_week:
        year, number, _ = week.isocalendar()
        out.append((f"{year}-W{number:02d}", counts.get(week, 0)))
        week += timedelta(weeks=1)
    return out


def sparkline(values: Sequence[float]) -> str:
    """One block character per value, scaled to the largest (all zero: the lowest block)."""
    top = max(values, default=0)
    if top <= 0:
        return SPARK[0] * len(values)
    return "".join(SPARK[min(len(SPARK) - 1, round(v / top * (len(SPARK) - 1)))] for v in values)


def bar(value: float, top: float, width: int = 20) -> str:
    """A horizontal bar of full blocks, `width` long at `top` (at least one block when > 0)."""
    if top <= 0 or value <= 0:
        return ""
    return "█" * max(1, round(value / top * width))
