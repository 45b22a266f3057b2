"""`lessons_for` without the hook's entries: every trigger built once per trigger generation,
and only the entries that could match read again. Same answers as checking every entry."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.api import Cairn
from cairn.core.models import Memory
from cairn.usecases import calls
from cairn.usecases.calls import Call
from tests.conftest import Clock

WORDS = [
    "git", "push", "--force", "origin", "main", "commit", "-m", "'wip'", "ci", "npm", "publish",
    "pack", "rm", "-rf", "/", "docker", "build", "--no-cache", "terraform", "apply", "destroy",
    "&&", ";", "|", "echo", '"git push"', "make", "deploy", "gh", "pr", "create",
]  # fmt: skip
RULES = [f"rule{n}" for n in range(8)]
PATHS = [
    "src/refunds.py", "src/app.py", "packages/db/schema.sql", "packages/db/x/y.sql", "uv.lock",
    "app/[slug]/page.tsx", "docs/readme.md", "src/deep/mod.py", "../elsewhere/x.py", ".",
]  # fmt: skip


def decide(ws: Cairn, call: Call) -> dict[str, Any]:
    return calls.lessons_for(ws.store, ws.ctx, call, record=False, gates=True).to_dict()


def every_entry(ws: Cairn, call: Call) -> dict[str, Any]:
    """The answer when every entry is read and checked, as before the candidates step."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(calls, "_could_match", lambda *args: True)
        return decide(ws, call)


def build(ws: Cairn, project: Path) -> dict[str, str]:
    (project / "src").mkdir()
    (project / "src" / "refunds.py").write_text("MAX = 3\nMIN = 1\n")
    (project / "src" / "app.py").write_text("def main():\n    return 1\n")
    refs: dict[str, str] = {}

    def keep(name: str, text: str, **fields: Any) -> None:
        refs[name] = ws.remember(text, **fields).ref

    keep("push", "Before a push, run the gate", when={"tool": "shell", "match": "git push"})
    keep("force", "Never force", when={"tool": "shell", "match": r"push\s+--force", "gate": True})
    keep("npm", "Publish from CI", when={"tool": "shell", "match": "^npm (publish|pack)"})
    keep("rm", "Careful with rm", when={"tool": "shell", "match": r"rm -rf\s+/"})
    keep("tf", "Plan first", when={"tool": "shell", "match": "terraform (apply|destroy)$"})
    keep("docker", "Cache matters", when={"tool": "shell", "match": "docker build.*--no-cache"})
    keep("db", "The schema is generated", when={"tool": "read", "path": "packages/db/**"})
    keep("lock", "Lock files are generated", when={"tool": "edit", "path": "*.lock"})
    keep("py", "Type everything", when={"tool": "edit", "path": "src/**/*.py"})
    keep("slug", "Route folders are literal", when={"tool": "edit", "path": "app/[slug]/page.tsx"})
    keep("wide", "Everywhere", when={"tool": "shell", "match": "make"}, scope="workspace")
    for n in range(8):  # more than RULES_K rules of one action
        keep(f"rule{n}", f"Push rule {n}", kind="rule", tags=["trigger:git-push"])
    keep("commit", "Sign commits", kind="rule", tags=["trigger:git-commit"], gate=True)
    keep("deploy", "Deploy from main", kind="rule", tags=["trigger:make-deploy"])
    keep("pr", "Link the issue", kind="rule", tags=["trigger:pr-create"])
    keep("cited", "Refunds cap at 3", kind="lesson", source_ref="src/refunds.py:1")
    keep("decided", "main returns 1", kind="decision", source_ref="src/app.py:1-2")
    keep("fact", "app.py has main", kind="fact", source_ref="src/app.py:1")
    keep("gone", "Forgotten", when={"tool": "shell", "match": "git"})
    ws.forget(refs["gone"])
    keep("out", "Contradicted twice", when={"tool": "shell", "match": "origin"})
    ws.using(session="a").contradict(refs["out"])
    ws.using(session="b").contradict(refs["out"])
    keep("old", "Push old", when={"tool": "shell", "match": "push origin"})
    refs["new"] = ws.correct(refs["old"], "Push new").ref
    ws.pin(refs["rm"])
    # A session that was already given one: its "why not" is `already given`.
    ws.using(session="seen").lessons_for(Call("shell", command="git push"))
    return refs


@pytest.fixture
def stocked(open_ws: Callable[..., Cairn], project: Path) -> tuple[Cairn, dict[str, str]]:
    ws = open_ws()
    return ws, build(ws, project)


calls_drawn = st.one_of(
    st.lists(st.sampled_from(WORDS), max_size=8).map(
        lambda words: Call("shell", command=" ".join(words))
    ),
    st.tuples(st.sampled_from(["read", "edit"]), st.lists(st.sampled_from(PATHS), max_size=3)).map(
        lambda drawn: Call(drawn[0], paths=tuple(drawn[1]))
    ),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(call=calls_drawn, session=st.sampled_from(["", "s1", "seen"]))
def test_the_candidates_give_the_answer_of_checking_every_entry(
    stocked: tuple[Cairn, dict[str, str]], call: Call, session: str
) -> None:
    ws = stocked[0].using(session=session)
    assert decide(ws, call) == every_entry(ws, call)


@pytest.mark.parametrize(
    ("call", "gated", "fires", "why_not"),
    [
        (Call("shell", command="git push --force origin main"), ["force"], [], {}),
        (Call("shell", command="rm -rf / && terraform apply"), [], ["rm", "tf"], {}),
        (Call("shell", command="npm publish && make deploy"), [], ["npm", "wide", "deploy"], {}),
        (Call("shell", command="git push origin"), [], ["push", "new", *RULES], {"out": "out"}),
        (Call("edit", paths=("src/refunds.py",)), [], ["cited", "py"], {}),
        (Call("read", paths=("packages/db/x/y.sql",)), [], ["db"], {}),
    ],
)
def test_a_table_of_calls_gets_the_same_lessons_and_reasons(
    stocked: tuple[Cairn, dict[str, str]],
    call: Call,
    gated: list[str],
    fires: list[str],
    why_not: dict[str, str],
) -> None:
    ws, refs = stocked
    got = decide(ws, call)
    assert got == every_entry(ws, call)
    assert [f["ref"] for f in got["gated"]] == [refs[name] for name in gated]
    assert set(got["lessons"]) <= {refs[name] for name in fires}
    assert bool(got["lessons"]) == bool(fires)
    for name, start in why_not.items():
        assert got["skipped"][refs[name]].startswith(start)


def test_the_answer_follows_every_write_in_the_same_process(ws: Cairn) -> None:
    push = Call("shell", command="git push origin main")
    assert decide(ws, push)["lessons"] == []
    first = ws.remember("Run the gate", when={"tool": "shell", "match": "git push"}).ref
    assert decide(ws, push)["lessons"] == [first]
    moved = ws.correct(first, "Run the gate", when={"tool": "shell", "match": "git pull"}).ref
    assert decide(ws, push)["lessons"] == []
    assert decide(ws, Call("shell", command="git pull"))["lessons"] == [moved]
    ws.forget(moved)
    assert decide(ws, Call("shell", command="git pull"))["lessons"] == []


def test_columns_outside_the_trigger_generation_are_read_afresh(ws: Cairn, clock: Clock) -> None:
    refs = []
    for n in range(3):
        clock.advance(seconds=1)
        refs.append(ws.remember(f"Lesson {n}", when={"tool": "shell", "match": "deploy"}).ref)
    deploy = Call("shell", command="make deploy")
    before = decide(ws, deploy)
    assert refs[0] not in before["lessons"]
    ws.pin(refs[0])  # pinning does not move the trigger generation
    after = decide(ws, deploy)
    assert after["lessons"][0] == refs[0]
    assert after == every_entry(ws, deploy)


def test_every_trigger_is_read_once_per_generation(
    ws: Cairn, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws.remember("Run the gate", when={"tool": "shell", "match": "git push"})
    reads: list[int] = []
    whole = ws.store.trigger_memories

    def counted() -> list[Memory]:
        reads.append(1)
        return whole()

    monkeypatch.setattr(ws.store, "trigger_memories", counted)
    for command in ("git push", "git status", "git push -f"):
        decide(ws, Call("shell", command=command))
    assert len(reads) == 1  # built once for this generation
    ws.remember("Pull first", when={"tool": "shell", "match": "git pull"})
    assert decide(ws, Call("shell", command="git pull"))["lessons"]
    assert len(reads) == 2  # the write moved the generation
