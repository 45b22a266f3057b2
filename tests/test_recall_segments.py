"""Keyword postings indexed where memories are written, a segment at a time, kept beside the
store: no recall indexes a long run of single writes at once, and the kept chain never drifts
from the store (a file missing, damaged or left by a killed writer is indexed again)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cairn
from cairn.api import Cairn
from cairn.usecases import recall as searching
from cairn.usecases import remember as writing
from cairn.usecases.recall import kept

from .conftest import Clock

QUERIES = ["schema migration", "refund ledger", "render detail 7", "note 3", "kestrel"]
TOPICS = ["postgres migration schema", "react component render", "payments refund ledger"]


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thresholds a test reaches in a few dozen writes."""
    monkeypatch.setattr(searching.KeywordCache, "KEEP_FROM", 10)
    monkeypatch.setattr(searching.KeywordCache, "SEGMENT_ROWS", 4)
    monkeypatch.setattr(searching.KeywordCache, "MAX_SEGMENTS", 2)
    monkeypatch.setattr(searching.KeywordCache, "REBUILD_MIN", 6)
    monkeypatch.setattr(searching.KeywordCache, "REBUILD_SHARE", 0.5)


def answers(ws: Cairn) -> list[list[tuple[str, float]]]:
    return [
        [(h.ref, h.score) for h in searching.recall(ws.store, ws.ctx, q, limit=25).hits]
        for q in QUERIES
    ]


def postings_files(home: Path) -> list[Path]:
    return sorted(home.glob("recall-postings*.npz"))


def built_afresh(home: Path, open_ws: Callable[..., Cairn]) -> list[list[tuple[str, float]]]:
    """What recall answers from postings built from the store alone (no kept file)."""
    for path in postings_files(home):
        path.unlink()
    return answers(open_ws())


def rows_indexed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of rows of each segment built from here on."""
    sizes: list[int] = []
    original = kept._segment

    def counted(rows: Any) -> Any:
        sizes.append(len(rows))
        return original(rows)

    monkeypatch.setattr(kept, "_segment", counted)
    return sizes


def text(i: int) -> str:
    return f"{TOPICS[i % 3]} detail {i} note {i % 5}"


def test_single_writes_are_indexed_a_segment_at_a_time_not_by_the_next_recall(
    open_ws: Callable[..., Cairn], home: Path, small: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = open_ws()
    for i in range(60):  # one `remember` each, no recall in between
        writer.remember(text(i))
    assert len(postings_files(home)) >= 2  # the first segment and others after it
    sizes = rows_indexed(monkeypatch)
    got = answers(open_ws())  # a new process
    assert sum(sizes) <= searching.KeywordCache.SEGMENT_ROWS
    assert got == built_afresh(home, open_ws)
    assert all(got[:4])


def test_a_recall_finding_a_long_unindexed_run_indexes_it_and_keeps_it(
    open_ws: Callable[..., Cairn], home: Path, small: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = open_ws()
    writer.remember_many([{"text": text(i)} for i in range(20)])
    for i in range(20, 40):  # written by a Cairn that did not index (killed after commit)
        writing.remember(writer.store, writer.ctx, text(i))
    first = answers(open_ws())
    sizes = rows_indexed(monkeypatch)
    assert answers(open_ws()) == first  # the next process reads what that recall kept
    assert sum(sizes) <= searching.KeywordCache.SEGMENT_ROWS
    assert first == built_afresh(home, open_ws)


def test_kept_segments_merge_into_the_first_and_leave_no_stale_file(
    open_ws: Callable[..., Cairn], home: Path, small: None
) -> None:
    writer = open_ws()
    for i in range(200):
        writer.remember(text(i))
    names = [p.name for p in postings_files(home)]
    assert searching.KeywordCache.FILE in names
    assert len(names) <= 1 + searching.KeywordCache.MAX_SEGMENTS
    reach = kept.kept_reach(home)
    assert writer.store.change_count() - reach < searching.KeywordCache.SEGMENT_ROWS
    assert answers(open_ws()) == built_afresh(home, open_ws)


@pytest.mark.parametrize("damage", [b"", b"not a zip file", b"PK\x03\x04garbage"])
@pytest.mark.parametrize("which", [0, -1])
def test_a_damaged_kept_file_is_dropped_and_its_rows_indexed_again(
    open_ws: Callable[..., Cairn], home: Path, small: None, damage: bytes, which: int
) -> None:
    writer = open_ws()
    for i in range(27):
        writer.remember(text(i))
    expected = answers(open_ws())
    files = postings_files(home)
    assert len(files) >= 2
    target = files[which]  # the first segment (FILE) or the last one after it
    target.write_bytes(damage)
    assert answers(open_ws()) == expected
    assert not target.exists() or target.read_bytes() != damage
    for i in range(30, 40):  # the next writer indexes the dropped rows again
        writer.remember(text(i))
    assert writer.store.change_count() - kept.kept_reach(home) < 4
    assert answers(open_ws()) == built_afresh(home, open_ws)


# -- interleaved writes, kills and damage: the kept chain never drifts --------------------
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["remember", "unindexed", "bulk", "delete", "damage", "recall"]),
        st.integers(min_value=0, max_value=50),
    ),
    min_size=1,
    max_size=25,
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=STEPS)
def test_any_interleaving_of_writes_kills_and_damage_answers_as_the_store_does(
    small: None, clock: Clock, steps: list[tuple[str, int]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "proj"
        project.mkdir()
        handles: list[Cairn] = []

        def open_ws(**_: Any) -> Cairn:
            ws = cairn.open(home, project=project, cwd=project, tool="t", clock=clock)
            handles.append(ws)
            return ws

        try:
            live = open_ws()
            written = 0
            for step, k in steps:
                if step == "remember":
                    for _ in range(k % 7 + 1):
                        live.remember(text(written))
                        written += 1
                elif step == "unindexed":  # a writer killed between its commit and indexing
                    for _ in range(k % 9 + 1):
                        writing.remember(live.store, live.ctx, text(written))
                        written += 1
                elif step == "bulk":
                    live.remember_many([{"text": text(written + j)} for j in range(k % 13 + 1)])
                    written += k % 13 + 1
                elif step in ("delete", "damage") and postings_files(home):
                    files = postings_files(home)
                    target = files[k % len(files)]
                    if step == "delete":
                        target.unlink()
                    else:
                        target.write_bytes(target.read_bytes()[: k * 37])
                elif step == "recall":
                    assert answers(live) == answers(open_ws())
                clock.advance(minutes=1)
            expected = answers(live)
            assert answers(open_ws()) == expected
            assert built_afresh(home, open_ws) == expected
        finally:
            for ws in handles:
                ws.close()


WRITER = """
import sys
import cairn
ws = cairn.open(sys.argv[1], project=sys.argv[2], cwd=sys.argv[2], tool="t")
from cairn.usecases.recall import KeywordCache
KeywordCache.KEEP_FROM, KeywordCache.SEGMENT_ROWS, KeywordCache.MAX_SEGMENTS = 10, 4, 2
for i in range(10_000):
    ws.remember(f"postgres migration schema detail {i} note {i % 5}")
    print(i, flush=True)
"""


@pytest.fixture
def killed_writer(home: Path, project: Path) -> Iterator[Callable[[int], None]]:
    started: list[subprocess.Popen[str]] = []

    def run(after: int) -> None:
        env = {k: v for k, v in os.environ.items() if k != "CAIRN_NOW"}
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(home), str(project)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        started.append(child)
        assert child.stdout is not None
        for _ in range(after):
            if not child.stdout.readline():
                break
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        child.stdout.close()

    yield run
    for child in started:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=60)
        if child.stdout is not None:
            child.stdout.close()


@pytest.mark.parametrize("after", [13, 27])
def test_a_writer_killed_while_indexing_leaves_a_chain_recall_can_trust(
    open_ws: Callable[..., Cairn], home: Path, killed_writer: Callable[[int], None], after: int
) -> None:
    killed_writer(after)
    got = answers(open_ws())
    assert got[0]  # "schema migration" finds what the killed writer committed
    assert got == built_afresh(home, open_ws)


@pytest.mark.parametrize("page", [1, 7, 50, 51])
def test_a_bulk_write_is_indexed_a_page_at_a_time_with_the_postings_of_one_go(
    open_ws: Callable[..., Cairn],
    home: Path,
    small: None,
    monkeypatch: pytest.MonkeyPatch,
    page: int,
) -> None:
    monkeypatch.setattr(searching.KeywordCache, "PAGE_ROWS", page)
    sizes = rows_indexed(monkeypatch)
    writer = open_ws()
    writer.remember_many(
        [
            {
                "text": text(i),
                "kind": ("fact", "decision", "preference")[i % 3],
                "scope": "workspace" if i % 4 == 0 else "project",
                "tags": [f"t{i % 6}"],
            }
            for i in range(50)
        ]
    )
    assert sizes and max(sizes) <= page and sum(sizes) == 50
    loaded = kept._load_segment(writer.store, home / searching.KeywordCache.FILE)
    assert loaded is not None
    whole = kept._segment(writer.store.index_rows_after(0))
    assert list(loaded.refs) == list(whole.refs)
    assert loaded.workspace.tolist() == whole.workspace.tolist()
    for mine, theirs in ((loaded, whole), (whole, loaded)):
        names_of = {k: name for name, k in mine.projects.items()}
        assert [names_of[k] for k in mine.project_of.tolist()] == [
            {k: n for n, k in theirs.projects.items()}[k] for k in theirs.project_of.tolist()
        ]
        kinds_of = {k: name for name, k in mine.kinds.items()}
        assert [kinds_of[k] for k in mine.kind_of.tolist()] == [
            {k: n for n, k in theirs.kinds.items()}[k] for k in theirs.kind_of.tolist()
        ]
    assert sorted(loaded.postings.vocabulary) == sorted(whole.postings.vocabulary)
    for term in whole.postings.vocabulary:
        a, b = loaded.postings.postings(term), whole.postings.postings(term)
        assert a is not None and b is not None
        assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist(), term
    assert answers(open_ws()) == built_afresh(home, open_ws)
