"""The trigger list beside the store: kept in step with writes, read first by the hook."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cairn import triggerlist
from cairn.api import Cairn
from cairn.lessons.prefilter import Entry


def lines(ws: Cairn) -> list[Entry]:
    path = triggerlist.list_path(ws.home)
    return [e for e in map(Entry.from_line, path.read_text().splitlines(keepends=True)) if e]


def test_a_new_lesson_rule_or_citation_is_appended(ws: Cairn, project: Path) -> None:
    (project / "a.py").write_text("x = 1\n")
    lesson = ws.remember("gate", when={"tool": "shell", "match": "git push"}).ref
    rule = ws.remember("one line", tags=["trigger:git-commit"]).ref
    cited = ws.remember("a holds x", source_ref="a.py").ref
    ws.remember("a plain fact")
    kinds = {(e.kind, e.ref) for e in lines(ws)}
    assert kinds == {("shell", lesson), ("action", rule), ("cited", cited)}


def test_correct_and_forget_rewrite_the_list(ws: Cairn) -> None:
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


def test_rebuild_matches_the_store(ws: Cairn) -> None:
    for i in range(5):
        ws.remember(f"lesson {i}", when={"tool": "edit", "path": f"src/m{i}/**"})
    before = sorted(e.to_line() for e in lines(ws))
    triggerlist.list_path(ws.home).write_text("garbage\n")
    assert ws.rebuild_triggers() == 5
    assert sorted(e.to_line() for e in lines(ws)) == before


def test_the_hook_opens_the_database_only_when_something_could_match(
    ws: Cairn,
    project: Path,
    monkeypatch,
    capsys,  # type: ignore[no-untyped-def]
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


def test_append_creates_the_folder_and_writes_the_header_once(tmp_path: Path) -> None:
    home = tmp_path / "new" / "home"
    one = Entry("cited", "m-000001", "/p", ("a.py",), "a.py", "fact")
    two = Entry("cited", "m-000002", "/p", ("b.py",), "b.py", "fact")
    triggerlist.append(home, [one])
    triggerlist.append(home, [two])
    triggerlist.append(home, [])
    text = triggerlist.list_path(home).read_text()
    keys = triggerlist.keys_path(home).read_text()
    gen = keys.splitlines()[0][1:]
    assert gen.startswith("gen:") and len(gen) == 4 + 16
    assert text == triggerlist.HEADER[:-1] + f" {gen}\n" + one.to_line() + two.to_line()
    assert keys == f"#{gen}\na.py\nb.py\n"


def test_a_rewrite_starts_a_new_generation_in_both_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    triggerlist.append(home, [Entry("cited", "m-000001", "/p", ("a.py",), "a.py", "fact")])
    before = triggerlist.keys_path(home).read_text().splitlines()[0]
    triggerlist.rewrite(home, [])
    after = triggerlist.keys_path(home).read_text()
    assert after.splitlines() == [after.splitlines()[0]] and after.splitlines()[0] != before
    assert triggerlist.list_path(home).read_text().endswith(" " + after.strip()[1:] + "\n")
