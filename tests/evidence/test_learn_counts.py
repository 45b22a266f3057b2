"""get_memory's evidence counts code acts: a merge is a confirmation, a revert or a discard a
contradiction; an act taken back counts for nothing. The counts agree with the standing."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from learn_git import Lab, hours

from cairn.cli import cli
from cairn.core.lifecycle import CONFIRMING, CONTRADICTING, state_of
from cairn.core.models import Event, Memory
from cairn.usecases.codeacts import review, undo_last
from cairn.usecases.describe import evidence_view


def _show(project: Path, ref: str) -> dict:  # type: ignore[type-arg]
    result = CliRunner().invoke(
        cli, ["--project", str(project), "show", ref, "--json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["memories"][0]  # type: ignore[no-any-return]


def test_a_discard_and_a_revert_are_two_contradictions_on_the_card(lab: Lab, home: Path) -> None:
    ref = lab.ws.remember("Emails are sent through the queue").ref
    lab.session("s1", "main", hours(1), hours(2), [ref])
    bad = lab.repo.commit("mail.py", "queue\n", hours(1.5))
    lab.repo.git("revert", "--no-edit", bad, at=hours(2.5))
    lab.repo.git("switch", "-q", "-c", "feat/mail")
    lab.session("s2", "feat/mail", hours(3), hours(4), [ref])
    lab.repo.commit("mail2.py", "direct\n", hours(3.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("branch", "-q", "-D", "feat/mail")
    assert sorted(r.act.act for r in lab.learn().acts) == ["discard", "revert"]

    shown = _show(lab.repo.root, ref)

    assert shown["status"] == "out"
    assert shown["evidence"]["contradicted"] == {"count": 2, "tools": ["git"]}
    assert shown["evidence"]["confirmed"] == {"count": 0, "tools": []}
    assert shown["evidence"]["cited"]["count"] == 2


def test_a_merge_counts_as_a_confirmation(lab: Lab) -> None:
    ref = lab.ws.remember("Prices are stored in cents").ref
    lab.ws.using(tool="codex", session="c1").remember("prices are stored in cents")
    lab.repo.git("switch", "-q", "-c", "feat/prices")
    lab.session("s1", "feat/prices", hours(1), hours(2), [ref])
    lab.repo.commit("prices.py", "cents\n", hours(1.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("merge", "-q", "--no-ff", "-m", "merge prices", "feat/prices", at=hours(3))
    assert [r.act.act for r in lab.learn().acts] == ["merge"]

    evidence = lab.view(ref)["evidence"]

    assert evidence["confirmed"] == {"count": 2, "tools": ["codex", "git"]}
    assert evidence["contradicted"] == {"count": 0, "tools": []}


def test_acts_by_hand_count_and_stop_counting_when_taken_back(lab: Lab) -> None:
    ref = lab.ws.remember("Sessions expire after an hour").ref
    lab.session("s1", "feat/a", hours(1), hours(2), [ref])
    lab.session("s2", "feat/b", hours(3), hours(4), [ref])
    lab.session("s3", "feat/c", hours(5), hours(6), [ref])
    review(lab.ws.store, lab.ws.ctx, "discard", "feat/a")
    review(lab.ws.store, lab.ws.ctx, "revert", "feat/b")
    view = lab.view(ref)
    assert view["status"] == "out"
    assert view["evidence"]["contradicted"] == {"count": 2, "tools": ["review"]}

    undo_last(lab.ws.store, lab.ws.ctx)

    view = lab.view(ref)
    assert view["status"] == "active"
    assert view["evidence"]["contradicted"] == {"count": 1, "tools": ["review"]}
    review(lab.ws.store, lab.ws.ctx, "merge", "feat/c")
    undo_last(lab.ws.store, lab.ws.ctx)
    assert lab.view(ref)["evidence"]["confirmed"] == {"count": 0, "tools": []}


EVENTS = st.lists(
    st.tuples(st.sampled_from([*CONFIRMING, *CONTRADICTING, "cited", "echo"]), st.booleans()),
    max_size=10,
)


@given(EVENTS)
def test_counts_agree_with_the_standing(drawn: list[tuple[str, bool]]) -> None:
    events = [
        Event(f"e-{i}", "m-000001", name, "git" if act else "codex", "", f"2026-11-01T12:{i:02d}Z")
        for i, (name, act) in enumerate(drawn)
    ]
    memory = Memory("m-000001", "x", "fact", "/p", written="2026-11-01T12:00:00Z")

    view = evidence_view(events)
    state = state_of(memory, events, 0)

    assert view["confirmed"]["count"] == sum(name in CONFIRMING for name, _ in drawn)
    assert view["contradicted"]["count"] == sum(name in CONTRADICTING for name, _ in drawn)
    for name, kinds in (("confirmed", CONFIRMING), ("contradicted", CONTRADICTING)):
        assert view[name]["tools"] == sorted({e.tool for e in events if e.event in kinds})
    if state.status == "out":
        assert view["contradicted"]["count"] >= 2
