"""The hook's prefilter is sound: a call the real matcher fires on always gets through."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.core.lessons.glob import glob_literals
from cairn.core.lessons.globmatch import glob_matches
from cairn.core.lessons.prefilter import (
    TITLE,
    Entry,
    Prefilter,
    candidates_from,
    candidates_in_lines,
    choose_key,
    list_token,
    payload_words,
    token,
    usable_needles,
)
from cairn.core.lessons.triggers import command_matches, required_literals
from cairn.core.models import Trigger

PATTERNS = [
    "git push",
    "^git push",
    r"git\s+push\b",
    "npm (publish|test)",
    "terraform apply",
    "docker push",
    "(sudo )?rm -rf",
    "kubectl.*delete",
    "make deploy",
    "pnpm -r build",
    "DROP TABLE",
    "(?i)drop table",
    r"--force\b",
    "deploy",
    "rebase -i",
    "x[0-9]+y",
]
GLOBS = [
    "packages/db/**",
    "*.sql",
    "**/*.{ts,tsx}",
    "app/[slug]/page.tsx",
    "src/**/test_*.py",
    "Makefile",
    ".env*",
    "docs/adr/*.md",
    "services/*/src/**",
]
WORDS = [
    "git",
    "push",
    "pushed",
    "npm",
    "publish",
    "test",
    "terraform",
    "apply",
    "docker",
    "sudo",
    "rm",
    "-rf",
    "kubectl",
    "delete",
    "make",
    "deploy",
    "pnpm",
    "-r",
    "build",
    "DROP",
    "TABLE",
    "drop",
    "table",
    "--force",
    "rebase",
    "-i",
    "x1y",
    "x12y",
    "&&",
    ";",
    "|",
    "\n",
    "\t",
    '"',
    "'",
    "\\",
    "é",
    "ü",
    "/",
    "origin",
    "main",
    "-f",
    "xgit",
    "apply2",
]
commands = st.lists(st.sampled_from(WORDS), max_size=10).map(" ".join)
PATH_PARTS = [
    "packages",
    "db",
    "src",
    "app",
    "[slug]",
    "page.tsx",
    "schema.sql",
    "a.ts",
    "b.tsx",
    "test_x.py",
    "Makefile",
    ".env",
    ".env.local",
    "docs",
    "adr",
    "0001.md",
    "services",
    "pay",
    "SRC",
    "x.SQL",
    "é.sql",
]
paths = st.lists(st.sampled_from(PATH_PARTS), min_size=1, max_size=6).map("/".join)


def _entry(trigger: Trigger) -> Entry:
    if trigger.tool == "shell":
        needles = usable_needles(required_literals(trigger) or ())
    else:
        needles = usable_needles(glob_literals(trigger.path or "") or ())
    return Entry(trigger.tool, "m-000001", "/p", needles, choose_key(needles))


def _payloads(field: str, value: str) -> list[bytes]:
    body = {"tool_input": {field: value}, "cwd": "/p"}
    return [json.dumps(body).encode(), json.dumps(body, ensure_ascii=False).encode()]


@settings(max_examples=300, deadline=None)
@given(pattern=st.sampled_from(PATTERNS), command=commands)
def test_shell_prefilter_never_drops_a_match(pattern: str, command: str) -> None:
    entry = _entry(Trigger("shell", match=pattern))
    if command_matches(pattern, command):
        for data in _payloads("command", command):
            assert Prefilter([entry]).candidates(data) == [entry], (pattern, command, entry)


@settings(max_examples=300, deadline=None)
@given(glob=st.sampled_from(GLOBS), path=paths)
def test_path_prefilter_never_drops_a_match(glob: str, path: str) -> None:
    entry = _entry(Trigger("read", path=glob))
    if glob_matches(glob, path):
        for data in _payloads("file_path", "/p/" + path):
            assert Prefilter([entry]).candidates(data) == [entry], (glob, path, entry)


def test_the_prefilter_rejects_what_cannot_match() -> None:
    entries = [_entry(Trigger("shell", match=p)) for p in PATTERNS]
    prefilter = Prefilter(entries)
    assert prefilter.candidates(b'{"tool_input": {"command": "ls -la"}}') == []
    got = prefilter.candidates(b'{"tool_input": {"command": "git push origin"}}')
    assert {e.key for e in got} >= {choose_key(usable_needles(["git push"]))}


def test_keys() -> None:
    assert choose_key(["git push"]) == "p:pus"
    assert choose_key(["/db/"]) == "w:db"
    assert choose_key(["terraform"]) == "*"
    assert choose_key(["git status --short"]) == "w:status"


def test_needles_that_json_escapes_are_dropped() -> None:
    assert usable_needles(['say "hi"', "a\\b", "é", "tab\there", "Git Push"]) == ("git push",)


def test_payload_words_split_json_escapes() -> None:
    words = payload_words(b'{"command": "cd x\\ngit push\\tnow"}')
    assert {b"git", b"push", b"now", b"x"} <= words


def test_entry_lines_round_trip() -> None:
    entry = Entry("shell", "m-abcdef", "/p q", ("git push", "origin"), "p:pus", "")
    assert Entry.from_line(entry.to_line()) == entry
    assert Entry.from_line(entry.to_line()[:-1]) is None  # a torn last line is skipped


@settings(max_examples=200, deadline=None)
@given(
    patterns=st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=8),
    globs=st.lists(st.sampled_from(GLOBS), max_size=8),
    command=commands,
    path=paths,
)
def test_reading_the_list_line_by_line_finds_what_the_index_finds(
    patterns: list[str], globs: list[str], command: str, path: str
) -> None:
    entries = [_entry(Trigger("shell", match=p)) for p in patterns]
    entries += [_entry(Trigger("read", path=g)) for g in globs]
    lines = ["# header\n", *(e.to_line() for e in entries), "torn\tline"]
    for data in _payloads("command", command) + _payloads("file_path", "/p/" + path):
        indexed = Prefilter.from_lines(lines).candidates(data)
        assert sorted(candidates_in_lines(lines, data), key=repr) == sorted(indexed, key=repr)


@settings(max_examples=150, deadline=None)
@given(
    patterns=st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=8),
    globs=st.lists(st.sampled_from(GLOBS), max_size=8),
    command=commands,
    path=paths,
    damage=st.sampled_from(["none", "other generation", "a key ahead", "no keys header"]),
)
def test_the_keys_index_finds_what_reading_every_line_finds(
    patterns: list[str],
    globs: list[str],
    command: str,
    path: str,
    damage: str,
) -> None:
    entries = [_entry(Trigger("shell", match=p)) for p in patterns]
    entries += [_entry(Trigger("read", path=g)) for g in globs]
    held = token("0badcafe", 7)
    keys = (f"#{held}\n" + "".join(f"{e.key}\n" for e in entries)).encode()
    text = f"{TITLE} {held}\n" + "".join(e.to_line() for e in entries)
    assert list_token(keys, text.encode(), thorough=True) == held
    if damage == "other generation":  # a rewrite of the keys seen before the list's
        keys = b"#gen:0000000000000000" + keys[keys.index(b"\n") :]
    elif damage == "a key ahead":  # an append seen between its two writes
        keys += b"w:extra\n"
    elif damage == "no keys header":  # a keys file from before generations
        keys = keys[keys.index(b"\n") + 1 :]
    for data in _payloads("command", command) + _payloads("file_path", "/p/" + path):
        full = candidates_in_lines(text.splitlines(keepends=True), data)
        assert sorted(candidates_from(keys, text, data), key=repr) == sorted(full, key=repr)


@settings(max_examples=400)
@given(
    st.lists(
        st.lists(st.sampled_from([b"", b"a", b"k:x", b"\r", b"\xff", b" "]), max_size=8).map(
            b"\t".join
        ),
        max_size=6,
    ).map(b"\n".join),
    st.sampled_from([b"", b"# head\n", b"\n"]),
    st.sampled_from([b"", b"\n", b"\n\n"]),
)
def test_the_thorough_check_reads_every_line_as_a_split_of_each_does(
    lines: bytes, head: bytes, tail: bytes
) -> None:
    from cairn.core.lessons.prefilter import _keys_column, every_line_keys

    text = head + lines + tail
    assert _keys_column(text) == every_line_keys(text)
