"""The doctor's store checks: the store the hooks and the MCP server read opens for real, can
be written, and its trigger list is the current one."""

from __future__ import annotations

from pathlib import Path

from cairn.core.errors import StoreError
from cairn.io.store import DB_NAME
from cairn.io.store.backends import open_store
from cairn.io.store.failures import folder_trouble
from cairn.io.triggerlist import diagnose, lines_of, list_path
from cairn.io.workspace import project_key
from cairn.usecases.install.report import Check


def store_checks(agent: str, scope: str, store: Path, project: Path) -> list[Check]:
    """The store the hook and server read (`store`), opened for real, and its trigger list."""
    out: list[Check] = []
    triggers = list_path(store)
    if store.exists() and not store.is_dir():
        detail = (
            f"{store} is a file, where Cairn's store folder should be: the hooks stay silent "
            f"and every MCP call fails. Move it aside (`mv {store} {store}.moved`), then run "
            f"`cairn init`"
        )
        return [Check(agent, scope, "store", "fail", detail, path=str(store))]
    try:
        opened = open_store(store, create=False)
    except StoreError as exc:
        if (store / DB_NAME).exists():  # there, but cannot be opened: damaged, unreadable
            return [Check(agent, scope, "store", "fail", str(exc), path=str(store))]
        detail = f"no store yet at {store}: the first `cairn remember` (or `cairn init`) makes it"
        out.append(Check(agent, scope, "store", "warn", detail, path=str(store)))
        out.append(
            Check(
                agent,
                scope,
                "triggers",
                "warn",
                "no store, so no trigger list: the hook stays silent until a memory is saved",
                path=str(triggers),
            )
        )
    else:
        try:
            here, total = opened.count_memories(project_key(project)), opened.count_memories()
            read_only = opened.read_only
            wrong = diagnose(opened)
        finally:
            opened.close()
        counted = f"{here} memories for {project} ({total} in the store)"
        trouble = folder_trouble(str(store))
        if read_only or trouble:
            # The hook still shows lessons from such a store, but records nothing (so they
            # repeat within a session) and cannot log why: this check is where it shows.
            why = "its disk is full" if trouble == "full" else "it cannot be written"
            out.append(
                Check(
                    agent,
                    scope,
                    "store",
                    "fail",
                    f"{counted}, but {why}: lessons are shown unrecorded and nothing is "
                    "logged; free space or make the folder writable",
                    path=str(store),
                )
            )
        else:
            out.append(Check(agent, scope, "store", "ok", counted, path=str(store)))
        out.append(_triggers_check(agent, scope, triggers, wrong))
    return out


def _triggers_check(agent: str, scope: str, triggers: Path, wrong: str) -> Check:
    """Is the trigger list the store's current one, line for line (`triggerlist.diagnose`)?"""
    if wrong:
        detail = (
            f"{wrong}: lessons saved since may not fire until a `cairn` command or a hook call "
            "that opens the store repairs it; run `cairn lessons rebuild`"
        )
        return Check(agent, scope, "triggers", "warn", detail, path=str(triggers))
    lines = len(lines_of(triggers.parent))
    detail = f"{lines} trigger lines, in step with the store"
    return Check(agent, scope, "triggers", "ok", detail, path=str(triggers))
