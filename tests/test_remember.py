"""remember: refusals, echo vs confirmation, corrections, forget/restore, pins, `used`."""

from __future__ import annotations

import pytest

import cairn
from cairn.api import Cairn


def test_remember_returns_a_short_ref(ws: Cairn) -> None:
    result = ws.remember("The API tests run with pnpm test --filter api")
    assert result.outcome == "new"
    assert result.ref.startswith("m-") and len(result.ref) == 8
    memory = ws.store.get_memory(result.ref)
    assert memory.kind == "fact" and memory.tool == "claude-code" and memory.session == "s1"


def test_refs_are_unique_across_many_memories(ws: Cairn) -> None:
    refs = {ws.remember(f"memory number {i} about topic {i * 7}").ref for i in range(300)}
    assert len(refs) == 300


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("", cairn.EmptySentenceError, "empty"),
        ("   \n\t ", cairn.EmptySentenceError, "empty"),
        ("x" * 1001, cairn.SentenceTooLongError, "1001 characters"),
    ],
)
def test_sentence_refusals(ws: Cairn, text: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        ws.remember(text)
    assert ws.store.count_memories() == 0


def test_a_sentence_of_exactly_1000_characters_is_kept(ws: Cairn) -> None:
    assert ws.remember("y" * 1000).outcome == "new"


def test_a_reason_over_4000_characters_is_refused(ws: Cairn) -> None:
    with pytest.raises(cairn.RefusedError, match="4001 characters, over the 4000 limit"):
        ws.remember("Deploys go through fly.", reason="x" * 4001)
    assert ws.store.count_memories() == 0
    kept = ws.remember("Deploys go through fly.", reason=" ".join(["word"] * 800))
    assert ws.store.get_memory(kept.ref).reason == " ".join(["word"] * 800)


def test_unknown_kind_is_refused_naming_the_kinds(ws: Cairn) -> None:
    with pytest.raises(cairn.UnknownKindError, match="fact, decision, preference"):
        ws.remember("something", kind="opinion")
    assert ws.store.count_memories() == 0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("text", "The deploy key is AKIAIOSFODNN7EXAMPLE for the bucket"),
        ("text", "use ghp_abcdefghijklmnopqrstuvwxyz0123456789 for the API"),
        ("reason", "password = hunter2hunter2"),
        ("tags", ["sk-ant-api03-abcdefghijklmnopqrstuvwxyz"]),
        ("text", "-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA"),
    ],
)
def test_secrets_are_refused_in_any_field(ws: Cairn, field: str, value: object) -> None:
    fields: dict[str, object] = {"text": "a harmless claim"}
    fields[field] = value
    text = str(fields.pop("text"))
    with pytest.raises(cairn.SecretError, match="looks like it holds"):
        ws.remember(text, **fields)
    assert ws.store.count_memories() == 0


def test_malformed_when_is_refused_and_writes_nothing(ws: Cairn) -> None:
    with pytest.raises(cairn.TriggerError):
        ws.remember("before a push run the gate", when={"tool": "browser", "match": "x"})
    with pytest.raises(cairn.TriggerError):
        ws.remember("before a push run the gate", when={"tool": "shell"})
    assert ws.store.count_memories() == 0


def test_when_makes_a_lesson(ws: Cairn) -> None:
    ref = ws.remember(
        "Before a push, run the full gate", when={"tool": "shell", "match": "git push"}
    ).ref
    memory = ws.store.get_memory(ref)
    assert memory.kind == "lesson" and memory.when is not None
    assert memory.when.to_dict() == {"tool": "shell", "match": "git push"}


def test_unknown_ref_to_correct_is_refused(ws: Cairn) -> None:
    with pytest.raises(cairn.UnknownRefError, match="m-000000"):
        ws.remember("new claim", replaces="m-000000")
    assert ws.store.count_memories() == 0


def test_same_tool_restating_is_an_echo(ws: Cairn) -> None:
    first = ws.remember("We deploy with Render.")
    again = ws.remember("we deploy   with render")
    assert again.outcome == "echo" and again.ref == first.ref
    assert ws.store.count_memories() == 1
    view = ws.get_memory([first.ref])["memories"][0]
    assert view["evidence"]["confirmed"]["count"] == 0


def test_writer_repeating_itself_in_another_session_is_still_an_echo(
    ws: Cairn,
) -> None:
    first = ws.remember("We deploy with Render.")
    again = ws.using(session="s2").remember("We deploy with Render.")
    assert again.outcome == "echo" and again.ref == first.ref


def test_another_tool_restating_confirms_once_per_session(ws: Cairn) -> None:
    ref = ws.remember("We deploy with Render.").ref
    codex = ws.using(tool="codex", session="c1")
    assert codex.remember("We deploy with Render").outcome == "confirmed"
    second = codex.remember("We deploy with Render")
    assert second.outcome == "confirmed" and not second.counted
    assert codex.using(session="c2").remember("we deploy with render").counted
    view = ws.get_memory([ref])["memories"][0]
    assert view["evidence"]["confirmed"] == {"count": 2, "tools": ["codex"]}


def test_without_a_session_a_tool_confirms_once_a_day(ws: Cairn, clock: object) -> None:
    ref = ws.remember("Migrations live in db/migrations.").ref
    gem = ws.using(tool="gemini", session="")
    assert gem.remember("Migrations live in db/migrations").counted
    assert not gem.remember("Migrations live in db/migrations").counted
    clock.advance(days=1)  # type: ignore[attr-defined]
    assert gem.remember("Migrations live in db/migrations").counted
    view = ws.get_memory([ref])["memories"][0]
    assert view["evidence"]["confirmed"]["count"] == 2


def test_used_refs_count_as_cited_at_once(ws: Cairn) -> None:
    a = ws.remember("The payments service retries three times.").ref
    b = ws.remember("Refunds go through the ledger first.", used=[a, "m-ffffff"])
    assert b.unknown_used == ("m-ffffff",)
    view = ws.get_memory([a])["memories"][0]
    assert view["cited"]["count"] == 1 and view["cited"]["last"] is not None
    assert view["evidence"]["cited"]["tools"] == ["claude-code"]


def test_correction_history_order(ws: Cairn, clock: object) -> None:
    v1 = ws.remember("We deploy with fly.").ref
    clock.advance(days=1)  # type: ignore[attr-defined]
    v2 = ws.correct(v1, "We deploy with render.").ref
    clock.advance(days=1)  # type: ignore[attr-defined]
    v3 = ws.correct(v2, "We deploy with kamal.").ref
    newest = ws.get_memory([v3])["memories"][0]
    assert [h["ref"] for h in newest["history"]["replaced"]] == [v2, v1]  # newest first
    oldest = ws.get_memory([v1])["memories"][0]
    assert [h["ref"] for h in oldest["history"]["replaced_by"]] == [v2, v3]  # oldest first
    assert oldest["until"] == newest["history"]["replaced"][1]["until"]
    assert oldest["status"] == "superseded" and oldest["until"] is not None
    assert newest["until"] is None
    assert ws.store.count_memories() == 1


def test_correction_keeps_fields_it_does_not_change(ws: Cairn) -> None:
    v1 = ws.remember(
        "Commit messages are one line",
        kind="preference",
        tags=["trigger:git-commit"],
        reason="team rule",
    ).ref
    v2 = ws.correct(v1, "Commit messages are one line with a conventional prefix").ref
    memory = ws.store.get_memory(v2)
    assert (memory.kind, memory.tags, memory.reason) == (
        "preference",
        ("trigger:git-commit",),
        "team rule",
    )
    assert memory.replaces == v1


def test_correcting_a_replaced_version_is_refused(ws: Cairn) -> None:
    v1 = ws.remember("We deploy with fly.").ref
    v2 = ws.correct(v1, "We deploy with render.").ref
    with pytest.raises(cairn.UnknownRefError, match=v2):
        ws.correct(v1, "We deploy with kamal.")


def test_forget_is_soft_and_restore_undoes_it(ws: Cairn) -> None:
    ref = ws.remember("The staging DB is reset nightly.").ref
    ws.forget(ref)
    assert ws.store.count_memories() == 0
    assert ws.get_memory([ref])["memories"][0]["status"] == "retired"
    ws.restore(ref)
    assert ws.store.count_memories() == 1
    assert ws.get_memory([ref])["memories"][0]["status"] == "active"


def test_pin_and_unpin_bump_the_revision(ws: Cairn) -> None:
    ref = ws.remember("Never force-push main.").ref
    assert ws.pin(ref).pinned
    memory = ws.unpin(ref)
    assert not memory.pinned and memory.revision == 3


def test_a_stale_revision_is_a_conflict(ws: Cairn) -> None:
    ref = ws.remember("Never force-push main.").ref
    stale = ws.store.get_memory(ref)
    ws.pin(ref)
    with pytest.raises(cairn.ConflictError, match="changed while"):
        ws.store.update_memory(stale, pinned=False)


def test_get_memory_lists_unknown_refs(ws: Cairn) -> None:
    ref = ws.remember("The CLI is built with click.").ref
    out = ws.get_memory([ref, "m-nothere", "nonsense"])
    assert [m["ref"] for m in out["memories"]] == [ref]
    assert out["unknown"] == ["m-nothere", "nonsense"]


def test_get_memory_fields(ws: Cairn) -> None:
    ref = ws.remember("The CLI is built with click.", reason="chosen in week one", tags=["cli"]).ref
    view = ws.get_memory([ref])["memories"][0]
    for key in (
        "reason",
        "source_ref",
        "citation",
        "status",
        "pinned",
        "written",
        "cited",
        "evidence",
        "history",
    ):
        assert key in view
    assert view["citation"]["status"] == "unchecked"
    assert view["evidence"]["contradicted"] == {"count": 0, "tools": []}
    assert view["history"] == {"replaced": [], "replaced_by": []}


def test_workspace_scope_is_visible_from_other_projects(open_ws, tmp_path) -> None:  # type: ignore[no-untyped-def]
    other = tmp_path / "other"
    other.mkdir()
    a = open_ws()
    a.remember("I prefer tabs in Makefiles only.", kind="preference", scope="workspace")
    a.remember("This project uses Postgres 16.")
    b = open_ws(project=other, cwd=other)
    texts = [m.text for m in b.list()]
    assert texts == ["I prefer tabs in Makefiles only."]


def test_a_restatement_echoes_the_latest_of_two_visible_claims(  # type: ignore[no-untyped-def]
    open_ws, tmp_path, clock
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    mine = open_ws().remember("Deploys freeze on Fridays.")
    clock.advance(minutes=1)
    # Written from another project, workspace-wide: visible here beside this project's own.
    shared = open_ws(project=other, cwd=other).remember(
        "Deploys freeze on Fridays.", scope="workspace"
    )
    assert shared.outcome == "new" and shared.ref != mine.ref
    again = open_ws().remember("deploys FREEZE on fridays")
    assert again.outcome == "echo" and again.ref == shared.ref
