"""Lesson triggers: validate a `when` once, at save; match it on every watched call.

A `when` is `{"tool": "shell", "match": REGEX}`, `{"tool": "read", "path": GLOB}` or
`{"tool": "edit", "path": GLOB}`. Saving refuses, each with its own message:

- a regex RE2 cannot compile (Cairn matches with RE2, which runs in linear time and so has no
  backreferences or lookarounds), an empty one, or one over 1,000 characters;
- a repeated group (`*`, `+`, `{m,}`, `{m,n}` with n >= 2) that holds its own repeat, like
  `(a+)+`, or holds alternatives, like `(\\w|\\d)+`: the spec's rule, judged on the pattern as
  written (Python's parser would rewrite `(\\w|\\d)` into a set and hide the alternation);
- a regex that can never match a command: one needing more than `COMMAND_LIMIT` characters
  (`a{600}`), a set nothing is in (`[^\\s\\S]`), text after a `$` or before a `^`;
- a glob the grammar in `cairn.core.lessons.glob` refuses, and one that can never match a path
  (each refusal shows the form that works): a trailing `/` (`packages/db/` watches nothing;
  `packages/db/**` does), `//`, a `.` or `..` folder, an absolute path (the project's own
  folder, or under a system folder such as `/home` or `/Users`, or `~`);
- a match-all: a pattern that matches at least `MATCH_ALL_SHARE` (three in four) of the realistic
  sample commands or paths in `samples/` (hundreds of each, of many languages and tools), or
  every one of a few short, unrelated probes (`ls`, `pwd`, `./run.sh`; `Makefile`, `.env`,
  `src/app.py`): such a pattern names nothing in particular, so its lesson would ride along
  on nearly every call.

Only the first `COMMAND_LIMIT` characters of a command are tested. Matching lives in
`cairn.core.lessons.match`, which the hook imports when a lesson could fire; this module (with
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

from cairn.core.errors import TriggerError
from cairn.core.lessons.glob import glob_literals, literal_char, shown
from cairn.core.lessons.globmatch import glob_body, glob_matches
from cairn.core.lessons.match import COMMAND_LIMIT, command_matches, compile_regex
from cairn.core.models import TRIGGER_TOOLS, Trigger

__all__ = [
    "COMMAND_LIMIT",
    "MATCH_ALL_SHARE",
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
# A trigger matching this share of the samples (or more) names nothing in particular.
MATCH_ALL_SHARE = 0.75
# Short commands and paths with nothing in common: a pattern matching all of them is about
# no command or file in particular, whatever the samples hold.
PROBE_COMMANDS = ("ls", "pwd", "make", "./run.sh", "npm test", "cd ..")
PROBE_PATHS = ("Makefile", ".env", "a", "src/app.py", "README.md", "docs/guide/intro.txt")
# First folders of an absolute path on Linux, macOS and in containers: a glob starting with
# one of them names a file outside any project folder, not a path inside it.
_SYSTEM_ROOTS = frozenset(
    [
        "home",
        "Users",
        "root",
        "tmp",
        "var",
        "private",
        "mnt",
        "media",
        "opt",
        "srv",
        "Volumes",
        "usr",
        "etc",
        "nix",
        "workspaces",
    ]
)


def parse_when(value: object, project: str | None = None) -> Trigger:
    """Read a `when` (a dict, its JSON text, or a Trigger) into a validated Trigger.

    `project`, the project folder, lets a glob holding it be refused with the relative form.
    """
    if isinstance(value, Trigger):
        validate(value, project)
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
    validate(trigger, project)
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


def validate(trigger: Trigger, project: str | None = None) -> None:
    """Refuse, with TriggerError, a trigger that is malformed, unsafe, can never fire or
    matches (nearly) everything."""
    pattern = _check_shape(trigger.tool, trigger.match, trigger.path)
    if trigger.tool == "shell":
        _validate_regex(pattern)
    else:
        _validate_glob(pattern, project)


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
    compile_regex(pattern)
    _check_repeats(pattern)
    never = never_matches(pattern)
    if never:
        raise TriggerError(f"`when.match` {shown(pattern)} can never match a command: {never}.")
    share = match_all_share(pattern, "shell")
    if share is not None:
        raise TriggerError(
            f"`when.match` {shown(pattern)} matches nearly every command ({share}), so the "
            "lesson would ride on every call; name the command to watch for, like `git push` "
            "or `^npm publish`."
        )


def _validate_glob(glob: str, project: str | None) -> None:
    glob_matches(glob, "x")  # the grammar's refusals first
    dead = dead_glob(glob, project)
    if dead:
        raise TriggerError(f"`when.path` {shown(glob)} can never match a path: {dead}.")
    share = match_all_share(glob, "path")
    if share is not None:
        raise TriggerError(
            f"`when.path` {shown(glob)} matches nearly every file ({share}), so the lesson "
            "would ride on every call; name the files to watch, like `packages/db/**` or "
            "`*.sql`."
        )


def match_all_share(pattern: str, kind: str) -> str | None:
    """Why `pattern` (a shell regex, or a glob for `kind` "path") is a match-all, or None.

    A match-all matches at least MATCH_ALL_SHARE of the realistic samples, or every probe.
    """
    shell = kind == "shell"
    samples = _samples("commands.txt" if shell else "paths.txt")
    probes = PROBE_COMMANDS if shell else PROBE_PATHS

    def hit(text: str) -> bool:
        return command_matches(pattern, text) if shell else glob_matches(pattern, text)

    if all(hit(probe) for probe in probes):
        shown_probes = ", ".join(f"`{p}`" for p in probes[:4])
        return f"even {shown_probes} and every other short probe"
    # A pattern missing more than a quarter of the samples cannot reach the share: stop there
    # (a lesson's pattern misses nearly all, so it is tested on ~140 samples, not 560).
    spare = len(samples) - MATCH_ALL_SHARE * len(samples)
    missed = 0
    for text in samples:
        if not hit(text):
            missed += 1
            if missed > spare:
                return None
    matched = len(samples) - missed
    return f"{matched} of {len(samples)} varied samples of real projects"


def dead_glob(glob: str, project: str | None = None) -> str:
    """Why a glob the grammar accepts can never match a project path, with the form that
    would; '' when it can. Paths are relative to the project root, `/`-separated, normalised
    (no empty, `.` or `..` folder), and name files, never a folder with a trailing `/`."""
    if project:
        root = project.rstrip("/") + "/"
        if glob.startswith(root) and len(glob) > len(root):
            return (
                "it is an absolute path, and lesson paths are relative to the project root; "
                f"write `{glob[len(root) :]}`"
            )
    body, _anchored = glob_body(glob)
    if glob.startswith("~") or (len(glob) > 2 and glob[0].isalpha() and glob[1:3] == ":/"):
        return _absolute(body)
    if glob.startswith("/") and body.split("/", 1)[0] in _SYSTEM_ROOTS:
        return _absolute(body)
    if body.endswith("/"):
        return (
            "it ends with `/`, and a path names a file; to watch everything in that folder, "
            f"write `{body}**`"
        )
    parts = body.split("/")
    if "" in parts:
        fixed = "/".join(part for part in parts if part)
        return f"it holds `//`, an empty folder name no path has; write `{fixed}`"
    if ".." in parts:
        kept = [part for part in parts if part not in ("..", ".")]
        if parts[0] == ".." and len(kept) > 1:
            kept = kept[1:]  # `../proj/packages/...`: the folder after `..` is the project's
        example = "/".join(kept) or "packages/db/*.sql"
        return (
            "`..` climbs out of the project, and lesson paths are relative to its root; "
            f"write the path from the root, like `{example}`"
        )
    if "." in parts:
        fixed = "/".join(part for part in parts if part != ".")
        return f"a `.` folder never appears in a path; write `{fixed}`"
    return ""


def _absolute(body: str) -> str:
    parts = [part for part in body.split("/") if part and part != "~"]
    # `/home/me/proj/src/*.py`: guess that the project's files start after three folders.
    example = "/".join(parts[3:]) if len(parts) > 4 else "packages/db/*.sql"
    return (
        "it is an absolute path, and lesson paths are relative to the project root; write "
        f"the path from the root, like `{example}`"
    )


@lru_cache(maxsize=2)
def _samples(name: str) -> tuple[str, ...]:
    from importlib import resources  # only when a trigger is saved, never on the hook path

    text = (resources.files("cairn.core.lessons") / "samples" / name).read_text(encoding="utf-8")
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


# --- regexes that can never match, read from Python's parse of the pattern -------------------

_OPPOSITES = (
    (_constants.CATEGORY_SPACE, _constants.CATEGORY_NOT_SPACE),
    (_constants.CATEGORY_DIGIT, _constants.CATEGORY_NOT_DIGIT),
    (_constants.CATEGORY_WORD, _constants.CATEGORY_NOT_WORD),
)
_ENDS = (_constants.AT_END, _constants.AT_END_STRING)
_REPEATS = (_constants.MAX_REPEAT, _constants.MIN_REPEAT, _constants.POSSESSIVE_REPEAT)
_STARTS = (_constants.AT_BEGINNING, _constants.AT_BEGINNING_STRING)


def never_matches(pattern: str) -> str:
    """Why the regex can never match in the first COMMAND_LIMIT characters of a command ('' when
    it may): it needs more characters than that, or every way through it meets a set nothing is
    in (`[^\\s\\S]`) or a character after the end (`a$b`) or before the start (`a^b`).

    Read from Python's parse of the pattern; whatever Python reads unlike RE2 proves nothing.
    """
    if "[:" in pattern:
        return ""  # RE2 reads `[x[:alpha:]]` as one set; Python does not
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            tree = _parser.parse(pattern)
            least = tree.getwidth()[0]
            possible = _can_match(tree, bool(tree.state.flags & re.MULTILINE))
        except Exception:
            return ""  # a private parser: whatever it raises, nothing is proven
    if caught:
        return ""
    if least > COMMAND_LIMIT:
        return (
            f"every match is at least {least} characters long, and only the first "
            f"{COMMAND_LIMIT} characters of a command are tested"
        )
    if not possible:
        return (
            "every way through it needs a character no text has (an empty set like "
            "`[^\\s\\S]`, or text after `$` or before `^`)"
        )
    return ""


def _can_match(items: Any, multiline: bool) -> bool:
    """Can this sequence of parsed items match some text?"""
    ended = False  # a `$` was passed: any further character is impossible
    width = 0  # the fewest characters matched so far: a `^` after one is impossible
    for op, arg in items:
        if op == _constants.AT:
            if not multiline and arg in _ENDS:
                ended = True
            elif not multiline and arg in _STARTS and width:
                return False
            continue
        if op == _constants.IN:
            if _empty_set(arg):
                return False
        elif op == _constants.SUBPATTERN:
            if not _can_match(arg[3], multiline):
                return False
        elif op == _constants.BRANCH:
            if not any(_can_match(branch, multiline) for branch in arg[1]):
                return False
        elif op in _REPEATS and arg[0] and not _can_match(arg[2], multiline):
            return False
        least = _parser.SubPattern(_parser.State(), [(op, arg)]).getwidth()[0]
        if ended and least:
            return False
        width += least
    return True


def _empty_set(members: Any) -> bool:
    """Is this parsed set `[^...]` of a class and its opposite, which nothing is in?"""
    if not members or members[0][0] != _constants.NEGATE:
        return False
    categories = {arg for op, arg in members if op == _constants.CATEGORY}
    if any(a in categories and b in categories for a, b in _OPPOSITES):
        return True
    return any(op == _constants.RANGE and arg[0] == 0 and arg[1] >= 0x10FFFF for op, arg in members)


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
