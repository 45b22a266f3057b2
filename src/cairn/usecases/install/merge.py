"""Adding and removing Cairn's entries in parsed hook and MCP sections, keeping the user's.

Two hook shapes exist. Claude Code, Codex and Gemini CLI use matcher groups,
`{"EVENT": [{"matcher": "...", "hooks": [{"type": "command", "command": "..."}]}]}`; Cursor
uses flat entries, `{"EVENT": [{"command": "..."}]}`. Cairn's entries are recognised by their
command (`cairn.usecases.install.command.is_cairn_hook`). Cairn adds one group (or entry) per event;
when it is already there it is replaced where it stands, so the user's hooks keep their order
and Codex's position-based trust keys stay put. A user group that also holds a Cairn handler
keeps its other handlers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.usecases.install.command import is_cairn_hook
from cairn.usecases.install.files import InstallError, JsonObject, section

if TYPE_CHECKING:
    from cairn.usecases.install.plan import Target

Hooks = dict[str, Any]


def _is_cairn(handler: object) -> bool:
    return isinstance(handler, dict) and is_cairn_hook(handler.get("command"))


def _strip_groups(groups: list[Any]) -> tuple[list[Any], int | None]:
    """Groups without Cairn handlers, and where the first all-Cairn group stood."""
    out: list[Any] = []
    first: int | None = None
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list) or not any(_is_cairn(h) for h in handlers):
            out.append(group)
            continue
        keep = [h for h in handlers if not _is_cairn(h)]
        if keep:
            out.append({**group, "hooks": keep})
        elif first is None:
            first = len(out)
    return out, first


def _strip_flat(entries: list[Any]) -> tuple[list[Any], int | None]:
    """Entries without Cairn's, and where the first Cairn entry stood."""
    out: list[Any] = []
    first: int | None = None
    for entry in entries:
        if _is_cairn(entry):
            if first is None:
                first = len(out)
        else:
            out.append(entry)
    return out, first


def command_groups(
    target: Target, agent: str, events: dict[str, str | None], timeout: float, **extra: Any
) -> dict[str, dict[str, Any]]:
    """Cairn's matcher group for each event, in the Claude-shaped hooks format that Claude
    Code, Codex and Gemini share: `{"matcher": M, "hooks": [{"type": "command", ...}]}`.

    `timeout` is in the agent's own unit; `extra` adds fields to the handler (Gemini's name).
    """
    out: dict[str, dict[str, Any]] = {}
    for event, matcher in events.items():
        group: dict[str, Any] = {"matcher": matcher} if matcher else {}
        handler = {
            "type": "command",
            "command": target.launch.hook_command(agent, event),
            "timeout": timeout,
            **extra,
        }
        group["hooks"] = [handler]
        out[event] = group
    return out


def set_hooks(hooks: Hooks, wanted: dict[str, dict[str, Any]], *, flat: bool = False) -> None:
    """Make Cairn's entries in `hooks` exactly `wanted` (event -> group or entry), in place.

    `wanted` empty removes every Cairn entry (uninstall). Events left empty by the removal are
    dropped; the user's entries are never touched.
    """
    strip = _strip_flat if flat else _strip_groups
    for event in list(hooks):
        entries = hooks[event]
        if not isinstance(entries, list):
            if event in wanted:
                raise InstallError(
                    f"hooks.{event} is a {type(entries).__name__}, not a list; nothing was written"
                )
            continue
        out, first = strip(entries)
        if event in wanted:
            out.insert(len(out) if first is None else first, wanted[event])
        if out != entries:
            if out:
                hooks[event] = out
            else:
                del hooks[event]
    for event, entry in wanted.items():
        if event not in hooks:
            hooks[event] = [entry]


def cairn_handlers(
    hooks: object, *, flat: bool = False
) -> list[tuple[str, int, int, dict[str, Any], dict[str, Any]]]:
    """Cairn's handlers: (event, group index, handler index, group, handler)."""
    found: list[tuple[str, int, int, dict[str, Any], dict[str, Any]]] = []
    if not isinstance(hooks, dict):
        return found
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            continue
        for gi, group in enumerate(entries):
            if flat:
                if _is_cairn(group):
                    found.append((event, gi, 0, group, group))
                continue
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list):
                for hi, handler in enumerate(handlers):
                    if _is_cairn(handler):
                        found.append((event, gi, hi, group, handler))
    return found


def set_server(servers: dict[str, Any], name: str, value: dict[str, Any] | None) -> None:
    """Put Cairn's MCP server under `name` (in place, keeping key order), or remove it."""
    if value is None:
        servers.pop(name, None)
    else:
        servers[name] = value


def hooks_change(
    where: Path,
    wanted: dict[str, dict[str, Any]],
    *,
    flat: bool = False,
    defaults: dict[str, Any] | None = None,
) -> Callable[[JsonObject], None]:
    """A change for `files.json_edit`: Cairn's hooks under the top-level `hooks` key.

    `defaults` are top-level keys set when Cairn adds hooks to a file lacking them (Cursor's
    `version`); they are not removed on uninstall unless the file ends up empty.
    """

    def change(data: JsonObject) -> None:
        if not wanted and not isinstance(data.get("hooks"), dict):
            return
        if wanted and defaults:
            for key, value in defaults.items():
                data.setdefault(key, value)
        had = bool(data.get("hooks"))
        hooks = section(data, "hooks", where)
        set_hooks(hooks, wanted, flat=flat)
        if not hooks and had:
            del data["hooks"]

    return change


def server_change(
    where: Path, key: str, name: str, value: dict[str, Any] | None
) -> Callable[[JsonObject], None]:
    """A change for `files.json_edit`: Cairn's MCP server `name` under the top-level `key`."""

    def change(data: JsonObject) -> None:
        if value is None and not isinstance(data.get(key), dict):
            return
        had = bool(data.get(key))
        servers = section(data, key, where)
        set_server(servers, name, value)
        if not servers and had:
            del data[key]

    return change


def both(*changes: Callable[[JsonObject], None]) -> Callable[[JsonObject], None]:
    """Several changes to one file, applied in order."""

    def change(data: JsonObject) -> None:
        for one in changes:
            one(data)

    return change


def nested_server_change(
    where: Path, keys: list[str], name: str, value: dict[str, Any] | None
) -> Callable[[JsonObject], None]:
    """A change for `files.json_edit`: Cairn's MCP server `name` in the object at `keys`
    (e.g. `projects` > a project's path > `mcpServers` in `~/.claude.json`), or its removal.

    Objects on the way are created when missing; on removal, those left empty go (all but
    the first key's).
    """

    def change(data: JsonObject) -> None:
        chain = [data]
        for key in keys:
            here = chain[-1]
            if value is None and not isinstance(here.get(key), dict):
                return
            chain.append(section(here, key, where))
        set_server(chain[-1], name, value)
        if value is None:  # the objects Cairn's entry left empty go, but never the first key
            # (`projects` in ~/.claude.json is Claude Code's own)
            steps = list(zip(chain[:-1], keys, chain[1:], strict=True))[1:]
            for parent, key, child in reversed(steps):
                if child:
                    break
                del parent[key]

    return change
