"""Editing JSON (or JSONC) in place: only what changes is rewritten, the rest keeps its bytes.

`parse` reads JSON, and with `comments=True` the JSONC that Gemini CLI and OpenCode accept
(`//` and `/* */` comments, trailing commas), into a tree that remembers where each value
stands in the text. `patch` turns the text of the old value into the text of a new one by
replacing, inserting and deleting only the members and items that differ: a compact array
stays on its line, comments and the user's spacing stay where they are. New values are
written in the file's own indentation.

    text = '{\n  // mine\n  "a": [1, 2]\n}\n'
    patch(text, parse(text, comments=True), {"a": [1, 2], "b": True})
    # '{\n  // mine\n  "a": [1, 2],\n  "b": true\n}\n'
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any

_WORD = re.compile(r"true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_STRING = json.decoder.scanstring  # type: ignore[attr-defined]


class JsonSyntaxError(ValueError):
    """The text is not JSON (or JSONC, when comments are allowed)."""


@dataclass
class Node:
    """A value in the text: [start, end) is its span, `depth` its nesting level."""

    start: int
    end: int
    depth: int
    value: Any = None
    keys: list[str] = field(default_factory=list)  # an object's keys, in order
    items: list[Node] = field(default_factory=list)  # an object's values, or an array's items
    starts: list[int] = field(default_factory=list)  # where each member (its key) or item starts
    kind: str = "scalar"  # scalar, object, array


class _Parser:
    def __init__(self, text: str, comments: bool) -> None:
        self.text = text
        self.comments = comments
        self.pos = 0

    def fail(self, why: str) -> JsonSyntaxError:
        line = self.text.count("\n", 0, self.pos) + 1
        column = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        return JsonSyntaxError(f"{why}: line {line} column {column} (char {self.pos})")

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            c = text[self.pos]
            if c in " \t\r\n":
                self.pos += 1
            elif self.comments and text.startswith("//", self.pos):
                stop = text.find("\n", self.pos)
                self.pos = n if stop < 0 else stop + 1
            elif self.comments and text.startswith("/*", self.pos):
                stop = text.find("*/", self.pos + 2)
                if stop < 0:
                    raise self.fail("unclosed comment")
                self.pos = stop + 2
            else:
                return

    def value(self, depth: int) -> Node:
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("expecting a value")
        c = self.text[self.pos]
        if c == "{":
            return self.container(depth, "object", "}")
        if c == "[":
            return self.container(depth, "array", "]")
        start = self.pos
        if c == '"':
            text = self.string()
            return Node(start, self.pos, depth, text)
        found = _WORD.match(self.text, self.pos)
        if not found:
            raise self.fail("expecting a value")
        self.pos = found.end()
        return Node(start, self.pos, depth, json.loads(found.group()))

    def string(self) -> str:
        try:
            text, self.pos = _STRING(self.text, self.pos + 1, True)
        except ValueError as exc:
            raise self.fail("invalid string") from exc
        return str(text)

    def container(self, depth: int, kind: str, close: str) -> Node:
        node = Node(self.pos, 0, depth, kind=kind)
        self.pos += 1
        out: dict[str, Any] | list[Any] = {} if kind == "object" else []
        while True:
            self.skip()
            if self.text.startswith(close, self.pos):
                break
            if node.items:
                if not self.text.startswith(",", self.pos):
                    raise self.fail(f"expecting ',' or '{close}'")
                self.pos += 1
                self.skip()
                if self.text.startswith(close, self.pos):
                    if not self.comments:
                        raise self.fail("trailing comma")
                    break
            node.starts.append(self.pos)
            if kind == "object":
                if not self.text.startswith('"', self.pos):
                    raise self.fail("expecting a property name in double quotes")
                key = self.string()
                self.skip()
                if not self.text.startswith(":", self.pos):
                    raise self.fail("expecting ':'")
                self.pos += 1
                item = self.value(depth + 1)
                node.keys.append(key)
                assert isinstance(out, dict)
                out[key] = item.value  # a repeated key: the last one wins, as in json.loads
            else:
                item = self.value(depth + 1)
                assert isinstance(out, list)
                out.append(item.value)
            node.items.append(item)
        self.pos += 1
        node.end = self.pos
        node.value = out
        return node


def parse(text: str, *, comments: bool = False) -> Node:
    """The tree of a whole JSON (JSONC with `comments`) document; JsonSyntaxError if not one."""
    parser = _Parser(text, comments)
    node = parser.value(0)
    parser.skip()
    if parser.pos != len(text):
        raise parser.fail("extra data")
    return node


def indent_of(text: str) -> str:
    """The file's indentation unit (two spaces when it shows none)."""
    found = re.search(r"[{\[][ \t]*(?://[^\n]*)?\r?\n([ \t]+)\S", text)
    return found.group(1) if found else "  "


def render(value: Any, depth: int, unit: str) -> str:
    """`value` as JSON at `depth` levels of `unit` indentation (its first line not indented)."""
    text = json.dumps(value, indent=unit, ensure_ascii=False)
    return text.replace("\n", "\n" + unit * depth)


def patch(text: str, node: Node, new: Any, unit: str | None = None) -> str:
    """The text with `node`'s value turned into `new`, changing only what differs."""
    edits: list[tuple[int, int, str]] = []
    _patch(text, node, new, unit or indent_of(text), edits)
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _patch(text: str, node: Node, new: Any, unit: str, edits: list[tuple[int, int, str]]) -> None:
    if _same(node.value, new):
        return
    if node.kind == "object" and isinstance(new, dict):
        _patch_object(text, node, new, unit, edits)
    elif node.kind == "array" and isinstance(new, list):
        _patch_array(text, node, new, unit, edits)
    else:
        edits.append((node.start, node.end, render(new, node.depth, unit)))


def _patch_object(
    text: str, node: Node, new: dict[str, Any], unit: str, edits: list[tuple[int, int, str]]
) -> None:
    last = {key: i for i, key in enumerate(node.keys)}  # a repeated key: the last one counts
    gone = {i for i, key in enumerate(node.keys) if key not in new or last[key] != i}
    for i, key in enumerate(node.keys):
        if i not in gone:
            _patch(text, node.items[i], new[key], unit, edits)
    added = [
        f"{json.dumps(k, ensure_ascii=False)}: {render(v, node.depth + 1, unit)}"
        for k, v in new.items()
        if k not in last
    ]
    _splice(text, node, gone, [(len(node.items), added)], unit, edits)


def _patch_array(
    text: str, node: Node, new: list[Any], unit: str, edits: list[tuple[int, int, str]]
) -> None:
    old = [json.dumps(v, sort_keys=True) for v in node.value]
    want = [json.dumps(v, sort_keys=True) for v in new]
    matcher = difflib.SequenceMatcher(a=old, b=want, autojunk=False)
    gone: set[int] = set()
    inserts: list[tuple[int, list[str]]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                _patch(text, node.items[i1 + k], new[j1 + k], unit, edits)
            continue
        gone.update(range(i1, i2))
        inserts.append((i1, [render(v, node.depth + 1, unit) for v in new[j1:j2]]))
    _splice(text, node, gone, inserts, unit, edits)


def _splice(
    text: str,
    node: Node,
    gone: set[int],
    inserts: list[tuple[int, list[str]]],
    unit: str,
    edits: list[tuple[int, int, str]],
) -> None:
    """Delete a container's entries `gone`; insert rendered entries before entry `at` (or at
    the end) for each (at, entries) of `inserts`. Spacing and comments of kept entries stay."""
    n = len(node.items)
    kept = [i for i in range(n) if i not in gone]
    multiline = "\n" in text[node.start : node.end] or not node.items
    inner = unit * (node.depth + 1)
    separator = ",\n" + inner if multiline else ", "
    if not kept:
        rendered = [r for _, entries in inserts for r in entries]
        if not rendered and not n:
            return
        if not rendered:
            body = ""
        elif multiline:
            body = "\n" + ",\n".join(inner + r for r in rendered) + "\n" + unit * node.depth
        else:
            body = ", ".join(rendered)
        edits.append((node.start + 1, node.end - 1, body))
        return
    i = 0
    while i < n:  # each run of deleted entries
        if i not in gone:
            i += 1
            continue
        j = i
        while j + 1 < n and j + 1 in gone:
            j += 1
        if j + 1 < n:  # a kept entry follows: up to its start, so it takes the run's place
            edits.append((node.starts[i], node.starts[j + 1], ""))
        else:  # the run ends the container: from the end of the kept entry before it (a
            # trailing comma after the run stays, now the kept entry's)
            edits.append((node.items[i - 1].end, node.items[j].end, ""))
        i = j + 1
    anchored: dict[int | None, list[str]] = {}
    for at, entries in inserts:
        anchor = next((k for k in kept if k >= at), None)
        anchored.setdefault(anchor, []).extend(entries)
    for anchor, entries in anchored.items():
        if not entries:
            continue
        joined = separator.join(entries)
        if anchor is not None:
            edits.append((node.starts[anchor], node.starts[anchor], joined + separator))
        else:
            end = node.items[kept[-1]].end
            edits.append((end, end, separator + joined))
