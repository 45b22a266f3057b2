"""`cairn tidy` at the command line: --limit, --project, output, progress bar, Ctrl-C."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from cairn.api import Cairn
from cairn.cli import cli
from tests import backends as sqlite_only

CAIRN = str(Path(sys.executable).parent / "cairn")


def _name(k: int) -> str:
    """A made-up word of letters only (a number would make two sentences a conflict)."""
    letters = ""
    while True:
        letters += "bcdfghjklmnpqrstvwxz"[k % 20]
        k //= 20
        if not k:
            return f"zo{letters}ka"


def _store(ws: Cairn, n: int) -> None:
    """n memories in near-duplicate pairs (each pair a merge proposal), distinct otherwise."""
    ws.remember_many(
        {
            "text": f"{_name(3 * (k // 2))} calls {_name(3 * (k // 2) + 1)} through "
            f"{_name(3 * (k // 2) + 2)}{' always' if k % 2 else ''}"
        }
        for k in range(n)
    )


def _run(project: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--project", str(project), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_limit_stops_at_that_many_proposals(ws: Cairn, project: Path) -> None:
    _store(ws, 20)
    every = json.loads(_run(project, "tidy", "--json"))
    assert len(every) == 10
    first = json.loads(_run(project, "tidy", "--limit", "3", "--json"))
    assert first == every[:3]


def test_project_option_scopes_tidy_to_that_project(
    open_ws: Callable[..., Cairn], tmp_path: Path, project: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    _store(open_ws(project=other, cwd=other), 4)
    assert json.loads(_run(project, "tidy", "--json")) == []
    listed = json.loads(_run(project, "tidy", "--project", str(other), "--json"))
    assert [p["kind"] for p in listed] == ["merge", "merge"]


def test_piped_text_is_plain_and_lists_every_proposal(ws: Cairn, project: Path) -> None:
    _store(ws, 6)
    listed = json.loads(_run(project, "tidy", "--json"))
    human = _run(project, "tidy")
    assert all(p["id"] in human for p in listed)
    assert "\x1b[" not in human and "[bold" not in human
    assert human.rstrip().endswith("hides it until its facts change")


def _pty_run(argv: list[str], env: dict[str, str], cwd: Path, until: bytes) -> subprocess.Popen:  # type: ignore[type-arg]
    """Start argv on a terminal; return once `until` was drawn on it."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        argv, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=cwd
    )
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 120
    while until not in seen and time.monotonic() < deadline and proc.poll() is None:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            seen += os.read(leader, 65536)
    proc.leader = leader  # type: ignore[attr-defined]
    proc.seen = seen  # type: ignore[attr-defined]
    return proc


def _drain(proc: subprocess.Popen) -> bytes:  # type: ignore[type-arg]
    out: bytes = proc.seen  # type: ignore[attr-defined]
    leader = proc.leader  # type: ignore[attr-defined]
    for _ in range(400):  # bounded: 400 x 0.05 s
        ready, _, _ = select.select([leader], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=60)
    os.close(leader)
    return out


def _env(home: Path, project: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "CAIRN_HOME": str(home), "CAIRN_PROJECT": str(project), **extra}


def test_a_terminal_gets_a_progress_bar_that_is_gone_at_the_end(
    ws: Cairn, home: Path, project: Path
) -> None:
    _store(ws, 40)
    proc = _pty_run(
        [CAIRN, "tidy"], _env(home, project, CAIRN_PROGRESS_AFTER="0"), project, b"comparing"
    )
    out = _drain(proc)
    assert proc.returncode == 0
    assert b"comparing memories" in out
    # The bar is taken down (cursor shown again) before the proposals are printed.
    assert out.rindex(b"comparing") < out.rindex(b"\x1b[?25h") < out.rindex(b"facts change")


@sqlite_only.ONE_SECOND
def test_no_progress_bar_for_json_or_before_a_second(ws: Cairn, home: Path, project: Path) -> None:
    _store(ws, 40)
    proc = _pty_run(
        [CAIRN, "tidy", "--json"], _env(home, project, CAIRN_PROGRESS_AFTER="0"), project, b"]"
    )
    out = _drain(proc)
    assert b"finding" not in out and len(json.loads(out)) == 20
    # Before its threshold (a second by default; an hour here, so a loaded machine cannot
    # make this a test of speed) tidy on a terminal draws no bar.
    proc = _pty_run(
        [CAIRN, "tidy"], _env(home, project, CAIRN_PROGRESS_AFTER="3600"), project, b"facts change"
    )
    assert b"finding" not in _drain(proc)


@sqlite_only.FILE
def test_ctrl_c_stops_tidy_with_one_line_and_nothing_half_done(
    ws: Cairn, home: Path, project: Path
) -> None:
    _store(ws, 3000)
    (project / "cited.py").write_text("def f():\n    return 1\n")
    ws.remember("f returns one", source_ref="cited.py#f")
    db = sqlite3.connect(ws.store.path)
    before = db.execute("SELECT count(*) FROM citation_sightings").fetchone()[0]

    # The bar's first frame: tidy is at work. Once the test stops reading the terminal, the
    # proposals fill it and tidy waits to write them: it cannot end before the signal lands.
    proc = _pty_run(
        [CAIRN, "tidy"], _env(home, project, CAIRN_PROGRESS_AFTER="0"), project, b"finding"
    )
    assert proc.poll() is None, "tidy ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    out = _drain(proc)

    assert proc.returncode == 130
    text = out.decode("utf-8", "replace")
    assert "Traceback" not in text
    assert text.count("cairn: interrupted") == 1
    assert "\x1b[?25h" in text  # the cursor the bar hid is back
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT count(*) FROM citation_sightings").fetchone()[0] == before
    db.close()
    # The store is whole: the next run lists every proposal.
    assert len(json.loads(_run(project, "tidy", "--json"))) == 1500
