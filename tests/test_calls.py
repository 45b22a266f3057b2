"""Lessons and action rules on a tool call: matching, limits, ledger, ordering."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cairn
from cairn.api import Cairn
from cairn.cli import cli
from cairn.core.context import Context
from cairn.core.models import Event
from cairn.io.store import new_eid
from cairn.io.workspace import checkout_root
from cairn.usecases.calls import PER_CALL, Call, relative_paths, render


def fired(ws: Cairn, call: Call) -> list[str]:
    return [f.memory.ref for f in ws.lessons_for(call).fired]


def shell(command: str) -> Call:
    return Call("shell", command=command)


def test_a_shell_lesson_fires_on_a_matching_command_only(ws: Cairn) -> None:
    ref = ws.remember(
        "Before a push, run the gate", when={"tool": "shell", "match": "git push"}
    ).ref
    assert fired(ws, shell("git push origin main")) == [ref]
    assert fired(ws.using(session="s2"), shell("git status")) == []


def test_only_the_first_512_characters_of_a_command_are_tested(ws: Cairn) -> None:
    ws.remember("Deploys need approval", when={"tool": "shell", "match": "deploy-now"})
    assert fired(ws, shell("x" * 600 + " deploy-now")) == []
    assert len(fired(ws, shell("x" * 500 + " deploy-now"))) == 1


def test_read_and_edit_globs_match_paths_relative_to_the_project(ws: Cairn, project: Path) -> None:
    read = ws.remember(
        "The schema is generated", when={"tool": "read", "path": "packages/db/**"}
    ).ref
    edit = ws.remember(
        "Route folders are literal", when={"tool": "edit", "path": "app/[slug]/page.tsx"}
    ).ref
    assert fired(ws, Call("read", paths=(str(project / "packages/db/x/schema.sql"),))) == [read]
    assert fired(ws, Call("edit", paths=(str(project / "packages/db/schema.sql"),))) == []
    assert fired(ws, Call("edit", paths=("app/[slug]/page.tsx",))) == [edit]


def test_a_lesson_or_decision_citing_the_file_rides_along(ws: Cairn, project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "refunds.py").write_text("MAX = 3\n")
    decision = ws.remember(
        "Refund retries are capped at 3", kind="decision", source_ref="src/refunds.py"
    ).ref
    ws.remember("The refunds module is 1 line long", source_ref="src/refunds.py")  # a fact
    assert fired(ws, Call("read", paths=(str(project / "src" / "refunds.py"),))) == [decision]


def test_at_most_2_per_call_each_once_per_session(ws: Cairn) -> None:
    refs = [
        ws.remember(f"push lesson {i}", when={"tool": "shell", "match": "git push"}).ref
        for i in range(5)
    ]
    first = fired(ws, shell("git push"))
    assert PER_CALL == 2 and len(first) == 2
    second = fired(ws, shell("git push"))
    third = fired(ws, shell("git push"))
    assert len(second) == 2 and len(third) == 1
    assert sorted(first + second + third) == sorted(refs)
    assert fired(ws, shell("git push")) == []
    assert len(fired(ws.using(session="other"), shell("git push"))) == 2


def test_choice_is_pinned_then_evidence_then_newest(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    when = {"tool": "shell", "match": "make deploy"}
    oldest = ws.remember("deploy lesson oldest", when=when).ref
    clock.advance(days=1)
    backed = ws.remember("deploy lesson with merges", when=when).ref
    clock.advance(days=1)
    newest = ws.remember("deploy lesson newest", when=when).ref
    clock.advance(days=1)
    pinned = ws.remember("deploy lesson pinned", when=when, pinned=True).ref
    ws.store.add_events([Event(new_eid(), backed, "merge", "git", "x", ws.ctx.now())])
    decision = ws.lessons_for(shell("make deploy"), record=False)
    assert [f.memory.ref for f in decision.fired] == [pinned, backed]
    assert decision.skipped[newest].startswith("over the limit")
    assert oldest in decision.skipped


def test_lessons_out_or_forgotten_never_fire_but_resting_ones_do(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    when = {"tool": "shell", "match": "terraform apply"}
    out = ws.remember("contradicted twice", when=when).ref
    ws.store.add_events(
        Event(new_eid(), out, "revert", "git", f"s{i}", ws.ctx.now()) for i in range(2)
    )
    forgotten = ws.remember("forgotten lesson", when=when).ref
    ws.forget(forgotten)
    decision = ws.lessons_for(shell("terraform apply"), record=False)
    assert decision.fired == [] and decision.skipped[out].startswith("out")
    clock.advance(days=31)
    resting = ws.remember("rests after 30 days", when=when).ref
    clock.advance(days=40)  # written 40 days ago, never cited: it rests, and still fires
    assert ws.get_memory([resting])["memories"][0]["status"] == "resting"
    decision = ws.lessons_for(shell("terraform apply"), record=False)
    assert [f.memory.ref for f in decision.fired] == [resting]
    assert decision.skipped[out].startswith("out") and forgotten not in decision.skipped


def test_a_resting_action_rule_still_fires(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    rule = ws.remember("Commit messages: one line", tags=["trigger:git-commit"]).ref
    clock.advance(days=40)
    assert [m.ref for m in ws.recall_for_action("git-commit")] == [rule]
    assert fired(ws, shell("git commit -m x")) == [rule]


def test_an_echo_wakes_a_resting_memory(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    ref = ws.remember("The API is versioned in the path").ref
    clock.advance(days=31)
    assert ws.get_memory([ref])["memories"][0]["status"] == "resting"
    assert ws.remember("The API is versioned in the path").outcome == "echo"
    assert ws.get_memory([ref])["memories"][0]["status"] == "active"


def test_a_pinned_lesson_contradicted_twice_still_fires(ws: Cairn) -> None:
    ref = ws.remember(
        "pinned lesson", when={"tool": "shell", "match": "npm publish"}, pinned=True
    ).ref
    ws.store.add_events(
        Event(new_eid(), ref, "discard", "git", f"s{i}", ws.ctx.now()) for i in range(3)
    )
    assert fired(ws, shell("npm publish")) == [ref]


def test_another_project_s_lesson_does_not_fire(open_ws, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    other = tmp_path / "other"
    other.mkdir()
    a = open_ws()
    a.remember("project lesson", when={"tool": "shell", "match": "git push"})
    shared = a.remember(
        "workspace lesson", when={"tool": "shell", "match": "git push"}, scope="workspace"
    ).ref
    b = open_ws(project=other, cwd=other)
    assert fired(b, shell("git push")) == [shared]


# -- action rules ------------------------------------------------------------------------
def test_recall_for_action_newest_first_without_superseded(ws: Cairn, clock) -> None:  # type: ignore[no-untyped-def]
    old = ws.remember("squash merge PRs", tags=["trigger:pr-create"]).ref
    clock.advance(hours=1)
    ws.remember("PR titles use the ticket id", tags=["trigger:pr-create"])
    clock.advance(hours=1)
    new = ws.correct(old, "rebase merge PRs").ref
    rules = ws.recall_for_action("pr-create")
    assert rules[0].ref == new
    assert old not in [m.ref for m in rules]
    assert len(ws.recall_for_action("pr-create", k=1)) == 1


@pytest.mark.parametrize(
    ("command", "fires"),
    [
        ("git -c commit.gpgsign=false commit -m x", True),
        ("git config commit.gpgsign false", False),
        ('echo "git commit"', False),
        ("cd repo && git commit -m x", True),
    ],
)
def test_the_spec_s_four_commands(ws: Cairn, command: str, fires: bool) -> None:
    rule = ws.remember("Commit messages are one line", tags=["trigger:git-commit"]).ref
    assert (fired(ws, shell(command)) == [rule]) is fires


def test_rules_and_lessons_share_the_2_per_call(ws: Cairn) -> None:
    ws.remember("commit rule", tags=["trigger:git-commit"])
    ws.remember("commit lesson a", when={"tool": "shell", "match": "commit"})
    ws.remember("commit lesson b", when={"tool": "shell", "match": "git"})
    assert len(fired(ws, shell("git commit -m x"))) == 2


def test_render_names_ref_sentence_and_why(ws: Cairn) -> None:
    ref = ws.remember(
        "Run the gate before pushing",
        when={"tool": "shell", "match": "git push"},
        reason="the hook is the only CI",
    ).ref
    text = render(ws.lessons_for(shell("git push")))
    assert ref in text and "Run the gate before pushing" in text
    assert "the hook is the only CI" in text
    assert len(render(ws.lessons_for(shell("git push")), budget=50)) == 0  # already given


def test_render_is_size_bounded(ws: Cairn) -> None:
    ws.remember("x" * 990, when={"tool": "shell", "match": "make"})
    ws.remember("y" * 990, when={"tool": "shell", "match": "make"})
    assert len(render(ws.lessons_for(shell("make")), budget=600)) == 600


# -- the CLI -----------------------------------------------------------------------------
def _cli(project: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--project", str(project), *args])
    return result.exit_code, result.stdout, result.stderr


def test_lessons_test_json_lists_actions_and_lessons(home: Path, project: Path) -> None:
    code, out, _ = _cli(
        project,
        "remember",
        "Run the gate",
        "--kind",
        "lesson",
        "--when",
        '{"tool": "shell", "match": "git push"}',
        "--json",
    )
    ref = json.loads(out)["ref"]
    code, out, _ = _cli(project, "lessons", "test", "--shell", "git add . && git push", "--json")
    data = json.loads(out)
    assert code == 0 and data["actions"] == ["git-add", "git-push"] and data["lessons"] == [ref]
    code, out, _ = _cli(project, "lessons", "test", "--read", "README.md", "--json")
    assert json.loads(out)["lessons"] == []


def test_a_refused_trigger_exits_non_zero_with_the_reason(home: Path, project: Path) -> None:
    code, _, err = _cli(
        project,
        "remember",
        "bad",
        "--kind",
        "lesson",
        "--when",
        '{"tool": "shell", "match": "(a+)+"}',
    )
    assert code != 0 and "(a+)+" in err and "Traceback" not in err
    code, _, err = _cli(project, "remember", "bad", "--when", '{"tool": "read", "path": "**"}')
    assert code != 0 and "every" in err
    with cairn.open(home, project=project) as ws:
        assert ws.store.count_memories() == 0


def _reference_relative_paths(paths: list[str], ctx: Context) -> list[str]:
    """relative_paths as it was written with pathlib (the behaviour to keep)."""
    from pathlib import Path, PurePosixPath

    roots = []
    if ctx.cwd:
        roots.append(checkout_root(ctx.cwd))
    roots.append(Path(ctx.project))
    out: list[str] = []
    for raw in paths:
        if not raw:
            continue
        path = Path(raw)
        if not path.is_absolute():
            path = Path(ctx.cwd or ctx.project) / path
        path = Path(os.path.normpath(path))
        for root in roots:
            try:
                out.append(path.relative_to(root).as_posix())
                break
            except ValueError:
                continue
        else:
            out.append(PurePosixPath(raw).as_posix())
    return list(dict.fromkeys(out))


_PATH_PARTS = st.sampled_from(["", ".", "..", "a", "b", "src", "x.py", "/", "//", "./", "../"])


@given(st.lists(st.lists(_PATH_PARTS, max_size=6).map("".join), max_size=4))
@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_relative_paths_agree_with_pathlib(tmp_path: Path, paths: list[str]) -> None:
    project = tmp_path / "proj"
    (project / "sub" / ".git").mkdir(parents=True, exist_ok=True)
    for cwd in ("", str(project), str(project / "sub")):
        ctx = Context(project=str(project), cwd=cwd)
        assert relative_paths(paths, ctx) == _reference_relative_paths(paths, ctx)


def test_a_stored_trigger_the_matcher_cannot_run_is_skipped_and_the_others_fire(
    ws: Cairn,
) -> None:
    from cairn.core.errors import TriggerError
    from cairn.core.lessons.prefilter import Entry
    from cairn.usecases.calls import TRIGGER_SKIPPED, lessons_for

    good = ws.remember("Run make check first", when={"tool": "shell", "match": "git push"}).ref
    bad = ws.remember("Pushes need a ticket", when={"tool": "shell", "match": "git pull"}).ref
    # As an import or a hand edit may leave it: a list where the regex goes.
    ws.store.conn.execute(
        "UPDATE memories SET when_json = ? WHERE ref = ?",
        ('{"tool": "shell", "match": ["git push"]}', bad),
    )
    call = Call("shell", command="git push origin main")
    assert [f.memory.ref for f in ws.lessons_for(call, record=False).fired] == [good]
    entries = [Entry("shell", ref, ws.ctx.project, (), "*") for ref in (bad, good)]
    decision = lessons_for(ws.store, ws.ctx, call, entries, record=False)
    assert [f.memory.ref for f in decision.fired] == [good]
    assert decision.skipped[bad].startswith(TRIGGER_SKIPPED)
    with pytest.raises(TriggerError, match="new `when`"):
        ws.correct(bad, "Pushes need a ticket number")
    fixed = ws.correct(bad, "Pushes need a ticket", when={"tool": "shell", "match": "git push"})
    assert fixed.outcome == "corrected"
