"""The CLI under faults: a cited file or a git HEAD that is not a file, a store on a full,
read-only or size-limited disk, a damaged store. Every command returns by itself; a refusal is one
line on stderr with a non-zero status and nothing half-written."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import cairn
from cairn.core.errors import StoreError
from cairn.io.store import SqliteStore
from cairn.io.triggerlist import TriggerList
from tests.faults.conftest import CLI, FAULTS, Disk, locked, make_fault, make_git, run_cli

STATUS = {  # what recall and show say of a cited file replaced by each fault
    "fifo": "changed",
    "device": "changed",
    "dangling": "gone",
    "huge": "unchecked",  # too large to read its lines: not compared
    "folder": "changed",
    "unreadable": "unchecked",
}


@pytest.fixture
def cited(home: Path, project: Path) -> str:
    """A memory citing lines of a file, in a git project."""
    make_git(project)
    source = project / "src" / "refunds.py"
    source.parent.mkdir()
    source.write_text("MAX_RETRIES = 5\n\n\ndef refund():\n    pass\n")
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        return ws.remember(
            "Refund retries are capped at five by the bank", source_ref="src/refunds.py:1-2"
        ).ref


@pytest.mark.parametrize("fault", FAULTS)
def test_recall_and_show_say_what_became_of_a_broken_cited_file(
    cited: str, home: Path, project: Path, fault: str
) -> None:
    make_fault(project / "src" / "refunds.py", fault)
    found = run_cli(home, project, "recall", "refund retries", "--json")
    assert found.bounded and found.returncode == 0, found.stderr
    [hit] = [r for r in json.loads(found.stdout)["results"] if r["ref"] == cited]
    assert hit["citation"] == STATUS[fault], hit
    shown = run_cli(home, project, "show", cited, "--json")
    assert shown.bounded and shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["memories"][0]["citation"]["status"] == STATUS[fault]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_git_head_holds_no_command(
    cited: str, home: Path, project: Path, fault: str
) -> None:
    make_fault(project / ".git" / "HEAD", fault)
    for args in (("recall", "refund retries"), ("show", cited), ("learn",), ("brief",)):
        ran = run_cli(home, project, *args)
        assert ran.bounded, args
        assert b"Traceback" not in ran.stderr, ran.stderr


@pytest.mark.parametrize(
    ("fault", "why"), [("fifo", b"a FIFO, not a regular file"), ("device", b"outside the project")]
)
def test_remember_refuses_to_cite_what_is_not_a_file(
    home: Path, project: Path, fault: str, why: bytes
) -> None:
    make_fault(project / "notes.md", fault)
    for ref in ("notes.md", "notes.md:1-2"):
        ran = run_cli(home, project, "remember", "Notes live here", "--source-ref", ref)
        assert ran.bounded and ran.returncode == 3
        _one_line(ran.stderr, why)


def _count(home: Path) -> int:
    store = SqliteStore(home, create=False)  # read-only when the disk is full or read-only
    try:
        return store.count_memories()
    finally:
        store.close()


def _one_line(stderr: bytes, *words: bytes) -> None:
    assert b"Traceback" not in stderr, stderr.decode()
    assert len(stderr.strip().splitlines()) == 1, stderr.decode()
    for word in words:
        assert word in stderr, stderr.decode()


def _lesson_args(n: int) -> tuple[str, ...]:
    return (
        "remember",
        f"Lesson {n}: run the linter before pushing {'x' * 900}",
        "--reason",
        "y" * 3000,
        "--when",
        json.dumps({"tool": "shell", "match": f"git push lesson{n}"}),
    )


def test_remember_on_a_full_disk_says_so_in_one_line(disk: Disk, project: Path) -> None:
    home = disk.path / "home"
    assert run_cli(home, project, "remember", "The build runs on the CI only").returncode == 0
    keys = (home / "triggers.keys").read_bytes() if (home / "triggers.keys").exists() else b""
    disk.fill()
    before = _count(home)
    for n in range(3):  # the first may still fit in a page SQLite had free: the next do not
        ran = run_cli(home, project, *_lesson_args(n))
        if ran.returncode:
            break
    assert ran.bounded and ran.returncode == 6
    _one_line(ran.stderr, b"full", b"nothing was written")
    assert _count(home) == before + n
    if n == 0:
        assert ((home / "triggers.keys").read_bytes() if keys else b"") == keys
    found = run_cli(home, project, "recall", "build")  # still readable
    assert found.returncode == 0 and b"CI only" in found.stdout


def _size_limited(limit: int) -> None:  # pragma: no cover - runs in the child
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_remember_past_a_file_size_limit_says_so_in_one_line(home: Path, project: Path) -> None:
    # A full disk for any user: no file may grow past its size now.
    assert run_cli(home, project, "remember", "The build runs on the CI only").returncode == 0
    before = _count(home)
    # Not measured by coverage (`make coverage` measures the tests' processes): its own data
    # file could not grow past the limit either, and its traceback is not Cairn's.
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_PROCESS_")}
    ran = subprocess.run(
        [*CLI, *_lesson_args(0)],
        env={**env, "CAIRN_HOME": str(home)},
        cwd=project,
        capture_output=True,
        preexec_fn=lambda: _size_limited(4096),  # the WAL cannot take one page
        timeout=60,
        check=False,
    )
    assert ran.returncode == 6
    _one_line(ran.stderr, b"nothing was written")
    assert _count(home) == before


def test_a_read_only_home_reads_and_refuses_writes_in_one_line(disk: Disk, project: Path) -> None:
    home = disk.path / "home"
    assert run_cli(home, project, "remember", "The build runs on the CI only").returncode == 0
    disk.read_only()
    found = run_cli(home, project, "recall", "build")
    assert found.returncode == 0 and b"CI only" in found.stdout
    ran = run_cli(home, project, "remember", "Deploys happen on Tuesdays")
    assert ran.bounded and ran.returncode == 6
    _one_line(ran.stderr, b"read-only", b"nothing was written")


def test_a_locked_store_refuses_a_write_saying_who_to_wait_for(home: Path, project: Path) -> None:
    with cairn.open(home, project=project) as ws, locked(home / "cairn.db"):
        ws.store.close()
        ws.store = SqliteStore(home, busy_ms=50)  # the CLI waits 10 s: the same, sooner
        ws.triggers = TriggerList(ws.store)
        with pytest.raises(StoreError, match="locked by another process") as caught:
            ws.remember("Deploys happen on Tuesdays")
    assert caught.value.cause == "locked"
    assert _count(home) == 0


@pytest.mark.parametrize("damage", [b"this is not a database" * 100, b"\0" * 4096])
def test_a_damaged_store_says_so_in_one_line(home: Path, project: Path, damage: bytes) -> None:
    home.mkdir()
    (home / "cairn.db").write_bytes(damage)
    ran = run_cli(home, project, "recall", "anything")
    assert ran.bounded and ran.returncode == 6
    _one_line(ran.stderr)


def test_a_store_path_that_is_not_a_file_is_refused_at_once(home: Path, project: Path) -> None:
    home.mkdir()
    make_fault(home / "cairn.db", "fifo")
    ran = run_cli(home, project, "recall", "anything")
    assert ran.bounded and ran.returncode == 6
    _one_line(ran.stderr, b"FIFO")


def test_the_hook_command_ignores_a_project_on_pythonpath(tmp_path: Path, project: Path) -> None:
    # A repository's own `encodings/` runs in any Python started with it on PYTHONPATH, as
    # pip's console scripts start it. The hook command `cairn setup` writes runs the
    # interpreter isolated (the MCP server's: tests/faults/test_fault_mcp.py).
    from cairn.usecases.install.command import launch

    marker = tmp_path / "ran"
    (project / "encodings").mkdir()
    (project / "encodings" / "__init__.py").write_text(
        f"import posix\nposix.close(posix.open({str(marker)!r}, 0o101, 0o600))\n"
    )
    how = launch(tmp_path / "home")
    env = {**os.environ, "PYTHONPATH": str(project), **how.env}
    for argv in (how.hook_argv("claude-code", "PreToolUse"), launch(None, sys.executable).hook):
        done = subprocess.run(
            argv, input=b"{}", cwd=project, env=env, capture_output=True, timeout=60, check=False
        )
        assert done.returncode == 0, (argv, done.stderr)
    assert not marker.exists()
    subprocess.run([sys.executable, "-c", "pass"], env=env, cwd=project, check=False)
    assert marker.exists()  # a plain interpreter would have run it
