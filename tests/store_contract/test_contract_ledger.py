"""Evidence, offers, gates, sessions, progress, code acts and measures through `Store`."""

from __future__ import annotations

from cairn.core.context import Context
from cairn.core.models import Event
from cairn.io.store import Progress, SessionRow
from cairn.io.store.acts import Act, SessionCommit
from cairn.io.store.protocol import Store
from tests.store_contract.conftest import T0, memory, put

T1 = "2026-11-02T12:00:00.000000Z"


def _event(eid: str, ref: str, event: str = "cited", **kw: object) -> Event:
    return Event(
        eid,
        ref,
        event,
        str(kw.get("tool", "codex")),
        str(kw.get("session", "s1")),
        str(kw.get("at", T0)),
        kw.get("act"),  # type: ignore[arg-type]
        {},
    )


def test_an_event_is_stored_once(store: Store) -> None:
    put(store, memory("m-000001", "one"))
    assert store.add_events([_event("e-1", "m-000001"), _event("e-2", "m-000001")]) == 2
    assert store.add_events([_event("e-1", "m-000001")]) == 0
    assert [e.eid for e in store.events_for(["m-000001"])] == ["e-1", "e-2"]
    assert store.event_exists("m-000001", "cited", "codex", "s1", "2026-11-01")
    assert not store.event_exists("m-000001", "cited", "claude-code", "s1", "2026-11-01")
    rowid = store.index_rows_after(0)[0][0]
    assert store.rowids_with_events() == frozenset({rowid})


def test_events_of_an_act_taken_back_stop_counting(store: Store) -> None:
    put(store, memory("m-000001", "one"))
    act = Act("a-1", "/p", "feat", "merge", T0, "review", "k1", {}, None, ("s1",))
    assert store.add_act(act)
    store.add_events([_event("e-1", "m-000001", "merge", act="a-1")])
    assert len(store.events_for(["m-000001"])) == 1
    assert store.mark_act_undone("a-1", T1)
    assert not store.mark_act_undone("a-1", T1)
    assert store.events_for(["m-000001"]) == []
    assert store.get_acts(["a-1"])["a-1"].undone_at == T1


def test_offers_and_gates_are_kept_per_session(store: Store) -> None:
    store.record_offers("s1", ["m-1", "m-2"], "lesson", "codex", T0)
    assert store.offered("s1", ["lesson"]) == {"m-1", "m-2"}
    assert store.offered("s1", ["brief"]) == set()
    assert store.claim_gates("s1", ["m-1", "m-3"], "codex", "git push", T0) == ["m-1", "m-3"]
    assert store.claim_gates("s1", ["m-1"], "codex", "git push", T0) == []
    assert store.gates_waiting("s1") == {"m-1", "m-3"}
    store.note_retries("s1", ["m-1"], "git push -f", T1)
    assert store.gates_waiting("s1") == {"m-3"}
    assert "m-3" in store.offered("s1", ["gate"])


def test_sessions_keep_what_they_were_first_seen_with(store: Store) -> None:
    row = SessionRow("s1", "codex", "/p", "feat", "/p", T0, None)
    assert store.session_changes(row)
    store.upsert_session(row)
    assert not store.session_changes(row)
    assert store.get_session("s1") == row
    ctx = Context(project="/p", cwd="/p", tool="claude-code", session="s1", branch="other")
    store.note_session(ctx)
    assert store.get_session("s1") == row
    store.end_session("s1", T1)
    ended = store.get_session("s1")
    assert ended is not None and ended.ended == T1
    assert [s.id for s in store.sessions("/p")] == ["s1"]
    assert store.sessions("/p", branch="main") == []
    assert store.get_session("nope") is None


def test_progress_is_appended_once_per_pid(store: Store) -> None:
    p = Progress("p-1", "/p", "feat", "ship", "tests", "done", "codex", "s1", T0)
    assert store.add_progress(p) == 1
    assert store.add_progress(p) == 0
    assert store.progress("/p") == [p]
    assert store.progress("/p", branch="main") == []


def test_an_act_key_is_recorded_once(store: Store) -> None:
    act = Act("a-1", "/p", "feat", "merge", T0, "git", "merge:abc", {"x": 1}, None, ("s1", "s2"))
    assert store.add_act(act)
    again = Act("a-2", "/p", "feat", "merge", T1, "git", "merge:abc", {}, None, ())
    assert not store.add_act(again)
    assert store.act_key_exists("/p", "merge:abc")
    assert not store.act_key_exists("/q", "merge:abc")
    found = store.act_for_key("/p", "merge:abc")
    assert found == act
    assert store.judged_sessions("/p", ("merge",)) == {"s1", "s2"}
    assert [a.aid for a in store.recent_acts("/p")] == ["a-1"]
    assert [a.aid for a in store.all_acts()] == ["a-1"]


def test_session_commits_find_their_sessions(store: Store) -> None:
    c = SessionCommit("s1", "abc", T0, "a@x", "branch")
    assert store.add_session_commits([c, c]) == 1
    assert store.add_session_commits([c]) == 0
    assert store.session_commits(["s1"]) == {"s1": [c]}
    assert store.sessions_of_commits(["abc"]) == {"abc": {"s1"}}
    # A rebased commit: another sha, the same author time and email.
    assert store.sessions_of_commits(["def"], {"def": (T0, "a@x")}) == {"def": {"s1"}}
    store.upsert_session(SessionRow("s1", "codex", "/p", "feat", "/p", T0, None))
    assert [s.id for s in store.learn_sessions_since("/p", T0)] == ["s1"]
    assert [s.id for s in store.learn_sessions_on_branch("/p", "feat")] == ["s1"]


def test_learn_state_keeps_the_last_value(store: Store) -> None:
    assert store.learn_state("/p", "heads") is None
    store.set_learn_state("/p", "heads", "1")
    store.set_learn_state("/p", "heads", "2")
    assert store.learn_state("/p", "heads") == "2"


def test_measures_count_offers_citations_and_claims(store: Store) -> None:
    put(store, memory("m-000001", "one"))
    store.record_offers("s1", ["m-000001"], "recall", "codex", T0)
    store.record_offers("s2", ["m-000001"], "recall", "codex", T1)
    store.add_events([_event("e-1", "m-000001", session="s1", at=T1)])
    store.upsert_session(SessionRow("s1", "codex", "/p", "", "/p", T0, None))
    counts = store.offer_counts("/p")
    assert [(c.ref, c.channel, c.tool, c.offers, c.sessions) for c in counts] == [
        ("m-000001", "recall", "codex", 2, 2)
    ]
    assert store.fire_counts(["m-000001"], ["recall"]) == {"m-000001": 2}
    assert [s for s, _, _ in store.fire_sessions("m-000001", ["recall"])] == ["s1", "s2"]
    assert store.cite_counts("/p") == {"m-000001": 1}
    assert store.hit_counts("/p") == {"m-000001": (2, 1)}
    assert store.new_claims("/p") == [(T0[:10], 1)]
    assert store.sessions_by_tool("/p") == {"codex": 1}
    assert store.offer_counts("/p", since="2026-11-03") == []


def test_gate_counts_and_declines(store: Store) -> None:
    put(store, memory("m-000001", "one"))
    store.claim_gates("s1", ["m-000001"], "codex", "git push", T0)
    store.note_retries("s1", ["m-000001"], "git push --dry-run", T1)
    assert store.gate_counts("/p") == {"m-000001": (1, 1, 1, {"codex": 1})}
    assert store.decline_proposal("t-1", "pair", ["m-000001"], T0)
    assert not store.decline_proposal("t-1", "pair", ["m-000001"], T0)
    assert store.declined_proposals() == {"t-1"}
    first = store.sight_citations({"m-000001": "gone"}, T0)
    again = store.sight_citations({"m-000001": "gone"}, T1)
    assert first == again == {"m-000001": T0}
