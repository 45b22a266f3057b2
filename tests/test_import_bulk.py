"""The bulk import (a block of memories in one statement) leaves the store exactly as the
per-memory import it replaced: the same rows, refs, history, counts, trigger changes, evidence,
sessions and progress, and the same trigger list and recall.

`_import_one_by_one` is `cairn.usecases.transfer.import_lines` as it was before the bulk path (every
memory checked, analysed and inserted through `Store.load_memory` as its line was read); both
run on the same export, into an empty store and into one that holds part of it already, with
small blocks so that a history, a duplicate line or an event crosses a block's edge.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cairn
from cairn.api import Cairn
from cairn.core.errors import ImportRefusedError, RefusedError
from cairn.io.store.protocol import Store
from cairn.usecases import transfer
from cairn.usecases.remember import folded_sentence, index_text
from cairn.usecases.transfer import fields as field_checks
from cairn.usecases.transfer import importing, records

WORDS = [
    "deploy",
    "cache",
    "redis",
    "invoice",
    "parser",
    "branch",
    "release",
    "migration",
    "schema",
    "token",
    "rotate",
    "queue",
    "worker",
    "retry",
    "backoff",
    "ledger",
    "export",
    "import",
    "review",
    "merge",
    "revert",
    "gate",
    "lesson",
    "rule",
    "build",
    "docker",
    "image",
    "lint",
    "format",
    "test",
    "fixture",
    "clock",
    "timezone",
    "locale",
    "render",
    "template",
    "route",
]
TABLES = {
    "memories": "id",
    "memory_tags": "memory_id, tag",
    "memory_counts": "project, scope",
    "index_stats": "name",
    "trigger_changes": "gen",
    "evidence": "id",
    "sessions": "id",
    "progress": "id",
    "acts": "aid",
    "act_sessions": "aid, session",
}


def _import_one_by_one(store: Store, lines: Iterable[str]) -> transfer.Imported:
    """`import_lines` before the bulk path: each memory written as its line is read."""
    counts = dict.fromkeys(("read", "memories", "acts", "events", "sessions", "progress"), 0)
    refusals: list[str] = []
    refs: set[str] = set()
    with store.transaction():
        for block in importing._blocks(importing._numbered(lines, refusals)):
            unchanged = store.unchanged_memories([line for _, line in block])
            refs.update(unchanged.values())
            counts["read"] += len(unchanged)
            pending = [
                (number, importing._loaded(line))
                for k, (number, line) in enumerate(block)
                if k not in unchanged
            ]
            stored = store.memory_records(importing._memory_refs(pending))
            for number, parsed in pending:
                label = ""
                try:
                    record = parsed if isinstance(parsed, dict) else importing._parse(parsed)
                    counts["read"] += 1
                    ref = record.get("ref")
                    if isinstance(ref, str) and importing._same(record, stored.get(ref)):
                        refs.add(ref)
                        continue
                    kind = record.pop("type")
                    label = importing._label_of(kind, record)
                    if kind == "cairn-export":
                        field_checks.checked_fields(kind, record, records.HEADER)
                        continue
                    checked = records.CHECKS[kind](record, store, refs)
                except RefusedError as exc:
                    refusals.append(f"line {number}{label}: {importing._refused(str(exc))}")
                    continue
                if not refusals:
                    counts[records.COUNTED[kind]] += _write_one(store, kind, checked)
        if refusals:
            raise ImportRefusedError(refusals)
    return transfer.Imported(**counts)


def _write_one(store: Store, kind: str, checked: Any) -> int:
    if kind == "memory":
        if store.has_memory(checked["ref"]):
            return 0
        index = index_text(
            checked["text"], checked["tags"], checked["source_ref"], checked["reason"]
        )
        return int(store.load_memory(checked, folded_sentence(checked["text"]), index))
    return importing._write(store, kind, checked)


def _old_import(ws: Cairn, lines: list[str]) -> transfer.Imported:
    """`Cairn.import_` with the per-memory path."""
    from cairn.usecases import recall as searching

    with ws.triggers.writing():
        done = _import_one_by_one(ws.store, lines)
    searching.refresh(ws.store, ws._lsa)
    return done


def _state(ws: Cairn) -> dict[str, Any]:
    """Everything an import writes, as rows, plus the trigger list and what recall finds."""
    conn = ws.store.conn
    out: dict[str, Any] = {
        table: conn.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
        for table, order in TABLES.items()
    }
    # Each store has its own id, which heads its trigger list: the generation stays.
    out["trigger list"] = sorted(
        (p.name, re.sub(rb"gen:[0-9a-f]+-", b"gen:", p.read_bytes()))
        for p in ws.home.glob("triggers.*")
        if p.name != "triggers.lock"
    )
    refs = [r[0] for r in conn.execute("SELECT ref FROM memories ORDER BY id")]
    out["get_memory"] = [ws.get_memory(refs[i : i + 100]) for i in range(0, len(refs), 100)]
    out["recall"] = [
        [(h.ref, round(h.score, 9)) for h in ws.recall(word, limit=25).hits] for word in WORDS[:8]
    ]
    return out


def _varied_store(ws: Cairn, other: Cairn, rng: random.Random, n: int) -> None:
    """n varied memories over two projects: kinds, tags, rules, lessons (some gates), pinned,
    workspace scope, citations, corrections (history), forgotten and restored ones, evidence
    from another tool and citations, sessions and progress."""
    refs: list[str] = []
    for i in range(n):
        at = ws if i % 3 else other
        text = " ".join(rng.sample(WORDS, rng.randint(2, 6))) + f" number {i}"
        fields: dict[str, Any] = {"kind": rng.choice(["fact", "decision", "preference"])}
        roll = rng.random()
        if roll < 0.12:
            fields = {"kind": "lesson", "when": _when(rng, i), "gate": rng.random() < 0.3}
        elif roll < 0.18:
            fields = {"kind": "rule", "tags": ["trigger:git-commit"], "gate": rng.random() < 0.5}
        elif roll < 0.24:
            fields["source_ref"] = f"src/mod{i % 7}.py:{i % 40 + 1}-{i % 40 + 5}"
        if rng.random() < 0.3:
            fields["tags"] = [*fields.get("tags", []), *rng.sample(WORDS, rng.randint(1, 3))]
        if rng.random() < 0.15:
            fields["scope"] = "workspace"
        if rng.random() < 0.1:
            fields["pinned"] = True
        if rng.random() < 0.2:
            fields["reason"] = "because " + " ".join(rng.sample(WORDS, 4))
        if refs and rng.random() < 0.2:
            fields["used"] = rng.sample(refs, 1)
        done = at.remember(text, **fields)
        if done.outcome != "new":
            continue
        refs.append(done.ref)
        roll = rng.random()
        if roll < 0.15:
            refs.append(at.correct(done.ref, text + " corrected").ref)
        elif roll < 0.22:
            at.forget(done.ref)
            if rng.random() < 0.3:
                at.restore(done.ref)
        elif roll < 0.3:
            at.using(tool="gemini", session=f"g{i % 4}").confirm(done.ref)
        elif roll < 0.33:
            at.contradict(done.ref)
        if i % 25 == 0:
            at.log_mission_progress("scale the import", f"step {i}", "open")


def _when(rng: random.Random, i: int) -> dict[str, str]:
    tool = rng.choice(["shell", "read", "edit"])
    if tool == "shell":
        return {"tool": "shell", "match": f"make target{i}"}
    return {"tool": tool, "path": f"services/svc{i}/**"}


def _source_lines(tmp: Path, n: int, seed: int) -> tuple[list[str], Path, Path]:
    home, one, two = tmp / "source", tmp / "one", tmp / "two"
    for folder in (one, two):
        (folder / "src").mkdir(parents=True)
        for k in range(7):
            (folder / "src" / f"mod{k}.py").write_text("".join(f"x{j} = {j}\n" for j in range(60)))
    rng = random.Random(seed)
    with (
        cairn.open(home, project=one, cwd=one, tool="codex", session="s1") as ws,
        cairn.open(home, project=two, cwd=two, tool="claude-code", session="s2") as other,
    ):
        _varied_store(ws, other, rng, n)
        return list(ws.export()), one, two


def _both(tmp: Path, lines: list[str], project: Path, head: int = 0) -> tuple[Any, Any]:
    """(state, counts) after the old and the new import of `lines`, each into a store that
    first took the first `head` lines through the old path."""
    out = []
    for name, bulk in (("old", False), ("new", True)):
        with cairn.open(tmp / name, project=project, cwd=project, tool="codex") as ws:
            if head:
                _old_import(ws, lines[:head])
            counts = ws.import_(lines) if bulk else _old_import(ws, lines)
            out.append((_state(ws), counts))
    return out[0], out[1]


@pytest.mark.parametrize("block", [1000, 7])
def test_bulk_import_leaves_the_store_the_per_memory_import_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    monkeypatch.setattr(transfer, "BLOCK", block)
    lines, one, _ = _source_lines(tmp_path, 300, seed=21)
    kinds = {json.loads(ln)["type"] for ln in lines}
    assert kinds >= {"memory", "evidence", "session", "progress"}
    memories = [json.loads(ln) for ln in lines if '"type":"memory"' in ln]
    assert {m["status"] for m in memories} == {"active", "superseded", "retired"}
    assert any(m["when"] for m in memories) and any(m["gate"] for m in memories)
    assert {m["scope"] for m in memories} == {"project", "workspace"}
    assert len({m["project"] for m in memories}) == 2
    (old, old_counts), (new, new_counts) = _both(tmp_path, lines, one)
    assert new_counts == old_counts
    assert new_counts.memories == len(memories)
    assert new == old


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10**6),
    block=st.integers(1, 40),
    head=st.integers(0, 60),
    shuffled=st.booleans(),
    doubled=st.lists(st.integers(0, 200), max_size=4),
)
def test_bulk_and_per_memory_imports_agree_on_any_file(
    tmp_path_factory: pytest.TempPathFactory,
    seed: int,
    block: int,
    head: int,
    shuffled: bool,
    doubled: list[int],
) -> None:
    """Any block size, a store holding part of the file, memory lines out of order, a
    memory line repeated with another sentence (the first kept): the same store either way,
    or the same refusals."""
    tmp = tmp_path_factory.mktemp("bulk")
    lines, one, _ = _source_lines(tmp, 40, seed)
    rng = random.Random(seed)
    body = lines[1:]
    if shuffled:
        rng.shuffle(body)  # an event may now come before its memory: refused by both
    for k in doubled:
        line = body[k % len(body)]
        if '"type":"memory"' in line:
            record = json.loads(line)
            record["text"] += " restated"
            body.insert(rng.randrange(len(body) + 1), json.dumps(record))
    lines = [lines[0], *body]
    original = importing.BLOCK
    importing.BLOCK = block
    try:
        results = []
        for name, bulk in (("old", False), ("new", True)):
            with cairn.open(tmp / name, project=one, cwd=one, tool="codex") as ws:
                with contextlib.suppress(ImportRefusedError):  # the same refusal either way
                    _old_import(ws, lines[:head])
                try:
                    counts: Any = ws.import_(lines) if bulk else _old_import(ws, lines)
                except ImportRefusedError as exc:
                    counts = str(exc)
                results.append((_state(ws), counts))
    finally:
        importing.BLOCK = original
    assert results[1] == results[0]


def test_an_export_written_before_the_bulk_path_imports_the_same(tmp_path: Path) -> None:
    """An export of the earlier format (Python's JSON with spaces after `:` and `,`) imports
    into an empty store as today's export does, and back into its own store writes nothing."""
    lines, one, _ = _source_lines(tmp_path, 60, seed=5)
    spaced = [json.dumps(json.loads(ln), ensure_ascii=False, sort_keys=True) for ln in lines]
    assert spaced != lines and all(": " in ln for ln in spaced)
    states = []
    for name, given_lines in (("today", lines), ("spaced", spaced)):
        with cairn.open(tmp_path / name, project=one, cwd=one, tool="codex") as ws:
            counts = ws.import_(given_lines)
            assert ws.import_(spaced).memories == 0
            again = ws.import_(lines)
            assert (again.memories, again.events, again.read) == (0, 0, len(lines))
            states.append((_state(ws), counts))
    assert states[0] == states[1]


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"status": "retired", "until": None, "last_touched": ""},  # an export from before dates
        {"status": "retired", "until": None, "last_touched": "2026-11-02T00:00:00.000000Z"},
        {"status": "retired", "until": "2026-11-03T00:00:00.000000Z"},
        {
            "status": "superseded",
            "until": "2026-11-03T00:00:00.000000Z",
            "replaced_by": "m-00000b",
            "replaces": "m-00000c",
        },
        {"when": {"tool": "shell", "match": "git push"}, "kind": "lesson", "gate": True},
        {"cite_fp": None, "last_touched": None, "pinned": True, "revision": 3},
        {"cite_fp": '{"lines": 3}', "tags": ["ops", "trigger:git-commit"], "branch": "main"},
    ],
)
def test_a_record_is_inserted_as_the_row_its_memory_would_make(changes: dict[str, Any]) -> None:
    from cairn.io.store import memories as mem
    from cairn.io.store import sqlite_transfer

    record = {
        "ref": "m-00000a",
        "project": "/work/app",
        "scope": "project",
        "kind": "fact",
        "text": "Deploys go through the release branch.",
        "tags": [],
        "reason": "",
        "source_ref": "",
        "cite_fp": "",
        "when": None,
        "branch": "",
        "pinned": False,
        "gate": False,
        "tool": "codex",
        "session": "s1",
        "written": "2026-11-01T00:00:00.000000Z",
        "until": None,
        "replaces": None,
        "replaced_by": None,
        "status": "active",
        "revision": 1,
        "last_touched": "2026-11-01T00:00:00.000000Z",
        **changes,
    }
    folded = folded_sentence(record["text"])
    index = index_text(record["text"], record["tags"], record["source_ref"], record["reason"])
    expected = mem._row(sqlite_transfer._memory_of(record), folded, index)
    assert sqlite_transfer._row_of(record, folded, index) == expected
