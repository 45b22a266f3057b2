"""Lesson triggers: validate a `when` once, at save; match it on every watched call.

A `when` is `{"tool": "shell", "match": REGEX}`, `{"tool": "read", "path": GLOB}` or
`{"tool": "edit", "path": GLOB}`. Saving refuses, each with its own message:

- a regex RE2 cannot compile (Cairn matches with RE2, which runs in linear time and so has no
  backreferences or lookarounds), an empty one, or one over 1,000 characters;
- a repeated group (`*`, `+`, `{m,}`, `{m,n}` with n >= 2) that holds its own repeat, like
  `(a+)+`, or holds alternatives, like `(\\w|\\d)+`: the spec's rule, judged on the pattern as
  written (Python's parser would rewrite `(\\w|\\d)` into a set and hide the alternation);
- a glob the grammar in `cairn.lessons.glob` refuses;
- a pattern that matches every one of the committed sample commands or paths in `samples/`.

Only the first `COMMAND_LIMIT` characters of a command are tested. Matching lives in
`cairn.lessons.match`, which the hook imports when a lesson could fire; this module (with
`re`, `json` and `dataclasses`) is for saving and for building the trigger list.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from re import _constants, _parser  # type: ignore[attr-defined]  # no stubs; 3.11+
from typing import Any

from cairn.errors import TriggerError
from cairn.lessons.glob import (
    glob_literals,
    glob_matches,
    literal_char,
    shown,
)
from cairn.lessons.match import COMMAND_LIMIT, command_matches, compile_regex
from cairn.models import TRIGGER_TOOLS, Trigger

__all__ = [
    "COMMAND_LIMIT",
    "command_matches",
    "compile_regex",
    "parse_when",
    "required_literals",
    "split_gate",
    "trigger_problem",
    "validate",
]


_FIELD = {"shell": "match", "read": "path", "edit": "path"}
_ARTICLE = {"shell": "a", "read": "a", "edit": "an"}
_EXAMPLE = {"shell": "git push", "read": "packages/db/**", "edit": "*.sql"}
_SHAPES = '{"tool": "shell", "match": REGEX} or {"tool": "read" | "edit", "path": GLOB}'
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")


def parse_when(value: object) -> Trigger:
    """Read a `when` (a dict, its JSON text, or a Trigger) into a validated Trigger."""
    if isinstance(value, Trigger):
        validate(value)
        return value
    if isinstance(value, str):
        value = _load_json(value)
    if not isinstance(value, dict):
        raise TriggerError(f"`when` must be an object, {_SHAPES}; got {type(value).__name__}.")
    # Some MCP clients send every optional field, unset ones as null: null means absent.
    fields = {key: item for key, item in value.items() if item is not None}
    tool = fields.get("tool")
    if tool is None:
        raise TriggerError(f"`when` needs a `tool`: shell, read or edit, as in {_SHAPES}.")
    _check_shape(tool, fields.get("match"), fields.get("path"))
    # `gate` rides in a `when` but is not part of the trigger (`split_gate` reads it).
    extra = sorted(repr(key) for key in fields if key not in ("tool", "match", "path", "gate"))
    if extra:
        raise TriggerError(
            f"`when` has unknown key(s) {', '.join(extra)}; it takes only `tool` and "
            "`match` (shell) or `path` (read, edit), and `gate` (true or false)."
        )
    trigger = Trigger(tool=tool, match=fields.get("match"), path=fields.get("path"))
    validate(trigger)
    return trigger


def split_gate(value: object) -> tuple[object, bool | None]:
    """A `when` and the `gate` flag it may hold: (the `when` without it, the flag or None).

    `{"tool": "shell", "match": "git commit", "gate": true}` makes the lesson a gate. JSON
    text is read first; anything that is not an object comes back as it was (for `parse_when`
    to refuse with its own message). A null `gate` is absent.
    """
    if isinstance(value, str) and value.lstrip().startswith("{"):
        value = _load_json(value)
    if not isinstance(value, dict) or "gate" not in value:
        return value, None
    rest = {key: item for key, item in value.items() if key != "gate"}
    gate = value["gate"]
    if gate is None:
        return rest, None
    if not isinstance(gate, bool):
        raise TriggerError(f"`when.gate` must be true or false; got {type(gate).__name__}.")
    return rest, gate


def validate(trigger: Trigger) -> None:
    """Refuse, with TriggerError, a trigger that is malformed, unsafe or matches everything."""
    pattern = _check_shape(trigger.tool, trigger.match, trigger.path)
    if trigger.tool == "shell":
        _validate_regex(pattern)
    else:
        _validate_glob(pattern)


def trigger_problem(trigger: Trigger) -> str:
    """Why the matchers cannot run this stored trigger ('' when they can).

    The shape first (`Trigger.problem`: a list where the regex goes, an unknown tool), then
    what the matcher itself would refuse on every call (a regex RE2 cannot compile, a glob the
    grammar refuses, an empty or over-long pattern). Saving refuses all of these; a record an
    older Cairn imported, or one edited by hand, may still hold one, and the trigger list leaves
    it out.
    """
    problem = trigger.problem()
    if problem:
        return problem
    try:
        if trigger.tool == "shell":
            command_matches(str(trigger.match), "")
        else:
            glob_matches(str(trigger.path), "x")
    except TriggerError as exc:
        return str(exc)
    return ""


def required_literals(trigger: Trigger) -> tuple[str, ...] | None:
    """Lowercase texts present in every command or path `trigger` matches.

    Each holds only printable ASCII that JSON never escapes (no `"`, `\\`, `<`, `>`, `&`), so
    the hook can test `literal.encode() in payload.lower()` on the raw payload bytes without
    importing re2. `()` when nothing can be proven, None when the pattern cannot be read.
    """
    if trigger.tool == "shell" and isinstance(trigger.match, str):
        return _regex_literals(trigger.match)
    if trigger.tool in ("read", "edit") and isinstance(trigger.path, str):
        return glob_literals(trigger.path)
    return None


def _load_json(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise TriggerError(
            f"`when` is text but not JSON ({exc}); write it as {_SHAPES}, "
            'like {"tool": "shell", "match": "git push"}.'
        ) from None


def _check_shape(tool: object, match: object, path: object) -> str:
    """The trigger's regex or glob, once tool and fields fit together."""
    if not isinstance(tool, str):
        raise TriggerError(
            f"`when.tool` must be text: shell, read or edit; got {type(tool).__name__}."
        )
    if tool not in TRIGGER_TOOLS:
        raise TriggerError(
            f"`when.tool` is {shown(tool)}; use shell (with `match`), "
            "or read or edit (with `path`)."
        )
    wanted = _FIELD[tool]
    other, other_value = ("path", path) if wanted == "match" else ("match", match)
    value = match if wanted == "match" else path
    kind = "a regular expression for the command" if wanted == "match" else "a glob"
    this = f"{_ARTICLE[tool]} {tool} `when`"
    if other_value is not None:
        raise TriggerError(
            f"{this} takes `{wanted}` ({kind}, like `{_EXAMPLE[tool]}`), not `{other}`."
        )
    if value is None:
        raise TriggerError(f"{this} needs `{wanted}`: {kind}, like `{_EXAMPLE[tool]}`.")
    if not isinstance(value, str):
        raise TriggerError(
            f"`when.{wanted}` must be text, like `{_EXAMPLE[tool]}`; got {type(value).__name__}."
        )
    return value


def _validate_regex(pattern: str) -> None:
    regex = compile_regex(pattern)
    _check_repeats(pattern)
    commands = _samples("commands.txt")
    if all(regex.search(command[:COMMAND_LIMIT]) for command in commands):
        raise TriggerError(
            f"`when.match` {shown(pattern)} matches every command (all {len(commands)} very "
            "different samples, even `:` and `x`), so the lesson would ride on every call; "
            "name the command to watch for, like `git push`."
        )


def _validate_glob(glob: str) -> None:
    paths = _samples("paths.txt")
    if all(glob_matches(glob, path) for path in paths):
        raise TriggerError(
            f"`when.path` {shown(glob)} matches every file (all {len(paths)} very different "
            "samples, even `Makefile` and `.env`), so the lesson would ride on every call; "
            "name the files to watch, like `packages/db/**` or `*.sql`."
        )


@lru_cache(maxsize=2)
def _samples(name: str) -> tuple[str, ...]:
    from importlib import resources  # only when a trigger is saved, never on the hook path

    text = (resources.files("cairn.lessons") / "samples" / name).read_text(encoding="utf-8")
    return tuple(line for line in text.split("\n") if line)


# --- the spec's nested-repeat rule, on the pattern as written --------------------------------


@dataclass
class _Group:
    start: int
    holds_repeat: bool = False
    holds_alternatives: bool = False


def _check_repeats(pattern: str) -> None:
    """Refuse a repeated group holding a repeat or alternatives, at any depth."""
    stack = [_Group(start=0)]  # the bottom entry is the whole pattern, never closed
    last: _Group | None = None  # the group a quantifier here would repeat
    pos = 0
    while pos < len(pattern):
        char = pattern[pos]
        if char == "(":
            opening_end, is_group = _group_opening(pattern, pos)
            if is_group:
                stack.append(_Group(start=pos))
            pos, last = opening_end, None
            continue
        if char == ")" and len(stack) > 1:
            last = stack.pop()
            stack[-1].holds_repeat |= last.holds_repeat
            stack[-1].holds_alternatives |= last.holds_alternatives
            pos += 1
            continue
        quantifier = _quantifier(pattern, pos)
        if quantifier is not None:
            end, repeats = quantifier
            if end < len(pattern) and pattern[end] == "?":
                end += 1  # lazy: same repeat
            if repeats and last is not None:
                _refuse_repeated_group(pattern, last, pattern[last.start : end])
            stack[-1].holds_repeat = True
            pos, last = end, None
            continue
        if char == "|":
            stack[-1].holds_alternatives = True
            pos += 1
        elif char == "\\":
            pos = _escape_end(pattern, pos)
        elif char == "[":
            pos = _class_end(pattern, pos)
        else:
            pos += 1
        last = None


def _refuse_repeated_group(pattern: str, group: _Group, text: str) -> None:
    if group.holds_repeat:
        raise TriggerError(
            f"`when.match` {shown(pattern)} repeats a group that holds its own repeat, `{text}`; "
            "such a pattern can run for minutes on one command. Repeat once: `a+`, not `(a+)+`."
        )
    if group.holds_alternatives:
        raise TriggerError(
            f"`when.match` {shown(pattern)} repeats a group that holds alternatives, `{text}`; "
            "such a pattern can run for minutes on one command. Use a set, `[\\w\\d]+` "
            "rather than `(\\w|\\d)+`, or drop the repeat."
        )


def _group_opening(pattern: str, pos: int) -> tuple[int, bool]:
    """End of a `(`, `(?:`, `(?P<n>`, `(?<n>` or `(?i:` opening; False for a bare `(?i)`."""
    if not pattern.startswith("(?", pos):
        return pos + 1, True
    if pattern.startswith(("(?P<", "(?<"), pos):
        close = pattern.find(">", pos)
        return (len(pattern) if close == -1 else close + 1), True
    end = pos + 2
    while end < len(pattern) and pattern[end] in "imsU-":
        end += 1
    if end < len(pattern) and pattern[end] == ")":
        return end + 1, False  # flags for the rest of the group, not a group
    return end + 1, True


def _quantifier(pattern: str, pos: int) -> tuple[int, bool] | None:
    """(end, repeats) for a quantifier at `pos`; repeats is False for `?`, `{0,1}`, `{1}`."""
    char = pattern[pos]
    if char in "*+":
        return pos + 1, True
    if char == "?":
        return pos + 1, False
    found = _QUANTIFIER.match(pattern, pos) if char == "{" else None
    if found is None:
        return None  # RE2 reads a `{` that starts no valid repeat as a literal
    low, comma, high = found.group(1), found.group(2), found.group(3)
    most = int(low) if comma is None else (int(high) if high else None)
    return found.end(), most is None or most >= 2


def _escape_end(pattern: str, pos: int) -> int:
    following = pattern[pos + 1 : pos + 2]
    if following == "Q":  # \Q...\E quotes everything up to \E
        close = pattern.find("\\E", pos + 2)
        return len(pattern) if close == -1 else close + 2
    if following in ("p", "P", "x") and pattern.startswith("{", pos + 2):
        close = pattern.find("}", pos + 2)  # \p{Greek}, \x{41}: the braces are no repeat
        return len(pattern) if close == -1 else close + 1
    return pos + 2


def _class_end(pattern: str, pos: int) -> int:
    end = pos + 1
    if pattern.startswith("^", end):
        end += 1
    if pattern.startswith("]", end):
        end += 1  # a `]` first in the set is a member
    while end < len(pattern):
        if pattern[end] == "\\":
            end = _escape_end(pattern, end)
        elif pattern.startswith("[:", end) and ":]" in pattern[end + 2 :]:
            # RE2 reads `[:` up to the next `:]` as a class name like `[:alpha:]`.
            end = pattern.index(":]", end + 2) + 2
        elif pattern[end] == "]":
            return end + 1
        else:
            end += 1
    return end


# --- required literals, read from Python's parse of the pattern ------------------------------


def _regex_literals(pattern: str) -> tuple[str, ...] | None:
    if "[:" in pattern:
        # RE2 reads `[x[:alpha:]]` as one set; Python reads a set then a literal `]`.
        return None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            tree = _parser.parse(pattern)
            tokens: list[str | None] = []
            _flatten(tree, bool(tree.state.flags & re.IGNORECASE), tokens)
        except Exception:
            return None  # a private parser: whatever it raises, nothing is proven
    if caught:
        return None  # "possible nested set" and the like: Python may read it unlike RE2
    runs, current = [], ""
    for char in [*tokens, None]:
        if char is None:
            if current:
                runs.append(current)
            current = ""
        else:
            current += char
    return tuple(dict.fromkeys(runs))


def _flatten(items: Any, ignore_case: bool, out: list[str | None]) -> None:
    """Chars every match holds in a row, in order; None where a run of them breaks."""
    for op, arg in items:
        if op == _constants.LITERAL:
            out.append(literal_char(chr(arg), ignore_case))
        elif op == _constants.SUBPATTERN:
            _group, add, delete, sub = arg
            case = (ignore_case or bool(add & re.IGNORECASE)) and not (delete & re.IGNORECASE)
            _flatten(sub, case, out)
        elif op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT, _constants.POSSESSIVE_REPEAT):
            least, _most, sub = arg
            if least >= 1:  # the first pass is mandatory; what follows it may vary
                _flatten(sub, ignore_case, out)
            out.append(None)
        elif op != _constants.AT:  # anchors are zero-width: their neighbours stay adjacent
            out.append(None)  # a set, a class, an alternation, `.`: no literal here
