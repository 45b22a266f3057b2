"""`cairn recall QUERY --json` without click or numpy, to the bytes `cairn.cli.recall` prints.

Agents search by running `cairn recall ... --json`, a new process each time; importing click
and numpy was most of its time. `recall_json` takes the simple forms (`recall QUERY --json`,
with `--limit N` or `--kind K`, options from the environment as the group reads them), opens
the workspace as every command does, and answers through `cairn.usecases.recall.lean` when the kept
files serve as they are. Anything else (another option, a store with rows not yet indexed, an
LSA fit due) returns None before any output, and `main` runs the click command.

The open leaves the trigger list unchecked (`cairn.open(check_triggers=False)`): a recall
reads no trigger list, and its next reader (a hook call, a write, any other command) checks
and repairs it (docs/lessons.md, "When a stale list is noticed and repaired").

A library error prints one line and exits with its code, as `cli.app.CairnFailure` does.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["recall_json"]

_ENV = ("CAIRN_HOME", "CAIRN_PROJECT", "CAIRN_TOOL", "CAIRN_SESSION")


def recall_json(args: list[str]) -> int | None:
    """The exit status of `cairn recall *args` answered here, or None: not one it takes."""
    parsed = _parse(args)
    if parsed is None or any(os.environ.get(name) == "" for name in _ENV):
        return None
    query, kind, limit = parsed
    import sqlite3

    from cairn.api import open as open_cairn
    from cairn.core.errors import CairnError

    ws: Any = None
    try:
        ws = open_cairn(
            os.environ.get("CAIRN_HOME"),
            project=os.environ.get("CAIRN_PROJECT"),
            tool=os.environ.get("CAIRN_TOOL", "cli"),
            session=os.environ.get("CAIRN_SESSION", ""),
            check_triggers=False,  # a recall reads no trigger list; its next reader checks it
        )
        from cairn.usecases.recall.lean import Lean

        lean = Lean.open(ws.store)
        if lean is None:
            return None
        ws.catch_up()
        result = ws._recall(query, kind=kind, limit=limit, lean=lean)
        ws.note_recalled(result)
    except CairnError as exc:
        return _fail(exc)
    except sqlite3.DatabaseError as exc:
        from cairn.io.store.failures import failure

        path = str(ws.store.path) if ws is not None else "the workspace folder"
        return _fail(failure(exc, path))
    finally:
        if ws is not None:
            ws.close()
    import json

    sys.stdout.write(json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()
    return 0


def _fail(error: Any) -> int:
    sys.stderr.write(f"cairn: {error}\n")
    sys.stderr.flush()
    code: int = error.exit_code
    return code


def _parse(args: list[str]) -> tuple[str, str | None, int | None] | None:
    """(query, kind, limit) of `QUERY --json [--kind K] [--limit N]` in any order; None for
    any other form (click parses those)."""
    query: str | None = None
    kind: str | None = None
    limit: int | None = None
    as_json = False
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--json" and not as_json:
            as_json = True
        elif arg in ("--kind", "--limit") and rest and not rest[0].startswith("-"):
            value = rest.pop(0)
            if arg == "--kind" and kind is None:
                kind = value
            elif arg == "--limit" and limit is None and value.isascii() and value.isdigit():
                limit = int(value)
            else:
                return None
        elif not arg.startswith("-") and query is None:
            query = arg
        else:
            return None
    return (query, kind, limit) if as_json and query is not None else None
