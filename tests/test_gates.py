"""Gates: a lesson or rule that stops the first matching call of a session once (opt-in)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import cairn
from cairn.api import Cairn
from cairn.cli import cli
from cairn.core.errors import RefusedError, TriggerError, UnknownRefError
from cairn.usecases.calls import GATE_WAITING, HELD, NO_CONTEXT, Call, lessons_for
from cairn.usecases.gates import (
    REASON_BUDGET,
    call_text,
    gated_actions,
    parse_setting,
    reason,
    set_gated_action,
    setting_path,
)

COMMIT = "Commit messages: one line, conventional prefix"


def shell(command: str) -> Call:
    return Call("shell", command=command)


def gate_call(ws: Cairn, call: Call, **kw: bool) -> tuple[list[str], list[str]]:
    """(refs that stop the call, refs that ride along on it), as a deniable hook call."""
    d = lessons_for(
        ws.store, ws.ctx, call, gates=kw.get("gates", True), lessons=kw.get("lessons", True)
    )
    return [f.memory.ref for f in d.gated], [f.memory.ref for f in d.fired]


def commit_rule(ws: Cairn, gate: bool = True) -> str:
    return ws.remember(COMMIT, kind="rule", tags=["trigger:git-commit"], gate=gate).ref


# -- the decision: once per session, only where the agent can deny ---------------------------


def test_a_gate_stops_the_first_matching_call_of_a_session_only(ws: Cairn) -> None:
    rule = commit_rule(ws)
    assert gate_call(ws, shell('git commit -m "Fixed it"')) == ([rule], [])
    # The retry passes, silently: the rule was the reason of the call it stopped.
    assert gate_call(ws, shell('git commit -m "fix: it"')) == ([], [])
    assert gate_call(ws, shell('git commit -m "fix: more"')) == ([], [])
    # Another session is stopped once too.
    assert gate_call(ws.using(session="s2"), shell("git commit -m x")) == ([rule], [])


def test_an_ungated_rule_never_stops_a_call(ws: Cairn) -> None:
    rule = commit_rule(ws, gate=False)
    assert gate_call(ws, shell("git commit -m x")) == ([], [rule])
    assert gate_call(ws, shell("git commit -m x")) == ([], [])


def test_the_gate_and_the_retry_are_recorded(ws: Cairn) -> None:
    rule = commit_rule(ws)
    gate_call(ws, shell('git commit -m "Fixed it"'))
    assert ws.store.gates_waiting("s1") == {rule}
    assert rule in ws.store.offered("s1", ("gate",))
    gate_call(ws, shell('git commit -m "fix: it"'))
    assert ws.store.gates_waiting("s1") == set()
    row = ws.store.conn.execute(
        "SELECT tool, call, retry_call FROM gate_denials WHERE session = 's1'"
    ).fetchone()
    assert row == ("claude-code", 'git commit -m "Fixed it"', 'git commit -m "fix: it"')


def test_ordinary_lessons_of_a_stopped_call_wait_for_its_retry(ws: Cairn) -> None:
    rule = commit_rule(ws)
    lesson = ws.remember(
        "Run the tests before a commit", when={"tool": "shell", "match": "commit"}
    ).ref
    d = lessons_for(ws.store, ws.ctx, shell("git commit -m x"), gates=True)
    assert [f.memory.ref for f in d.gated] == [rule] and d.fired == []
    assert d.skipped[lesson] == HELD
    assert gate_call(ws, shell("git commit -m x")) == ([], [lesson])


def test_at_most_two_gates_are_listed_on_one_call(ws: Cairn) -> None:
    refs = [
        ws.remember(f"Commit rule {n}", kind="rule", tags=["trigger:git-commit"], gate=True).ref
        for n in range(3)
    ]
    first, _ = gate_call(ws, shell("git commit -m x"))
    assert len(first) == 2 and set(first) < set(refs)
    # The third one is a gate too: the next matching call is its first, once.
    assert gate_call(ws, shell("git commit -m x")) == ([r for r in refs if r not in first], [])
    assert gate_call(ws, shell("git commit -m x")) == ([], [])


def test_without_a_session_a_gate_is_an_ordinary_lesson(ws: Cairn) -> None:
    rule = commit_rule(ws)
    assert gate_call(ws.using(session=""), shell("git commit -m x")) == ([], [rule])


def test_where_the_agent_cannot_deny_a_gate_rides_along_as_a_lesson(ws: Cairn) -> None:
    rule = commit_rule(ws)
    assert gate_call(ws, shell("git commit -m x"), gates=False) == ([], [rule])
    assert gate_call(ws, shell("git commit -m x")) == ([], [])  # already given


def test_a_gate_waiting_for_its_retry_does_not_ride_on_an_after_event(ws: Cairn) -> None:
    rule = commit_rule(ws)
    assert gate_call(ws, shell("git commit -m x")) == ([rule], [])
    d = lessons_for(ws.store, ws.ctx, shell("git commit -m x"), gates=False)
    assert d.fired == [] and d.skipped[rule] == GATE_WAITING
    assert ws.store.gates_waiting("s1") == {rule}  # only a deniable call counts as the retry


def test_an_event_without_context_fires_no_lesson_and_records_nothing(ws: Cairn) -> None:
    lesson = ws.remember(
        "Before a push, run make check", when={"tool": "shell", "match": "git push"}
    ).ref
    d = lessons_for(ws.store, ws.ctx, shell("git push"), gates=True, lessons=False)
    assert d.fired == [] and d.gated == [] and d.skipped[lesson] == NO_CONTEXT
    assert ws.store.offered("s1", ("lesson",)) == set()
    assert gate_call(ws, shell("git push"), gates=False) == ([], [lesson])


def test_shell_read_and_edit_lessons_can_be_gates(ws: Cairn, project: Path) -> None:
    push = ws.remember(
        "Run make check first", when={"tool": "shell", "match": "git push", "gate": True}
    )
    read = ws.remember(
        "Generated: edit the models", when={"tool": "read", "path": "db/**"}, gate=True
    )
    edit = ws.remember(
        "Append-only migrations", when={"tool": "edit", "path": "migrations/*.sql"}, gate=True
    )
    assert gate_call(ws, shell("git push origin main"))[0] == [push.ref]
    assert gate_call(ws, Call("read", paths=(str(project / "db/schema.sql"),)))[0] == [read.ref]
    assert gate_call(ws, Call("edit", paths=("migrations/0001.sql",)))[0] == [edit.ref]


def test_a_cited_file_never_gates(ws: Cairn, project: Path) -> None:
    (project / "app.py").write_text("x = 1\n")
    lesson = ws.remember(
        "app.py is generated",
        kind="lesson",
        source_ref="app.py",
        when={"tool": "shell", "match": "make app"},
        gate=True,
    ).ref
    assert gate_call(ws, Call("edit", paths=("app.py",))) == ([], [lesson])


def test_two_calls_at_once_stop_the_agent_once(open_ws, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The race: a second call read the ledger before the first call's claim was committed.
    The claim itself (the row's primary key) is what keeps it from stopping the agent again."""
    first, second = open_ws(), open_ws()
    rule = commit_rule(first)
    monkeypatch.setattr(second.store, "offered", lambda session, channels: set())
    monkeypatch.setattr(second.store, "gates_waiting", lambda session: set())
    assert gate_call(first, shell("git commit -m x")) == ([rule], [])
    d = lessons_for(second.store, second.ctx, shell("git commit -m x"), gates=True)
    assert d.gated == [] and d.fired == [] and d.skipped[rule] == GATE_WAITING


def test_a_claim_is_taken_once(ws: Cairn) -> None:
    rule = commit_rule(ws)
    assert ws.store.claim_gates("s9", [rule], "codex", "git commit", ws.ctx.now()) == [rule]
    assert ws.store.claim_gates("s9", [rule], "codex", "git commit", ws.ctx.now()) == []


def test_lessons_test_shows_what_would_stop_the_call_and_records_nothing(ws: Cairn) -> None:
    rule = commit_rule(ws)
    d = ws.using(session="").lessons_for(shell("git commit -m x"), record=False, gates=True)
    assert [f.memory.ref for f in d.gated] == [rule]
    assert d.to_dict()["gated"][0]["gate"] is True
    assert ws.store.gates_waiting("s1") == set()


# -- the project setting: every rule of chosen actions --------------------------------------


def test_the_project_setting_makes_every_rule_of_an_action_a_gate(ws: Cairn, project: Path) -> None:
    rule = commit_rule(ws, gate=False)
    push = ws.remember("Push with --force-with-lease", tags=["trigger:git-push"]).ref
    lesson = ws.remember("Commit small", when={"tool": "shell", "match": "git commit"}).ref
    assert ws.gate_action("trigger:git-commit") == ["git-commit"]
    assert ws.gated_actions() == {"git-commit"}
    gated, fired = gate_call(ws, shell("git commit -m x && git push"))
    assert gated == [rule] and fired == []
    assert set(gate_call(ws, shell("git commit -m x && git push"))[1]) == {push, lesson}
    ws.gate_action("git-commit", on=False)
    assert gate_call(ws.using(session="s2"), shell("git commit -m x"))[0] == []


def test_the_setting_is_a_plain_committed_file(project: Path) -> None:
    assert set_gated_action(str(project), "git-commit", True) == ["git-commit"]
    assert set_gated_action(str(project), "trigger:pr-create", True) == ["git-commit", "pr-create"]
    text = Path(setting_path(str(project))).read_text()
    assert text.startswith("# Actions whose rules") and str(project) not in text
    path = Path(setting_path(str(project)))
    path.write_text(path.read_text() + "# our own note\n")
    assert set_gated_action(str(project), "git-commit", False) == ["pr-create"]
    assert "# our own note" in path.read_text() and "git-commit" not in parse_setting(
        path.read_text()
    )
    assert parse_setting("git-push  # before pushing\n\n  GIT-COMMIT\nnot an action\n") == [
        "git-push",
        "git-commit",
    ]


def test_a_fifo_a_folder_or_a_huge_file_as_the_setting_never_hangs_or_fails(project: Path) -> None:
    path = Path(setting_path(str(project)))
    path.parent.mkdir()
    os.mkfifo(path)  # opened without blocking, then refused: not a regular file
    assert gated_actions(str(project)) == frozenset()
    path.unlink()
    path.mkdir()
    assert gated_actions(str(project)) == frozenset()
    path.rmdir()
    path.write_text("git-commit\n" + "x" * 200_000 + "\ngit-push\n")
    assert gated_actions(str(project)) == {"git-commit"}  # read up to 64 KiB
    assert gated_actions(str(project / "nowhere")) == frozenset()


# -- saving a gate ------------------------------------------------------------------------


def test_only_a_lesson_or_a_rule_can_be_a_gate(ws: Cairn) -> None:
    with pytest.raises(RefusedError, match="only a lesson with `when` or a rule"):
        ws.remember("The API is REST", gate=True)
    fact = ws.remember("The API is REST").ref
    with pytest.raises(RefusedError, match="only a lesson"):
        ws.gate(fact)
    assert not ws.store.get_memory(fact).gate


def test_gate_in_when_and_its_refusals(ws: Cairn) -> None:
    ref = ws.remember(
        "Run make check", when='{"tool": "shell", "match": "git push", "gate": true}'
    ).ref
    memory = ws.store.get_memory(ref)
    assert (
        memory.gate
        and memory.when is not None
        and memory.when.to_dict()
        == {
            "tool": "shell",
            "match": "git push",
        }
    )
    with pytest.raises(TriggerError, match="true or false"):
        ws.remember("Other", when={"tool": "shell", "match": "git tag", "gate": "yes"})
    with pytest.raises(RefusedError, match="disagree"):
        ws.remember("Other", when={"tool": "shell", "match": "git tag", "gate": True}, gate=False)


def test_gate_on_and_off_and_a_correction_keeps_it(ws: Cairn) -> None:
    rule = commit_rule(ws, gate=False)
    assert ws.gate(rule).gate is True
    assert ws.gate(rule).gate is True  # again: nothing changes
    new = ws.correct(rule, "Commit messages: one line, conventional prefix, no emojis").ref
    assert ws.store.get_memory(new).gate is True
    with pytest.raises(UnknownRefError, match="no longer current"):
        ws.gate(rule, on=False)
    assert ws.gate(new, on=False).gate is False
    restated = ws.remember("Commit messages: one line, conventional prefix, no emojis", gate=True)
    assert restated.ref == new and ws.store.get_memory(new).gate is True


def test_export_and_import_carry_the_gate(ws: Cairn, project: Path, tmp_path: Path) -> None:
    rule = commit_rule(ws)
    lines = list(ws.export())
    with cairn.open(tmp_path / "other", project=project, cwd=project) as other:
        other.import_(lines)
        assert other.store.get_memory(rule).gate is True
    record = json.loads(next(line for line in lines if f'"{rule}"' in line))
    record.update(ref="m-000001", text="A plain fact", tags=[], kind="fact")
    with (
        cairn.open(tmp_path / "third", project=project, cwd=project) as third,
        pytest.raises(RefusedError, match="only a lesson"),
    ):
        third.import_([lines[0], json.dumps(record)])


# -- the wording ------------------------------------------------------------------------


def test_the_reason_says_what_to_do_then_to_run_the_command_again(ws: Cairn) -> None:
    rule = commit_rule(ws)
    d = lessons_for(ws.store, ws.ctx, shell("git commit -m x"), gates=True, record=False)
    text = reason(d.gated, shell("git commit -m x"))
    assert text.index(COMMIT) < text.index("run the command again")
    assert rule in text and "rule for git-commit" in text
    read = reason(d.gated, Call("read", paths=("a",)))
    assert "make this call again" in read


def test_the_reason_fits_what_claude_code_keeps(ws: Cairn) -> None:
    for n in range(2):
        ws.remember(
            f"Rule {n} " + "word " * 190,
            kind="rule",
            tags=["trigger:git-commit"],
            reason="why " * 700,
            gate=True,
        )
    d = lessons_for(ws.store, ws.ctx, shell("git commit -m x"), gates=True, record=False)
    text = reason(d.gated, shell("git commit -m x"))
    assert len(text) <= REASON_BUDGET and len(text.splitlines()) <= 20
    assert "run the command again" in text and all(f.memory.ref in text for f in d.gated)


def test_the_call_text_measured_for_a_retry() -> None:
    assert call_text(shell("git commit -m x")) == "git commit -m x"
    assert call_text(Call("edit", paths=("a.py", "b.py"))) == "a.py\nb.py"
    assert len(call_text(shell("x" * 5000))) == 2000


# -- the command line -----------------------------------------------------------------------


def test_the_gate_commands(ws: Cairn, home: Path, project: Path) -> None:
    runner = CliRunner()
    base = ["--home", str(home), "--project", str(project)]

    def run(*args: str) -> dict[str, object]:
        done = runner.invoke(cli, [*base, *args, "--json"])
        assert done.exit_code == 0, done.output
        return json.loads(done.output)  # type: ignore[no-any-return]

    ref = run("remember", COMMIT, "--tag", "trigger:git-commit", "--kind", "rule", "--gate")["ref"]
    assert ws.store.get_memory(str(ref)).gate
    assert run("gate", "off", str(ref))["memories"][0]["gate"] is False  # type: ignore[index]
    assert run("gate", "on", "trigger:git-commit")["gated_actions"] == ["git-commit"]
    listed = run("gate", "list")
    assert listed == {"memories": [], "actions": ["git-commit"]}
    tested = run("lessons", "test", "--shell", "git commit -m x")
    assert [g["ref"] for g in tested["gated"]] == [ref]  # type: ignore[index]
    done = runner.invoke(cli, [*base, "lessons", "test", "--shell", "git commit -m x"])
    assert "run the command again" in done.output and "gate" in done.output
    done = runner.invoke(cli, [*base, "remember", "A plain fact", "--gate"])
    assert done.exit_code != 0 and "only a lesson" in done.output
