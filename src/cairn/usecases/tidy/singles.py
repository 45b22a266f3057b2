"""The proposals about one memory at a time: a stale citation, a broad lesson, a contradicted
pin, a memory resting too long.

The rules are in `cairn.usecases.tidy`'s docstring."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.core.context import DAY_US, micros, parse_stamp, stamp, stamp_micros
from cairn.core.errors import TriggerError
from cairn.core.lessons.triggers import parse_when
from cairn.core.lifecycle import CONTRADICTING, STRIKES, state_of, strikes
from cairn.core.models import Event, Memory, Trigger
from cairn.io.workspace import checkout_root
from cairn.usecases.describe import citation_of
from cairn.usecases.tidy.proposal import Progress, Proposal, _proposal

if TYPE_CHECKING:
    from cairn.usecases.opened import Opened

STALE_AFTER = timedelta(days=14)
BROAD_FIRES = 10
RETIRE_AFTER = timedelta(days=60)
FIRE_CHANNELS = ("lesson",)
CITATION_BATCH = 200  # citations checked between two progress reports
SHOWN_SESSIONS = 5
_ANCHOR = r"(?:^|[;&|(]\s*)"
_WORD_END = r"(?:\s|$)"


def _stale_citations(
    cairn: Opened, memories: Sequence[Memory], now: datetime, report: Progress
) -> list[Proposal]:
    ctx = cairn.ctx
    seen: list[tuple[Memory, str, str]] = []
    statuses: dict[str, str] = {}
    cited = [m for m in memories if m.source_ref and m.fingerprint]
    for k, m in enumerate(cited):
        if k % CITATION_BATCH == 0:
            report("checking citations", k, len(cited))
        citation = citation_of(m, ctx)
        statuses[m.ref] = citation.status
        if citation.status in ("gone", "changed"):
            seen.append((m, citation.status, citation.path))
    if not statuses:
        return []
    with cairn.store.transaction():
        first = cairn.store.sight_citations(statuses, ctx.now())
    out: list[Proposal] = []
    for m, status, path in seen:
        since = parse_stamp(first[m.ref])
        bound = _file_bound(path, _roots(m, cairn), status)
        if bound is not None:
            since = min(since, bound)
        since = max(since, parse_stamp(m.written))
        if now - since < STALE_AFTER:
            continue
        days = (now - since).days
        said = "is gone (file missing)" if status == "gone" else "changed"
        out.append(
            _proposal(
                "stale-citation",
                "retire",
                (m.ref,),
                f"the cited code {m.source_ref} {said} at least {days} days ago; "
                "retire it, or decline if it still holds",
                (m.text,),
                {"status": status, "source_ref": m.source_ref},
                detail={"status": status, "source_ref": m.source_ref, "since": stamp(since)},
            )
        )
    return out


def _roots(memory: Memory, cairn: Opened) -> list[Path]:
    roots = [checkout_root(cairn.ctx.cwd)] if cairn.ctx.cwd else []
    own = cairn.ctx.root if memory.project == cairn.ctx.project else memory.project
    return [*roots, Path(own)]


def _file_bound(path: str, roots: Sequence[Path], status: str) -> datetime | None:
    """A time by which the citation was already broken, from the file system.

    Changed: the file's last modification (the breaking edit came at or before it). Gone: the
    last modification of the nearest folder still there (removing an entry changes it).
    """
    if not path:
        return None
    for root in roots:
        target = root / path
        if status == "changed":
            if target.exists():
                return datetime.fromtimestamp(target.stat().st_mtime, UTC)
            continue
        for folder in target.parents:
            if folder.exists():
                return datetime.fromtimestamp(folder.stat().st_mtime, UTC)
    return None


# -- lessons that fire often and help nobody -------------------------------------------------


def _broad_lessons(
    cairn: Opened, memories: Sequence[Memory], events: dict[str, list[Event]]
) -> list[Proposal]:
    lessons = [m for m in memories if m.when is not None]
    store = cairn.store
    fires = store.fire_counts([m.ref for m in lessons], FIRE_CHANNELS)
    out: list[Proposal] = []
    for m in lessons:
        n = fires.get(m.ref, 0)
        cited = sum(1 for e in events.get(m.ref, []) if e.event == "cited")
        if n < BROAD_FIRES or cited or m.when is None:
            continue
        sessions = store.fire_sessions(m.ref, FIRE_CHANNELS)
        shown = []
        for session, tool, at in sessions[:SHOWN_SESSIONS]:
            row = cairn.store.get_session(session) if session else None
            shown.append(
                {"session": session, "tool": tool, "at": at, "branch": row.branch if row else ""}
            )
        narrower = narrower_trigger(m.when)
        facts = {"when": m.when.to_dict(), "fires_band": int(math.log2(n)), "cited": 0}
        detail: dict[str, Any] = {
            "fires": n,
            "sessions": len({s for s, _, _ in sessions}),
            "tools": sorted({t for _, t, _ in sessions if t}),
            "fired_in": shown,
            "limitation": "the offers ledger does not record the command or path a lesson "
            "fired on; the narrower trigger comes from the lesson's own pattern",
        }
        base = f"fired {n} times in {detail['sessions']} sessions and was never cited"
        if narrower is not None:
            out.append(
                _proposal(
                    "broad-lesson",
                    "narrow",
                    (m.ref,),
                    f"{base}; narrow its trigger",
                    (m.text,),
                    facts,
                    when=narrower.to_dict(),
                    detail=detail,
                )
            )
        else:
            out.append(
                _proposal(
                    "broad-lesson",
                    "retire",
                    (m.ref,),
                    f"{base}; no narrower trigger follows from {m.when.pattern!r}: retire it",
                    (m.text,),
                    facts,
                    detail=detail,
                )
            )
    return out


def narrower_trigger(when: Trigger) -> Trigger | None:
    """A narrower trigger derived from the pattern alone, or None when none can be.

    Shell: the regex must start a command (or follow `;`, `&`, `|`, `(`) and end on a word
    boundary. Read: the same glob, on edits only. Edit: none (a glob cannot be narrowed without
    knowing the paths it fired on).
    """
    candidate: Trigger | None = None
    if when.tool == "shell" and when.match:
        pattern = when.match
        starts = pattern.startswith(("^", _ANCHOR))
        ends = pattern.endswith(("$", _WORD_END))
        if starts and ends:
            return None
        head = "" if starts else _ANCHOR
        tail = "" if ends else _WORD_END
        candidate = Trigger("shell", match=f"{head}(?:{pattern}){tail}")
    elif when.tool == "read" and when.path:
        candidate = Trigger("edit", path=when.path)
    if candidate is None:
        return None
    try:
        return parse_when(candidate)
    except TriggerError:
        return None


# -- pinned but contradicted; resting too long ------------------------------------------------


def _pinned_contradicted(
    memories: Sequence[Memory], events: dict[str, list[Event]]
) -> list[Proposal]:
    out: list[Proposal] = []
    for m in memories:
        mine = events.get(m.ref, [])
        n = strikes(mine)
        if not m.pinned or n < STRIKES:
            continue
        last = [e for e in mine if e.event in CONTRADICTING][-1]
        out.append(
            _proposal(
                "pinned-contradicted",
                "unpin",
                (m.ref,),
                f"pinned, yet contradicted {n} times with no confirmation since "
                f"(last: {last.event} at {last.at[:10]}); unpin it so the evidence counts",
                (m.text,),
                {"strikes": n, "last": last.eid},
                detail={"strikes": n, "last": {"event": last.event, "at": last.at}},
            )
        )
    return out


def _resting(
    memories: Sequence[Memory], events: dict[str, list[Event]], now: datetime
) -> list[Proposal]:
    out: list[Proposal] = []
    now_us = micros(now)  # once, not once per memory: tidy reads every memory
    after_us = RETIRE_AFTER // timedelta(microseconds=1)
    for m in memories:
        if m.when is not None or m.action_names():
            continue  # still fires while resting (see the module docstring)
        idle_us = now_us - stamp_micros(m.last_touched or m.written)
        if idle_us < after_us:
            continue
        state = state_of(m, events.get(m.ref, []), now_us)
        if state.status != "resting":
            continue
        out.append(
            _proposal(
                "retire",
                "retire",
                (m.ref,),
                f"resting: not cited or restated for {idle_us // DAY_US} days; retire it",
                (m.text,),
                {"last_touched": m.last_touched},
                detail={"last_touched": m.last_touched},
            )
        )
    return out
