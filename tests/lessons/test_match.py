"""A literal shell trigger is matched as a substring, exactly as RE2 would match it."""

from __future__ import annotations

import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.core.lessons.match import (
    COMMAND_LIMIT,
    command_matches,
    compile_regex,
    finite,
    gapped,
    is_literal,
)

ALPHABET = st.sampled_from([*"ab -_/=:'\"@ é\n\t", "\ud800", "\ufffd", ".", "*", "(", "\\"])


def _re2_search(pattern: str, command: str) -> bool:
    head = command[:COMMAND_LIMIT]
    head = head.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return re2.search(pattern, head) is not None


@given(st.text(ALPHABET, min_size=1, max_size=6), st.text(ALPHABET, max_size=40))
def test_literal_patterns_match_as_re2_does(pattern: str, command: str) -> None:
    if is_literal(pattern) and "\ud800" not in pattern:
        assert command_matches(pattern, command) == _re2_search(pattern, command)


@given(st.text(ALPHABET, max_size=30))
def test_a_literal_beyond_the_command_limit_does_not_match(prefix: str) -> None:
    command = "x" * COMMAND_LIMIT + prefix + "git push"
    assert not command_matches("git push", command)


def test_what_counts_as_a_literal() -> None:
    assert is_literal("git push")
    assert is_literal("npm publish --tag next")
    assert not is_literal("")
    for syntax in ("git.push", "^git", "push$", "a*", "a+", "a?", "(a)", "[a]", "a{2}", "a|b"):
        assert not is_literal(syntax), syntax
    assert not is_literal("a\\b")
    assert not is_literal("\ufffd")


def test_a_regex_pattern_still_goes_through_re2() -> None:
    assert command_matches("^git (push|pull)", "git pull origin")
    assert not command_matches("^git (push|pull)", "echo git push")
    assert compile_regex("^git (push|pull)") is compile_regex("^git (push|pull)")


def _pattern_of(draw: st.DrawFn, depth: int = 0) -> str:
    """A pattern of the finite subset (and sometimes beyond it), for comparing with RE2."""
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["lit", "lit", "esc", "group", "alt", "other"]))
        if kind == "lit":
            parts.append(draw(st.sampled_from(["a", "b", " ", "-", "é", "ab"])))
        elif kind == "esc":
            parts.append(draw(st.sampled_from(["\\.", "\\$", "\\(", "\\|", "\\\\", "\\^"])))
        elif kind == "group" and depth < 2:
            opening = draw(st.sampled_from(["(", "(?:"]))
            parts.append(opening + _pattern_of(draw, depth + 1) + ")")
        elif kind == "alt":
            parts.append("|")
        else:
            parts.append(draw(st.sampled_from([".", "a*", "[ab]", "\\d", "(?i)a", "b?"])))
    return "".join(parts)


@st.composite
def patterns(draw: st.DrawFn) -> str:
    body = _pattern_of(draw)
    return draw(st.sampled_from(["", "^"])) + body + draw(st.sampled_from(["", "$"]))


COMMANDS = st.text(st.sampled_from([*"ab -é.$(|\\^\n", "\ud800"]), max_size=14)


@settings(max_examples=3000, deadline=None)
@given(patterns(), COMMANDS)
def test_a_finite_pattern_matches_exactly_as_re2_does(pattern: str, command: str) -> None:
    strings = finite(pattern)
    if strings is None or not pattern:
        return
    try:
        re2.compile(pattern)
    except re2.error:
        return
    assert command_matches(pattern, command) == _re2_search(pattern, command), (pattern, strings)


@settings(max_examples=1000, deadline=None)
@given(patterns(), st.data())
def test_commands_built_from_a_finite_pattern_agree_with_re2(
    pattern: str, data: st.DataObject
) -> None:
    strings = finite(pattern)
    if strings is None:
        return
    try:
        re2.compile(pattern)
    except re2.error:
        return
    _, _, texts = strings
    text = data.draw(st.sampled_from(texts))
    command = (
        data.draw(st.sampled_from(["", "x ", "\n"]))
        + text
        + data.draw(st.sampled_from(["", " y", "\n"]))
    )
    assert command_matches(pattern, command) == _re2_search(pattern, command), (pattern, command)


def test_what_counts_as_finite() -> None:
    assert finite("^docker (build|push)") == (True, False, ("docker build", "docker push"))
    assert finite("terraform (apply|destroy)$") == (
        False,
        True,
        ("terraform apply", "terraform destroy"),
    )
    assert finite("a\\.b") == (False, False, ("a.b",))
    for other in ("^a|b", "a|b$", "a\\d", "(?i)a", "(?P<n>a)", "a.b", "a*", "[ab]", "a{2}"):
        assert finite(other) is None, other
    assert finite("(a|b)(c|d)(e|f)(g|h)(i|j)(k|l)(m|n)") is None  # 128 strings: too many


@st.composite
def gapped_patterns(draw: st.DrawFn) -> str:
    """Pieces of the finite subset (and sometimes beyond it) joined by `.*` / `.+`."""
    pieces = [_pattern_of(draw) for _ in range(draw(st.integers(2, 4)))]
    body = pieces[0]
    for piece in pieces[1:]:
        body += draw(st.sampled_from([".*", ".*", ".+", "\\.*", ".?"])) + piece
    return draw(st.sampled_from(["", "^"])) + body + draw(st.sampled_from(["", "$"]))


GAPPED_COMMANDS = st.lists(
    st.sampled_from([*"ab -é.$|\\\n", "\ud800", "ab", "--", " a"]), max_size=10
).map("".join)


@settings(max_examples=4000, deadline=None)
@given(gapped_patterns(), GAPPED_COMMANDS)
def test_a_gapped_pattern_matches_exactly_as_re2_does(pattern: str, command: str) -> None:
    if gapped(pattern) is None:
        return
    try:
        re2.compile(pattern)
    except re2.error:
        return
    assert command_matches(pattern, command) == _re2_search(pattern, command), pattern


@settings(max_examples=2000, deadline=None)
@given(gapped_patterns(), st.data())
def test_commands_built_from_a_gapped_pattern_agree_with_re2(
    pattern: str, data: st.DataObject
) -> None:
    # Random commands rarely hold every piece in order: build ones that do (or nearly do).
    shape = gapped(pattern)
    if shape is None:
        return
    try:
        re2.compile(pattern)
    except re2.error:
        return
    filler = st.sampled_from(["", "", "x", " y ", "\n", "a"])
    command = data.draw(filler)
    for _, texts in shape[2]:
        command += data.draw(st.sampled_from(texts)) + data.draw(filler)
    assert command_matches(pattern, command) == _re2_search(pattern, command), (pattern, command)


def test_what_counts_as_gapped() -> None:
    assert gapped("git push.*--force") == (False, False, ((0, ("git push",)), (0, ("--force",))))
    assert gapped("^(git|hg) push.+-f$") == (
        True,
        True,
        ((0, ("git push", "hg push")), (1, ("-f",))),
    )
    for other in ("git push", "(a.*b)", "a|b.*c", "a.*b|c", "[.*]", "a\\.*b", "a.*?b", "a.*\\d"):
        assert gapped(other) is None, other


def test_gapped_patterns_match_as_lessons_use_them() -> None:
    assert command_matches("git push.*--force", "git push origin main --force")
    assert not command_matches("git push.*--force", "git push origin main")
    assert command_matches("^kubectl delete .*--all$", "kubectl delete pods --all")
    assert not command_matches("^kubectl delete .*--all$", "kubectl delete pods --all -n x")
    assert not command_matches("a.+b", "ab") and command_matches("a.+b", "axb")
    # `.` does not match a newline: such commands go to RE2, which says no here.
    assert not command_matches("git push.*--force", "git push origin\n--force")
