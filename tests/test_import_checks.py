"""Import trusts nothing: each record passes remember's rules and a type check of every field.

A refused record is named on one line (line number, type, id) and nothing is written, through
the API and through the CLI (exit 3, no traceback).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cairn
from cairn.api import Cairn
from cairn.cli import cli
from cairn.core.errors import CairnError, ImportRefusedError, RefusedError
from cairn.io.store import SessionRow
from cairn.io.store import acts as store_acts
from cairn.usecases.remember import MAX_REASON

AWS = "AKIA" + "ABCDEFGHIJKLMNOP"
GITHUB = "ghp_" + "a1B2c3D4" * 5
Records = list[dict[str, Any]]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Records]:
    """A real store's export holding every record type, and its project folder."""
    base = tmp_path_factory.mktemp("exported")
    project = base / "proj"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("def main():\n    return 1\n")
    moment = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
    with cairn.open(
        base / "home",
        project=project,
        cwd=project,
        tool="codex",
        session="s1",
        clock=lambda: moment,
    ) as ws:
        act = store_acts.Act(
            "a-0123456789ab", str(project), "feat/x", "merge", ws.ctx.now(), "git", "k1"
        )
        store_acts.add_act(ws.store.conn, act)
        ws.store.upsert_session(
            SessionRow("s1", "codex", str(project), "feat/x", str(project), ws.ctx.now(), None)
        )
        lesson = ws.remember(
            "Run the linters before pushing.",
            tags=["ci"],
            reason="CI fails on lint",
            source_ref="src/app.py:1-2",
            when={"tool": "shell", "match": "git push"},
        ).ref
        ws.correct(lesson, "Run make check before pushing.")
        fact = ws.remember("Deploys go through fly.", pinned=True, used=[])
        ws.cite([fact.ref])
        ws.log_mission_progress("ship the importer", "write the checks", "in_progress")
        records = [json.loads(line) for line in ws.export()]
    assert {r["type"] for r in records} == {
        "cairn-export",
        "act",
        "memory",
        "evidence",
        "session",
        "progress",
    }
    return project, records


@pytest.fixture
def target(tmp_path: Path, exported: tuple[Path, Records]) -> Iterator[Cairn]:
    """A store that already holds a memory, to import into."""
    project, _ = exported
    with cairn.open(tmp_path / "target", project=project, cwd=project, tool="cli") as ws:
        ws.remember("The target store already holds this.")
        yield ws


def _first(records: Records, kind: str, **where: Any) -> dict[str, Any]:
    return next(r for r in records if r["type"] == kind and r.items() >= where.items())


def _set(kind: str, key: str, value: Any, **where: Any) -> Callable[[Records], None]:
    def change(records: Records) -> None:
        _first(records, kind, **where)[key] = value

    return change


def _drop(kind: str, key: str) -> Callable[[Records], None]:
    def change(records: Records) -> None:
        del _first(records, kind)[key]

    return change


def _when(when: Any) -> Callable[[Records], None]:
    return _set("memory", "when", when, status="superseded")


# (id, change to a valid export, the record it names, words of the refusal)
CASES: list[tuple[str, Callable[[Records], None], str, str]] = [
    ("secret-sentence", _set("memory", "text", f"The key is {AWS}."), "memory", "AWS access key"),
    ("secret-reason", _set("memory", "reason", f"token {GITHUB}"), "memory", "reason looks"),
    ("secret-tags", _set("memory", "tags", [AWS]), "memory", "tags looks like"),
    ("secret-source-ref", _set("memory", "source_ref", f"{AWS}.py"), "memory", "source_ref"),
    ("secret-trigger", _when({"tool": "shell", "match": f"x {AWS}"}), "memory", "trigger looks"),
    (
        "citation-outside",
        _set("memory", "source_ref", "../../../../etc/passwd"),
        "memory",
        "outside",
    ),
    ("huge-sentence", _set("memory", "text", "word " * 2_000_000), "memory", "1000 limit"),
    ("long-reason", _set("memory", "reason", "x" * (MAX_REASON + 1)), "memory", "4000 limit"),
    ("kind-root", _set("memory", "kind", "root"), "memory", "unknown kind 'root'"),
    ("nested-repeat", _when({"tool": "shell", "match": "(a+)+"}), "memory", "(a+)+"),
    ("match-list", _when({"tool": "shell", "match": ["git push"]}), "memory", "when.match"),
    ("when-text", _when('{"tool": "shell", "match": "x"}'), "memory", "`when` must be an object"),
    ("pinned-no", _set("memory", "pinned", "no"), "memory", "`pinned` must be true or false"),
    ("tags-text", _set("memory", "tags", "ci,ops"), "memory", "`tags` must be a list of texts"),
    ("tags-numbers", _set("memory", "tags", [1, 2]), "memory", "`tags` must be a list of texts"),
    ("scope", _set("memory", "scope", "global"), "memory", "scope must be"),
    ("status", _set("memory", "status", "zombie"), "memory", "`status` must be one of"),
    ("written", _set("memory", "written", "yesterday"), "memory", "ISO 8601"),
    ("until-number", _set("memory", "until", 5, status="superseded"), "memory", "ISO 8601"),
    ("bad-date", _set("memory", "written", "2026-02-30T00:00:00.000000Z"), "memory", "ISO 8601"),
    ("ref-form", _set("memory", "ref", "m-xyz"), "memory", "like m-1a2b3c"),
    ("replaced-by-form", _set("memory", "replaced_by", "M-ABCDEF"), "memory", "like m-1a2b3c"),
    ("unknown-key", _set("memory", "colour", "red"), "memory", "unknown key 'colour'"),
    ("missing-text", _drop("memory", "text"), "memory", "needs `text`"),
    ("revision-text", _set("memory", "revision", "2"), "memory", "whole number"),
    ("revision-zero", _set("memory", "revision", 0), "memory", "whole number"),
    ("fingerprint", _set("memory", "cite_fp", "{not json"), "memory", "JSON object"),
    ("project-relative", _set("memory", "project", "proj"), "memory", "absolute path"),
    ("lifecycle", _set("memory", "until", None, status="superseded"), "memory", "superseded"),
    ("act-kind", _set("act", "act", "rebase"), "act", "`act` must be one of"),
    ("act-source", _set("act", "source", "svn"), "act", "`source` must be one of"),
    ("act-sessions", _set("act", "sessions", "s1"), "act", "list of texts"),
    ("act-undone", _set("act", "undone_at", "soon"), "act", "ISO 8601"),
    ("act-missing-key", _drop("act", "key"), "act", "needs `key`"),
    ("event-kind", _set("evidence", "event", "exploded"), "evidence", "`event` must be one of"),
    ("event-orphan", _set("evidence", "ref", "m-000000"), "evidence", "neither in the store"),
    ("event-detail", _set("evidence", "detail", []), "evidence", "must be an object"),
    ("session-missing", _drop("session", "started"), "session", "needs `started`"),
    ("session-ended", _set("session", "ended", 5), "session", "ISO 8601"),
    ("session-id", _set("session", "id", ""), "session", "`id` is empty"),
    ("session-cwd", _set("session", "cwd", "a\nb"), "session", "one line"),
    ("progress-goal", _set("progress", "goal", 5), "progress", "`goal` must be text"),
    ("progress-status", _set("progress", "status", "someday"), "progress", "unknown status"),
    ("progress-secret", _set("progress", "step", f"use {GITHUB}"), "progress", "GitHub token"),
    ("progress-long", _set("progress", "goal", "g" * 600), "progress", "500 limit"),
    ("header-version", _set("cairn-export", "version", 99), "cairn-export", "newer Cairn"),
    ("record-type", _set("session", "type", "sesion"), "", "unknown record type 'sesion'"),
]


def _lines(records: Records) -> list[str]:
    return [json.dumps(r) for r in records]


def _bad(exported: tuple[Path, Records], change: Callable[[Records], None]) -> list[str]:
    records = json.loads(json.dumps(exported[1]))  # a deep copy
    change(records)
    return _lines(records)


ID_KEYS = {"memory": "ref", "act": "aid", "evidence": "eid", "session": "id", "progress": "pid"}


def _head(exported: tuple[Path, Records], lines: list[str], named: str) -> str:
    """How a refusal of the one changed line starts: `line 7 (memory m-1a2b3c): `."""
    valid = set(_lines(exported[1]))
    number = next(i for i, line in enumerate(lines, 1) if line not in valid)
    ident = json.loads(lines[number - 1]).get(ID_KEYS.get(named, ""))
    if isinstance(ident, str) and 0 < len(ident) <= 40:
        return f"line {number} ({named} {ident}): "
    return f"line {number} ({named}): " if named else f"line {number}: "


@pytest.mark.parametrize(
    ("change", "named", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_refused_record_is_named_on_one_line_and_nothing_is_written(
    exported: tuple[Path, Records],
    target: Cairn,
    change: Callable[[Records], None],
    named: str,
    words: str,
) -> None:
    lines = _bad(exported, change)
    before = list(target.export())
    with pytest.raises(ImportRefusedError) as caught:
        target.import_(lines)
    (refusal,) = caught.value.refusals
    assert refusal.startswith(_head(exported, lines, named) + "refused: "), refusal
    assert words in refusal, refusal
    assert str(caught.value) == f"nothing imported: {refusal}"
    assert "\n" not in str(caught.value)
    assert list(target.export()) == before


@pytest.mark.parametrize(
    ("change", "words"), [(c[1], c[3]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_cli_refuses_with_exit_3_and_no_traceback(
    exported: tuple[Path, Records],
    target: Cairn,
    tmp_path: Path,
    change: Callable[[Records], None],
    words: str,
) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join(_bad(exported, change)) + "\n", encoding="utf-8")
    before = list(target.export())
    args = ["--home", str(target.home), "--project", target.ctx.project, "import", str(source)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output and result.exception is not None
    (line,) = result.stderr.splitlines()
    assert line.startswith("cairn: nothing imported: line ") and words in line
    assert list(target.export()) == before


def test_every_refusal_is_listed_up_to_twenty(
    exported: tuple[Path, Records], target: Cairn
) -> None:
    records = json.loads(json.dumps(exported[1]))
    memory = _first(records, "memory")
    bad = [{**memory, "kind": f"k{i}"} for i in range(25)]
    lines = _lines(records + bad)
    before = list(target.export())
    with pytest.raises(ImportRefusedError) as caught:
        target.import_(lines)
    assert len(caught.value.refusals) == 25
    shown = str(caught.value).splitlines()
    assert shown[0] == "nothing imported: 25 refusals"
    assert shown[1].startswith(f"  line {len(records) + 1} (memory {memory['ref']}): refused:")
    assert len(shown) == 1 + 20 + 1 and shown[-1] == "  and 5 more"
    assert list(target.export()) == before


def test_the_cli_prints_one_line_per_refusal(
    exported: tuple[Path, Records], target: Cairn, tmp_path: Path
) -> None:
    records = json.loads(json.dumps(exported[1]))
    _first(records, "memory")["pinned"] = "no"
    _first(records, "progress")["status"] = "someday"
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join([*_lines(records), "not json", "[1, 2]"]) + "\n")
    args = ["--home", str(target.home), "--project", target.ctx.project, "import", str(source)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 3 and "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert lines[0] == "cairn: nothing imported: 4 refusals"
    assert [line.split(":")[0] for line in lines[1:]] == [
        f"  line {records.index(_first(records, 'memory')) + 1} (memory "
        f"{_first(records, 'memory')['ref']})",
        f"  line {records.index(_first(records, 'progress')) + 1} (progress "
        f"{_first(records, 'progress')['pid']})",
        f"  line {len(records) + 1}",
        f"  line {len(records) + 2}",
    ]


def test_a_file_that_is_not_utf8_is_refused(target: Cairn, tmp_path: Path) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_bytes(b'{"type": "cairn-export", "version": 1}\n\xff\xfe\n')
    args = ["--home", str(target.home), "--project", target.ctx.project, "import", str(source)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 3 and "Traceback" not in result.output
    assert "not UTF-8" in result.stderr


def test_json_nested_too_deep_is_refused(target: Cairn) -> None:
    with pytest.raises(ImportRefusedError, match="not JSON"):
        target.import_(["[" * 100_000 + "]" * 100_000])


def test_import_normalises_as_remember_does(exported: tuple[Path, Records], target: Cairn) -> None:
    project, records = exported
    records = json.loads(json.dumps(records))
    memory = _first(records, "memory", status="active")
    memory.update(
        text="  Deploys   go\nthrough fly.  ",
        tags=[" ops ", "ops", "fly"],
        reason=" because\n it is cheap ",
        source_ref=str(project / "src" / "app.py") + ":2",
        written="2026-11-01T13:00:00+01:00",
    )
    target.import_(_lines(records))
    stored = target.store.get_memory(memory["ref"])
    assert stored.text == "Deploys go through fly."
    assert stored.tags == ("ops", "fly")
    assert stored.reason == "because it is cheap"
    assert stored.source_ref == "src/app.py:2"
    assert stored.written == "2026-11-01T12:00:00.000000Z"


def test_a_citation_is_read_from_the_memorys_own_project(
    exported: tuple[Path, Records], target: Cairn
) -> None:
    """An export from another machine names a project that need not exist here."""
    records = json.loads(json.dumps(exported[1]))
    memory = _first(records, "memory", status="active")
    memory.update(project="/elsewhere/their-project", source_ref="lib/x.py#Parser.run")
    target.import_(_lines(records))
    stored = target.store.get_memory(memory["ref"])
    assert (stored.project, stored.source_ref) == (
        "/elsewhere/their-project",
        "lib/x.py#Parser.run",
    )
    memory.update(ref="m-abcdef", source_ref="/elsewhere/other/x.py")
    with pytest.raises(ImportRefusedError, match="outside the project /elsewhere/their-project"):
        target.import_(_lines(records))


def test_a_valid_export_imports_twice_without_change(
    exported: tuple[Path, Records], target: Cairn
) -> None:
    lines = _lines(exported[1])
    first = target.import_(lines)
    assert (first.memories, first.acts, first.events, first.sessions, first.progress) == (
        3,
        1,
        1,
        1,
        1,
    )
    after = list(target.export())
    again = target.import_(lines)
    assert (again.memories, again.acts, again.events, again.progress) == (0, 0, 0, 0)
    assert list(target.export()) == after


# -- fuzzing: random JSON in the fields of valid records --------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_fuzzed_records_raise_only_cairn_errors_and_a_refusal_writes_nothing(
    exported: tuple[Path, Records], target: Cairn, data: st.DataObject
) -> None:
    records = json.loads(json.dumps(exported[1]))
    index = data.draw(st.integers(0, len(records) - 1), label="record")
    record = records[index]
    seen = [v for r in records for v in r.values() if not isinstance(v, (dict, list))]
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        key = data.draw(st.sampled_from([*sorted(record), "extra"]), label="key")
        if key in record and key != "type" and data.draw(st.booleans(), label="drop"):
            del record[key]
        else:
            record[key] = data.draw(json_values | st.sampled_from(seen), label="value")
    before = list(target.export())
    try:
        target.import_(_lines(records[: index + 1]))
    except CairnError as exc:
        assert isinstance(exc, RefusedError)
        assert list(target.export()) == before
