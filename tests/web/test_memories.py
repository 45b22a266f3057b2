"""The list, the card, every action with its Undo, and their refusals (stale, unknown ref)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cairn.api import Cairn
from cairn.cli import cli
from tests.conftest import Clock
from tests.web.conftest import App


def _seen(ws: Cairn, ref: str) -> dict[str, Any]:
    view: dict[str, Any] = ws.get_memory(ref)["memories"][0]
    view.pop("revision")
    return view


def test_the_list_shows_memories_newest_first_with_their_standing(app: App) -> None:
    app.ws.remember("Refunds are retried three times", tags=["payments"])
    app.ws.remember("We deploy with Render")
    page = app.client.get("/").text
    assert page.index("We deploy with Render") < page.index("Refunds are retried")
    assert 'class="badge s-active"' in page


def test_the_list_filters_by_kind_tag_status_and_cited_file(app: App, project: Path) -> None:
    (project / "app.py").write_text("x = 1\n")
    app.ws.remember("Refunds are retried three times", tags=["payments"])
    app.ws.remember("Use pnpm, not npm", kind="preference")
    app.ws.remember("The entry point is app.py", source_ref="app.py")
    gone = app.ws.remember("An old fact we dropped").ref
    app.ws.forget(gone)
    assert "Refunds" in app.client.get("/?tag=payments").text
    assert "pnpm" not in app.client.get("/?tag=payments").text
    assert "pnpm" in app.client.get("/?kind=preference").text
    assert "Refunds" not in app.client.get("/?kind=preference").text
    assert "entry point" in app.client.get("/?cited=app.py").text
    assert "Refunds" not in app.client.get("/?cited=app.py").text
    retired = app.client.get("/?status=retired").text
    assert "An old fact" in retired and "Refunds" not in retired
    assert "An old fact" not in app.client.get("/").text


def test_the_list_finds_resting_and_out_memories(app: App, clock: Clock) -> None:
    sleepy = app.ws.remember("The staging box is called lark").ref
    clock.advance(days=40)
    doubted = app.ws.remember("Refunds are retried three times").ref
    for session in ("a", "b"):
        app.ws.using(tool="user", session=session).contradict(doubted)
    assert sleepy in app.client.get("/?status=resting").text
    out = app.client.get("/?status=out").text
    assert doubted in out and sleepy not in out


def test_the_list_pages_by_fifty(app: App) -> None:
    app.ws.remember_many([{"text": f"Fact number {i} about the ledger"} for i in range(60)])
    first = app.client.get("/").text
    assert first.count('name="ref"') == 50 and "page=2" in first
    second = app.client.get("/?page=2").text
    assert second.count('name="ref"') == 10 and "page=3" not in second


def test_search_is_recall_with_weak_and_citation_status(app: App, project: Path) -> None:
    (project / "app.py").write_text("def pay():\n    return 1\n")
    ref = app.ws.remember("Payments retry three times", source_ref="app.py:1-2").ref
    (project / "app.py").write_text("def pay():\n    return 2\n")
    page = app.client.get("/?q=payments+retry").text
    assert ref in page and "citation changed" in page
    assert app.client.get("/?q=payments&tag=nothing").text.count(ref) == 0


def test_search_refusal_is_shown(app: App) -> None:
    got = app.client.get("/?q=x&kind=nonsense")
    assert got.status_code == 400 and 'role="alert"' in got.text


def test_the_card_shows_fields_cited_lines_timeline_and_history(app: App, project: Path) -> None:
    (project / "app.py").write_text("def pay():\n    return retry(3)\n\ndef refund():\n    pass\n")
    old = app.ws.remember(
        "Payments retry three times", source_ref="app.py:1-2", reason="finance asked", tags=["pay"]
    ).ref
    ref = app.ws.correct(old, "Payments retry five times").ref
    app.ws.cite([ref])
    page = app.client.get(f"/m/{ref}").text
    assert "Payments retry five times" in page and "finance asked" in page
    assert "return retry(3)" in page and "def refund" not in page  # the cited lines only
    assert "cited" in page and "claude-code" in page  # the timeline: event and tool
    assert "<del>three</del>" in page and "<ins>five</ins>" in page


def test_an_unknown_ref_is_a_404(app: App) -> None:
    assert app.client.get("/m/m-000000").status_code == 404
    assert app.post("/m/m-000000/pin").status_code == 404
    assert app.client.get("/m/" + "x" * 500).status_code == 404


def test_an_unknown_action_is_refused(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    assert app.post(f"/m/{ref}/explode").status_code == 404


ACTIONS = ["confirm", "contradict", "pin", "forget"]


@pytest.mark.parametrize("name", ACTIONS)
def test_each_action_then_undo_restores_the_memory_exactly(
    app: App, clock: Clock, name: str
) -> None:
    ref = app.ws.remember("We deploy with Render", tags=["ops"]).ref
    clock.advance(days=2)
    was = _seen(app.ws, ref)
    page = app.post(f"/m/{ref}/{name}")
    assert page.status_code == 200 and _seen(app.ws, ref) != was
    clock.advance(minutes=1)
    undone = app.client.post(app.undo_of(page.text), data={"csrf": app.keys.csrf})
    assert undone.status_code == 200 and "undone" in undone.text
    assert _seen(app.ws, ref) == was
    assert "/undo/" not in undone.text  # the toast is gone once the undo succeeded


@pytest.mark.parametrize(("first", "then"), [("pin", "unpin"), ("forget", "restore")])
def test_the_inverse_actions_undo_too(app: App, first: str, then: str) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    app.post(f"/m/{ref}/{first}")
    was = _seen(app.ws, ref)
    page = app.post(f"/m/{ref}/{then}")
    app.client.post(app.undo_of(page.text), data={"csrf": app.keys.csrf})
    assert _seen(app.ws, ref) == was


def test_edit_then_undo_restores_the_old_version(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    was = _seen(app.ws, ref)
    revision = app.ws.store.get_memory(ref).revision
    page = app.post(f"/m/{ref}/edit", {"text": "We deploy with Fly", "revision": str(revision)})
    assert page.status_code == 200 and "We deploy with Fly" in page.text
    new = app.ws.store.get_memory(ref).replaced_by
    assert new and f"/m/{new}" in str(page.url)
    app.client.post(app.undo_of(page.text), data={"csrf": app.keys.csrf})
    assert _seen(app.ws, ref) == was
    assert [m.ref for m in app.ws.list()] == [ref]


def test_a_stale_edit_is_refused_with_a_reload(app: App, home: Path, project: Path) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    revision = app.ws.store.get_memory(ref).revision
    card = app.client.get(f"/m/{ref}").text
    assert f'name="revision" value="{revision}"' in card
    # the CLI corrects it in between
    CliRunner().invoke(
        cli,
        ["--project", str(project), "correct", ref, "We deploy with Heroku"],
        catch_exceptions=False,
    )
    got = app.post(f"/m/{ref}/edit", {"text": "We deploy with Fly", "revision": str(revision)})
    assert got.status_code == 409 and "changed since you read it" in got.text
    assert f'href="/m/{ref}"' in got.text  # the way back reloads the card
    assert [m.text for m in app.ws.list()] == ["We deploy with Heroku"]


def test_an_undo_refused_keeps_its_toast(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    page = app.post(f"/m/{ref}/pin")
    undo = app.undo_of(page.text)
    app.ws.forget(ref)  # changed since, by someone else
    got = app.client.post(undo, data={"csrf": app.keys.csrf})
    assert got.status_code == 409 and "undo was refused" in got.text
    assert app.ws.store.get_memory(ref).pinned  # nothing was written
    app.ws.restore(ref)
    assert app.client.post(undo, data={"csrf": app.keys.csrf}).status_code == 409
    assert app.client.post("/undo/nothing", data={"csrf": app.keys.csrf}).status_code == 400


def test_an_action_that_changes_nothing_offers_no_undo(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    first = app.undo_of(app.post(f"/m/{ref}/pin").text)
    again = app.post(f"/m/{ref}/pin")
    assert "nothing changed" in again.text
    assert app.undo_of(again.text) == first  # the first pin's toast stays; no new undo


def test_the_app_confirm_leaves_the_records_the_cli_confirm_leaves(app: App, project: Path) -> None:
    a = app.ws.remember("We deploy with Render").ref
    b = app.ws.remember("Refunds are retried three times").ref
    app.post(f"/m/{a}/confirm")
    CliRunner().invoke(cli, ["--project", str(project), "confirm", b], catch_exceptions=False)
    by_app, by_cli = (app.ws.store.events_for([r])[-1] for r in (a, b))
    assert (by_app.event, by_app.tool, by_app.session) == (
        by_cli.event,
        by_cli.tool,
        by_cli.session,
    )
    assert _seen(app.ws, a)["evidence"] == _seen(app.ws, b)["evidence"]


def test_bulk_forget_then_undo(app: App) -> None:
    refs = [app.ws.remember(f"Fact {w} about payments").ref for w in ("one", "two", "three")]
    was = [_seen(app.ws, r) for r in refs]
    page = app.client.post(
        "/bulk",
        data={"csrf": app.keys.csrf, "action": "forget", "ref": refs[:2], "back": "/"},
    )
    assert page.status_code == 200 and "forgot 2 memories" in page.text
    assert [app.ws.store.get_memory(r).status for r in refs] == ["retired", "retired", "active"]
    app.client.post(app.undo_of(page.text), data={"csrf": app.keys.csrf})
    assert [_seen(app.ws, r) for r in refs] == was


def test_bulk_refuses_an_unknown_action_or_nothing_selected(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    assert app.post("/bulk", {"action": "explode", "ref": ref}).status_code == 400
    assert app.post("/bulk", {"action": "forget"}).status_code == 400
    assert app.post("/bulk", {"action": "pin", "ref": "m-000000"}).status_code == 404


def test_a_confirmation_is_taken_back_from_the_timeline(app: App, project: Path) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    app.ws.cite([ref])
    CliRunner().invoke(cli, ["--project", str(project), "confirm", ref], catch_exceptions=False)
    card = app.client.get(f"/m/{ref}").text
    assert card.count("Undo confirmed") == 1 and "Undo cited" not in card
    confirmed = next(e for e in app.ws.store.events_for([ref]) if e.event == "confirmed")
    cited = next(e for e in app.ws.store.events_for([ref]) if e.event == "cited")
    got = app.post(f"/m/{ref}/events/{confirmed.eid}/take-back")
    assert got.status_code == 200 and "no longer counts" in got.text
    assert _seen(app.ws, ref)["evidence"]["confirmed"]["count"] == 0
    assert app.post(f"/m/{ref}/events/{confirmed.eid}/take-back").status_code == 400
    assert app.post(f"/m/{ref}/events/{cited.eid}/take-back").status_code == 400  # a citation
    assert app.post(f"/m/{ref}/events/e-nothing/take-back").status_code == 400
    assert _seen(app.ws, ref)["cited"]["count"] == 1


def test_the_toast_stays_on_every_page_until_undone_or_dismissed(app: App) -> None:
    ref = app.ws.remember("We deploy with Render").ref
    page = app.post(f"/m/{ref}/forget")
    undo = app.undo_of(page.text)
    for path in ("/", "/review", "/stats"):
        assert undo in app.client.get(path).text
    app.post(f"{undo}/dismiss", {"back": "/"})
    assert "/undo/" not in app.client.get("/").text
    card = app.client.get(f"{page.url.path}?undo={undo.rsplit('/', 1)[1]}").text
    assert undo in card  # still reachable from its own link
    app.client.post(undo, data={"csrf": app.keys.csrf})
    assert app.ws.store.get_memory(ref).status == "active"
    assert "/undo/" not in app.client.get(f"/m/{ref}").text
