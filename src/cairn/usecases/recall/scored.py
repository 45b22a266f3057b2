"""One ranked memory or doc page, as recall's steps pass it along."""

from __future__ import annotations

from typing import Any

from cairn.core.models import Memory


class Scored:
    """One ranked memory or doc page (a plain class: see `Matched`)."""

    __slots__ = ("doc", "key", "keyword", "memory", "score", "weak")

    def __init__(
        self,
        key: str,
        score: float,
        memory: Memory | None = None,
        doc: Any = None,
        weak: bool = False,
        keyword: float | None = None,  # a memory's score before the LSA lift: what step 5 reads
    ) -> None:
        self.key = key
        self.score = score
        self.memory = memory
        self.doc = doc
        self.weak = weak
        self.keyword = keyword
