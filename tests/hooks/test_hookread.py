"""The hook's own store reader decides exactly as the full store does, and steps aside when
the full store has work to do first."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

import cairn
from cairn.core.context import Context
from cairn.core.lessons.prefilter import Entry
from cairn.io.store.hookread import HookStore, SessionRow
from cairn.io.store.sqlite import SqliteStore
from cairn.io.triggerlist import entries_for
from cairn.usecases.calls import Call, lessons_for
from tests import backends as sqlite_only


def _decide(store: object, ctx: Context, call: Call, entries: list[Entry]) -> dict[str, object]:
    decision = lessons_for(store, ctx, call, entries, gates=True)  # type: ignore[arg-type]
    return {
        "fired": [(f.memory.ref, f.channel, f.why, f.gate) for f in decision.fired],
        "gated": [(f.memory.ref, f.channel, f.why) for f in decision.gated],
        "matched": sorted(f.memory.ref for f in decision.matched),
        "skipped": decision.skipped,
        "actions": decision.actions,
    }


def _store(home: Path) -> dict[str, str]:
    project = home.parent / "proj"
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        return {
            "push": ws.remember(
                "Before a push, run make check", when={"tool": "shell", "match": "git push"}
            ).ref,
            "stash": ws.remember(
                "Stash with a message", when={"tool": "shell", "match": "git stash"}, gate=True
            ).ref,
            "rule": ws.remember("Commit messages are one line", tags=["trigger:git-commit"]).ref,
            "read": ws.remember("Generated schema", when={"tool": "read", "path": "db/**"}).ref,
        }


@sqlite_only.HOOK_IMPORTS
@pytest.mark.parametrize(
    "call",
    [
        Call("shell", "git push origin main"),
        Call("shell", "git stash"),
        Call("shell", "cd x && git commit -m wip"),
        Call("read", paths=("db/schema.sql",)),
        Call("shell", "ls"),
    ],
)
def test_the_hook_reader_decides_as_the_full_store(home: Path, project: Path, call: Call) -> None:
    _store(home)
    full = _full(home)
    try:
        entries = [e for m in full.trigger_memories() for e in entries_for(m)]
    finally:
        full.close()
    answers = []
    # Each store in its own session, twice: the second call sees what the first recorded.
    for session, opened in (("s-full", _full(home)), ("s-hook", HookStore.open(str(home), 300))):
        assert opened is not None
        ctx = Context(
            project=str(project),
            root=str(project),
            cwd=str(project),
            tool="claude-code",
            session=session,
        )
        try:
            first = _decide(opened, ctx, call, entries)
            second = _decide(opened, ctx, call, entries)
        finally:
            opened.close()
        answers.append((first, second))
    assert answers[0] == answers[1]


def _full(home: Path) -> SqliteStore:
    return SqliteStore(home, create=False)


@sqlite_only.HOOK_IMPORTS
def test_what_the_hook_reader_writes_the_full_store_reads(home: Path, project: Path) -> None:
    refs = _store(home)
    reader = HookStore.open(str(home), 300)
    assert reader is not None
    try:
        row = SessionRow(
            "s1", "codex", str(project), "main", str(project), "2026-01-01T00:00:00Z", None
        )
        assert reader.session_changes(row)
        reader.write_session(row)
        assert not reader.session_changes(row)
        reader.record_offers("s1", [refs["push"]], "lesson", "codex", "2026-01-01T00:00:01Z")
        assert reader.claim_gates(
            "s1", [refs["stash"]], "codex", "git stash", "2026-01-01T00:00:02Z"
        ) == [refs["stash"]]
        assert (
            reader.claim_gates("s1", [refs["stash"]], "codex", "git stash", "2026-01-01T00:00:03Z")
            == []
        )
    finally:
        reader.close()
    full = _full(home)
    try:
        assert full.get_session("s1") == row
        assert full.offered("s1", ("lesson",)) == {refs["push"]}
        assert full.offered("s1", ("gate",)) == {refs["stash"]}
        assert full.gates_waiting("s1") == {refs["stash"]}
    finally:
        full.close()


@sqlite_only.HOOK_IMPORTS
def test_the_hook_reader_steps_aside_for_the_full_store(
    home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert HookStore.open(str(home), 300) is None  # no store yet
    _store(home)
    opened = HookStore.open(str(home), 300)
    assert opened is not None
    opened.close()
    monkeypatch.setenv("CAIRN_DATABASE_URL", "postgresql://nobody@127.0.0.1/none")
    assert HookStore.open(str(home), 300) is None  # PostgreSQL: the full store
    monkeypatch.delenv("CAIRN_DATABASE_URL")
    os.chmod(home, 0o755)
    assert HookStore.open(str(home), 300) is None  # the full store makes the folder private
    os.chmod(home, 0o700)
    conn = sqlite3.connect(home / "cairn.db")
    conn.execute("PRAGMA user_version = 3")
    conn.close()
    assert HookStore.open(str(home), 300) is None  # the full store migrates it first
