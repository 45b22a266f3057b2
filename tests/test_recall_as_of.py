"""`as_of` reads valid time: a version is believed from `written` until `until`, and a forget
ends it at the moment it happened instead of erasing it. A day is the end of that UTC day; a
moment keeps its zone (none means UTC)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

import cairn
from cairn.api import Cairn
from cairn.cli import cli
from cairn.usecases.recall import Recalled, believed_at
from tests import backends as sqlite_only


def refs(result: Recalled) -> list[str]:
    return [h.ref for h in result.hits]


# -- forget, restore, correct ----------------------------------------------------------
def test_a_forgotten_memory_is_still_what_was_believed_before_the_forget(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("Staging deploys go through the blue pool").ref
    clock.advance(days=10)
    forgotten = ws.forget(ref)

    assert forgotten.until == "2026-11-11T12:00:00.000000Z"
    past = ws.recall("staging deploys blue pool", as_of="2026-11-06")
    assert refs(past) == [ref]
    assert past.hits[0].until == "2026-11-11T12:00:00.000000Z"
    assert refs(ws.recall("staging deploys blue pool", as_of="2026-11-11")) == []
    assert refs(ws.recall("staging deploys blue pool")) == []
    view = ws.get_memory(ref)["memories"][0]
    assert (view["status"], view["until"]) == ("retired", "2026-11-11T12:00:00.000000Z")


def test_forgetting_twice_keeps_the_first_moment(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("Nightly jobs run at two").ref
    clock.advance(days=1)
    first = ws.forget(ref)
    clock.advance(days=1)
    assert ws.forget(ref).until == first.until == "2026-11-02T12:00:00.000000Z"


def test_restore_reopens_the_version_as_if_never_forgotten(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("Feature flags live in the flags service").ref
    clock.advance(days=10)
    ws.forget(ref)
    clock.advance(days=2)

    restored = ws.restore(ref)

    assert (restored.status, restored.until) == ("active", None)
    for day in ("2026-11-05", "2026-11-11", "2026-11-13"):
        result = ws.recall("feature flags service", as_of=day)
        assert refs(result) == [ref] and result.hits[0].until is None
    assert refs(ws.recall("feature flags service")) == [ref]


def test_a_correction_then_a_forget_each_end_a_version(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    v1 = ws.remember("Backups are kept for seven days").ref
    clock.advance(days=10)
    v2 = ws.correct(v1, "Backups are kept for thirty days").ref
    clock.advance(days=10)
    ws.forget(v2)

    early = ws.recall("backups kept days", as_of="2026-11-05")
    middle = ws.recall("backups kept days", as_of="2026-11-15")
    assert refs(early) == [v1] and early.hits[0].until == "2026-11-11T12:00:00.000000Z"
    assert refs(middle) == [v2] and middle.hits[0].until == "2026-11-21T12:00:00.000000Z"
    assert refs(ws.recall("backups kept days", as_of="2026-11-25")) == []
    with pytest.raises(cairn.UnknownRefError, match="replaced by"):
        ws.forget(v1)


# -- the moment asked about ------------------------------------------------------------
def test_a_day_is_the_end_of_that_utc_day() -> None:
    assert believed_at("2026-11-19") == "2026-11-19T23:59:59.999999Z"
    assert believed_at(" 2026-11-19 ") == "2026-11-19T23:59:59.999999Z"


@pytest.mark.parametrize(
    ("given", "moment"),
    [
        ("2026-11-19T23:00:00-05:00", "2026-11-20T04:00:00.000000Z"),
        ("2026-11-20T09:30:00+05:30", "2026-11-20T04:00:00.000000Z"),
        ("2026-11-20T04:00:00Z", "2026-11-20T04:00:00.000000Z"),
        ("2026-11-20T04:00:00", "2026-11-20T04:00:00.000000Z"),
        ("2026-11-20T04:00", "2026-11-20T04:00:00.000000Z"),
        ("2026-11-20 04:00:00.25+00:00", "2026-11-20T04:00:00.250000Z"),
    ],
)
def test_a_moment_keeps_its_zone_and_no_zone_means_utc(given: str, moment: str) -> None:
    assert believed_at(given) == moment


@pytest.mark.parametrize(
    "given",
    ["last week", "2026-02-30", "2026-11-19T25:00", "2026-W47", "20261119", "2026-11-19T", ""],
)
def test_anything_else_is_refused_with_the_forms_it_takes(given: str) -> None:
    with pytest.raises(cairn.QueryError, match=r"2026-08-01.*zone"):
        believed_at(given)


def test_as_of_honours_a_zone_given_with_the_moment(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    clock.advance(days=18, hours=14)  # 2026-11-20T02:00Z: still the 19th in New York
    ref = ws.remember("Invoices close at the end of the month").ref
    query = "invoices close month"

    assert refs(ws.recall(query, as_of="2026-11-19")) == []  # the UTC day ended before it
    assert refs(ws.recall(query, as_of="2026-11-19T23:00:00-05:00")) == [ref]  # 04:00Z
    assert refs(ws.recall(query, as_of="2026-11-19T20:00:00-05:00")) == []  # 01:00Z
    assert refs(ws.recall(query, as_of="2026-11-20T02:00:00")) == [ref]  # naive: UTC
    assert refs(ws.recall(query, as_of="2026-11-20")) == [ref]


def test_a_memory_written_at_midnight_belongs_to_the_next_day(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    clock.advance(hours=12)  # 2026-11-02T00:00:00Z
    ref = ws.remember("Reports are mailed at midnight").ref
    assert refs(ws.recall("reports mailed midnight", as_of="2026-11-01")) == []
    assert refs(ws.recall("reports mailed midnight", as_of="2026-11-02")) == [ref]


def test_the_cli_takes_a_zoned_moment_and_refuses_junk(ws: Cairn, clock, project: Path) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("Search pages are cached for an hour").ref
    clock.advance(days=3)
    ws.forget(ref)
    runner = CliRunner()

    def run(*args: str) -> tuple[int, str, str]:
        done = runner.invoke(cli, ["--project", str(project), *args])
        return done.exit_code, done.stdout, done.stderr

    code, out, _ = run(
        "recall", "search pages cached", "--as-of", "2026-11-02T09:00+02:00", "--json"
    )
    assert code == 0 and [h["ref"] for h in json.loads(out)["results"]] == [ref]
    code, _, err = run("recall", "search pages cached", "--as-of", "yesterday")
    assert code == 2 and "as_of must be" in err


# -- the moment a forget happened survives export, import and an older store -----------
def test_export_and_import_keep_when_a_memory_was_forgotten(
    ws: Cairn, clock, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("Uploads are scanned before they are stored").ref
    clock.advance(days=10)
    ws.forget(ref)
    lines = list(ws.export())
    with cairn.open(tmp_path / "other", project=ws.ctx.project, cwd=ws.ctx.project) as other:
        other.import_(lines)
        assert other.get_memory(ref) == ws.get_memory(ref)
        assert refs(other.recall("uploads scanned stored", as_of="2026-11-05")) == [ref]
        assert other.restore(ref).until is None


@sqlite_only.TWO_STORES
def test_an_older_export_of_a_forgotten_memory_is_read_as_forgotten_at_its_last_touch(
    ws: Cairn, clock, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("Thumbnails are square").ref
    clock.advance(days=2)
    ws.cite([ref])  # last touched on the 3rd
    clock.advance(days=5)
    ws.forget(ref)
    lines = []
    for line in ws.export():
        record = json.loads(line)
        if record.get("ref") == ref and record["type"] == "memory":
            record["until"] = None  # as an export from before forgets were dated
        lines.append(json.dumps(record))
    with cairn.open(tmp_path / "other", project=ws.ctx.project, cwd=ws.ctx.project) as other:
        other.import_(lines)
        assert other.store.get_memory(ref).until == "2026-11-03T12:00:00.000000Z"
        assert refs(other.recall("thumbnails square", as_of="2026-11-02")) == [ref]
        assert refs(other.recall("thumbnails square", as_of="2026-11-04")) == []


@sqlite_only.MIGRATIONS
def test_a_store_from_before_dates_its_forgotten_memories_at_their_last_touch(
    tmp_path: Path, clock
) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    with cairn.open(home, project=tmp_path, clock=clock) as ws:
        kept = ws.remember("Logs are kept for a year").ref
        gone = ws.remember("Logs are shipped hourly").ref
        clock.advance(days=2)
        ws.cite([gone])
        clock.advance(days=5)
        ws.forget(gone)
    conn = sqlite3.connect(home / "cairn.db")
    conn.executescript(
        """
        UPDATE memories SET until = NULL WHERE status = 'retired';
        DELETE FROM migrations WHERE name = '0007_forget_ends_belief';
        PRAGMA user_version = 0;
        """
    )
    conn.close()
    with cairn.open(home, project=tmp_path, clock=clock) as ws:
        assert ws.store.get_memory(gone).until == "2026-11-03T12:00:00.000000Z"
        assert ws.store.get_memory(kept).until is None
        assert refs(ws.recall("logs shipped hourly", as_of="2026-11-02"))[0] == gone
        assert refs(ws.recall("logs shipped hourly", as_of="2026-11-04")) == [kept]
