"""A tidy proposal: what it changes, its stable id, and what accepting it did."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cairn.core.models import Event

Progress = Callable[[str, int, int], None]
"""Told the step under way, how far it is and how far it goes: (step, done, total)."""


@dataclass(frozen=True)
class Proposal:
    """One tidy proposal: what to change, why, and the facts it rests on."""

    id: str
    kind: str
    action: str
    refs: tuple[str, ...]
    why: str
    texts: tuple[str, ...]
    text: str | None = None
    when: dict[str, str] | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The proposal as `cairn tidy --json` prints it."""
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "action": self.action,
            "refs": list(self.refs),
            "why": self.why,
            "texts": list(self.texts),
        }
        if self.text is not None:
            out["text"] = self.text
        if self.when is not None:
            out["when"] = self.when
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class Applied:
    """What accepting a proposal did: refs written, forgotten and unpinned."""

    proposal: Proposal
    written: tuple[str, ...] = ()
    retired: tuple[str, ...] = ()
    unpinned: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """As `cairn tidy accept --json` prints it."""
        return {
            "id": self.proposal.id,
            "kind": self.proposal.kind,
            "action": self.proposal.action,
            "written": list(self.written),
            "retired": list(self.retired),
            "unpinned": list(self.unpinned),
        }


def _quiet(step: str, done: int, total: int) -> None:
    """No progress shown."""


# `json.dumps(value, sort_keys=True, ensure_ascii=False)`, the encoder made once instead of once
# a proposal (tidy makes one a resting memory: 90k at 100k memories).
_ENCODE = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode


def proposal_id(kind: str, refs: Sequence[str], facts: dict[str, Any]) -> str:
    """The stable id of a proposal: a hash of its kind, refs and the facts it rests on, then
    the refs (in order, without their `m-`), so the id says which memories to look at."""
    ordered = sorted(refs)
    payload = _ENCODE([kind, ordered, facts])
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:10]
    return "-".join(["t", digest, *(ref.removeprefix("m-") for ref in ordered)])


def _key(pid: str) -> str:
    """What a declined id is matched on: `t-` and the hash, without the refs (an id declined
    before ids named their refs is that part alone)."""
    return pid[:12]


def _proposal(
    kind: str,
    action: str,
    refs: tuple[str, ...],
    why: str,
    texts: tuple[str, ...],
    facts: dict[str, Any],
    *,
    text: str | None = None,
    when: dict[str, str] | None = None,
    detail: dict[str, Any] | None = None,
) -> Proposal:
    return Proposal(
        id=proposal_id(kind, refs, facts),
        kind=kind,
        action=action,
        refs=refs,
        why=why,
        texts=texts,
        text=text,
        when=when,
        detail=detail or {},
    )


def _by_ref(events: Iterable[Event]) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for e in events:
        out.setdefault(e.ref, []).append(e)
    return out
