"""The branch brief, first in recall's answer when the query is about the branch."""

from __future__ import annotations

from cairn.core.context import Context
from cairn.core.models import Hit
from cairn.io.store.protocol import Store


def brief_if_asked(store: Store, ctx: Context, query: str) -> Hit | None:
    """The branch brief when the query names the branch or asks what is open on it."""
    if not ctx.branch:
        return None
    from cairn.usecases.brief import about_branch, branch_brief

    if not about_branch(store, ctx, query):
        return None
    return branch_brief(store, ctx)
