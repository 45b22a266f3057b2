"""Review (acts with Undo, inbox), lessons with "what would this call get", stats, progress."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cairn.api import Cairn
from cairn.web.insight import triggered
from tests.conftest import Clock
from tests.web.conftest import App


def _seen(ws: Cairn, ref: str) -> dict[str, Any]:
    view: dict[str, Any] = ws.get_memory(ref)["memories"][0]
    view.pop("revision")
    return view


def _branch_work(open_ws: Callable[..., Cairn]) -> tuple[Cairn, str]:
    agent = open_ws(branch="feature/refunds", session="s-refunds", tool="claude-code")
    ref = agent.remember("Refunds are retried three times").ref
    agent.cite([ref])
    return agent, ref


def test_review_shows_branches_sessions_and_what_they_cited(
    app: App, open_ws: Callable[..., Cairn]
) -> None:
    _, ref = _branch_work(open_ws)
    page = app.client.get("/review").text
    assert "feature/refunds" in page and "s-refunds" in page and ref in page


def test_a_merge_in_review_then_undo(app: App, open_ws: Callable[..., Cairn]) -> None:
    _, ref = _branch_work(open_ws)
    was = _seen(app.ws, ref)
    page = app.post("/review/merge", {"branch": "feature/refunds"})
    assert page.status_code == 200 and "merge of feature/refunds (1 memories)" in page.text
    after = _seen(app.ws, ref)
    assert after["evidence"]["acts"][0]["act"] == "merge"
    assert after["evidence"]["confirmed"]["count"] == 1
    app.client.post(app.undo_of(page.text), data={"csrf": app.keys.csrf})
    assert _seen(app.ws, ref) == was


def test_a_review_act_leaves_the_records_of_cairn_review(
    app: App, open_ws: Callable[..., Cairn]
) -> None:
    from cairn.usecases.codeacts import list_acts

    _branch_work(open_ws)
    app.post("/review/discard", {"branch": "feature/refunds"})
    act = list_acts(app.ws.store, app.ws.ctx, 1)[0]
    assert (act.act, act.branch, act.source, act.detail) == (
        "discard",
        "feature/refunds",
        "review",
        {"by": "user"},
    )


def test_an_act_is_taken_back_from_the_card_timeline(
    app: App, open_ws: Callable[..., Cairn]
) -> None:
    _, ref = _branch_work(open_ws)
    app.post("/review/revert", {"branch": "feature/refunds"})
    card = app.client.get(f"/m/{ref}").text
    assert "Undo revert" in card
    aid = app.ws.get_memory(ref)["memories"][0]["evidence"]["acts"][0]["id"]
    got = app.post(f"/review/undo/{aid}", {"back": f"/m/{ref}"})
    assert got.status_code == 200 and "taken back" in got.text
    assert "acts" not in app.ws.get_memory(ref)["memories"][0]["evidence"]
    assert app.post(f"/review/undo/{aid}").status_code == 400  # already taken back
    assert app.post("/review/undo/a-nothing").status_code == 400


def test_review_refuses_a_branch_with_no_session_and_an_unknown_act(app: App) -> None:
    got = app.post("/review/merge", {"branch": "nowhere"})
    assert got.status_code == 400 and "no session was recorded" in got.text
    assert app.post("/review/explode", {"branch": "nowhere"}).status_code == 400


def test_the_inbox_lists_new_contradicted_out_and_resting(app: App, clock: Clock) -> None:
    sleepy = app.ws.remember("The staging box is called lark").ref
    app.post("/review/seen")
    clock.advance(days=40)
    fresh = app.ws.remember("Refunds are retried three times").ref
    doubted = app.ws.remember("Invoices are sent on Mondays").ref
    app.ws.using(tool="user", session="a").contradict(doubted)
    page = app.client.get("/review").text
    inbox = page[page.index('id="inbox-h"') :]
    new = inbox[inbox.index("New since") : inbox.index("Contradicted")]
    assert fresh in new and sleepy not in new
    contradicted = inbox[inbox.index("Contradicted") : inbox.index(">Out")]
    assert doubted in contradicted
    resting = inbox[inbox.index("Resting") : inbox.index("Citation changed")]
    assert sleepy in resting and fresh not in resting


def test_lessons_lists_every_lesson_and_rule(app: App) -> None:
    lesson = app.ws.remember(
        "Run make check before a push", when={"tool": "shell", "match": "git push"}
    ).ref
    rule = app.ws.remember("Commit messages are one line", tags=["trigger:git-commit"]).ref
    page = app.client.get("/lessons").text
    assert lesson in page and rule in page and "shell: git push" in page


def test_what_would_this_call_get(app: App) -> None:
    lesson = app.ws.remember(
        "Run make check before a push", when={"tool": "shell", "match": "git push"}
    ).ref
    rule = app.ws.remember("Commit messages are one line", tags=["trigger:git-commit"]).ref
    reader = app.ws.remember("The ledger is generated", when={"tool": "read", "path": "gen/**"}).ref
    page = app.client.get("/lessons?call=shell&value=git+push+origin+main").text
    answer = page[page.index('id="answer"') :]
    assert "git-push" in answer  # the action parsed
    assert lesson in answer[: answer.index("Why the others")]
    others = answer[answer.index("Why the others") :]
    assert rule in others and "a rule for git-commit" in others
    assert reader in others and "for read calls" in others
    assert app.ws.store.fires_by_agent([lesson], ("lesson",)) == {}  # nothing recorded


def test_stats_draws_svg_charts_on_the_server(app: App) -> None:
    ref = app.ws.remember("Refunds are retried three times").ref
    app.ws.store.record_offers("s1", [ref], "recall", "claude-code", app.ws.ctx.now())
    app.ws.cite([ref])
    page = app.client.get("/stats").text
    assert page.count("<svg") >= 2 and "<rect" in page and "recall" in page
    assert "<script" not in page.split("</head>")[1]  # no chart library in the browser
    assert app.client.get("/stats?since=nonsense").status_code == 200


def test_progress_shows_goals_and_steps(app: App, open_ws: Callable[..., Cairn]) -> None:
    agent = open_ws(branch="feature/refunds", session="s-p")
    agent.log_mission_progress("Ship refunds v2", "Write the retry loop", "done")
    agent.log_mission_progress("Ship refunds v2", "Add the ledger entry", "in_progress")
    page = app.client.get("/progress").text
    assert "Ship refunds v2" in page and "feature/refunds" in page
    done = page[page.index(">Done") :]
    assert "Write the retry loop" in done


def test_lessons_page_by_a_hundred_and_the_preview_explains_them_all(app: App) -> None:
    app.ws.remember_many(
        [
            {
                "text": f"Lesson {i} on reading the ledger",
                "when": {"tool": "read", "path": f"l{i}/*"},
            }
            for i in range(105)
        ]
    )
    first = app.client.get("/lessons").text
    assert first.count("<tr><td>") == 100 and "page=2" in first
    assert app.client.get("/lessons?page=2").text.count("<tr><td>") == 5
    preview = app.client.get("/lessons?call=shell&value=ls").text
    assert "Why the others would not (105)" in preview


def test_stats_draws_no_latency_for_an_agent_without_hook_calls(app: App) -> None:
    ref = app.ws.remember("Refunds are retried three times").ref
    app.ws.store.record_offers("s1", [ref], "lesson", "codex", app.ws.ctx.now())
    page = app.client.get("/stats").text
    latency = page[page.index("Hook latency") : page.index("Lessons fired")]
    assert "no hook calls logged" in latency and "codex" not in latency


def test_the_others_listed_by_the_preview_are_the_stores_lessons_and_rules(
    app: App, open_ws: Callable[..., Cairn], tmp_path: Path, clock: Clock
) -> None:
    ws = app.ws
    project = ws.ctx.project
    (Path(project) / "a.py").write_text("x = 1\n")
    made = [
        ws.remember("Shell lesson", when={"tool": "shell", "match": "git push"}).ref,
        ws.remember("Read lesson", when={"tool": "read", "path": "gen/**"}).ref,
        ws.remember("A rule", kind="rule", tags=["trigger:git-commit"]).ref,
        ws.remember("Everywhere", when={"tool": "shell", "match": "make"}, scope="workspace").ref,
        ws.remember("Cites a file", kind="lesson", source_ref="a.py:1").ref,
        ws.remember("A plain fact").ref,
    ]
    clock.advance(seconds=1)
    gone = ws.remember("Forgotten", when={"tool": "shell", "match": "rm"}).ref
    ws.forget(gone)
    old = ws.remember("Old trigger", when={"tool": "shell", "match": "ls"}).ref
    new = ws.correct(old, "New trigger", when={"tool": "shell", "match": "ls -la"}).ref
    elsewhere = open_ws(project=tmp_path / "other", cwd=tmp_path / "other")
    hidden = elsewhere.remember("Other project", when={"tool": "shell", "match": "x"}).ref

    def refs() -> list[str]:
        return [m.ref for m in triggered(ws.store, project)]

    listed = [m.ref for m in ws.store.list_memories(project=project, triggered=True)]
    assert refs() == listed  # the same lessons, newest first (ties by row, newest first)
    assert new in listed and made[0] in listed and made[3] in listed
    assert gone not in listed and old not in listed and hidden not in listed
    assert made[4] not in listed and made[5] not in listed
    clock.advance(seconds=1)
    later = ws.remember("Later", tags=["trigger:git-push"]).ref  # the generation moves
    assert refs()[0] == later
    assert refs() == [m.ref for m in ws.store.list_memories(project=project, triggered=True)]
