"""Issue 15: the prefilter may say "maybe" too often, never "no" wrongly, whatever JSON
escapes the agent's encoder chose (`\\\\t`, `\\/`, `\\u0061`), and the matchers never raise."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st
from tests.shell.shell_corpus import GIT_ALIASES, reaches_the_parser

from cairn.core.lessons.globmatch import glob_matches
from cairn.core.lessons.match import command_matches
from cairn.core.lessons.prefilter import (
    Entry,
    Prefilter,
    candidates_from,
    keys_could_match,
    payload_texts,
    payload_words,
    token,
)
from cairn.core.lessons.triggers import parse_when
from cairn.core.models import Memory
from cairn.core.shell import actions
from cairn.io.triggerlist import entries_for

_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


def encode(text: str, choices: list[bool]) -> str:
    """`text` as a JSON string body, each character escaped one of the ways JSON allows."""
    out = []
    for i, char in enumerate(text):
        other = choices[i % len(choices)] if choices else False
        code = ord(char)
        if other and code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04X}")
        elif other:
            out.append(f"\\u{code:04x}" if code % 2 else f"\\u{code:04X}")
        elif char in '"\\':
            out.append("\\" + char)
        elif char == "/":
            out.append("\\/" if i % 2 else "/")
        elif char in _SHORT:
            out.append(_SHORT[char])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def payload(field: str, value: str, choices: list[bool]) -> bytes:
    body = encode(value, choices)
    assert json.loads(f'"{body}"') == value
    return ('{"session_id": "s", "tool_input": {"' + field + '": "' + body + '"}}').encode()


def test_an_escaped_backslash_before_t_keeps_the_word_after_it() -> None:
    command = "node_modules\\.bin\\tsc -w"
    data = json.dumps({"tool_input": {"command": command}}).encode()
    assert b"tsc" in payload_words(data)
    entry = _entry("shell", {"tool": "shell", "match": "tsc -w"})
    assert command_matches("tsc -w", command)
    assert Prefilter(entry).candidates(data) == entry


def test_escaped_slash_and_unicode_escapes_are_read() -> None:
    data = b'{"tool_input": {"file_path": "packages\\/db\\/\\u0061.sql"}}'
    assert b"packages/db/a.sql" in payload_texts(data)[0]
    entry = _entry("read", {"tool": "read", "path": "packages/db/**"})
    assert Prefilter(entry).candidates(data) == entry


def _entry(tool: str, when: dict[str, str], tags: tuple[str, ...] = ()) -> list[Entry]:
    trigger = parse_when(when) if when else None
    memory = Memory(ref="m-000001", text="x", kind="lesson", project="/p", when=trigger, tags=tags)
    return entries_for(memory)


PATTERNS = [
    "tsc -w",
    "git push",
    "^git push",
    r"git\s+push\b",
    "npm (publish|test)",
    "(sudo )?rm -rf",
    "kubectl.*delete",
    r"--force\b",
    "deploy/prod",
    "a\\.b",
    "(?i)drop table",
    r"x[0-9]+y",
    "café",
    "say .hi.",
]
PIECES = [
    "git", "push", "npm", "publish", "test", "tsc", "-w", "sudo", "rm", "-rf", "kubectl",
    "delete", "--force", "deploy/prod", "a.b", "DROP", "table", "x12y", "café", "say", '"hi"',
    "'hi'", "\\", "\\t", "\t", "\n", "/", "node_modules\\.bin\\", "é", "🚀", "\x01", "A", " ",
    "origin", "\\\\", '\\"', "commi", "t", "c'ommit'", 'commi"t"', "gi\\t", "\\\n",
]  # fmt: skip
commands = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
choices = st.lists(st.booleans(), max_size=8)


@settings(max_examples=600, deadline=None)
@given(pattern=st.sampled_from(PATTERNS), command=commands, escapes=choices)
def test_the_prefilter_never_drops_a_command_the_matcher_fires_on(
    pattern: str, command: str, escapes: list[bool]
) -> None:
    entries = _entry("shell", {"tool": "shell", "match": pattern})
    if command_matches(pattern, command):
        data = payload("command", command, escapes)
        assert Prefilter(entries).candidates(data) == entries, (pattern, command, data)
        _through_the_files(entries, data)


GLOBS = ["packages/db/**", "*.sql", "/src/*.py", "app/[slug]/*", "docs/**/*.md", "café/*"]
PATH_PIECES = ["packages", "db", "src", "a.py", "x.sql", "app", "[slug]", "docs", "b.md", "café"]
paths = st.lists(st.sampled_from(PATH_PIECES), min_size=1, max_size=5).map("/".join)


@settings(max_examples=300, deadline=None)
@given(glob=st.sampled_from(GLOBS), path=paths, escapes=choices)
def test_the_prefilter_never_drops_a_path_the_glob_matches(
    glob: str, path: str, escapes: list[bool]
) -> None:
    entries = _entry("read", {"tool": "read", "path": glob})
    if glob_matches(glob, path):
        data = payload("file_path", path, escapes)
        assert Prefilter(entries).candidates(data) == entries, (glob, path, data)
        _through_the_files(entries, data)


ACTION_PIECES = [
    "git", "commit", "push", "ci", "pub", "gh", "pr", "create", "hub", "pull-request", "npm",
    "i", "publish", "eval", "watch", "find", ".", "-exec", "\\;", "|", "bash", "echo", "&&",
    "'", '"', "\\", "\\\n", "-m", "x", "--help", "sudo", "uv", "run", " ", " ", " ", "$(", ")",
    "printf", "-e", "\\n", "%s", "sh",
]  # fmt: skip
action_commands = st.lists(st.sampled_from(ACTION_PIECES), max_size=14).map("".join)


@settings(max_examples=600, deadline=None)
@given(command=action_commands, escapes=choices)
@example(command='git-exec"git', escapes=[True])  # the quote written `\\u0022`: bash drops it
def test_the_prefilter_never_drops_a_command_performing_an_action(
    command: str, escapes: list[bool]
) -> None:
    resolved = dict(GIT_ALIASES, c="commit")
    for action in actions(command, GIT_ALIASES):
        assert reaches_the_parser(command, action, GIT_ALIASES), (command, action)
        entries = _entry("", {}, (f"trigger:{action}",))
        data = payload("command", command, escapes)
        assert Prefilter(entries).candidates(data, lambda: resolved), (command, action, data)


def _through_the_files(entries: list[Entry], data: bytes) -> None:
    """The same answer through the keys file and the list, as the hook reads them."""
    held = token("0badcafe", 1)
    keys = (f"#{held}\n" + "".join(f"{e.key}\n" for e in entries)).encode()
    text = f"# cairn trigger list v2: kind ref project key needles extra {held}\n"
    text += "".join(e.to_line() for e in entries)
    assert keys_could_match(keys, data)
    assert candidates_from(keys, text, data) == entries


@settings(max_examples=300, deadline=None)
@given(pattern=st.sampled_from(PATTERNS), command=st.text())
def test_the_matchers_never_raise(pattern: str, command: str) -> None:
    assert isinstance(command_matches(pattern, command), bool)
    assert isinstance(glob_matches("packages/**/*.sql", command), bool)
    assert isinstance(actions(command, GIT_ALIASES), list)
    data = json.dumps({"tool_input": {"command": command}}).encode()
    assert isinstance(
        Prefilter(_entry("shell", {"tool": "shell", "match": pattern})).candidates(data), list
    )
