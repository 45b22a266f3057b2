"""A lesson's `when`: parsed and validated once, at save; matched on the hot path."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
from importlib import resources

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cairn.core.errors import TriggerError
from cairn.core.lessons.triggers import (
    COMMAND_LIMIT,
    command_matches,
    compile_regex,
    parse_when,
    required_literals,
    validate,
)
from cairn.core.models import Trigger


def _sample(name: str) -> list[str]:
    text = (resources.files("cairn.core.lessons") / "samples" / name).read_text(encoding="utf-8")
    return [line for line in text.split("\n") if line]


# --- parse_when ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        ({"tool": "shell", "match": "git push"}, Trigger("shell", match="git push")),
        ({"tool": "read", "path": "packages/db/**"}, Trigger("read", path="packages/db/**")),
        ({"tool": "edit", "path": "*.sql"}, Trigger("edit", path="*.sql")),
        (
            '{"tool": "shell", "match": "^npm (publish|test)"}',
            Trigger("shell", match="^npm (publish|test)"),
        ),
        (
            {"tool": "edit", "path": "**/*.{ts,tsx}", "match": None},
            Trigger("edit", path="**/*.{ts,tsx}"),
        ),
        (Trigger("shell", match="git push"), Trigger("shell", match="git push")),
    ],
)
def test_parse_when_accepts_the_three_shapes(when: object, expected: Trigger) -> None:
    assert parse_when(when) == expected


@pytest.mark.parametrize(
    ("when", "message"),
    [
        (["shell", "git push"], "`when` must be an object"),
        (42, "got int"),
        ("git push", "`when` is text but not JSON"),
        ('["shell"]', "got list"),
        ({"match": "git push"}, "`when` needs a `tool`"),
        ({"tool": 1, "match": "git push"}, "`when.tool` must be text"),
        ({"tool": "bash", "match": "git push"}, "`when.tool` is 'bash'"),
        ({"tool": "shell", "match": "git push", "why": "x"}, "unknown key(s) 'why'"),
        ({"tool": "shell", "path": "*.sql"}, "a shell `when` takes `match`"),
        ({"tool": "read", "match": "git"}, "a read `when` takes `path`"),
        ({"tool": "edit", "match": "git", "path": "*.py"}, "an edit `when` takes `path`"),
        ({"tool": "shell"}, "a shell `when` needs `match`"),
        ({"tool": "read"}, "a read `when` needs `path`"),
        ({"tool": "edit", "path": None}, "an edit `when` needs `path`"),
        ({"tool": "shell", "match": ["git"]}, "`when.match` must be text"),
        ({"tool": "edit", "path": 3}, "`when.path` must be text"),
    ],
)
def test_parse_when_refuses_malformed_when(when: object, message: str) -> None:
    with pytest.raises(TriggerError) as refused:
        parse_when(when)
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("trigger", "message"),
    [
        (Trigger("git", match="push"), "`when.tool` is 'git'"),
        (Trigger("shell"), "a shell `when` needs `match`"),
        (Trigger("read", match="x", path="*.py"), "a read `when` takes `path`"),
    ],
)
def test_validate_refuses_a_malformed_trigger(trigger: Trigger, message: str) -> None:
    with pytest.raises(TriggerError) as refused:
        validate(trigger)
    assert message in str(refused.value)


# --- regex safety ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("", "`when.match` is empty"),
        ("a" * 1001, "1001 characters long; at most 1000"),
        (r"(a)\1", "RE2 can run: invalid escape sequence: \\1"),
        ("(?=git)push", "RE2 can run: invalid perl operator: (?="),
        ("(?<!x)y", "RE2 can run: invalid perl operator: (?<!"),
        ("git (push", "RE2 can run: missing ): git (push"),
        ("a\ud800", "lone surrogate"),
    ],
)
def test_regex_refused_before_matching(pattern: str, message: str) -> None:
    with pytest.raises(TriggerError) as refused:
        parse_when({"tool": "shell", "match": pattern})
    assert message in str(refused.value)


NESTED_REPEATS = [
    "(a+)+",
    "(a+)+$",
    "(a?){25}",
    "(x*)*",
    "((a+)b)+",
    "(a{2})+",
    "(?:a*?)+",
    "(?P<n>\\d+)*x",
    "(a+){2,}",
]
REPEATED_ALTERNATIVES = [
    r"(\w|\d)+",
    "(--force|-f)+",
    "((a|b)c)*",
    "(a|b)*c",
    "(?i:x|y){2,5}",
]


@pytest.mark.parametrize("pattern", NESTED_REPEATS)
def test_repeated_group_holding_a_repeat_is_refused(pattern: str) -> None:
    with pytest.raises(TriggerError, match="repeats a group that holds its own repeat"):
        parse_when({"tool": "shell", "match": pattern})


@pytest.mark.parametrize("pattern", REPEATED_ALTERNATIVES)
def test_repeated_group_holding_alternatives_is_refused(pattern: str) -> None:
    with pytest.raises(TriggerError, match="repeats a group that holds alternatives"):
        parse_when({"tool": "shell", "match": pattern})


@pytest.mark.parametrize(
    "pattern",
    [
        "git push",
        "^npm (publish|test)",
        "(ab)+",
        "(sudo )?git",
        "(git|gh) push",
        r"git [\w\d]+",
        "git (a|b)",
        "x(a|b)?",
        "x(a+)?",
        "(?:ab){2}",
        "git (a|b){1}",
        "x(a+){0,1}",
        r"\(a+\)+",
        r"[|(+]+",
        r"[(a+)+]",
        r"\Q(a+)+\E",
        r"x\x{28}a+\x{29}+",
        r"(?i)(?P<n>ab)+",
        r"(?i)git (push|pull)",
        r"[[:alpha:]]+q|x",
        r"[[:alpha:]|(]+x",
        "a{,3}+",
    ],
)
def test_safe_regex_is_accepted(pattern: str) -> None:
    assert parse_when({"tool": "shell", "match": pattern}).match == pattern


@pytest.mark.parametrize(
    "pattern",
    [
        *[".*", "^", "$", r"\S*", ".?", "(?s).*", "x?", "a|", ".", r"\S", "[^ ]"],
        *["[[:graph:]]", r"[^\t ]", r"\w", r"\b", "[a-z]", r"\s", "e", "^[a-z]"],
    ],
)
def test_regex_matching_every_command_is_refused(pattern: str) -> None:
    with pytest.raises(TriggerError, match="matches nearly every command"):
        parse_when({"tool": "shell", "match": pattern})


@pytest.mark.parametrize(
    "glob", ["**", "*", "**/*", "{*,**}", "?*", "./**", "[a-zA-Z0-9._~ -]**", "*.*", "*[a-z]*"]
)
def test_glob_matching_every_file_is_refused(glob: str) -> None:
    with pytest.raises(TriggerError, match="matches nearly every file"):
        parse_when({"tool": "read", "path": glob})


@pytest.mark.parametrize(
    "glob", ["packages/db/**", "*.sql", "**/*.{ts,tsx}", "*.py", "app/[slug]/*", "/src/*.py"]
)
def test_ordinary_glob_is_accepted(glob: str) -> None:
    assert parse_when({"tool": "edit", "path": glob}).path == glob


def test_glob_refusal_reaches_parse_when() -> None:
    with pytest.raises(TriggerError, match="holds 2 `\\*\\*`"):
        parse_when({"tool": "read", "path": "a/**/b/**"})


def test_samples_are_many_and_very_different() -> None:
    commands, paths = _sample("commands.txt"), _sample("paths.txt")
    assert len(commands) >= 500 and len(paths) >= 500
    # Commands agents run, none blank: a blank sample lets any pattern needing one
    # non-blank character pass as specific.
    assert all(command.strip() == command and command for command in commands)
    assert len({command.split()[0] for command in commands}) >= 100
    assert any(not command.isascii() for command in commands)
    assert {"Makefile", ".env", "a", "README.md"} <= set(paths)
    assert any(not path.isascii() for path in paths)


def test_refused_nested_repeat_would_be_accepted_without_the_rule() -> None:
    # The refusal comes from the rule, not from RE2 or the sample: RE2 compiles it and some
    # sample command does not match it.
    regex = compile_regex("(a+)+$")
    assert not all(regex.search(command) for command in _sample("commands.txt"))


@pytest.mark.parametrize("pattern", ["a+b+c+$", "[ab]*c", "(ab)+$", r"(\d+\.)?\d+x$"])
def test_accepted_regex_runs_linearly_on_adversarial_command(pattern: str) -> None:
    parse_when({"tool": "shell", "match": pattern})
    adversarial = ["a" * COMMAND_LIMIT, "ab" * 256 + "!", "1." * 300, "abc" * 200 + "d"]
    # A command longer than the limit does not end at the cut: a `$` pattern cannot match it.
    expected = [
        re.search(pattern, command[:COMMAND_LIMIT]) is not None
        and not (pattern.endswith("$") and len(command) > COMMAND_LIMIT)
        for command in adversarial
    ]
    # RE2 has no backtracking: 1,000 runs on 512-character worst cases simply finish, and agree
    # with Python's backtracking engine (safe on these patterns) on every one.
    for _ in range(250):
        assert [command_matches(pattern, command) for command in adversarial] == expected


# --- matching --------------------------------------------------------------------------------


def test_command_matches_only_the_first_512_characters() -> None:
    assert command_matches("git push", "git push origin main")
    assert not command_matches("git push", "git status")
    assert command_matches("git push", " " * (COMMAND_LIMIT - 8) + "git push")
    assert not command_matches("git push", " " * (COMMAND_LIMIT - 7) + "git push")
    assert not command_matches("x$", "a" * COMMAND_LIMIT + "x")


def test_command_matching_is_case_sensitive_unless_asked() -> None:
    assert not command_matches("git push", "GIT PUSH")
    assert command_matches("(?i)git push", "GIT PUSH")


def test_command_with_lone_surrogate_is_matched_without_error() -> None:
    assert command_matches("rm -rf", "rm -rf \ud800")


# --- never anything but TriggerError ---------------------------------------------------------

REGEX_TEXT = st.text(alphabet=st.sampled_from("()[]{}|*+?\\^$.:<>=!PQE,1a\ud800") | st.characters())


@given(st.text())
def test_parse_when_on_any_text_raises_only_trigger_error(text: str) -> None:
    with contextlib.suppress(TriggerError):
        parse_when(text)


@given(
    st.sampled_from(["shell", "read", "edit", "Shell", ""]),
    st.sampled_from(["match", "path"]),
    REGEX_TEXT | st.integers() | st.none(),
)
def test_parse_when_on_any_fields_raises_only_trigger_error(
    tool: str, key: str, value: object
) -> None:
    when = {"tool": tool, key: value}
    for candidate in (when, json.dumps(when)):
        try:
            trigger = parse_when(candidate)
        except TriggerError:
            continue
        assert trigger.tool == tool


# --- required literals -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trigger", "literals"),
    [
        (Trigger("shell", match="git push"), ("git push",)),
        (Trigger("shell", match="^npm (publish|test)"), ("npm ",)),
        (Trigger("shell", match="(sudo )?git"), ("git",)),
        (Trigger("shell", match="(ab)+c"), ("ab", "c")),
        (Trigger("shell", match="x(ab){2,}y"), ("xab", "y")),
        (Trigger("shell", match="git (push|pull)"), ("git pu",)),
        (Trigger("shell", match=r"\d+"), ()),
        (Trigger("shell", match="(?i)kiss me"), ("i", " me")),
        (Trigger("shell", match="Kiss"), ("kiss",)),
        (Trigger("shell", match='echo "hi" > out'), ("echo ", "hi", " ", " out")),
        (Trigger("shell", match="a[x[:alpha:]]"), None),
        (Trigger("shell", match=r"\Qa+b\E"), None),
        (Trigger("shell", match="(a"), None),
        (Trigger("read", path="**/*.{ts,tsx}"), (".",)),
        (Trigger("edit", path="a/**/b"), ("a/", "b")),
        (Trigger("edit", path="*.{ts"), None),
        (Trigger("edit", match="x"), None),
    ],
)
def test_required_literals_examples(trigger: Trigger, literals: tuple[str, ...] | None) -> None:
    assert required_literals(trigger) == literals


_FOLDS = {"k": "kK\u212a", "s": "sS\u017f"}
_WORD_CHARS = 'abkspKS -./:_é"\\<&'


@st.composite
def regex_and_command(draw: st.DrawFn) -> tuple[str, str]:
    """A regex built from common pieces, with a command it matches."""
    ignore_case = draw(st.booleans())

    def word() -> tuple[str, str]:
        text = draw(st.text(alphabet=_WORD_CHARS, min_size=1, max_size=5))
        if ignore_case:
            variants = [_FOLDS.get(c.lower(), c + c.swapcase()) for c in text]
            said = "".join(draw(st.sampled_from(v)) for v in variants)
        else:
            said = text
        return re.escape(text), said

    parts, said = [], [draw(st.text(max_size=4))]
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["word", "optional", "plus", "either", "class", "dot"]))
        source, text = word()
        if kind == "optional":
            source, text = f"(?:{source})?", draw(st.sampled_from(["", text]))
        elif kind == "plus":
            source, text = f"({source})+", text * draw(st.integers(1, 3))
        elif kind == "either":
            other_source, other_text = word()
            source = f"(?:{source}|{other_source})"
            text = draw(st.sampled_from([text, other_text]))
        elif kind == "class":
            source, text = "[a-m]", draw(st.sampled_from("bK\u212a" if ignore_case else "bc"))
        elif kind == "dot":
            source, text = ".", draw(st.characters(exclude_characters="\n"))
        parts.append(source)
        said.append(text)
    said.append(draw(st.text(max_size=4)))
    return ("(?i)" if ignore_case else "") + "".join(parts), "".join(said)


def _assert_literals_in(literals: tuple[str, ...] | None, text: str) -> None:
    payloads = [
        json.dumps({"command": text}).encode().lower(),
        # a lone surrogate cannot be sent as UTF-8; agents send it \u-escaped (the line above)
        json.dumps({"command": text}, ensure_ascii=False).encode("utf-8", "surrogatepass").lower(),
    ]
    for literal in literals or ():
        assert literal in text.lower()
        assert literal == literal.lower()
        for payload in payloads:  # the hook's pre-filter reads the raw payload bytes
            assert literal.encode() in payload


@settings(max_examples=300)
@given(regex_and_command())
def test_required_literals_appear_in_every_matching_command(pair: tuple[str, str]) -> None:
    pattern, command = pair
    assume(len(command) <= COMMAND_LIMIT)
    assert command_matches(pattern, command), (pattern, command)
    _assert_literals_in(required_literals(Trigger("shell", match=pattern)), command)


@settings(max_examples=400)
@given(
    st.text(alphabet="ab(|)*+?.[]^$\\{},:-kKsS", max_size=10),
    st.text(alphabet="abkKsS\u212a\u017f()[]{},.:- ", max_size=14),
)
def test_required_literals_sound_on_random_regexes(pattern: str, command: str) -> None:
    try:
        matched = command_matches(pattern, command)
    except TriggerError:
        return
    assume(matched)
    _assert_literals_in(required_literals(Trigger("shell", match=pattern)), command)


# --- the hot path ----------------------------------------------------------------------------


def test_triggers_import_no_re2_until_a_pattern_is_compiled() -> None:
    script = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from cairn.core.lessons.triggers import required_literals\n"
        "from cairn.core.lessons.glob import compile_glob\n"
        "from cairn.core.models import Trigger\n"
        "assert required_literals(Trigger('shell', match='git push')) == ('git push',)\n"
        "assert required_literals(Trigger('read', path='*.sql')) == ('.', 'ql')\n"
        "compile_glob('packages/db/**')\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "print(sorted(new - set(sys.stdlib_module_names)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["['cairn']"]
