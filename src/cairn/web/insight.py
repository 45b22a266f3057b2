"""Lessons (with "what would this call get"), stats as server-rendered SVG, and progress."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cairn.core.errors import CairnError
from cairn.core.models import Memory
from cairn.io.store.protocol import Store
from cairn.usecases.brief import progress_summary
from cairn.usecases.calls import Call, trigger_memories
from cairn.usecases.stats import LESSON_CHANNELS, stats
from cairn.web.pages import site_of

CALL_KINDS = ("shell", "read", "edit")
LESSONS_PAGE = 100  # lessons and rules listed per page
MAX_CALL = 2000  # characters of a command or path tried in the box


async def lessons_page(request: Request) -> Response:
    """GET /lessons: every lesson and action rule, and the "what would this call get" box.

    Nothing is recorded: it is `cairn lessons test` (`lessons_for(record=False, gates=True)`).
    """
    site = site_of(request)
    cairn = site.cairn
    project = cairn.ctx.project
    page = _page(request)
    found = cairn.store.list_memories(
        project=project, triggered=True, limit=LESSONS_PAGE + 1, offset=(page - 1) * LESSONS_PAGE
    )
    lessons, more = found[:LESSONS_PAGE], len(found) > LESSONS_PAGE
    fires = cairn.store.fires_by_agent([m.ref for m in lessons], LESSON_CHANNELS)
    kind = request.query_params.get("call", "shell")
    kind = kind if kind in CALL_KINDS else "shell"
    given = request.query_params.get("value", "")[:MAX_CALL]
    decision, error, others = None, "", []
    if given.strip():
        call = (
            Call("shell", command=given) if kind == "shell" else Call(kind, paths=(given.strip(),))
        )
        try:
            decision = cairn.lessons_for(call, record=False, gates=True)
        except CairnError as exc:
            error = str(exc)
        if decision is not None:
            matched = {f.memory.ref for f in decision.matched}
            every = triggered(cairn.store, project)
            others = [_why_not(m, kind, decision.actions) for m in every if m.ref not in matched]
    return site.render(
        request,
        "lessons.html",
        lessons=lessons,
        page=page,
        more=more,
        fires=fires,
        call=kind,
        value=given,
        decision=decision,
        others=others,
        call_kinds=CALL_KINDS,
        error=error,
    )


def triggered(store: Store, project: str) -> list[Memory]:
    """`store.list_memories(project=project, triggered=True)` (lessons and action rules visible
    from `project`, newest first) as of the store's trigger generation, without a query: read
    once per generation (`cairn.usecases.calls.trigger_memories`). Only the trigger columns are to
    be
    trusted (ref, project, scope, kind, tags, when): what `_why_not` reads."""
    out = [
        m
        for m in reversed(trigger_memories(store))  # they come oldest first (by row id)
        if (m.project == project or m.scope == "workspace")
        and (m.when is not None or any(t.startswith("trigger:") for t in m.tags))
    ]
    out.sort(key=lambda m: m.written, reverse=True)  # stable: a tie keeps the newer row first
    return out


def _page(request: Request) -> int:
    try:
        return max(1, min(int(request.query_params.get("page", "1")), 10_000))
    except ValueError:
        return 1


def _why_not(memory: Memory, kind: str, actions: Sequence[str]) -> tuple[str, str]:
    """(ref, why) a lesson or rule would not ride along on this call: a pair, which the
    template unpacks without Jinja's attribute lookups (hundreds of rows on a big store)."""
    if memory.when is not None:
        if memory.when.tool != kind:
            why = f"its trigger is for {memory.when.tool} calls, this is a {kind} call"
        else:
            name = "regex" if kind == "shell" else "glob"
            why = f"its {name} {memory.when.pattern!r} does not match"
    else:
        wanted = [t.removeprefix("trigger:") for t in memory.tags if t.startswith("trigger:")]
        said = ", ".join(actions) or "no action"
        why = f"it is a rule for {', '.join(wanted)}; this call is {said}"
    return memory.ref, why


# -- stats --------------------------------------------------------------------------------
def bars(rows: Sequence[tuple[str, float]], unit: str = "", width: int = 360) -> Markup:
    """A horizontal bar chart as inline SVG: one labelled bar per row, scaled to the largest."""
    if not rows:
        return Markup("")
    top = max(v for _, v in rows) or 1.0
    line, label_w = 24, 110
    height = line * len(rows) + 4
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" '
        f'width="100%" preserveAspectRatio="xMinYMin meet">'
    ]
    for i, (name, value) in enumerate(rows):
        y = i * line + 2
        w = (width - label_w - 70) * (value / top)
        shown = (
            f"{value:.1f}"
            if isinstance(value, float) and not value.is_integer()
            else (f"{value:.0f}")
        )
        parts.append(
            f'<text x="0" y="{y + 15}" class="label">{escape(name[:16])}</text>'
            f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{line - 8}" rx="2"/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 15}" class="value">'
            f"{escape(shown)}{escape(unit)}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def columns(points: Sequence[tuple[str, int]], width: int = 360, height: int = 90) -> Markup:
    """A column chart as inline SVG (new memories per week)."""
    if not points:
        return Markup("")
    top = max(n for _, n in points) or 1
    step = width / len(points)
    parts = [f'<svg class="chart" role="img" viewBox="0 0 {width} {height + 16}" width="100%">']
    for i, (week, n) in enumerate(points):
        h = (height - 4) * n / top
        parts.append(
            f'<rect x="{i * step + 1:.1f}" y="{height - h:.1f}" width="{max(step - 2, 1):.1f}" '
            f'height="{h:.1f}"><title>{escape(week)}: {n}</title></rect>'
        )
    parts.append(
        f'<text x="0" y="{height + 14}" class="label">{escape(points[0][0])}</text>'
        f'<text x="{width}" y="{height + 14}" class="label" text-anchor="end">'
        f"{escape(points[-1][0])}</text></svg>"
    )
    return Markup("".join(parts))


async def stats_page(request: Request) -> Response:
    """GET /stats: what was offered and used, hit rates, hook latency per agent (as SVG)."""
    site = site_of(request)
    since = request.query_params.get("since") or None
    error = ""
    try:
        result = stats(site.cairn, since)
    except CairnError as exc:
        error, result = str(exc), stats(site.cairn)
    offered: dict[str, int] = defaultdict(int)
    for m in result.memories:
        for channel, n in m.offered.items():
            if channel != "total":
                offered[channel] += n
    top = result.memories[:15]
    charts = {
        "offered": bars(sorted(offered.items(), key=lambda x: -x[1])),
        "hits": bars([(m.ref, round((m.hit_rate or 0) * 100, 1)) for m in top], "%"),
        "latency": bars(
            [(a.agent, a.p95_ms) for a in result.agents if a.p95_ms is not None], " ms"
        ),
        "fires": bars([(a.agent, a.fires) for a in result.agents]),
        "growth": columns(result.store.growth),
    }
    cited = sum(m.cited for m in result.memories)
    return site.render(
        request,
        "stats.html",
        s=result,
        charts=charts,
        offered_total=sum(offered.values()),
        cited_total=cited,
        error=error,
    )


async def progress_page(request: Request) -> Response:
    """GET /progress: each branch's goal and the steps logged with `log_mission_progress`."""
    site = site_of(request)
    records = site.cairn.store.progress(site.cairn.ctx.project, limit=500)
    by_branch: dict[str, list[Any]] = defaultdict(list)
    for r in records:
        by_branch[r.branch].append(r)
    branches = [
        {"name": name, "summary": progress_summary(rows), "steps": list(reversed(rows))}
        for name, rows in sorted(by_branch.items())
    ]
    return site.render(request, "progress.html", branches=branches)


ROUTES = [
    Route("/lessons", lessons_page),
    Route("/stats", stats_page),
    Route("/progress", progress_page),
]
