"""The app in a real browser: Playwright for Python driving Debian's headless Chromium.

The server is the real `cairn serve` in a subprocess; the store is seeded through the library.
Few tests, each bounded (every wait at most TIMEOUT ms). Without Chromium they are skipped,
and `make test` says so loudly (scripts/need-chromium.sh).

`CAIRN_SCREENSHOTS=folder` makes the screenshot test write its PNGs there (`make
screenshots` writes docs/screenshots/, linked from docs/app.md); otherwise into tmp.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cairn.api import Cairn
from cairn.cli import cli
from tests.web.test_serve import WAIT, _line

CHROMIUM = os.environ.get("CAIRN_CHROMIUM", "/usr/bin/chromium")
TIMEOUT = 10_000  # ms, for every wait of a page
sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason=f"BROWSER TESTS SKIPPED: no Chromium at {CHROMIUM} (apt-get install chromium)",
    ),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        launched = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        yield launched
        launched.close()


class Served:
    """A `cairn serve` process over the test's store, and the URL it printed."""

    def __init__(self, home: Path, project: Path) -> None:
        self.project = project
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from cairn.cli import main; main()", "serve"],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "CAIRN_HOME": str(home), "PYTHONUNBUFFERED": "1"},
        )
        self.url = _line(self.proc, "open ").removeprefix("open ")
        self.base = self.url.split("/?", 1)[0]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.communicate(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.communicate()


def seed(ws: Cairn, project: Path) -> dict[str, str]:
    """A store with something on every page: citations, evidence, a branch, progress."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(project)], check=True)
    (project / "refunds.py").write_text(
        "MAX_RETRIES = 3\n\n\ndef retry_refund(refund):\n"
        "    for attempt in range(MAX_RETRIES):\n        if refund.send():\n"
        "            return True\n    return False\n"
    )
    refs = {
        "retries": ws.remember(
            "Refund retries stop after MAX_RETRIES attempts",
            source_ref="refunds.py:4-8",
            tags=["payments"],
            reason="the loop in retry_refund",
        ).ref,
        "deploy": ws.remember("We deploy with Render from main", kind="decision").ref,
        "pnpm": ws.remember("Use pnpm, never npm", kind="preference", tags=["tooling"]).ref,
        "push": ws.remember(
            "Before a push, run make check", when={"tool": "shell", "match": "git push"}
        ).ref,
        "commit": ws.remember("Commit messages are one line", tags=["trigger:git-commit"]).ref,
    }
    for i, fact in enumerate(
        (
            "The staging database is reset every Sunday night",
            "Currency amounts are integers in minor units",
            "The ledger is append-only; corrections are new entries",
            "Feature flags live in config/flags.yaml",
        )
    ):
        refs[f"fact{i}"] = ws.remember(fact, tags=["payments"]).ref
    agent = ws.using(tool="claude-code", session="s-refunds", branch="feature/refunds")
    agent.cite([refs["retries"], refs["deploy"]])
    agent.log_mission_progress("Ship refunds v2", "Retry failed refunds", "done")
    agent.log_mission_progress("Ship refunds v2", "Post refunds to the ledger", "in_progress")
    ws.using(tool="user").confirm(refs["deploy"])
    ws.store.record_offers("s-refunds", [refs["retries"]], "recall", "claude-code", ws.ctx.now())
    ws.store.record_offers("s-refunds", [refs["push"]], "lesson", "claude-code", ws.ctx.now())
    ws.store.record_offers("s-codex", [refs["push"]], "lesson", "codex", ws.ctx.now())
    with open(ws.home / "hook-timing.log", "a", encoding="utf-8") as log:  # what the hook logs
        for i, (agent, ms) in enumerate(
            [("claude-code", 31.5), ("claude-code", 44.0), ("codex", 58.2)]
        ):
            log.write(f"{1793534400 + i:.3f}\t{agent}\tPreToolUse\t{ms:.2f}\t1\tprefilter\n")
    ws.using(tool="user", session="r1").contradict(refs["fact2"])
    refs["flags"] = ws.correct(refs["fact3"], "Feature flags live in config/flags.toml").ref
    # the cited code moves on: the citation reads "changed"
    text = (project / "refunds.py").read_text().replace("= 3", "= 5")
    (project / "refunds.py").write_text(
        text.replace("range(MAX_RETRIES)", "range(MAX_RETRIES + 1)")
    )
    return refs


@pytest.fixture
def served(ws: Cairn, home: Path, project: Path) -> Iterator[tuple[Served, dict[str, str]]]:
    refs = seed(ws, project)
    server = Served(home, project)
    try:
        yield server, refs
    finally:
        server.stop()


@pytest.fixture
def page(browser: Any, served: tuple[Served, dict[str, str]]) -> Iterator[Any]:
    server, _ = served
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT)
    opened.goto(server.url)  # the one-time token becomes the cookie
    yield opened
    context.close()


def _count(ws: Cairn, ref: str, name: str) -> int:
    count: int = ws.get_memory(ref)["memories"][0]["evidence"][name]["count"]
    return count


def test_search_and_filter(page: Any, served: tuple[Served, dict[str, str]]) -> None:
    _, refs = served
    expect = sync_api.expect
    page.fill("#q", "refund retries")  # htmx searches as you type
    expect(page.locator(".results")).to_contain_text(refs["retries"])
    assert "?q=refund" in page.url  # the search is in the URL (back button, reload)
    page.fill("#q", "")
    page.select_option("select[name=kind]", "preference")
    page.click("form.search button[type=submit]")
    expect(page.locator("table.memories")).to_contain_text("pnpm")
    expect(page.locator("table.memories")).not_to_contain_text("Render")


def test_open_a_card_confirm_then_undo(
    page: Any, served: tuple[Served, dict[str, str]], ws: Cairn
) -> None:
    _, refs = served
    expect = sync_api.expect
    ref = refs["fact0"]
    page.click(f"a[href='/m/{ref}']")
    expect(page.locator("h1.sentence")).to_have_text(
        "The staging database is reset every Sunday night"
    )
    page.click("button.confirm")
    expect(page.locator("#toast")).to_contain_text(f"confirmed {ref}")
    assert _count(ws, ref, "confirmed") == 1
    page.click("#toast button.undo")
    expect(page.locator(".notice")).to_contain_text("undone")
    expect(page.locator("#toast")).to_have_count(0)
    assert _count(ws, ref, "confirmed") == 0


def test_edit_with_a_conflicting_edit_from_the_cli(
    page: Any, served: tuple[Served, dict[str, str]], ws: Cairn, project: Path
) -> None:
    _, refs = served
    expect = sync_api.expect
    ref = refs["deploy"]
    server, _ = served
    page.goto(f"{server.base}/m/{ref}")
    page.click("details.edit summary")
    page.fill("#text", "We deploy with Fly from main")
    CliRunner().invoke(
        cli,
        ["--project", str(project), "correct", ref, "We deploy with Heroku from main"],
        catch_exceptions=False,
    )
    page.click("text=Save correction")
    expect(page.locator(".error")).to_contain_text("changed since you read it")
    page.click("text=Back (reload)")
    expect(page.locator(".notice")).to_contain_text("This version was replaced")
    assert [m.text for m in ws.list() if "deploy" in m.text] == ["We deploy with Heroku from main"]


def test_forget_with_undo_with_javascript_off(
    browser: Any, served: tuple[Served, dict[str, str]], ws: Cairn
) -> None:
    server, refs = served
    expect = sync_api.expect
    ref = refs["pnpm"]
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(server.url)  # plain forms and links: no htmx, no app.js
    page.goto(f"{server.base}/m/{ref}")
    page.click("button.forget")
    expect(page.locator("#toast")).to_contain_text(f"forgot {ref}")
    assert ws.store.get_memory(ref).status == "retired"
    expect(page.locator("button.restore")).to_be_visible()
    page.click("#toast button.undo")
    expect(page.locator("button.forget")).to_be_visible()
    assert ws.store.get_memory(ref).status == "active"
    context.close()


def test_a_merge_in_review_then_undo(
    page: Any, served: tuple[Served, dict[str, str]], ws: Cairn
) -> None:
    server, refs = served
    expect = sync_api.expect
    page.goto(f"{server.base}/review")
    expect(page.locator("article.branch")).to_contain_text("feature/refunds")
    page.locator("article.branch button.merge").first.click()
    expect(page.locator("#toast")).to_contain_text("merge of feature/refunds (2 memories)")
    assert _count(ws, refs["retries"], "confirmed") == 1
    page.click("#toast button.undo")
    expect(page.locator("#toast")).to_have_count(0)
    assert _count(ws, refs["retries"], "confirmed") == 0


def test_the_injection_preview(page: Any, served: tuple[Served, dict[str, str]]) -> None:
    server, refs = served
    expect = sync_api.expect
    page.goto(f"{server.base}/lessons")
    page.fill("#value", "git add -A && git push origin main")
    page.click("text=Try it")
    answer = page.locator("#answer")
    expect(answer).to_contain_text("git-push")
    expect(answer).to_contain_text(refs["push"])
    expect(answer).to_contain_text("fires")


def test_keyboard_only(page: Any, served: tuple[Served, dict[str, str]], ws: Cairn) -> None:
    _, refs = served
    expect = sync_api.expect
    ref = refs["fact1"]
    page.keyboard.press("/")
    expect(page.locator("#q")).to_be_focused()
    page.keyboard.type("currency minor units")
    expect(page.locator(".results")).to_contain_text(ref)
    link = page.locator(f".results a[href='/m/{ref}']")
    for _ in range(30):  # Tab until the result's link has the focus (bounded)
        page.keyboard.press("Tab")
        if link.evaluate("el => el === document.activeElement"):
            break
    expect(link).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("h1.sentence")).to_contain_text("minor units")
    pin = page.locator("button.pin")
    for _ in range(30):
        page.keyboard.press("Tab")
        if pin.evaluate("el => el === document.activeElement"):
            break
    page.keyboard.press("Enter")
    expect(page.locator("#toast")).to_contain_text(f"pinned {ref}")
    assert ws.store.get_memory(ref).pinned
    undo = page.locator("#toast button.undo")
    for _ in range(60):
        page.keyboard.press("Tab")
        if undo.evaluate("el => el === document.activeElement"):
            break
    page.keyboard.press("Enter")
    expect(page.locator("#toast")).to_have_count(0)
    assert not ws.store.get_memory(ref).pinned


WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


def test_screenshots_of_every_page(
    browser: Any, served: tuple[Served, dict[str, str]], tmp_path: Path
) -> None:
    server, refs = served
    folder = Path(os.environ.get("CAIRN_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    pages = {
        "list": "/",
        "search": "/?q=refund+retries",
        "card": f"/m/{refs['retries']}",
        "card-history": f"/m/{refs['flags']}",
        "review": "/review",
        "lessons": "/lessons?call=shell&value=git+push+origin+main",
        "stats": "/stats",
        "progress": "/progress",
    }
    written = []
    context = browser.new_context()
    shot = context.new_page()
    shot.set_default_timeout(TIMEOUT)
    shot.goto(server.url)  # the token works once: its cookie is handed to the dark context
    context_cookies = context.cookies()
    for width, (w, h) in WIDTHS.items():
        shot.set_viewport_size({"width": w, "height": h})
        for name, path in pages.items():
            shot.goto(server.base + path)
            target = folder / f"{name}-{width}.png"
            shot.screenshot(path=str(target), full_page=True)
            written.append(target)
    context.close()
    dark = browser.new_context(color_scheme="dark")
    dark.add_cookies(context_cookies)
    shot = dark.new_page()
    shot.set_default_timeout(TIMEOUT)
    for name in ("card", "stats"):
        shot.set_viewport_size({"width": WIDTHS["desktop"][0], "height": WIDTHS["desktop"][1]})
        shot.goto(server.base + pages[name])
        target = folder / f"{name}-desktop-dark.png"
        shot.screenshot(path=str(target), full_page=True)
        written.append(target)
    dark.close()
    for target in written:
        assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(written) == len(pages) * len(WIDTHS) + 2
