"""A project's memories moved from its folder to its key (`cairn.io.workspace.project_key`).

Before Cairn derived a project's key from its repository, a project was known by its folder,
so a store written by an earlier Cairn holds each project under its absolute path. The first
open of the project on a machine (`cairn.open`: every command, the MCP server, the app) moves
what the store holds under that machine's folder to the key, once:

- each current project-scoped memory under the folder is replaced by a new version under the
  key, as a correction would be (same sentence, kind, tags, reason, citation, trigger, gate,
  pin and dates; `replaces` names the old one), and the old version is kept, superseded: every
  version of a claim stays, and recall's index and the trigger list see a new row, as they
  see every write. Its evidence that still counts is copied onto the new version. When the
  key already holds the same sentence (another machine moved it first), the old version is
  superseded by that one instead, and no second copy is made;
- sessions and progress notes move to the key; acts and learn state too, but for a key the
  project already holds there.

Rows of a folder no repository key names (no git, no remote) never move: there the folder is
the key. Workspace-wide memories are visible from every project and stay as they are.
"""

from __future__ import annotations

from cairn.core.context import Context
from cairn.core.text import tokenize
from cairn.io.store import Event, new_eid, new_ref
from cairn.io.store.protocol import Store


def adopt_folder(store: Store, ctx: Context) -> int:
    """Move what `store` holds under the project's folder (`ctx.root`) to its key
    (`ctx.project`); how many memories moved. A read, and nothing else, when there is nothing
    to move (one indexed query), or the store is read-only."""
    old, new = ctx.root, ctx.project
    if old == new or store.read_only or not store.holds_project(old):
        return 0
    from cairn.usecases.remember import index_text  # citations and all: only when there is a move

    moved = 0
    with store.transaction():  # the write lock: two machines moving at once take turns
        now = ctx.now()
        for memory in store.own_memories(old):
            tokens = tokenize(memory.text)
            folded = " ".join(tokens)
            kept = store.find_current(new, folded)
            if kept is None:
                index = index_text(
                    (tokens, memory.text), memory.tags, memory.source_ref, memory.reason
                )
                kept = store.insert_memory(
                    memory.replace(ref=new_ref(), project=new, replaces=memory.ref, revision=1),
                    folded,
                    index,
                )
                store.add_events(
                    Event(new_eid(), kept.ref, e.event, e.tool, e.session, e.at, e.act, e.detail)
                    for e in store.events_for([memory.ref])
                )
            store.update_memory(memory, until=now, replaced_by=kept.ref, status="superseded")
            moved += 1
        store.move_project(old, new)
    return moved
