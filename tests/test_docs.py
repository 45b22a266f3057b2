"""Docs: indexed by themselves (session start, first recall, changed files), and safely.

Real folders, links and FIFOs in tmp folders; the hook and the CLI run as real processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import cairn
from cairn.api import Cairn
from cairn.usecases import docs
from cairn.usecases.install.command import launch
from tests import backends as sqlite_only
from tests.conftest import search
from tests.faults.conftest import SLOW_BUDGET_S
from tests.hooks.conftest import payload

CAIRN = [sys.executable, "-c", "from cairn.cli import main; main()"]


@pytest.fixture(autouse=True)
def trusted_stats(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by a test are seconds old at most: trust their signatures at once (the
    racy-file rule would read them again, which changes no answer, only the reads counted)."""
    monkeypatch.setattr(docs, "RACY_NS", 0)


def lines(result: object) -> list[str]:
    return [h.line for h in result.hits]  # type: ignore[attr-defined]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    read: list[str] = []
    real = docs.read_doc

    def counted(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bytes | None:
        read.append(os.path.basename(path))
        return real(path, root)

    monkeypatch.setattr(docs, "read_doc", counted)
    return read


# -- indexed by themselves ---------------------------------------------------------------
def test_the_first_recall_indexes_the_docs(ws: Cairn, project: Path) -> None:
    write(project / "docs" / "ops.md", "# Rollbacks\nRoll back a deploy with the rollback job.\n")
    assert lines(search(ws, "rollback job", kind="pages")) == [
        "Roll back a deploy with the rollback job."
    ]


def test_an_edited_doc_is_found_by_its_new_text_at_the_next_recall(
    ws: Cairn, project: Path
) -> None:
    page = write(project / "docs" / "ops.md", "# Deploys\nDeploys run from the main branch.\n")
    assert search(ws, "deploys main", kind="pages").hits
    page.write_text("# Deploys\nDeploys now run from release tags only.\n", encoding="utf-8")
    assert search(ws, "deploys main", kind="pages").hits == []
    assert lines(search(ws, "release tags", kind="pages")) == [
        "Deploys now run from release tags only."
    ]


def test_added_and_removed_docs_are_noticed_by_the_next_recall(ws: Cairn, project: Path) -> None:
    write(project / "README.md", "# App\nThe app serves invoices.\n")
    assert search(ws, "invoices", kind="pages").hits
    write(project / "docs" / "adr" / "0001-queues.md", "# Queues\nWe chose a postgres queue.\n")
    assert lines(search(ws, "postgres queue", kind="pages")) == ["We chose a postgres queue."]
    (project / "README.md").unlink()
    assert search(ws, "invoices", kind="pages").hits == []
    assert ws.store.doc_paths(ws.ctx.project) == ["docs/adr/0001-queues.md"]


def test_a_new_process_sees_an_edit_made_between_two_processes(
    open_ws: Callable[..., Cairn], project: Path
) -> None:
    page = write(project / "docs" / "a.md", "# A\nalpha bravo\n")
    assert search(open_ws(), "alpha", kind="pages").hits
    page.write_text("# A\ncharlie delta echo\n", encoding="utf-8")
    later = open_ws()  # another handle: what a next `cairn recall` process starts with
    assert search(later, "alpha", kind="pages").hits == []
    assert search(later, "charlie", kind="pages").hits


def test_nothing_is_read_again_while_nothing_changed(
    ws: Cairn, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(5):
        write(project / "docs" / f"p{i}.md", f"# P{i}\npage {i}\n")
    read = count_reads(monkeypatch)
    search(ws, "page")
    assert sorted(read) == [f"p{i}.md" for i in range(5)]
    read.clear()
    for _ in range(3):
        search(ws, "page")
    assert read == []
    write(project / "docs" / "p3.md", "# P3\npage three, longer now\n")
    search(ws, "page")
    assert read == ["p3.md"]


def test_each_recall_reads_a_bounded_number_of_files(ws: Cairn, project: Path) -> None:
    n = docs.RECALL_READS * 2 + 3
    for i in range(n):
        write(project / "docs" / f"p{i:03}.md", f"# P{i}\nzebra page {i}\n")
    first = ws.refresh_docs()
    assert (first.changed, first.pending) == (docs.RECALL_READS, n - docs.RECALL_READS)
    search(ws, "zebra")  # the second look
    third = ws.refresh_docs()
    assert (third.changed, third.pending) == (3, 0)
    assert len(ws.store.doc_paths(ws.ctx.project)) == n


def test_session_start_indexes_the_docs(home: Path, project: Path) -> None:
    write(project / "docs" / "ops.md", "# Rollbacks\nRoll back with the rollback job.\n")
    with cairn.open(home, project=project, cwd=project) as ws:
        ws.remember("the rollback job lives in ops/")  # the store exists; no docs indexed
        assert ws.store.doc_paths(str(project)) == []
    argv = launch().hook_argv("claude-code", "SessionStart")
    done = subprocess.run(
        argv,
        input=payload("claude-code", "SessionStart", project),
        capture_output=True,
        # A slow answer on a loaded machine is not a missing one: the budget is not asked here.
        env={**os.environ, "CAIRN_HOME": str(home), "CAIRN_HOOK_BUDGET": str(SLOW_BUDGET_S)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and b"rollback job" in done.stdout  # the brief, as before
    with cairn.open(home, project=project, cwd=project) as ws:
        assert ws.store.doc_paths(str(project)) == ["docs/ops.md"]


def test_the_cli_recall_finds_a_doc_nobody_indexed(home: Path, project: Path) -> None:
    write(project / "docs" / "ops.md", "# Rollbacks\nRoll back with the rollback job.\n")
    done = subprocess.run(
        [*CAIRN, "recall", "rollback job", "--json"],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "CAIRN_HOME": str(home)},
        timeout=60,
        check=True,
    )
    [hit] = json.loads(done.stdout)["results"]
    assert (hit["kind"], hit["path"]) == ("doc", "docs/ops.md")


# -- safety ------------------------------------------------------------------------------
def test_a_link_out_of_the_project_is_not_followed(
    ws: Cairn, project: Path, tmp_path: Path
) -> None:
    outside = write(
        tmp_path / "elsewhere" / "notes.md", "# Vault\nthe vault combination is 4-8-15\n"
    )
    (project / "docs").mkdir()
    (project / "docs" / "setup.md").symlink_to(outside)
    (project / "README.md").symlink_to(outside)
    (project / "docs" / "more").symlink_to(outside.parent, target_is_directory=True)
    assert ws.index_docs().files == 0
    assert search(ws, "vault combination").hits == []
    assert ws.store.doc_paths(ws.ctx.project) == []


def test_a_link_inside_the_project_is_followed(ws: Cairn, project: Path) -> None:
    guide = write(project / "notes" / "guide.md", "# Guide\nrun make demo first\n")
    (project / "docs").mkdir()
    (project / "docs" / "guide.md").symlink_to(Path("..") / "notes" / "guide.md")
    assert [h.path for h in search(ws, "make demo", kind="pages").hits] == ["docs/guide.md"]
    guide.write_text("# Guide\nrun make check first, then make demo\n", encoding="utf-8")
    assert search(ws, "make check", kind="pages").hits


def test_a_doc_indexed_before_is_dropped_once_it_links_out(
    ws: Cairn, project: Path, tmp_path: Path
) -> None:
    page = write(project / "docs" / "setup.md", "# Setup\nthe vault combination is kept offline\n")
    assert search(ws, "vault combination", kind="pages").hits
    outside = write(tmp_path / "elsewhere" / "notes.md", "# Vault\nthe vault combination is 4-8\n")
    page.unlink()
    page.symlink_to(outside)
    assert search(ws, "vault combination").hits == []


def test_a_page_holding_a_secret_is_never_served(ws: Cairn, project: Path) -> None:
    write(
        project / "docs" / "setup.md",
        "# AWS\nThe aws access key is AKIAIOSFODNN7EXAMPLE, use it for uploads.\n\n"
        "# Uploads\nUploads go to the aws bucket named media.\n",
    )
    done = ws.index_docs()
    assert (done.pages, done.withheld) == (1, 1)
    found = search(ws, "aws access key uploads")
    assert all("AKIA" not in h.line for h in found.hits)
    assert lines(search(ws, "aws bucket", kind="pages")) == [
        "Uploads go to the aws bucket named media."
    ]
    assert search(ws, "AKIAIOSFODNN7EXAMPLE", kind="pages").hits == []


def test_a_fifo_named_like_a_doc_does_not_block(home: Path, project: Path) -> None:
    write(project / "docs" / "ok.md", "# Ok\nordinary page\n")
    os.mkfifo(project / "docs" / "x.md")
    (project / "docs" / "y.md").symlink_to("x.md")
    done = subprocess.run(
        [*CAIRN, "docs", "index", "--json"],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "CAIRN_HOME": str(home)},
        timeout=30,
        check=True,
    )
    assert json.loads(done.stdout)["files"] == 1


def test_read_doc_opens_without_blocking_and_reads_only_regular_files(
    project: Path, tmp_path: Path
) -> None:
    fifo = project / "pipe.md"
    os.mkfifo(fifo)
    assert docs.read_doc(fifo, project) is None  # no writer: a blocking open would hang
    assert docs.read_doc("/dev/zero", "/") is None
    assert docs.read_doc(project, project) is None
    assert docs.read_doc(project / "missing.md", project) is None


def test_read_doc_reads_at_most_the_bound(project: Path) -> None:
    big = project / "big.md"
    with big.open("wb") as out:
        out.truncate(docs.MAX_DOC_BYTES * 50)  # sparse: 100 MB that costs no disk
    data = docs.read_doc(big, project)
    assert data is not None and len(data) == docs.MAX_DOC_BYTES


def test_read_doc_refuses_a_path_resolving_outside_the_root(project: Path, tmp_path: Path) -> None:
    outside = write(tmp_path / "secret.txt", "x")
    (project / "link.md").symlink_to(outside)
    assert docs.read_doc(project / "link.md", project) is None
    assert docs.read_doc(outside, project) is None


def test_the_listing_is_bounded(ws: Cairn, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(docs, "MAX_DOC_FILES", 5)
    for i in range(9):
        write(project / "docs" / f"p{i}.md", f"# P{i}\npage {i}\n")
    assert ws.index_docs().files == 5


def test_a_file_written_just_now_is_read_again_but_not_reindexed(
    ws: Cairn, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its signature could stay the same through a rewrite within the same timestamp tick.
    monkeypatch.setattr(docs, "RACY_NS", 3600 * 10**9)
    page = write(project / "docs" / "a.md", "# A\nalpha\n")
    now = time.time_ns()  # written now by the process's clock (faketime moves only that one)
    os.utime(page, ns=(now, now))
    read = count_reads(monkeypatch)
    assert ws.refresh_docs().changed == 1
    again = ws.refresh_docs()
    assert read == ["a.md", "a.md"] and again.changed == 0


def test_an_edit_in_place_among_many_docs_is_noticed_within_a_few_recalls(
    ws: Cairn, project: Path
) -> None:
    n = docs.STATS_PER_CHECK * 3
    pages = [write(project / "docs" / f"p{i:03}.md", f"# P{i}\nplain page {i}\n") for i in range(n)]
    ws.index_docs()
    pages[n // 2].write_text("# Changed\nquokka habitat notes\n", encoding="utf-8")  # same inode
    found = [bool(search(ws, "quokka habitat", kind="pages").hits) for _ in range(4)]
    assert found[-1] and found.index(True) <= 3


@sqlite_only.FILE
def test_a_store_another_process_is_writing_is_not_waited_for(
    ws: Cairn, project: Path, home: Path
) -> None:
    import sqlite3

    write(project / "docs" / "a.md", "# A\nalpha bravo\n")
    assert search(ws, "alpha", kind="pages").hits
    write(project / "docs" / "a.md", "# A\ncharlie delta echo\n")
    other = sqlite3.connect(home / "cairn.db", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # holds the write lock, as a long import would
        # Waiting would take the store's busy timeout and then fail ("database is locked"):
        # the search is answered from the docs as indexed instead.
        assert search(ws, "alpha", kind="pages").hits
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert search(ws, "alpha", kind="pages").hits == []
    assert search(ws, "charlie", kind="pages").hits
    (busy,) = ws.store.conn.execute("PRAGMA busy_timeout").fetchone()
    assert busy > 0  # restored after the refresh
