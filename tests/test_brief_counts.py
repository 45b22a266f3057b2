"""The session brief's count and lists hold at any size, not only within the newest 500."""

from __future__ import annotations

from cairn.api import Cairn
from cairn.core.models import Event
from cairn.io.store import new_eid
from cairn.usecases.brief import session_brief


def _facts(n: int, start: int = 0) -> list[dict[str, str]]:
    return [{"text": f"Service s{k} listens on its own port p{k}"} for k in range(start, start + n)]


def test_the_brief_counts_every_listable_memory_past_the_newest_500(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    old_pinned = ws.remember("The release train leaves on Thursdays", pinned=True).ref
    ws.remember("The old staging cluster is called atlas")  # will rest: not counted
    clock.advance(days=40)
    done = ws.remember_many(_facts(600))
    ws.remember("Run the gate before a push", when={"tool": "shell", "match": "git push"})
    ws.remember("Squash before merging", tags=["trigger:git-commit"])
    out = done[7].ref
    for _ in range(2):
        ws.store.add_events([Event(new_eid(), out, "contradicted", "codex", "", ws.ctx.now())])

    brief = session_brief(ws.store, ws.ctx)

    # 600 fresh facts, one of them contradicted twice, and the pinned one (old, never rests).
    assert "(600 memories" in brief.splitlines()[0]
    assert old_pinned in brief
    assert out not in brief
    # "N more" counts past the rows the brief reads: 600 less what it listed, not 500 less.
    listed = sum(1 for line in brief.splitlines() if line.startswith("- m-"))
    assert f"{600 - listed} more not listed here: use recall to find them." in brief


def test_a_small_store_counts_what_it_lists(ws: Cairn) -> None:
    ws.remember_many(_facts(3))
    ws.remember("Run the gate before a push", when={"tool": "shell", "match": "git push"})
    brief = session_brief(ws.store, ws.ctx)
    assert "(3 memories" in brief.splitlines()[0]
    assert brief.count("Service s") == 3
