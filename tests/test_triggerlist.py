"""The trigger list beside the store: a function of the store, kept by one after-write step."""

from __future__ import annotations

import fcntl
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cairn
from cairn.api import Cairn
from cairn.core.errors import TriggerError
from cairn.core.lessons.prefilter import Entry, token
from cairn.io import triggerlist
from cairn.usecases.calls import TRIGGER_SKIPPED, Call
from cairn.usecases.remember import remember as remember_on_store
from tests import backends as sqlite_only


def lines(ws: Cairn) -> list[Entry]:
    return triggerlist.lines_of(ws.home)


def wanted(ws: Cairn) -> set[Entry]:
    return {e for m in ws.store.trigger_memories() for e in triggerlist.entries_for(m)}


def header_token(ws: Cairn) -> str:
    return triggerlist.keys_path(ws.home).read_text().splitlines()[0][1:]


def test_a_new_lesson_rule_or_citation_is_appended(ws: Cairn, project: Path) -> None:
    (project / "a.py").write_text("x = 1\n")
    lesson = ws.remember("gate", when={"tool": "shell", "match": "git push"}).ref
    rule = ws.remember("one line", tags=["trigger:git-commit"]).ref
    cited = ws.remember("a holds x", source_ref="a.py").ref
    ws.remember("a plain fact")
    kinds = {(e.kind, e.ref) for e in lines(ws)}
    assert kinds == {("shell", lesson), ("action", rule), ("cited", cited)}


def test_correct_forget_and_restore_keep_the_list(ws: Cairn) -> None:
    old = ws.remember("gate", when={"tool": "shell", "match": "git push"}).ref
    new = ws.correct(old, "run the full gate").ref
    assert [e.ref for e in lines(ws)] == [new]
    ws.forget(new)
    assert lines(ws) == []
    ws.restore(new)
    assert [e.ref for e in lines(ws)] == [new]


def test_a_workspace_lesson_is_listed_for_every_project(ws: Cairn) -> None:
    ws.remember("gate", when={"tool": "shell", "match": "git push"}, scope="workspace")
    assert [e.project for e in lines(ws)] == ["*"]


def test_the_header_names_the_store_generation(ws: Cairn) -> None:
    assert header_token(ws) == token(*ws.store.trigger_generation())  # written at open
    before = ws.store.trigger_generation()
    ws.remember("a plain fact moves nothing")
    ws.pin(ws.remember("another plain fact").ref)
    assert ws.store.trigger_generation() == before
    ws.remember("gate", when={"tool": "shell", "match": "git push"})
    store_id, generation = ws.store.trigger_generation()
    assert generation == before[1] + 1
    assert header_token(ws) == token(store_id, generation)
    assert (
        triggerlist.list_path(ws.home)
        .read_text()
        .splitlines()[0]
        .endswith(" " + token(store_id, generation))
    )


def test_rebuild_matches_the_store(ws: Cairn) -> None:
    for i in range(5):
        ws.remember(f"lesson {i}", when={"tool": "edit", "path": f"src/m{i}/**"})
    before = sorted(e.to_line() for e in lines(ws))
    triggerlist.list_path(ws.home).write_text("garbage\n")
    assert ws.rebuild_triggers() == 5
    assert sorted(e.to_line() for e in lines(ws)) == before


def test_remember_many_and_import_rules_refresh_the_list(ws: Cairn, tmp_path: Path) -> None:
    from cairn.usecases.rulesfiles import import_rules

    done = ws.remember_many(
        [
            {"text": f"lesson {i}", "when": {"tool": "shell", "match": f"make t{i}"}}
            for i in range(3)
        ]
    )
    rules = tmp_path / "AGENTS.md"
    rules.write_text("---\nglobs: db/**\n---\n- Migrations are append-only\n", encoding="utf-8")
    imported = import_rules(ws, [rules])
    refs = {d.ref for d in done} | {i.ref for i in imported.items}
    assert {e.ref for e in lines(ws)} == refs
    assert set(lines(ws)) == wanted(ws)


def test_tidy_merge_refreshes_the_list_once_after_its_transaction(ws: Cairn) -> None:
    from cairn.usecases import tidy

    ws.remember("Run make check before a push", when={"tool": "shell", "match": "git push"})
    ws.remember("Run make check before every push")
    merges = [p for p in tidy.proposals(ws) if p.action == "merge"]
    assert merges
    tidy.accept(ws, merges[0].id)
    assert set(lines(ws)) == wanted(ws) and len(wanted(ws)) == 1
    assert header_token(ws) == token(*ws.store.trigger_generation())


def test_an_import_writes_the_list(
    ws: Cairn, open_ws: Callable[..., Cairn], tmp_path: Path
) -> None:
    ref = ws.remember("gate", when={"tool": "shell", "match": "git push"}).ref
    exported = list(ws.export())
    with cairn.open(tmp_path / "other", project=ws.ctx.project, cwd=ws.ctx.project) as other:
        other.import_(exported)
        assert [(e.kind, e.ref) for e in lines(other)] == [("shell", ref)]
        assert other.lessons_for(Call("shell", "git push"), record=False).fired


def _join(thread: threading.Thread, seconds: float) -> None:
    """`thread.join(timeout=seconds)` by polling: a timed lock wait under faketime (which
    `make test-future` uses) can wait for the faked year, while `time.sleep` keeps time."""
    deadline = time.monotonic() + seconds
    while thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_rewrite_reads_the_store_inside_the_lock(
    ws: Cairn, open_ws: Callable[..., Cairn], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A forget rewrites the list. While it reads the store, another writer saves a lesson: its
    # line must be in the list at the end, whoever writes last.
    gone = ws.remember("old gate", when={"tool": "shell", "match": "git pull"}).ref
    other = open_ws(tool="codex")
    added: list[str] = []
    real = ws.store.trigger_memories

    def read_then_let_another_writer_in() -> list:  # type: ignore[type-arg]
        found = real()
        if not added:
            writer = threading.Thread(
                target=lambda: added.append(
                    other.remember("new gate", when={"tool": "shell", "match": "git push"}).ref
                )
            )
            writer.start()
            # Without the lock held here, the writer commits and appends now; with it, it
            # waits for the rewrite to finish. Either way, it is let run for a moment.
            _join(writer, 0.5)
            threads.append(writer)
        return found

    threads: list[threading.Thread] = []
    monkeypatch.setattr(ws.store, "trigger_memories", read_then_let_another_writer_in)
    ws.forget(gone)
    for thread in threads:
        _join(thread, 60)
    assert added and {e.ref for e in lines(ws)} == {added[0]}


def test_a_commit_the_list_missed_is_repaired_by_the_next_open(
    ws: Cairn, home: Path, project: Path
) -> None:
    # What a writer killed between its COMMIT and the list's refresh leaves: the lesson in the
    # store, not in the list.
    ref = remember_on_store(
        ws.store, ws.ctx, "gate", when={"tool": "shell", "match": "git push"}
    ).ref
    assert ref not in {e.ref for e in lines(ws)}
    with cairn.open(home, project=project, cwd=project) as again:
        assert {e.ref for e in lines(again)} == {ref}
        assert triggerlist.diagnose(again.store) == ""


@pytest.mark.parametrize(
    "damage",
    ["list deleted", "keys deleted", "list truncated", "garbage line", "not utf-8", "marked"],
)
def test_a_damaged_list_is_rewritten_by_the_next_open(
    ws: Cairn, home: Path, project: Path, damage: str
) -> None:
    refs = {
        ws.remember(f"gate {i}", when={"tool": "shell", "match": f"make g{i}"}).ref
        for i in range(3)
    }
    listed, keys = triggerlist.list_path(home), triggerlist.keys_path(home)
    if damage == "list deleted":
        listed.unlink()
    elif damage == "keys deleted":
        keys.unlink()
    elif damage == "list truncated":
        listed.write_bytes(listed.read_bytes()[:-30])
    elif damage == "garbage line":
        listed.write_bytes(listed.read_bytes() + b"garbage\n")
    elif damage == "not utf-8":
        data = listed.read_bytes().split(b"\n")
        data[2] = b"\xff\xfe\t\t\t\t\t"
        listed.write_bytes(b"\n".join(data))
    else:
        keys.write_bytes(b"!" + keys.read_bytes()[1:])
    assert triggerlist.diagnose(ws.store)
    with cairn.open(home, project=project, cwd=project) as again:
        assert {e.ref for e in lines(again)} == refs
        assert triggerlist.diagnose(again.store) == ""


@sqlite_only.TWO_STORES
def test_a_list_left_by_another_store_is_not_taken_for_this_one(
    home: Path, project: Path, tmp_path: Path
) -> None:
    with cairn.open(home, project=project, cwd=project) as ws:
        ws.remember("gate", when={"tool": "shell", "match": "git push"})
    saved = {p.name: p.read_bytes() for p in home.glob("triggers.*")}
    for name in ("cairn.db", "cairn.db-wal", "cairn.db-shm"):
        (home / name).unlink(missing_ok=True)
    with cairn.open(home, project=project, cwd=project) as fresh:
        for name, data in saved.items():
            (home / name).write_bytes(data)  # the old store's list, as if never removed
        assert "another store" in triggerlist.diagnose(fresh.store)
    with cairn.open(home, project=project, cwd=project) as fresh:
        assert lines(fresh) == []


LIST_TYPED = '{"tool": "shell", "match": ["git push"]}'


def test_a_list_typed_match_does_not_silence_other_lessons(ws: Cairn) -> None:
    good = ws.remember("Before a push, run make check", when={"tool": "shell", "match": "git push"})
    bad = ws.remember("Pushes need a ticket", when={"tool": "shell", "match": "git pull"}).ref
    # What a store written by an older Cairn, or edited by hand, may hold (an import refuses
    # it now): a list where the regex goes. The edit moves the generation: the next check
    # rewrites the list.
    ws.store.conn.execute("UPDATE memories SET when_json = ? WHERE ref = ?", (LIST_TYPED, bad))
    assert ws.check_triggers() == "repaired"
    assert {e.ref for e in lines(ws)} == {good.ref}  # the bad trigger has no line
    log = (ws.home / "hook-errors.log").read_text()
    assert bad in log and "not a regex" in log
    decision = ws.lessons_for(Call("shell", "git push origin main"), record=False)
    assert [f.memory.ref for f in decision.fired] == [good.ref]
    # A line for it from an older list reaches the matcher: skipped, and the others still fire.
    stale = [*triggerlist.entries_for(ws.store.get_memory(good.ref))]
    stale.append(Entry("shell", bad, ws.ctx.project, (), "*"))
    from cairn.usecases.calls import lessons_for

    decision = lessons_for(ws.store, ws.ctx, Call("shell", "git push"), stale, record=False)
    assert [f.memory.ref for f in decision.fired] == [good.ref]
    assert decision.skipped[bad].startswith(TRIGGER_SKIPPED)


def test_a_malformed_when_object_reads_as_a_trigger_that_cannot_match(ws: Cairn) -> None:
    good = ws.remember("gate", when={"tool": "shell", "match": "git push"}).ref
    bad = ws.remember("other gate", when={"tool": "shell", "match": "git pull"}).ref
    ws.store.conn.execute("UPDATE memories SET when_json = '[1, 2]' WHERE ref = ?", (bad,))
    memories = {m.ref: m for m in ws.store.trigger_memories()}
    assert memories[bad].when is not None and memories[bad].when.problem()
    ws.rebuild_triggers()
    assert {e.ref for e in lines(ws)} == {good}


def test_writing_inside_a_transaction_is_refused(ws: Cairn) -> None:
    with pytest.raises(RuntimeError), ws.store.transaction():
        ws.remember("a fact")


def test_a_reader_does_not_wait_for_a_writer(ws: Cairn, home: Path, project: Path) -> None:
    remember_on_store(ws.store, ws.ctx, "gate", when={"tool": "shell", "match": "git push"})
    fd = os.open(home / "triggers.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a writer at work
        assert ws.triggers.ensure() == "busy"
        with cairn.open(home, project=project, cwd=project):
            pass  # opens without waiting
    finally:
        os.close(fd)
    assert ws.triggers.ensure() == "repaired"
    assert ws.triggers.ensure() == "current"


@sqlite_only.FILE
def test_the_hook_opens_the_database_only_when_something_could_match(
    ws: Cairn,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io

    from cairn.hooks import entry

    ws.remember("gate", when={"tool": "shell", "match": "git push"})
    ws.close()
    (ws.home / "cairn.db").write_bytes(b"corrupt" * 1000)  # opening it would fail and log
    for name in ("cairn.db-wal", "cairn.db-shm"):
        (ws.home / name).unlink(missing_ok=True)
    for command, logged in (("ls -la", False), ("git push", True)):
        data = json.dumps(
            {
                "session_id": "s",
                "cwd": str(project),
                "tool_name": "Bash",
                "tool_input": {"command": command},
            }
        ).encode()

        class Stdin:
            buffer = io.BytesIO(data)

        monkeypatch.setattr(sys, "stdin", Stdin)
        assert entry.main(["claude-code", "PreToolUse"]) == 0
        assert capsys.readouterr().out == ""
        assert (ws.home / "hook-errors.log").exists() is logged


# -- the list is a function of the store, whatever happened --------------------------------------

KINDS_OF_MEMORY = ("shell", "read", "rule", "cited", "fact", "workspace")
CRASHES = (
    "commit, no refresh",
    "commit, killed before refresh",
    "list deleted",
    "keys deleted",
    "list truncated",
    "garbage appended",
    "garbage list",
)
step = st.one_of(
    st.tuples(st.just("remember"), st.sampled_from(KINDS_OF_MEMORY)),
    st.tuples(st.sampled_from(("correct", "forget", "restore", "import")), st.integers(0, 50)),
    st.tuples(st.just("hand edit"), st.integers(0, 50)),
    st.tuples(st.just("crash"), st.sampled_from(CRASHES)),
)


def _fields(kind: str, n: int) -> dict[str, object]:
    if kind == "shell":
        return {"when": {"tool": "shell", "match": f"make target{n}"}}
    if kind == "read":
        return {"when": {"tool": "read", "path": f"docs/area{n}/*.md"}}
    if kind == "rule":
        return {"tags": [f"trigger:git-commit{'' if n % 2 else '-amend'}"]}
    if kind == "cited":
        return {"source_ref": f"src/m{n}.py"}
    if kind == "workspace":
        return {"when": {"tool": "edit", "path": f"svc{n}/**"}, "scope": "workspace"}
    return {}


def _in_step(ws: Cairn) -> bool:
    return sorted(map(Entry.to_line, lines(ws))) == sorted(map(Entry.to_line, wanted(ws)))


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=14), cut=st.integers(1, 400))
def test_after_any_writes_and_crashes_the_next_reader_sees_the_store(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, object]], cut: int
) -> None:
    home = tmp_path_factory.mktemp("home")
    project = tmp_path_factory.mktemp("proj")
    ws = cairn.open(home, project=project, cwd=project, tool="cli")
    crashed = damaged = False
    try:
        for n, (op, arg) in enumerate(steps):
            current = ws.store.list_memories(project=ws.ctx.project)
            retired = ws.store.list_memories(project=ws.ctx.project, status="retired")
            if op == "remember":
                ws.remember(f"memory number {n}", **_fields(str(arg), n))  # type: ignore[arg-type]
            elif op == "correct" and current:
                target = current[int(arg) % len(current)]
                if target.when is not None and target.when.problem():
                    with pytest.raises(TriggerError):  # it needs a new `when`
                        ws.correct(target.ref, f"corrected number {n}")
                    continue
                ws.correct(target.ref, f"corrected number {n}")
            elif op == "forget" and current:
                ws.forget(current[int(arg) % len(current)].ref)  # type: ignore[call-overload]
            elif op == "restore" and retired:
                ws.restore(retired[int(arg) % len(retired)].ref)  # type: ignore[call-overload]
            elif op == "import":
                record = {
                    "type": "memory",
                    "ref": f"m-{n:06x}",
                    "text": f"imported number {n}",
                    "kind": "lesson",
                    "project": ws.ctx.project,
                    "written": "2026-11-01T12:00:00.000000Z",
                    "when": {"tool": "shell", "match": f"git tag v{arg}"},
                }
                ws.import_([json.dumps(record)])
            elif op == "hand edit" and current:
                # A list-typed match written by hand: the generation moves, the list does not.
                ref = current[int(arg) % len(current)].ref
                ws.store.conn.execute(
                    "UPDATE memories SET when_json = ? WHERE ref = ?", (LIST_TYPED, ref)
                )
                crashed = True
                continue
            elif op == "crash":
                crashed = True
                damaged = damaged or not str(arg).startswith("commit")
                _crash(ws, str(arg), n, cut)
                continue
            else:
                continue
            # A write through the API leaves the list in step after any commit it missed; a
            # file damaged in place may need a reader's line-by-line check (below).
            assert damaged or _in_step(ws), (op, arg)
        if not crashed:
            assert triggerlist.diagnose(ws.store) == ""
    finally:
        ws.close()
    with cairn.open(home, project=project, cwd=project) as reader:
        assert _in_step(reader)
        assert triggerlist.diagnose(reader.store) == ""


def _crash(ws: Cairn, how: str, n: int, cut: int) -> None:
    listed, keys = triggerlist.list_path(ws.home), triggerlist.keys_path(ws.home)
    if how.startswith("commit"):
        if how.endswith("killed before refresh") and keys.exists():
            keys.write_bytes(b"!" + keys.read_bytes()[1:])  # the mark a writer leaves
        remember_on_store(ws.store, ws.ctx, f"crashed number {n}", **_fields("shell", n))  # type: ignore[arg-type]
    elif how == "list deleted":
        listed.unlink(missing_ok=True)
    elif how == "keys deleted":
        keys.unlink(missing_ok=True)
    elif how == "list truncated" and listed.exists():
        data = listed.read_bytes()
        listed.write_bytes(data[: max(0, len(data) - cut)])
    elif how == "garbage appended" and listed.exists():
        listed.write_bytes(listed.read_bytes() + b"\x00garbage\tline\n")
    elif how == "garbage list":
        listed.write_bytes(os.urandom(cut))


@sqlite_only.RAW_LOG
def test_a_list_further_behind_than_the_kept_changes_is_rewritten(ws: Cairn) -> None:
    ref = ws.remember("gate", when={"tool": "shell", "match": "git push"}).ref
    _, listed_at = ws.store.trigger_generation()
    with ws.store.transaction():  # 1,300 changes, as many writes elsewhere would log
        ws.store.conn.executemany(
            "INSERT INTO trigger_changes (ref, op) VALUES (?, 'add')", [("m-000000",)] * 1300
        )
    assert ws.store.trigger_changes(listed_at) is None  # the oldest are no longer kept
    assert ws.check_triggers() == "repaired"
    assert {e.ref for e in lines(ws)} == {ref}
    assert triggerlist.diagnose(ws.store) == ""


def test_a_write_the_list_cannot_follow_says_so_and_the_hook_asks_the_store(
    ws: Cairn, home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from click.testing import CliRunner

    from cairn.cli import cli
    from cairn.core.errors import StoreError
    from cairn.hooks.fastpath import call_part, candidates
    from cairn.io.triggerlist import files

    ws.remember("Images are built by CI only", when={"tool": "shell", "match": "docker push"})

    def full(path: str, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", path)

    monkeypatch.setattr(files, "append_bytes", full)  # the disk fills between COMMIT and list
    with pytest.raises(StoreError, match="cairn lessons rebuild") as caught:
        ws.remember("Before a push, run make check", when={"tool": "shell", "match": "git push"})
    assert caught.value.cause == "full" and "is stored" in str(caught.value)
    (ref,) = [m.ref for m in ws.store.trigger_memories() if "push, run" in m.text]
    # The keys file keeps its `!`: the hook does not trust the list and asks the store.
    data = json.dumps({"tool_name": "Bash", "tool_input": {"command": "git push"}}).encode()
    assert candidates(str(home), call_part(data)) == (None, "")
    monkeypatch.chdir(project)
    ran = CliRunner().invoke(
        cli,
        [
            "remember",
            "Tags need a changelog line",
            "--when",
            '{"tool": "shell", "match": "git tag"}',
        ],
    )
    assert ran.exit_code == 6 and "Traceback" not in ran.output
    assert len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    monkeypatch.undo()
    assert ws.check_triggers() == "repaired"
    assert ref in {e.ref for e in lines(ws)}
