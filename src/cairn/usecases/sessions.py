"""The end of a session: refs the agent wrote in its replies count as cited."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from cairn.core.context import Context
from cairn.io.regularfile import read_text
from cairn.io.store.protocol import Store
from cairn.usecases.remember import cite

REF = re.compile(r"\bm-[0-9a-f]{6}\b")
MAX_TRANSCRIPT_BYTES = 20_000_000


def replied_refs(transcript: Path) -> list[str]:
    """Refs found in the assistant's own text in a transcript (JSON Lines of any agent).

    A line counts when it is an assistant message: a `role` or `type` of "assistant" anywhere
    on the path to the text. Tool results and the user's words do not count.
    """
    found: list[str] = []
    try:
        # Its first MAX_TRANSCRIPT_BYTES, and only from a regular file: the path comes from
        # the agent's payload, and a FIFO or /dev/zero there must not stall the session's end.
        data = read_text(transcript, MAX_TRANSCRIPT_BYTES, partial=True, errors="replace")
    except OSError:
        return []
    for line in data.splitlines():
        if "m-" not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        found.extend(_assistant_refs(record, False))
    return list(dict.fromkeys(found))


def _assistant_refs(node: Any, inside: bool) -> list[str]:
    if isinstance(node, dict):
        here = inside or node.get("role") == "assistant" or node.get("type") == "assistant"
        if node.get("type") in ("tool_result", "function_call_output", "tool_use"):
            return []
        out: list[str] = []
        for value in node.values():
            out.extend(_assistant_refs(value, here))
        return out
    if isinstance(node, list):
        return [r for item in node for r in _assistant_refs(item, inside)]
    if isinstance(node, str) and inside:
        return REF.findall(node)
    return []


def end_session(store: Store, ctx: Context, transcript: str) -> list[str]:
    """Count the refs the agent wrote in its replies as cited; returns those that counted."""
    refs = replied_refs(Path(transcript)) if transcript else []
    known = list(store.get_memories(refs))
    counted = cite(store, ctx, known) if known else []
    if ctx.session:
        store.end_session(ctx.session, ctx.now())
    return counted
