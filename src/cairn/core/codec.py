"""JSON for the hook's firing path, without importing `json`.

`import json` pulls in `re` and `enum`: ~10 ms on every hook call that fires a lesson, about as
much as starting the interpreter. This module reads JSON with the same C scanner `json` uses
(`_json.make_scanner`) and writes it with `_json`'s string encoder, so `loads` accepts exactly
what `json.loads` accepts and `dumps` writes exactly what `json.dumps` writes with its
defaults (pinned by property tests against `json`), but for an integer too long for Python to
convert (over 4,300 digits), which it reads as a float instead of refusing the document.
Without `_json` (another Python), it is `json` itself.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["dumps", "loads"]

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


def _int(text: str) -> int | float:
    """A JSON integer; one longer than Python converts (4,300 digits) becomes a float.

    `json.loads` refuses such a number (ValueError), so one huge number anywhere in a hook's
    payload would cost the whole call; read as a float it is what JavaScript would read.
    """
    try:
        return int(text)
    except ValueError:
        return float(text)


class _Options:
    """The decoder settings `_json.make_scanner` reads: json.loads' defaults (but `_int`)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = staticmethod(_int)
    parse_constant = _CONSTANTS.__getitem__
    memo: dict[str, str]

    def __init__(self) -> None:
        self.memo = {}


try:
    from _json import encode_basestring_ascii as _quote
    from _json import make_scanner as _make_scanner
except ImportError:  # pragma: no cover - CPython always has _json
    from json import dumps as _json_dumps
    from json import loads as _json_loads

    _scan: Callable[[str, int], tuple[Any, int]] | None = None
else:
    # typeshed types the context as a JSONDecoder; the scanner reads only the attributes above.
    _scan = _make_scanner(_Options())  # type: ignore[arg-type]


def loads(data: str | bytes) -> Any:
    """Parse one JSON document (as `json.loads`); ValueError when it is not valid JSON."""
    if _scan is None:  # pragma: no cover
        return _json_loads(data)
    if isinstance(data, bytes):
        # As json.loads reads bytes: a UTF-8 byte order mark is skipped (not via the
        # `utf-8-sig` codec, whose module would be one more import for the hook).
        text = data[3:].decode() if data.startswith(b"\xef\xbb\xbf") else data.decode()
    else:
        text = data
    if text.startswith("\ufeff"):
        raise ValueError("Unexpected UTF-8 BOM (decode using utf-8-sig)")
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as stop:
        raise ValueError(f"Expecting value: char {stop.value}") from None
    except SystemError:
        # The C scanner builds its error from `json.decoder`, and only when that module is
        # loaded: without it (the hook never imports `json`) a malformed document ends in
        # SystemError. `json` itself says what is wrong (only on this rare path).
        from json import loads as json_loads

        json_loads(text)
        raise ValueError("not valid JSON") from None  # pragma: no cover - json raised above
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"Extra data: char {end}")
    return value


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    """`json.dumps(value, sort_keys=sort_keys)`: the same text, for JSON's own types."""
    if _scan is None:  # pragma: no cover
        return _json_dumps(value, sort_keys=sort_keys)
    out: list[str] = []
    _write(value, out, sort_keys)
    return "".join(out)


def _write(value: Any, out: list[str], sort_keys: bool) -> None:
    if isinstance(value, str):
        out.append(_quote(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, dict):
        _write_object(value, out, sort_keys)
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(", ")
            _write(item, out, sort_keys)
        out.append("]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _write_object(value: dict[Any, Any], out: list[str], sort_keys: bool) -> None:
    items = sorted(value.items()) if sort_keys else value.items()
    out.append("{")
    for i, (key, item) in enumerate(items):
        if i:
            out.append(", ")
        out.append(_quote(_key(key)))
        out.append(": ")
        _write(item, out, sort_keys)
    out.append("}")


def _key(key: object) -> str:
    """A dict key as `json.dumps` writes it (str, or a number, bool or None turned to text)."""
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if key is True:
        return "true"
    if key is False:
        return "false"
    if isinstance(key, int):
        return int.__repr__(key)
    if isinstance(key, float):
        return _float(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == float("-inf"):
        return "-Infinity"
    return float.__repr__(value)
