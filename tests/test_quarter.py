"""A simulated quarter: 100 days of use on a test clock, through the real hook entry and the CLI.

One real git repository; sessions from Claude Code, Codex and Gemini CLI (recorded payload
shapes, driven through `cairn.hooks.entry.main`) and from the CLI (`--session`); lessons and
rules firing (at most 2 a call, once a session); memories cited and not; a correction; an
export and import; a merge, a revert, a discard taken back; 30-day rests; two strikes and a
confirmation that restores. Each checkpoint asserts what fires, what the brief lists and what
`get_memory` says.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import cairn
from cairn.cli import cli
from cairn.hooks import entry

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "hooks"
REF = re.compile(r"\bm-[0-9a-f]{6}\b")
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


class Quarter:
    """The world of the simulation: a clock, a git project, a Cairn home, agents and a user."""

    def __init__(self, root: Path, home: Path, clock: Any, monkeypatch: pytest.MonkeyPatch):
        self.project = root
        self.home = home
        self.clock = clock
        self.monkeypatch = monkeypatch
        self.transcripts = root.parent / "transcripts"
        self.transcripts.mkdir()
        self.git("init", "-q", "-b", "main")
        self.commit("README.md", "# shop\n", "init")

    # -- time and git ------------------------------------------------------------------------
    def day(self, n: float) -> None:
        """Move the clock to day `n` of the quarter (13:00 UTC plus the fraction)."""
        from datetime import timedelta

        from tests.conftest import START

        target = START.replace(hour=13) + timedelta(days=n)
        assert target >= self.clock.moment, "the quarter only moves forward"
        self.clock.moment = target

    def later(self, minutes: float) -> None:
        self.clock.advance(minutes=minutes)

    def git(self, *args: str) -> str:
        env = {**os.environ, **GIT_ENV}
        when = self.clock.moment.isoformat()
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
        done = subprocess.run(
            ["git", *args], cwd=self.project, env=env, check=True, capture_output=True, text=True
        )
        return done.stdout.strip()

    def commit(self, path: str, text: str, message: str) -> str:
        file = self.project / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
        self.git("add", path)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    # -- the user at the CLI -----------------------------------------------------------------
    def cairn(self, *args: str, home: Path | None = None, raw: bool = False) -> Any:
        """Run `cairn ARGS` (the real CLI in this process); the parsed JSON output (or text)."""
        runner = CliRunner()
        env = {"CAIRN_HOME": str(home or self.home)}
        result = runner.invoke(cli, ["--project", str(self.project), *args], env=env)
        assert result.exit_code == 0, result.output
        out = result.output.strip()
        return json.loads(out) if out.startswith(("{", "[")) and not raw else out

    def remember(self, text: str, *extra: str, session: str = "") -> str:
        where = ["--session", session] if session else []
        return str(self.cairn(*where, "remember", text, *extra, "--json")["ref"])

    def show(self, ref: str, home: Path | None = None) -> dict[str, Any]:
        with cairn.open(home or self.home, project=self.project, cwd=self.project) as ws:
            record: dict[str, Any] = ws.get_memory([ref])["memories"][0]
        return record

    # -- agents through the real hook entry ----------------------------------------------------
    def hook(
        self,
        agent: str,
        event: str,
        fixture: str,
        session: str,
        home: Path | None = None,
        **changes: Any,
    ) -> str:
        """One hook call with a recorded payload of `agent`; the text the model would see."""
        data = json.loads((FIXTURES / agent / f"{fixture}.json").read_text(encoding="utf-8"))
        data["session_id"] = session
        data["cwd"] = str(self.project)
        data["transcript_path"] = str(self.transcripts / f"{session}.jsonl")
        for key, value in changes.items():
            data[key] = value

        class Stdin:
            buffer = io.BytesIO(json.dumps(data).encode())

        out = io.StringIO()
        with self.monkeypatch.context() as patch:
            patch.setenv("CAIRN_HOME", str(home or self.home))
            patch.setattr(sys, "stdin", Stdin)
            patch.setattr(sys, "stdout", out)
            assert entry.main([agent, event]) == 0
        text = out.getvalue()
        assert not (self.home / "hook-errors.log").exists(), self.home / "hook-errors.log"
        return text

    def start(self, agent: str, session: str, home: Path | None = None) -> set[str]:
        """A session starts; the refs its brief lists."""
        return set(REF.findall(self.hook(agent, "SessionStart", "SessionStart", session, home)))

    def shell(self, agent: str, session: str, command: str, home: Path | None = None) -> list[str]:
        """The agent runs a shell command; the refs that ride along, in order."""
        if agent == "gemini":
            out = self.hook(
                agent,
                "AfterTool",
                "AfterTool",
                session,
                home,
                tool_input={"command": command, "dir_path": "."},
            )
        else:
            out = self.hook(
                agent,
                "PreToolUse",
                "PreToolUse",
                session,
                home,
                tool_input={"command": command},
            )
        return list(dict.fromkeys(REF.findall(out)))

    def end(self, agent: str, session: str, replies: str = "") -> None:
        """The session ends; `replies` is what the agent wrote (refs in it count as cited)."""
        line = {"type": "assistant", "message": {"role": "assistant", "content": replies}}
        (self.transcripts / f"{session}.jsonl").write_text(json.dumps(line) + "\n")
        event = {"claude-code": "Stop", "codex": "Stop", "gemini": "SessionEnd"}[agent]
        fixture = "Stop" if agent == "claude-code" else "SessionStart"
        self.hook(agent, event, fixture, session, hook_event_name=event)


def status(q: Quarter, ref: str) -> str:
    return str(q.show(ref)["status"])


def test_a_quarter_of_use(
    tmp_path: Path, home: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    q = Quarter(root, home, clock, monkeypatch)

    # -- day 0: the user writes the project's memory from the CLI (a recorded session) -------
    q.day(0)
    retries = q.remember(
        "Payment retries back off exponentially, three tries at most",
        "--source-ref",
        "README.md",
        session="cli-setup",
    )
    versioning = q.remember("The public API is versioned in the URL path", session="cli-setup")
    pnpm = q.remember("Use pnpm, not npm", "--kind", "preference", session="cli-setup")
    push = q.remember(
        "Before a push, run make check: the hook is the only CI",
        "--when",
        '{"tool": "shell", "match": "git push"}',
        session="cli-setup",
    )
    signoff = q.remember(
        "Sign off every commit with -s", "--when", '{"tool": "shell", "match": "git (commit|push)"}'
    )
    commit_rule = q.remember(
        "Commit messages: one line, conventional prefix", "--tag", "trigger:git-commit"
    )
    refunds = q.remember(
        "Refund jobs run synchronously: never queue them",
        "--when",
        '{"tool": "shell", "match": "make refunds"}',
    )
    facts = {retries, versioning, pnpm}
    triggers = {push, signoff, commit_rule, refunds}

    # -- day 1: Claude Code on a branch; lessons ride along, at most 2 a call, once a session -
    q.day(1)
    q.git("checkout", "-q", "-b", "feat/retries")
    brief = q.start("claude-code", "cc-1")
    assert facts <= brief and not (triggers & brief)  # lessons arrive on the action instead
    first = q.shell("claude-code", "cc-1", 'git commit -m "feat: retries" && git push')
    assert len(first) == 2 and set(first) <= {push, signoff, commit_rule}
    second = q.shell("claude-code", "cc-1", 'git commit -m "fix: more" && git push')
    assert set(second) == {push, signoff, commit_rule} - set(first)
    assert q.shell("claude-code", "cc-1", "git push") == []  # each once per session
    q.later(10)
    q.commit("pay/retry.py", "TRIES = 3\n", "feat: retries")
    q.later(10)
    q.end("claude-code", "cc-1", f"Done; I followed {retries}.")
    assert q.show(retries)["evidence"]["cited"]["count"] >= 1

    # -- day 2: merged to main: the memories its session cited are confirmed ------------------
    q.day(2)
    q.git("checkout", "-q", "main")
    q.git("merge", "-q", "--no-ff", "feat/retries", "-m", "Merge feat/retries")
    q.cairn("learn", "--json")
    shown = q.show(retries)
    assert shown["evidence"]["confirmed"]["count"] >= 1
    assert [a["act"] for a in shown["evidence"]["acts"]] == ["merge"]

    # -- day 3: Codex on a branch that is thrown away; the discard is taken back -----------
    q.day(3)
    q.git("checkout", "-q", "-b", "feat/sync-refunds")
    q.start("codex", "cx-1")
    assert q.shell("codex", "cx-1", "make refunds") == [refunds]
    q.later(5)
    q.commit("pay/refund.py", "SYNC = True\n", "feat: sync refunds")
    q.later(5)
    q.end("codex", "cx-1", f"Kept {refunds} in mind.")
    q.git("checkout", "-q", "main")
    q.git("branch", "-q", "-D", "feat/sync-refunds")
    q.day(4)
    q.cairn("learn", "--json")
    assert q.show(refunds)["evidence"]["contradicted"]["count"] == 1
    q.cairn("review", "undo", "--json")
    assert q.show(refunds)["evidence"]["contradicted"]["count"] == 0
    assert status(q, refunds) == "active"

    # -- day 5: Gemini on main; its commit is reverted (strike one) -----------------------------
    q.day(5)
    q.start("gemini", "gm-1")
    assert q.shell("gemini", "gm-1", "make refunds") == [refunds]
    q.later(5)
    bad = q.commit("pay/refund.py", "SYNC = 'maybe'\n", "fix: refunds")
    q.later(5)
    q.end("gemini", "gm-1", f"Relied on {refunds}.")
    q.day(6)
    q.git("revert", "--no-edit", bad)
    q.cairn("learn", "--json")
    assert q.show(refunds)["evidence"]["contradicted"]["count"] == 1
    assert status(q, refunds) == "active"

    # -- day 8: a CLI session on a branch that is discarded (strike two): the lesson is out ----
    q.day(8)
    q.git("checkout", "-q", "-b", "feat/refunds-again")
    q.later(1)
    q.remember("Refund webhooks are idempotent", "--used", refunds, session="cli-2")
    q.later(5)
    q.commit("pay/webhook.py", "IDEMPOTENT = True\n", "feat: webhook")
    q.git("checkout", "-q", "main")
    q.git("branch", "-q", "-D", "feat/refunds-again")
    q.day(9)
    q.cairn("learn", "--json")
    shown = q.show(refunds)
    assert shown["status"] == "out" and shown["evidence"]["contradicted"]["count"] == 2
    q.start("claude-code", "cc-2")
    assert q.shell("claude-code", "cc-2", "make refunds") == []  # out: it stops firing

    # -- day 10: the user confirms it: restored, it fires again ---------------------------
    q.day(10)
    q.cairn("confirm", refunds, "--json")
    assert status(q, refunds) == "active"
    q.start("claude-code", "cc-3")
    assert q.shell("claude-code", "cc-3", "make refunds") == [refunds]

    # -- day 20: a correction keeps history ------------------------------------------------
    q.day(20)
    versioning_v2 = str(
        q.cairn("correct", versioning, "The public API is versioned by an Accept header", "--json")[
            "ref"
        ]
    )
    shown = q.show(versioning_v2)
    assert [h["ref"] for h in shown["history"]["replaced"]] == [versioning]
    assert status(q, versioning) == "superseded"

    # -- day 31: nothing cited since day 1 rests; lessons still fire; preferences never rest ----
    q.day(31)
    assert status(q, versioning_v2) == "active"  # written on day 20
    assert status(q, push) == "resting" and status(q, pnpm) == "active"
    brief = q.start("codex", "cx-2")
    assert pnpm in brief and versioning_v2 in brief
    assert set(q.shell("codex", "cx-2", "git push origin main")) == {push, signoff}

    # -- day 45: a lesson written 45 days ago and never cited still fires ---------------------
    q.day(45)
    assert status(q, push) == "resting"
    q.start("claude-code", "cc-4")
    assert push in q.shell("claude-code", "cc-4", "git push")
    assert q.shell("claude-code", "cc-4", "git push") == []
    brief = q.start("claude-code", "cc-5")
    assert retries not in brief  # resting since day 32: left the brief

    # -- day 50: citing wakes a resting memory ----------------------------------------------
    q.day(50)
    q.remember("Retries are logged at warning level", "--used", retries, session="cli-3")
    assert status(q, retries) == "active"
    assert retries in q.start("gemini", "gm-2")

    # -- day 60: export, import into a fresh store: the same answers from both ---------------
    q.day(60)
    dump = q.project.parent / "export.jsonl"
    dump.write_text(q.cairn("export", raw=True), encoding="utf-8")
    other = q.project.parent / "other-home"
    q.cairn("import", str(dump), "--json", home=other)
    for ref in (retries, refunds, push, versioning, versioning_v2, pnpm):
        assert q.show(ref, other) == q.show(ref)
    assert push in q.shell("claude-code", "cc-imported", "git push", home=other)

    # -- day 99: the quarter ends ------------------------------------------------------------
    q.day(99)
    assert status(q, pnpm) == "active"  # preferences never rest
    assert {status(q, r) for r in (push, signoff, commit_rule)} == {"resting"}
    q.start("codex", "cx-3")
    fired = q.shell("codex", "cx-3", 'git commit -s -m "chore: end of quarter"')
    assert len(fired) == 2 and set(fired) <= {signoff, commit_rule}
    assert status(q, retries) == "resting"  # last cited on day 50
