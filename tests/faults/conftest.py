"""The standing fault suite: every file Cairn reads, made into what it must never wait on or
read to the end, and the store's disk made full, read-only or locked.

Each run of Cairn here is a real process (the hook as agents start it, the CLI, the MCP server)
with a bounded address space, so a reader that never stops fails with MemoryError instead of
filling the machine. A run that has not returned after HANG_S is hung: the liveness check.
Timings are not asserted (bench/soak.py measures them); memory is (a bounded reader stays far
below MAX_RSS_MB).
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from cairn.usecases.install.command import launch
from tests.hooks.conftest import hook, lessons, payload

__all__ = ["hook", "lessons", "payload"]  # fixtures and payloads shared with tests/hooks

HANG_S = 30
SLOW_BUDGET_S = 20  # under HANG_S; a hook stopped by it prints no lesson, which the tests catch
MAX_RSS_MB = 400
ADDRESS_SPACE = 3 << 30
HUGE = 5 << 30  # a sparse file: no disk, but larger than any bound Cairn reads to
ROOT = os.geteuid() == 0
# What a file Cairn reads can be instead of a small regular file. `unreadable` means nothing
# to root, who reads every file.
FAULTS = ["fifo", "device", "dangling", "huge", "folder", *([] if ROOT else ["unreadable"])]
SESSION = "0b7e3c1a-5d2f-4c8e-9a61-3f2d8e7c1b40"  # the recorded claude-code payloads'
CLI = (sys.executable, "-c", "import sys; from cairn.cli import main; sys.exit(main())")


def make_fault(path: Path, fault: str) -> None:
    """Replace whatever is at `path` with one kind of thing that is not a small file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.is_symlink() or path.exists():
        path.unlink()
    if fault == "fifo":
        os.mkfifo(path)
    elif fault == "device":
        path.symlink_to("/dev/zero")
    elif fault == "dangling":
        path.symlink_to(path.parent / "no-such-file")
    elif fault == "huge":
        with path.open("wb") as out:
            out.truncate(HUGE)
    elif fault == "folder":
        path.mkdir()
    elif fault == "unreadable":
        path.write_text("secret\n")
        path.chmod(0)
    else:  # pragma: no cover - a typo in a test
        raise ValueError(fault)


@dataclass
class Ran:
    """A finished (or killed) run: status, output, and the peak memory of the process."""

    returncode: int
    stdout: bytes
    stderr: bytes
    max_rss_mb: float
    hung: bool

    @property
    def bounded(self) -> bool:
        """It returned by itself, and read no more than a bounded reader would."""
        return not self.hung and self.max_rss_mb < MAX_RSS_MB


def _limits() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_bounded(
    argv: list[str] | tuple[str, ...],
    data: bytes = b"",
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    hold_stdin: bool = False,
    timeout: float = HANG_S,
) -> Ran:
    """Run a process with `data` on stdin (kept open with `hold_stdin`), capped in memory;
    kill its group after `timeout`. Its own peak RSS comes from `wait4`."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        if hold_stdin:
            reader, writer = os.pipe()
            stdin: int = reader
        else:
            source = tempfile.TemporaryFile()  # noqa: SIM115 - closed once the child has it
            source.write(data)
            source.seek(0)
            stdin = source.fileno()
        proc = subprocess.Popen(
            list(argv),
            stdin=stdin,
            stdout=out,
            stderr=err,
            env={**os.environ, **(env or {})},
            cwd=cwd,
            preexec_fn=_limits,
            process_group=0,
        )
        if hold_stdin:
            os.close(reader)
        else:
            source.close()
        deadline = time.monotonic() + timeout
        hung = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                hung = True
                os.killpg(proc.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again
        if hold_stdin:
            os.close(writer)
        out.seek(0)
        err.seek(0)
        return Ran(
            os.waitstatus_to_exitcode(status),
            out.read(),
            err.read(),
            usage.ru_maxrss / 1024,
            hung,
        )


def run_hook(home: Path, agent: str, event: str, data: bytes, *, hold_stdin: bool = False) -> Ran:
    """The hook as an agent starts it (the command `cairn setup` writes).

    A run whose stdin closes gets a budget of SLOW_BUDGET_S: these tests ask whether the lesson
    still arrives, and on a loaded machine the default second turned a slow answer into a
    missing one (a timed assertion in disguise). The budget itself is tested with stdin held
    open, where only the default budget can end the call."""
    argv = launch().hook_argv(agent, event)
    env = {"CAIRN_HOME": str(home)}
    if not hold_stdin:
        env["CAIRN_HOOK_BUDGET"] = str(SLOW_BUDGET_S)
    return run_bounded(argv, data, env=env, hold_stdin=hold_stdin)


def run_cli(home: Path, cwd: Path, *args: str) -> Ran:
    """`cairn ARGS` in `cwd`."""
    return run_bounded([*CLI, *args], env={"CAIRN_HOME": str(home)}, cwd=cwd)


def make_git(project: Path, branch: str = "main") -> None:
    """A minimal git checkout (what Cairn reads of one: `.git/HEAD`)."""
    (project / ".git").mkdir(exist_ok=True)
    (project / ".git" / "HEAD").write_text(f"ref: refs/heads/{branch}\n")


class Disk:
    """A small disk of its own for a store: a tmpfs when root can mount one.

    `fill()` leaves it with no free space; `read_only()` makes the store unwritable (the
    tmpfs remounted read-only, or, for a user who cannot mount, the folder made read-only).
    """

    def __init__(self, path: Path, mounted: bool) -> None:
        self.path = path
        self.mounted = mounted

    def fill(self) -> None:
        if not self.mounted:
            pytest.skip("filling a disk needs a tmpfs of its own (run as root)")
        fd = os.open(self.path / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            for block in (64 << 10, 512, 1):  # until even one byte does not fit
                try:
                    while True:
                        os.write(fd, b"\0" * block)
                except OSError:
                    continue
        finally:
            os.close(fd)

    def read_only(self) -> None:
        if self.mounted:
            subprocess.run(["mount", "-o", "remount,ro", str(self.path)], check=True)
            return
        for root, dirs, files in os.walk(self.path):
            for name in [*dirs, *files]:
                full = Path(root) / name
                full.chmod(stat.S_IMODE(full.stat().st_mode) & ~0o222)
        self.path.chmod(0o555)

    def writable(self) -> None:
        if self.mounted:
            subprocess.run(["mount", "-o", "remount,rw", str(self.path)], check=False)
        else:
            for root, dirs, _files in os.walk(self.path):
                Path(root).chmod(0o755)
                for name in dirs:
                    (Path(root) / name).chmod(0o755)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    """A 16 MiB disk (tmpfs) for the store, unmounted after the test."""
    path = tmp_path / "disk"
    path.mkdir()
    mounted = False
    if ROOT and shutil.which("mount"):
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(path)],
            capture_output=True,
            check=False,
        )
        mounted = done.returncode == 0
    found = Disk(path, mounted)
    try:
        yield found
    finally:
        found.writable()
        if mounted:
            subprocess.run(["umount", "-l", str(path)], check=False)


class Hung(Exception):
    """A call in this process that did not return in time."""


@contextmanager
def within(seconds: float, more_memory: int = 1 << 30) -> Iterator[None]:
    """Run a block of this process bounded as `run_bounded` bounds a child: fail instead of
    waiting for ever when it takes longer than `seconds` (SIGALRM interrupts a blocking open
    or read too), and with MemoryError instead of filling the machine when it maps more than
    `more_memory` bytes beyond what the process holds now."""

    def expire(signum: int, frame: object) -> None:
        raise Hung(f"still waiting after {seconds} s")

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    mapped = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    cap = (
        mapped + more_memory if hard == resource.RLIM_INFINITY else min(hard, mapped + more_memory)
    )
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextmanager
def locked(db: Path) -> Iterator[None]:
    """Another process's write lock on the store, held for the block."""
    import sqlite3

    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()
