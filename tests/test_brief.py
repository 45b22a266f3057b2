"""The session brief: a capped index says how many more there are, progress names each step once."""

from __future__ import annotations

import re
from collections.abc import Callable

from cairn.api import Cairn
from cairn.usecases.brief import INDEX_LIMIT, session_brief
from cairn.usecases.progress import log_mission_progress


def test_a_capped_index_says_how_many_more_recall_finds(open_ws: Callable[..., Cairn]) -> None:
    ws = open_ws()
    total = INDEX_LIMIT + 15
    for i in range(total):
        ws.remember(f"The service number {i} listens on port {8000 + i} in staging")
    brief = session_brief(ws.store, ws.ctx)
    listed = re.findall(r"^- m-\w+ ", brief, re.M)
    said = re.search(r"^(\d+) more not listed here: use recall to find them\.$", brief, re.M)
    assert said is not None, brief
    assert len(listed) + int(said.group(1)) == total


def test_a_short_index_says_nothing_more(open_ws: Callable[..., Cairn]) -> None:
    ws = open_ws()
    ws.remember("The api listens on port 8080 in staging")
    assert "more not listed" not in session_brief(ws.store, ws.ctx)


def test_recent_progress_names_each_step_once_with_its_latest_status(
    open_ws: Callable[..., Cairn],
) -> None:
    ws = open_ws(branch="feat/login")
    goal = "Ship the login page"
    log_mission_progress(ws.store, ws.ctx, goal, "review the copy", "open")
    for status in ("open", "in_progress", "done"):
        log_mission_progress(ws.store, ws.ctx, goal, "write the form", status)
    brief = session_brief(ws.store, ws.ctx)
    [line] = [x for x in brief.splitlines() if x.startswith("Recent progress: ")]
    assert line == "Recent progress: review the copy (open); write the form (done)"
