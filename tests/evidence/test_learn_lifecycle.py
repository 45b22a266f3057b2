"""What code acts do to a memory's standing: two strikes put it out, a merge restores it."""

from __future__ import annotations

from datetime import timedelta

from learn_git import Lab, hours

from cairn.usecases.calls import Call

TERRAFORM = Call(tool="shell", command="terraform apply -auto-approve")


def _discarded(lab: Lab, branch: str, sid: str, cites: list[str], start: float) -> None:
    lab.repo.git("switch", "-q", "-c", branch, "main")
    lab.session(sid, branch, hours(start), hours(start + 1), cites)
    lab.repo.commit(f"{sid}.tf", f"{sid}\n", hours(start + 0.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("branch", "-q", "-D", branch)


def _merged(lab: Lab, branch: str, sid: str, cites: list[str], start: float) -> None:
    lab.repo.git("switch", "-q", "-c", branch, "main")
    lab.session(sid, branch, hours(start), hours(start + 1), cites)
    lab.repo.commit(f"{sid}.tf", f"{sid}\n", hours(start + 0.5))
    lab.repo.git("switch", "-q", "main")
    lab.repo.git("merge", "-q", "--no-ff", "-m", f"merge {branch}", branch, at=hours(start + 1.5))


def _fired(lab: Lab) -> list[str]:
    return [f.memory.ref for f in lab.ws.lessons_for(TERRAFORM, record=False).fired]


def test_two_strikes_put_a_lesson_out_and_a_merge_brings_it_back(lab: Lab) -> None:
    when = {"tool": "shell", "match": r"terraform\s+apply"}
    lesson = lab.ws.remember("Run terraform plan and read it before apply", when=when).ref
    assert _fired(lab) == [lesson]
    lab.session("s1", "main", hours(1), hours(2), [lesson])
    bad = lab.repo.commit("main.tf", "a\n", hours(1.5))
    lab.repo.git("revert", "--no-edit", bad, at=hours(2.5))
    _discarded(lab, "feat/infra", "s2", [lesson], start=3)

    assert [r.act.act for r in lab.learn().acts] == ["discard", "revert"]

    view = lab.view(lesson)
    assert view["status"] == "out"
    assert view["why"].startswith("contradicted twice with no confirmation since")
    assert "discard of feat/infra" in view["why"] and "revert of main" in view["why"]
    assert _fired(lab) == []
    decision = lab.ws.lessons_for(TERRAFORM, record=False)
    assert decision.skipped[lesson].startswith("out:")
    assert lab.ws.recall("terraform plan apply").hits[0].ref == lesson  # still found, lower

    _merged(lab, "feat/infra2", "s3", [lesson], start=6)
    assert [r.act.act for r in lab.learn(at=hours(30)).acts] == ["merge"]
    assert lab.view(lesson)["status"] == "active"
    assert _fired(lab) == [lesson]


def test_a_pinned_memory_is_never_put_out(lab: Lab) -> None:
    when = {"tool": "shell", "match": r"terraform\s+apply"}
    lesson = lab.ws.remember("Apply terraform from CI only", when=when, pinned=True).ref
    _discarded(lab, "feat/a", "s1", [lesson], start=1)
    _discarded(lab, "feat/b", "s2", [lesson], start=3)
    assert len(lab.learn().acts) == 2
    view = lab.view(lesson)
    assert view["status"] == "active" and len(view["evidence"]["acts"]) == 2
    assert _fired(lab) == [lesson]


def test_one_strike_leaves_a_memory_in(lab: Lab) -> None:
    ref = lab.ws.remember("Terraform state lives in the bucket").ref
    _discarded(lab, "feat/a", "s1", [ref], start=1)
    lab.learn()
    assert lab.view(ref)["status"] == "active"


def test_a_memory_rests_after_30_days_without_a_citation_merges_or_not(lab: Lab) -> None:
    merged = lab.ws.remember("Cold storage buckets are versioned").ref
    pinned = lab.ws.remember("Never delete the audit bucket", pinned=True).ref
    preference = lab.ws.remember("Name buckets in kebab case", kind="preference").ref
    _merged(lab, "feat/buckets", "s1", [merged, pinned, preference], start=1)
    assert [r.act.act for r in lab.learn().acts] == ["merge"]
    assert lab.view(merged)["status"] == "active"

    lab.clock.moment = hours(1) + timedelta(days=30, hours=1)  # cited at hours(1)+1min
    view = lab.view(merged)
    assert view["status"] == "resting" and view["why"] == "not cited or restated for 30 days"
    assert lab.view(pinned)["status"] == "active"
    assert lab.view(preference)["status"] == "active"

    lab.ws.cite([merged])
    assert lab.view(merged)["status"] == "active"
