"""`Opened`: an open Cairn as the use cases built on it see it (tidy, rules files, stats).

Those use cases compose the facade's writes (`remember`, `correct`, `forget`, `unpin`), each
kept in step with the trigger list, so they take the open `cairn.api.Cairn`. They name it
through this Protocol rather than importing the facade: the facade sits a layer above the use
cases (docs/architecture.md), and `Cairn` satisfies the Protocol as it stands (mypy checks it
at each call; tests/test_opened.py checks the open facade at run time).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from cairn.core.context import Context
from cairn.core.models import Memory
from cairn.io.store.protocol import Store
from cairn.io.triggerlist import TriggerList
from cairn.usecases.remember import Remembered


@runtime_checkable
class Opened(Protocol):
    """A workspace store seen from one caller, with the writes that keep its trigger list."""

    store: Store
    ctx: Context

    @property
    def triggers(self) -> TriggerList:
        """The trigger list beside the store, whose `writing()` wraps each write."""
        ...

    def using(self, **changes: Any) -> Opened:
        """The same store seen by another caller (e.g. `using(tool="import")`)."""
        ...

    def remember(self, text: str, **fields: Any) -> Remembered:
        """Save one claim."""
        ...

    def correct(
        self, ref: str, text: str, *, revision: int | None = None, **fields: Any
    ) -> Remembered:
        """Supersede a claim with a corrected sentence."""
        ...

    def forget(self, ref: str) -> Memory:
        """Retire a memory."""
        ...

    def unpin(self, ref: str) -> Memory:
        """Unpin a memory."""
        ...
