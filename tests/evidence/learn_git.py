"""A real git repository and recorded agent sessions, for the `learn` tests.

Commit times are set through GIT_AUTHOR_DATE / GIT_COMMITTER_DATE so they fall inside (or
outside) the session windows the tests record; the store's clock is the conftest `Clock`.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cairn.api import Cairn
from cairn.core.context import stamp
from cairn.io.store import SessionRow
from cairn.usecases.codeacts import LearnResult, learn
from cairn.usecases.remember import cite

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)  # the conftest Clock's start

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def hours(n: float) -> datetime:
    """T0 plus `n` hours."""
    return T0 + timedelta(hours=n)


class Repo:
    """A git repository on disk, driven through the real `git` command."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.moment = hours(-24)

    def git(self, *args: str, at: datetime | None = None, check: bool = True) -> str:
        """Run git; commits it makes are dated `at` (default: one minute after the last)."""
        when = at or self.tick()
        env = {**os.environ, **GIT_ENV}
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.isoformat()
        done = subprocess.run(
            ["git", *args], cwd=self.root, env=env, check=check, capture_output=True, text=True
        )
        return done.stdout.strip()

    def tick(self) -> datetime:
        self.moment += timedelta(minutes=1)
        return self.moment

    def commit(self, path: str, text: str, at: datetime, message: str = "") -> str:
        """Write a file and commit it at `at`; the new sha."""
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
        self.git("add", "-A", at=at)
        self.git("commit", "-q", "--no-gpg-sign", "-m", message or f"write {path}", at=at)
        return self.head()

    def head(self, rev: str = "HEAD") -> str:
        return self.git("rev-parse", rev)


@dataclass
class Lab:
    """A workspace, a repository in its project folder, and helpers to record sessions."""

    ws: Cairn
    repo: Repo
    clock: Any

    def session(
        self,
        sid: str,
        branch: str,
        start: datetime,
        end: datetime | None,
        cites: list[str] = [],  # noqa: B006 - read only
    ) -> None:
        """Record a session on `branch` from `start` to `end` that cited `cites`."""
        ctx = self.ws.ctx
        self.ws.store.upsert_session(
            SessionRow(
                sid,
                "claude-code",
                ctx.project,
                branch,
                ctx.project,
                stamp(start),
                stamp(end) if end else None,
            )
        )
        if cites:
            at = start + timedelta(minutes=1)
            cite(self.ws.store, ctx.replace(session=sid, branch=branch, clock=lambda: at), cites)

    def learn(self, at: datetime | None = None) -> LearnResult:
        """Run `learn` with the clock at `at` (default: a day after T0, once all is done)."""
        self.clock.moment = max(self.clock.moment, at or hours(24))
        return learn(self.ws.store, self.ws.ctx, self.repo.root)

    def view(self, ref: str) -> dict[str, Any]:
        return self.ws.get_memory(ref)["memories"][0]  # type: ignore[no-any-return]

    def counts(self, ref: str) -> dict[str, int]:
        """How many merge, revert and discard events count on the memory."""
        acts = self.view(ref)["evidence"].get("acts", [])
        return {
            name: sum(1 for a in acts if a["act"] == name)
            for name in ("merge", "revert", "discard")
        }

    def score(self, query: str, ref: str) -> float:
        """The memory's match strength in recall (BM25F with its lifts, the evidence factor
        among them), read back from its score (`rank.memory_score`), searched without the lazy
        learning `Cairn.recall` does (so a test decides when `learn` runs)."""
        from cairn.usecases.recall import recall

        result = recall(self.ws.store, self.ws.ctx, query, limit=25)
        assert result.gate is not None
        hits = {h.ref: h.score for h in result.hits}
        return result.gate.rare * hits[ref] / (1.0 - hits[ref])
