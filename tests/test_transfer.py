"""export -> import is lossless and idempotent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cairn
from cairn.api import Cairn
from tests import backends as sqlite_only

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)
sentences = st.lists(words, min_size=1, max_size=8).map(" ".join)


def _strip_volatile(view: dict[str, Any]) -> dict[str, Any]:
    return view


def _build(ws: Cairn, ops: list[tuple[str, str, list[str], bool]]) -> list[str]:
    refs: list[str] = []
    for kind, text, tags, correct in ops:
        if correct and refs:
            current = ws.store.get_memory(refs[-1])
            if current.until is None and current.status == "active":
                refs.append(ws.correct(refs[-1], text + " corrected").ref)
                continue
        result = ws.remember(text, kind=kind, tags=tags, used=refs[-1:])
        if result.outcome == "new":
            refs.append(result.ref)
    return refs


@sqlite_only.TWO_STORES
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ops=st.lists(
        st.tuples(
            st.sampled_from(cairn.KINDS), sentences, st.lists(words, max_size=3), st.booleans()
        ),
        min_size=1,
        max_size=8,
    )
)
def test_export_import_round_trip_gives_identical_get_memory(
    tmp_path_factory: Any, ops: list[tuple[str, str, list[str], bool]]
) -> None:
    base = tmp_path_factory.mktemp("rt")
    proj = base / "proj"
    proj.mkdir()
    with cairn.open(base / "a", project=proj, cwd=proj, tool="codex", session="s") as a:
        refs = _build(a, ops)
        a.using(tool="gemini").remember(ops[0][1])  # a confirmation event
        lines = list(a.export())
        before = a.get_memory(refs)
    with cairn.open(base / "b", project=proj, cwd=proj) as b:
        counts = b.import_(lines)
        assert counts.memories == len(a_all := [ln for ln in lines if '"type":"memory"' in ln])
        assert len(a_all) >= len(set(refs))
        after = b.get_memory(refs)
        again = b.import_(lines)
        assert (again.memories, again.events) == (0, 0)
        assert b.get_memory(refs) == after
    assert after == before


def test_export_holds_history_and_evidence(ws: Cairn, tmp_path: Path) -> None:
    v1 = ws.remember("We deploy with fly.").ref
    v2 = ws.correct(
        v1,
        "We deploy with render.",
    ).ref
    ws.remember("Deploys need a green CI.", used=[v2])
    lines = list(ws.export())
    assert lines[0].startswith('{"type":"cairn-export"')
    assert sum('"type":"memory"' in ln for ln in lines) == 3
    assert sum('"type":"evidence"' in ln for ln in lines) == 1


@sqlite_only.TWO_STORES
def test_an_undone_act_stays_undone_after_export_and_import(ws: Cairn, tmp_path: Path) -> None:
    from cairn.core.models import Event
    from cairn.io.store import acts as store_acts
    from cairn.io.store import new_eid

    ref = ws.remember("Invoices are parsed with the streaming reader.").ref
    for aid, undone in (("a-live", None), ("a-undone", "2026-11-02T00:00:00.000000Z")):
        act = store_acts.Act(
            aid,
            ws.ctx.project,
            "feat/x",
            "merge",
            ws.ctx.now(),
            "review",
            f"key-{aid}",
            {},
            undone,
            ("s1",),
        )
        store_acts.add_act(ws.store.conn, act)
        ws.store.add_events([Event(new_eid(), ref, "merge", "git", "s1", ws.ctx.now(), aid)])
    before = ws.get_memory([ref])
    assert len(before["memories"][0]["evidence"]["acts"]) == 1
    with cairn.open(tmp_path / "other", project=ws.ctx.project, cwd=ws.ctx.project) as other:
        counts = other.import_(list(ws.export()))
        assert (counts.acts, counts.events) == (2, 2)
        assert other.get_memory([ref]) == before


def _memory_line(lines: list[str], ref: str) -> int:
    return next(i for i, ln in enumerate(lines) if f'"ref":"{ref}"' in ln and "memory" in ln)


def test_a_record_identical_to_the_stored_version_writes_nothing_and_is_not_checked_again(
    ws: Cairn,
) -> None:
    import json

    from cairn.core.errors import ImportRefusedError

    kept = ws.remember("The deploy runs from the release branch").ref
    other = ws.remember("Redis holds the session cache").ref
    # Stored by an older, laxer Cairn: the sentence would be refused today (a key in it).
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    with ws.store.transaction():
        ws.store.conn.execute(
            "UPDATE memories SET text = ? WHERE ref = ?", (f"The key is {key}", kept)
        )
    lines = list(ws.export())
    again = ws.import_(lines)
    assert again.read == len(lines) and (again.memories, again.events) == (0, 0)

    # The same ref with any field changed is checked in full, and refused all or nothing.
    new = json.loads(lines[_memory_line(lines, other)])
    new.update(ref="m-abcdef", text="A memory only the file holds")
    for change in ({"folded": "x", "revision": 2}, {"pinned": 1}, {"revision": 1.0}):
        record = {**json.loads(lines[_memory_line(lines, kept)]), **change}
        edited = [json.dumps(new), *lines]
        edited[1 + _memory_line(lines, kept)] = json.dumps(record)
        try:
            ws.import_(edited)
        except ImportRefusedError as exc:
            assert len(exc.refusals) == 1 and f"(memory {kept})" in exc.refusals[0]
        else:
            raise AssertionError(f"{change} was not refused")
        assert not ws.store.has_memory("m-abcdef")


def test_reimport_is_checked_block_by_block_past_one_block(ws: Cairn, monkeypatch: Any) -> None:
    from cairn.core.errors import ImportRefusedError
    from cairn.usecases import transfer

    monkeypatch.setattr(transfer, "BLOCK", 2)
    refs = [ws.remember(f"Service number {n} listens on its own port").ref for n in range(5)]
    lines = list(ws.export())
    assert ws.import_(lines).read == len(lines)
    # A refusal in the last block still leaves the new memory of the first block unwritten.
    extra = lines[_memory_line(lines, refs[0])].replace(refs[0], "m-abcdef")
    extra = extra.replace("Service number 0", "A new service")
    at = _memory_line(lines, refs[-1])
    last = lines[at].replace('"revision":1', '"revision":0')
    assert last != lines[at]
    try:
        ws.import_([lines[0], extra, *lines[1:at], *lines[at + 1 :], last])
    except ImportRefusedError as exc:
        assert len(exc.refusals) == 1 and f"line {len(lines) + 1}" in exc.refusals[0]
    else:
        raise AssertionError("not refused")
    assert not ws.store.has_memory("m-abcdef")


def test_cli_export_writes_every_line_across_blocks(
    ws: Cairn, project: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    import json

    from click.testing import CliRunner

    from cairn.cli import cli
    from cairn.cli import transfer as cli_transfer

    monkeypatch.setattr(cli_transfer, "WRITE_LINES", 2)
    for n in range(4):
        ws.remember(f"Queue number {n} drains every night")
    out = tmp_path / "export.jsonl"
    done = CliRunner().invoke(
        cli, ["--project", str(project), "export", "-o", str(out), "--json"], catch_exceptions=False
    )
    assert done.exit_code == 0, done.output
    lines = list(ws.export())
    assert out.read_text() == "\n".join(lines) + "\n"
    assert json.loads(done.stdout) == {"file": str(out), "records": len(lines)}
    assert len(lines) > 2 * cli_transfer.WRITE_LINES  # several blocks


@sqlite_only.LINES_IN_SQL
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_the_store_names_only_lines_equal_to_a_stored_version(ws: Cairn, data: Any) -> None:
    import json

    if not ws.store.list_memories(limit=1):
        ws.remember("The deploy runs from the release branch", tags=["ci"])
        ws.remember("Check the gate before a push", when={"tool": "shell", "match": "git push"})
    lines = [ln for ln in ws.export() if '"type":"memory"' in ln]
    line = data.draw(st.sampled_from(lines))
    at = data.draw(st.integers(0, len(line)))
    edit = data.draw(
        st.one_of(
            st.just(line),
            st.builds(lambda s: line[:at] + s + line[at:], st.text(max_size=3)),
            st.just(line[:at] + line[at + 1 :]),
            st.just(line.replace('"pinned":false', '"pinned":0')),
            st.just(line.replace('"revision":1', '"revision":1.0')),
            st.just(line.replace("{", '{"ref":"m-000000",', 1)),
            st.just(line.replace("{", '{"ref": "m-000000", ', 1)),
            st.just(line + "\ud800"),
        )
    )
    named = ws.store.unchanged_memories([edit, "not json", "[1]", line])
    stored = ws.store.memory_records([json.loads(line)["ref"]])
    assert named.get(3) == json.loads(line)["ref"]  # the line as exported is named
    assert 1 not in named and 2 not in named
    if 0 in named:
        record = json.loads(edit)
        assert record == stored[named[0]]
        assert type(record["pinned"]) is bool and type(record["revision"]) is int


def test_a_correction_imported_without_the_version_it_replaced_still_reads(
    tmp_path: Path,
) -> None:
    """An import cut short (or lines out of order) can store a version whose `replaces` names
    a ref the store does not hold: its history ends there, and reading it never raises."""
    proj = tmp_path / "proj"
    proj.mkdir()
    with cairn.open(tmp_path / "a", project=proj, cwd=proj) as a:
        v1 = a.remember("We deploy with fly.").ref
        v2 = a.correct(v1, "We deploy with render.").ref
        lines = [ln for ln in a.export() if f'"ref":"{v1}"' not in ln]
    with cairn.open(tmp_path / "b", project=proj, cwd=proj) as b:
        b.import_(lines)
        views = b.get_memory([v2])
        assert views["memories"][0]["text"] == "We deploy with render.", views
