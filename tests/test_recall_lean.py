"""`cairn recall --json` in a new process answers without numpy or click (`recall.lean`,
`cli.lean`), and its answer is the one the numpy path gives: same refs, order and scores,
the same bytes on stdout, the same one-line errors."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import cairn
from cairn.api import Cairn
from cairn.usecases import recall as searching
from cairn.usecases import remember as writing
from cairn.usecases.recall.lean import Lean
from cairn.usecases.remember import remember as remember_on_store

from .backends import RECALL_IMPORTS
from .conftest import Clock

TEXT = (
    "deploy staging config cache warmup nightly rotate keys webhook payments retry queue "
    "ledger refund schema migration postgres render component gateway timeout proxy edge "
    "worker cron token session login checkout cart invoice export import backup restore "
    "index search shard replica latency budget alert pager oncall runbook flaky test ci"
)
WORDS = TEXT.split()
KINDS = ("fact", "decision", "preference", "lesson", "rule", "progress")


def sentence(rng: random.Random, i: int) -> str:
    words = rng.sample(WORDS, rng.randint(4, 9))
    if rng.random() < 0.3:
        words.append(f"module{i % 37}")
    return " ".join(words).capitalize() + "."


@pytest.fixture
def store_of(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[int], tuple[Cairn, Path, Path]]]:
    """A workspace of two projects (and workspace-wide memories), written over months."""
    monkeypatch.setattr(searching.KeywordCache, "KEEP_FROM", 50)
    monkeypatch.setattr(searching.KeywordCache, "SEGMENT_ROWS", 60)
    opened: list[Cairn] = []

    def build(n: int) -> tuple[Cairn, Path, Path]:
        home, here, there = tmp_path / "home", tmp_path / "here", tmp_path / "there"
        here.mkdir()
        there.mkdir()
        rng = random.Random(n)
        ws = cairn.open(home, project=here, cwd=here, tool="t", branch="", clock=clock)
        other = ws.using(project=str(there.resolve()), cwd=str(there))
        opened.append(ws)
        refs: list[str] = []
        for i in range(n):
            clock.advance(hours=rng.randint(1, 40))
            target = other if rng.random() < 0.25 else ws
            done = target.remember(
                sentence(rng, i),
                kind=rng.choice(KINDS),
                tags=rng.sample(WORDS, rng.randint(0, 2)),
                reason=" ".join(rng.sample(WORDS, 3)) if rng.random() < 0.5 else "",
                scope="workspace" if rng.random() < 0.05 else "project",
            )
            refs.append(done.ref)
        for ref in rng.sample(refs, n // 20):  # corrected and retired memories
            if rng.random() < 0.5:
                ws.correct(ref, sentence(rng, 0))
            else:
                ws.forget(ref)
        searching.refresh(ws.store, ws._lsa)  # every row in the kept files, LSA fitted
        return ws, home, here

    yield build
    for ws in opened:
        ws.close()


def queries(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = [" ".join(rng.sample(WORDS, rng.randint(1, 4))) for _ in range(n)]
    return [*out, "module3 deploy", "zzqx nothing here", "how do we rotate keys"]


def answer(recalled: searching.Recalled) -> list[tuple[str, float, bool]]:
    return [(h.ref, h.score, h.weak) for h in recalled.hits]


def test_lean_recall_answers_as_the_numpy_path(
    store_of: Callable[[int], tuple[Cairn, Path, Path]],
) -> None:
    ws, _, _ = store_of(600)
    lean = Lean.open(ws.store)
    assert lean is not None and lean.lsa is not None  # kept files cover every row; LSA on
    assert len(lean.segments) > 1  # the first kept segment and others after it
    compared = 0
    for q in queries(80):
        for kind, limit in ((None, None), (None, 25), ("decision", 8)):
            full = answer(ws.recall(q, kind=kind, limit=limit))
            got = answer(ws._recall(q, kind=kind, limit=limit, lean=Lean.open(ws.store)))
            assert [(r, w) for r, _, w in got] == [(r, w) for r, _, w in full], q
            assert [s for _, s, _ in got] == pytest.approx([s for _, s, _ in full], rel=1e-12)
            compared += len(full)
    assert compared > 1000


def test_lean_reads_as_many_fields_as_the_postings_hold() -> None:
    from cairn.core.rank.postings import FIELD_COUNT
    from cairn.usecases.recall.lean import FIELDS

    assert FIELDS == FIELD_COUNT == len(searching.FIELDS)


def test_lean_reads_the_rows_after_the_kept_files_from_the_store_as_the_numpy_path_does(
    store_of: Callable[[int], tuple[Cairn, Path, Path]], clock: Clock
) -> None:
    ws, _, _ = store_of(300)
    rng = random.Random(3)
    for i in range(40):  # fewer than SEGMENT_ROWS, written by a Cairn that did not index
        clock.advance(hours=1)
        writing.remember(ws.store, ws.ctx, sentence(rng, i), tags=["tail"], kind="decision")
    lean = Lean.open(ws.store)
    assert lean is not None and len(lean.segments) >= 2  # kept files and the tail
    for q in queries(40, seed=11):
        full = answer(ws.recall(q, limit=25))
        got = answer(ws._recall(q, limit=25, lean=Lean.open(ws.store)))
        assert [(r, w) for r, _, w in got] == [(r, w) for r, _, w in full], q
        assert [s for _, s, _ in got] == pytest.approx([s for _, s, _ in full], rel=1e-12)


def test_lean_answers_a_store_too_small_to_keep_files_as_the_numpy_path_does(
    tmp_path: Path, clock: Clock
) -> None:
    rng = random.Random(5)
    with cairn.open(tmp_path / "home", project=tmp_path, cwd=tmp_path, clock=clock) as ws:
        for i in range(120):
            clock.advance(hours=3)
            ws.remember(sentence(rng, i), tags=rng.sample(WORDS, 1))
        assert not list((tmp_path / "home").glob("recall-postings*"))
        for q in queries(40, seed=13):
            full = answer(ws.recall(q, limit=25))
            lean = Lean.open(ws.store)
            assert lean is not None
            got = answer(ws._recall(q, limit=25, lean=lean))
            assert [(r, w) for r, _, w in got] == [(r, w) for r, _, w in full], q
            assert [s for _, s, _ in got] == pytest.approx([s for _, s, _ in full], rel=1e-12)


def test_lean_leaves_a_long_run_of_unindexed_rows_to_the_numpy_path(
    store_of: Callable[[int], tuple[Cairn, Path, Path]],
) -> None:
    ws, _, _ = store_of(300)
    assert Lean.open(ws.store) is not None
    for i in range(searching.KeywordCache.SEGMENT_ROWS + 1):
        writing.remember(ws.store, ws.ctx, f"a memory no kept file holds yet {i}")
    assert Lean.open(ws.store) is None  # the numpy path indexes and keeps them
    ws.recall("memory kept file")
    assert Lean.open(ws.store) is not None


# -- the command line ------------------------------------------------------------------------
PROBE = """
import json, sys
from cairn.cli import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)))
sys.exit(code)
"""
CLICK = "import sys; from cairn.cli.app import cli; cli.main(args=sys.argv[1:], prog_name='cairn')"


def run(home: Path, project: Path, code: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "CAIRN_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        cwd=project,
        env=env,
        timeout=120,
        check=False,
    )


def test_cli_recall_json_prints_the_bytes_of_the_click_command_without_numpy_or_click(
    store_of: Callable[[int], tuple[Cairn, Path, Path]],
) -> None:
    _, home, project = store_of(400)
    for q, extra in [
        ("deploy staging config", ()),
        ("rotate keys nightly", ("--limit", "3")),
        ("payments retry queue", ("--kind", "decision")),
        ("zzqx nothing here", ()),
        ("module3", ("--json",)),  # `--json` twice: click's to parse
    ]:
        args = ["recall", q, "--json", *extra]
        lean = run(home, project, PROBE, *args)
        full = run(home, project, CLICK, *args)
        assert lean.returncode == full.returncode == 0
        assert lean.stdout == full.stdout
        loaded = set(json.loads(lean.stderr.decode().rsplit("\nMODULES ", 1)[1]))
        if extra != ("--json",):
            assert not {m.split(".")[0] for m in loaded} & {"numpy", "click", "rich"}
    assert json.loads(lean.stdout)["results"]


# What a new `cairn recall --json` process must not load: `dataclasses` and what it imports
# (inspect, with ast, dis and tokenize), ~7 ms of start-up, and ~12 ms more to define the
# dataclasses on the path. Its value classes are `cairn.core.value.Value` classes, and the kept
# files' `.npy` headers are read without `ast` (`recall.mapped._header_fields`).
NOT_ON_RECALL = {"dataclasses", "inspect", "ast", "dis", "tokenize"}


@RECALL_IMPORTS
def test_cli_recall_json_imports_no_dataclasses(
    store_of: Callable[[int], tuple[Cairn, Path, Path]],
) -> None:
    _, home, project = store_of(200)
    for args in (
        ["recall", "deploy staging config", "--json"],
        ["recall", "zzqx nothing here", "--json", "--limit", "3"],
        ["recall", "payments retry", "--json", "--kind", "decision"],
    ):
        lean = run(home, project, PROBE, *args)
        assert lean.returncode == 0, lean.stderr
        loaded = set(json.loads(lean.stderr.decode().rsplit("\nMODULES ", 1)[1]))
        assert "cairn.usecases.recall.lean" in loaded  # the lean path answered
        assert "cairn.core.models" in loaded
        assert not loaded & NOT_ON_RECALL, sorted(loaded & NOT_ON_RECALL)


@pytest.mark.parametrize(
    "args",
    [
        ["recall", "deploy", "--json", "--limit", "0"],
        ["recall", "deploy", "--json", "--kind", "nonsense"],
        ["recall", " ", "--json"],
    ],
)
def test_cli_recall_json_errors_are_one_line_with_the_click_command_s_exit_code(
    store_of: Callable[[int], tuple[Cairn, Path, Path]], args: list[str]
) -> None:
    _, home, project = store_of(60)
    lean = run(home, project, PROBE, *args)
    full = run(home, project, CLICK, *args)
    assert lean.returncode == full.returncode != 0
    message = lean.stderr.decode().rsplit("\nMODULES ", 1)[0]
    assert message == full.stderr.decode()
    assert message.startswith("cairn: ") and message.count("\n") == 1
    assert lean.stdout == full.stdout == b""


@pytest.mark.parametrize("damage", ["marked", "garbage line", "list deleted"])
def test_cli_recall_json_leaves_the_trigger_list_to_the_hook_call_after_it(
    store_of: Callable[[int], tuple[Cairn, Path, Path]], damage: str
) -> None:
    """A recall reads no trigger list, so its new process neither checks nor rebuilds it; the
    next hook call that could match still finds the damage and repairs the list."""
    from cairn.io import triggerlist

    ws, home, project = store_of(400)
    gate = ws.remember("Before a push run make check", when={"tool": "shell", "match": "git push"})
    listed, keys = triggerlist.list_path(home), triggerlist.keys_path(home)
    if damage == "marked":
        keys.write_bytes(b"!" + keys.read_bytes()[1:])
    elif damage == "garbage line":
        listed.write_bytes(listed.read_bytes() + b"garbage\n")
    else:
        listed.unlink()
    left = {p.name: p.read_bytes() for p in home.glob("triggers.*") if p.is_file()}
    assert triggerlist.diagnose(ws.store)

    recalled = run(home, project, PROBE, "recall", "deploy staging", "--json")
    assert recalled.returncode == 0 and json.loads(recalled.stdout)["results"]
    loaded = json.loads(recalled.stderr.decode().rsplit("\nMODULES ", 1)[1])
    assert "click" not in loaded  # the lean path answered
    # Nor was the list's module (or the folder move's, for a project whose key is its folder)
    # as much as imported.
    assert not {"cairn.io.triggerlist", "cairn.usecases.rekey"} & set(loaded)
    assert {p.name: p.read_bytes() for p in home.glob("triggers.*") if p.is_file()} == left

    data = json.dumps(
        {
            "session_id": "s",
            "cwd": str(project),
            "tool_name": "Bash",
            "tool_input": {"command": "git push origin main"},
        }
    ).encode()
    hook = subprocess.run(
        [sys.executable, "-m", "cairn.hooks.entry", "claude-code", "PreToolUse"],
        input=data,
        capture_output=True,
        env={**os.environ, "CAIRN_HOME": str(home)},
        cwd=project,
        timeout=120,
        check=False,
    )
    assert hook.returncode == 0
    assert triggerlist.diagnose(ws.store) == ""
    assert gate.ref in {e.ref for e in triggerlist.lines_of(home)}


def test_a_recall_only_open_brings_a_folder_move_it_made_into_the_trigger_list(
    tmp_path: Path, clock: Clock
) -> None:
    """The one write a recall's open may make itself (a project's memories moved from its
    folder to its key, `usecases.rekey`) is outside the list's after-write step: that open
    checks the list after all."""
    from cairn.io import triggerlist

    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(
        ["git", "-C", str(project), "remote", "add", "origin", "https://example.org/a/b.git"],
        check=True,
    )
    folder = str(project.resolve())
    with cairn.open(home, project=folder, cwd=project, clock=clock) as ws:
        # What an earlier Cairn wrote: the lesson under the project's folder, not its key.
        old = ws.using(project=folder)
        when = {"tool": "shell", "match": "git push"}
        remember_on_store(old.store, old.ctx, "Before a push run make check", when=when)
        assert triggerlist.diagnose(ws.store)  # written past the list, as such a store was
    with cairn.open(home, project=project, cwd=project, clock=clock, check_triggers=False) as ws:
        assert ws.ctx.project != folder  # the open moved the lesson to the key
        assert triggerlist.diagnose(ws.store) == ""


def test_a_segment_s_count_keys_unpack_to_its_field_counts(
    store_of: Callable[[int], tuple[Cairn, Path, Path]],
) -> None:
    """The one-key-per-posting read of a kept file's counts gives each posting's four counts."""
    ws, _, _ = store_of(400)
    lean = Lean.open(ws.store)
    assert lean is not None
    segment = lean.segments[0]
    assert segment.packed is not None  # one-byte counts, side by side: read as keys
    m = len(segment.rows_of)
    keys = segment.count_keys(0, m)
    assert [segment.unpack(k) for k in keys] == list(segment.field_counts(0, m))
    assert [segment.unpack(k) for k in segment.count_keys(3, 9)] == list(segment.field_counts(3, 9))


def test_a_new_recall_process_asks_git_only_after_the_branches_moved(
    tmp_path: Path, clock: Clock
) -> None:
    """Each `cairn recall` is a new process: the refs' stat fingerprint kept at the last look
    (with the learn state, per checkout) spares it the `git for-each-ref` until a branch moves."""
    import shutil

    home, project, bin_dir = tmp_path / "home", tmp_path / "proj", tmp_path / "bin"
    project.mkdir()
    bin_dir.mkdir()
    real = shutil.which("git")
    assert real is not None
    quiet = {"check": True, "capture_output": True}
    subprocess.run([real, "init", "-q", "-b", "main", str(project)], **quiet)  # type: ignore[call-overload]
    (project / "a.txt").write_text("a\n")
    for args in (
        ["add", "a.txt"],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "a"],
    ):
        subprocess.run([real, "-C", str(project), *args], **quiet)  # type: ignore[call-overload]
    with cairn.open(home, project=project, cwd=project, clock=clock) as ws:
        ws.remember("Deploys run on Tuesdays")
    log = tmp_path / "git.log"
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "CAIRN_HOME": str(home), "PATH": f"{bin_dir}:{os.environ['PATH']}"}

    def asked_git() -> bool:
        log.unlink(missing_ok=True)
        done = subprocess.run(
            [sys.executable, "-c", PROBE, "recall", "deploys", "--json"],
            capture_output=True,
            cwd=project,
            env=env,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0 and b"Tuesdays" in done.stdout, done.stderr
        return log.exists() and "for-each-ref" in log.read_text()

    assert asked_git()  # the first look
    assert not asked_git()  # nothing moved: the kept fingerprint answers
    assert not asked_git()
    subprocess.run([real, "-C", str(project), "branch", "feature"], **quiet)  # type: ignore[call-overload]
    assert asked_git()  # a branch moved
    assert not asked_git()
