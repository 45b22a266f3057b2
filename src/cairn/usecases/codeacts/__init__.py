"""Code acts: what happened to the code (a merge, a revert, a discarded branch) becomes
evidence on the memories the sessions behind it cited (confirmed by a merge, contradicted by a
revert or a discard). `learning` finds them in git (`cairn learn`, and each search's catch-up),
`byhand` records them from the user (`cairn review`) and takes them back, and `recording`
stores one act and its events for both. The git hooks that run `cairn learn` after merges,
rewrites and checkouts are installed by `cairn.io.repo.githooks`."""

from __future__ import annotations

from cairn.io.repo.githooks import install_git_hooks, uninstall_git_hooks
from cairn.io.store.acts import ACTS
from cairn.usecases.codeacts.byhand import list_acts, review, undo, undo_last
from cairn.usecases.codeacts.learning import HORIZON, OPEN_GRACE, LearnResult, learn, learn_if_moved
from cairn.usecases.codeacts.recording import Recorded

__all__ = [
    "ACTS",
    "HORIZON",
    "OPEN_GRACE",
    "LearnResult",
    "Recorded",
    "install_git_hooks",
    "learn",
    "learn_if_moved",
    "list_acts",
    "review",
    "undo",
    "undo_last",
    "uninstall_git_hooks",
]
