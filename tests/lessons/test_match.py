"""A literal shell trigger is matched as a substring, exactly as RE2 would match it."""

from __future__ import annotations

import re2
from hypothesis import given
from hypothesis import strategies as st

from cairn.lessons.match import COMMAND_LIMIT, command_matches, compile_regex, is_literal

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
