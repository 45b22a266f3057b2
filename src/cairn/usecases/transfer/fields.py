"""The field checks of an import: each takes the key and the value read and returns the value
to store, or raises `RefusedError` saying what the value should be; `checked_fields` runs a
record's schema (an unknown key, a missing required one, each value's check)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cairn.core.context import parse_stamp, stamp
from cairn.core.errors import RefusedError
from cairn.usecases.transfer.export import FORMAT_VERSION

MAX_LABEL = 4096  # a project path, branch, tool, session or record id


REF = re.compile(r"m-[0-9a-f]{6}")


CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


_FIRST_YEAR = 1970  # nothing Cairn records predates it; stamps keep four-digit years


_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")


Check = Callable[[str, Any], Any]


def shown(value: Any) -> str:
    """A value as a refusal quotes it: repr, cut to 60 characters."""
    try:
        text = repr(value[:61] if isinstance(value, str) else value)
    except RecursionError:  # as deep as JSON can nest
        return f"a deeply nested {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def as_text(key: str, value: Any) -> str:
    """Text."""
    if not isinstance(value, str):
        raise RefusedError(f"refused: `{key}` must be text, not {shown(value)}")
    return value


def as_label(key: str, value: Any) -> str:
    """One line of text, at most `MAX_LABEL` characters."""
    text = as_text(key, value)
    if len(text) > MAX_LABEL:
        raise RefusedError(f"refused: `{key}` is {len(text)} characters, over {MAX_LABEL}")
    if CONTROL.search(text):
        raise RefusedError(f"refused: `{key}` must be one line without control characters")
    return text


def as_ident(key: str, value: Any) -> str:
    """A label that is not empty (an id)."""
    text = as_label(key, value)
    if not text:
        raise RefusedError(f"refused: `{key}` is empty")
    return text


def as_ref(key: str, value: Any) -> str:
    """A memory ref (`m-` + 6 hex)."""
    if not isinstance(value, str) or not REF.fullmatch(value):
        raise RefusedError(f"refused: `{key}` must be a ref like m-1a2b3c, not {shown(value)}")
    return value


def as_path(key: str, value: Any) -> str:
    """An absolute path, as a label."""
    text = as_label(key, value)
    if not os.path.isabs(text):
        raise RefusedError(f"refused: `{key}` must be an absolute path, not {shown(value)}")
    return text


def as_path_or_empty(key: str, value: Any) -> str:
    """An absolute path, or "" (none)."""
    return as_path(key, value) if value != "" else ""


def as_stamp(key: str, value: Any) -> str:
    """An ISO 8601 moment, in the form Cairn writes (`stamp`: UTC, microseconds)."""
    text = _restamped(value)
    if text is None or text[:4] < str(_FIRST_YEAR):
        raise RefusedError(
            f"refused: `{key}` must be an ISO 8601 moment like 2026-11-01T12:00:00Z, "
            f"not {shown(value)}"
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


def as_stamp_or_empty(key: str, value: Any) -> str:
    """A moment (`as_stamp`), or "" (none)."""
    return as_stamp(key, value) if value != "" else ""


def as_flag(key: str, value: Any) -> bool:
    """true or false."""
    if not isinstance(value, bool):
        raise RefusedError(f"refused: `{key}` must be true or false, not {shown(value)}")
    return value


def as_revision(key: str, value: Any) -> int:
    """A whole number from 1."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 2**63:
        raise RefusedError(f"refused: `{key}` must be a whole number from 1, not {shown(value)}")
    return value


def as_texts(key: str, value: Any) -> list[str]:
    """A list of texts."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RefusedError(f"refused: `{key}` must be a list of texts, not {shown(value)}")
    return value


def as_labels(key: str, value: Any) -> list[str]:
    """A list of labels, none empty."""
    return [as_ident(key, v) for v in as_texts(key, value)]


def as_object(key: str, value: Any) -> dict[str, Any]:
    """A JSON object."""
    if not isinstance(value, dict):
        raise RefusedError(f"refused: `{key}` must be an object, not {shown(value)}")
    return value


def as_fingerprint(key: str, value: Any) -> str:
    """What the cited code looked like (`cairn.io.citations.fingerprint`), as JSON text."""
    text = as_text(key, value)
    if text:
        try:
            as_object(key, json.loads(text))
        except (ValueError, RecursionError):
            raise RefusedError(f"refused: `{key}` must be a JSON object as text") from None
    return text


def one_of(*options: str) -> Check:
    """A check passing only the texts `options`."""

    def check(key: str, value: Any) -> str:
        if not isinstance(value, str) or value not in options:
            raise RefusedError(
                f"refused: `{key}` must be one of {', '.join(options)}, not {shown(value)}"
            )
        return value

    return check


def as_version(key: str, value: Any) -> int:
    """The header's format version: one this Cairn reads."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RefusedError(f"refused: `{key}` must be a format version, not {shown(value)}")
    if value > FORMAT_VERSION:
        raise RefusedError(
            f"refused: this export is format {value}, from a newer Cairn; this one reads "
            f"format {FORMAT_VERSION}: upgrade Cairn to import it"
        )
    return value


def nullable(check: Check) -> Check:
    """`check`, with null meaning absent."""

    def optional(key: str, value: Any) -> Any:
        return None if value is None else check(key, value)

    _OPTIONAL.add(optional)
    return optional


_OPTIONAL: set[Check] = set()


@dataclass(frozen=True)
class Spec:
    """How a record's key is checked: its check, whether it is required, its default."""

    check: Check
    required: bool = False
    default: Any = None
    # A value of exactly this type is one the check passes as it is: `checked_fields` keeps it
    # without the call (100k memories of 23 fields each: the calls were a third of import).
    plain: type | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        plains: dict[Check, type] = {as_text: str, as_flag: bool}
        plain = type(None) if self.check in _OPTIONAL else plains.get(self.check)
        object.__setattr__(self, "plain", plain)


def checked_fields(kind: str, record: dict[str, Any], schema: dict[str, Spec]) -> dict[str, Any]:
    """The record's values, each checked; refuse an unknown key or a missing required one."""
    unknown = [key for key in record if key not in schema]
    if unknown:
        raise RefusedError(
            f"refused: unknown key {', '.join(shown(k) for k in unknown[:5])} in a {kind} "
            "record; it takes only the keys `cairn export` writes"
        )
    out: dict[str, Any] = {}
    for key, spec in schema.items():
        if key in record:
            value = record[key]
            out[key] = value if value.__class__ is spec.plain else spec.check(key, value)
        elif spec.required:
            raise RefusedError(f"refused: a {kind} record needs `{key}`")
        else:
            out[key] = spec.default
    return out
