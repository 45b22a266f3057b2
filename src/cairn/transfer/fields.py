"""The checks an import applies to each field (each takes the key and the value read and returns
the value to store), and the fields of each record type."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cairn.context import parse_stamp, stamp
from cairn.errors import RefusedError
from cairn.remember import (
    MEMORY_STATUSES,
)
from cairn.store import EVENTS
from cairn.store.acts import ACTS, SOURCES

FORMAT_VERSION = 1
MAX_LABEL = 4096  # a project path, branch, tool, session or record id
_REF = re.compile(r"m-[0-9a-f]{6}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_FIRST_YEAR = 1970  # nothing Cairn records predates it; stamps keep four-digit years
_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")


# -- field checks: each takes the key and the value read, returns the value to store ------

Check = Callable[[str, Any], Any]


def _shown(value: Any) -> str:
    """A value as a refusal quotes it: repr, cut to 60 characters."""
    try:
        text = repr(value[:61] if isinstance(value, str) else value)
    except RecursionError:  # as deep as JSON can nest
        return f"a deeply nested {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _text(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise RefusedError(f"refused: `{key}` must be text, not {_shown(value)}")
    return value


def _label(key: str, value: Any) -> str:
    """One line of text, at most `MAX_LABEL` characters."""
    text = _text(key, value)
    if len(text) > MAX_LABEL:
        raise RefusedError(f"refused: `{key}` is {len(text)} characters, over {MAX_LABEL}")
    if _CONTROL.search(text):
        raise RefusedError(f"refused: `{key}` must be one line without control characters")
    return text


def _ident(key: str, value: Any) -> str:
    text = _label(key, value)
    if not text:
        raise RefusedError(f"refused: `{key}` is empty")
    return text


def _ref(key: str, value: Any) -> str:
    if not isinstance(value, str) or not _REF.fullmatch(value):
        raise RefusedError(f"refused: `{key}` must be a ref like m-1a2b3c, not {_shown(value)}")
    return value


def _path(key: str, value: Any) -> str:
    text = _label(key, value)
    if not os.path.isabs(text):
        raise RefusedError(f"refused: `{key}` must be an absolute path, not {_shown(value)}")
    return text


def _path_or_empty(key: str, value: Any) -> str:
    return _path(key, value) if value != "" else ""


def _stamp(key: str, value: Any) -> str:
    """An ISO 8601 moment, in the form Cairn writes (`stamp`: UTC, microseconds)."""
    text = _restamped(value)
    if text is None or text[:4] < str(_FIRST_YEAR):
        raise RefusedError(
            f"refused: `{key}` must be an ISO 8601 moment like 2026-11-01T12:00:00Z, "
            f"not {_shown(value)}"
        )
    return text


def _restamped(value: Any) -> str | None:
    """The moment as `stamp` writes it, or None when it is not one."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        if _STAMP.fullmatch(value):  # the form Cairn writes (a quick check of the date only)
            datetime.fromisoformat(value[:-1])
            return value
        text = stamp(parse_stamp(value))
    except (ValueError, OverflowError):
        return None
    return text if _STAMP.fullmatch(text) else None


def _stamp_or_empty(key: str, value: Any) -> str:
    return _stamp(key, value) if value != "" else ""


def _flag(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise RefusedError(f"refused: `{key}` must be true or false, not {_shown(value)}")
    return value


def _revision(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 2**63:
        raise RefusedError(f"refused: `{key}` must be a whole number from 1, not {_shown(value)}")
    return value


def _texts(key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RefusedError(f"refused: `{key}` must be a list of texts, not {_shown(value)}")
    return value


def _labels(key: str, value: Any) -> list[str]:
    return [_ident(key, v) for v in _texts(key, value)]


def _object(key: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RefusedError(f"refused: `{key}` must be an object, not {_shown(value)}")
    return value


def _fingerprint(key: str, value: Any) -> str:
    """What the cited code looked like (`cairn.citations.fingerprint`), as JSON text."""
    text = _text(key, value)
    if text:
        try:
            _object(key, json.loads(text))
        except (ValueError, RecursionError):
            raise RefusedError(f"refused: `{key}` must be a JSON object as text") from None
    return text


def _one_of(*options: str) -> Check:
    def check(key: str, value: Any) -> str:
        if not isinstance(value, str) or value not in options:
            raise RefusedError(
                f"refused: `{key}` must be one of {', '.join(options)}, not {_shown(value)}"
            )
        return value

    return check


def _version(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RefusedError(f"refused: `{key}` must be a format version, not {_shown(value)}")
    if value > FORMAT_VERSION:
        raise RefusedError(
            f"refused: this export is format {value}, from a newer Cairn; this one reads "
            f"format {FORMAT_VERSION}: upgrade Cairn to import it"
        )
    return value


def _optional(check: Check) -> Check:
    """`check`, with null meaning absent."""
    return lambda key, value: None if value is None else check(key, value)


@dataclass(frozen=True)
class _Field:
    check: Check
    required: bool = False
    default: Any = None


def _fields(kind: str, record: dict[str, Any], schema: dict[str, _Field]) -> dict[str, Any]:
    """The record's values, each checked; refuse an unknown key or a missing required one."""
    unknown = [key for key in record if key not in schema]
    if unknown:
        raise RefusedError(
            f"refused: unknown key {', '.join(_shown(k) for k in unknown[:5])} in a {kind} "
            "record; it takes only the keys `cairn export` writes"
        )
    out: dict[str, Any] = {}
    for key, field in schema.items():
        if key in record:
            out[key] = field.check(key, record[key])
        elif field.required:
            raise RefusedError(f"refused: a {kind} record needs `{key}`")
        else:
            out[key] = field.default
    return out


_HEADER = {"version": _Field(_version, required=True)}
_MEMORY = {
    "ref": _Field(_ref, required=True),
    "project": _Field(_path, required=True),
    "scope": _Field(_text, default="project"),
    "kind": _Field(_text, required=True),
    "text": _Field(_text, required=True),
    "folded": _Field(_text),  # derived from the text: computed again
    "tags": _Field(_texts, default=()),
    "reason": _Field(_text, default=""),
    "source_ref": _Field(_text, default=""),
    "cite_fp": _Field(_optional(_fingerprint), default=""),
    "when": _Field(_optional(_object)),
    "branch": _Field(_label, default=""),
    "pinned": _Field(_flag, default=False),
    "gate": _Field(_flag, default=False),
    "tool": _Field(_label, default=""),
    "session": _Field(_label, default=""),
    "written": _Field(_stamp, required=True),
    "until": _Field(_optional(_stamp)),
    "replaces": _Field(_optional(_ref)),
    "replaced_by": _Field(_optional(_ref)),
    "status": _Field(_one_of(*MEMORY_STATUSES), default="active"),
    "revision": _Field(_revision, default=1),
    "last_touched": _Field(_optional(_stamp_or_empty)),
}
_ACT = {
    "aid": _Field(_ident, required=True),
    "project": _Field(_path, required=True),
    "branch": _Field(_label, required=True),
    "act": _Field(_one_of(*ACTS), required=True),
    "at": _Field(_stamp, required=True),
    "source": _Field(_one_of(*SOURCES), required=True),
    "key": _Field(_ident, required=True),
    "detail": _Field(_object, default={}),
    "undone_at": _Field(_optional(_stamp)),
    "sessions": _Field(_labels, default=()),
}
_EVIDENCE = {
    "eid": _Field(_ident, required=True),
    "ref": _Field(_ref, required=True),
    "event": _Field(_one_of(*EVENTS), required=True),
    "tool": _Field(_label, required=True),
    "session": _Field(_label, required=True),
    "at": _Field(_stamp, required=True),
    "act": _Field(_optional(_ident)),
    "detail": _Field(_object, default={}),
}
_SESSION = {
    "id": _Field(_ident, required=True),
    "tool": _Field(_label, required=True),
    "project": _Field(_path_or_empty, required=True),
    "branch": _Field(_label, required=True),
    "cwd": _Field(_label, required=True),
    "started": _Field(_stamp, required=True),
    "ended": _Field(_optional(_stamp)),
}
_PROGRESS = {
    "pid": _Field(_ident, required=True),
    "project": _Field(_path, required=True),
    "branch": _Field(_label, required=True),
    "goal": _Field(_text, required=True),
    "step": _Field(_text, required=True),
    "status": _Field(_text, required=True),
    "tool": _Field(_label, required=True),
    "session": _Field(_label, required=True),
    "at": _Field(_stamp, required=True),
}
