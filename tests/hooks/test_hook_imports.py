"""The hook's hot path imports only what it needs (checked in a fresh interpreter)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import re2

import cairn
from tests import backends as sqlite_only
from tests.hooks.conftest import payload

# Run as the registered hook runs (`python -S`, Cairn's folder first, site-packages last),
# importing nothing before the entry, and list every module the call loaded.
PROBE = """
import sys
sys.path[:0] = [{src!r}]
sys.path.append({site!r})
sys.argv = ["cairn-hook", sys.argv[1], sys.argv[2]]
before = set(sys.modules)
from cairn.hooks.entry import main
main()
sys.stderr.write("\\n".join(sorted(set(sys.modules) - before)))
"""
SRC = str(Path(cairn.__file__).resolve().parents[1])
SITE = str(Path(re2.__file__).resolve().parents[1])
# What a firing call must never load: each is milliseconds of start-up on every such call
# (json and re, dataclasses with inspect, typing, pathlib, enum, datetime, the sqlite3
# package around _sqlite3, signal, contextlib).
SLOW = {
    "json",
    "re",
    "dataclasses",
    "inspect",
    "typing",
    "pathlib",
    "enum",
    "datetime",
    "sqlite3",
    "signal",
    "contextlib",
    "importlib",
    "tree_sitter",
}
THIRD_PARTY_ALLOWED = {"re2", "_re2", "tree_sitter", "tree_sitter_bash"}
NEVER = {"click", "rich", "mcp", "numpy", "scipy", "Stemmer", "pydantic", "anyio"}
# Exactly the modules of Cairn a call that cannot match runs: the fast path alone.
NO_MATCH_PATH = {
    "cairn",
    "cairn.hooks",
    "cairn.hooks.entry",
    "cairn.hooks.fastpath",
    "cairn.core",
    "cairn.io",
    "cairn.core.lessons",
    "cairn.core.lessons.prefilter",
    "cairn.io.regularfile",
}
# Exactly the modules of Cairn a call firing a literal shell lesson runs: the lean rule (no
# json, re, dataclasses, typing, pathlib... at import time) holds for these and no others.
# The store is read through its hook reader alone (`hookread`): not `models`, not the rest
# of `cairn.io.store`, which use the standard library as any Python project does.
FIRING_PATH = NO_MATCH_PATH | {
    "cairn.core.codec",
    "cairn.core.context",
    "cairn.core.errors",
    "cairn.core.firing",
    "cairn.core.lessons.match",
    "cairn.core.lifecycle",
    "cairn.core.value",
    "cairn.hooks.claude_code",
    "cairn.hooks.event",
    "cairn.hooks.registry",
    "cairn.hooks.run",
    "cairn.io.store",
    "cairn.io.store.hookread",
    "cairn.io.workspace",
    "cairn.usecases",
    "cairn.usecases.calls",
}
# What an action rule's call adds: the shell parser and the gates' setting.
RULE_PATH = (FIRING_PATH - {"cairn.core.lessons.match", "cairn.hooks.claude_code"}) | {
    "cairn.core.shell",
    "cairn.core.shell.actions",
    "cairn.core.shell.argv",
    "cairn.core.shell.parse",
    "cairn.hooks.codex",
    "cairn.usecases.gates",
}
CAIRN_NEVER = {
    "cairn.cli",
    "cairn.mcp_server",
    "cairn.api",
    "cairn.usecases.recall",
    "cairn.usecases.install",
    "cairn.usecases.tidy",
    "cairn.usecases.stats",
    "cairn.core.text",
    "cairn.core.models",
    "cairn.io.store.sqlite",
    "cairn.io.store.connection",
    "cairn.io.store.memories",
}


def _imported(
    home: Path, data: bytes, agent: str = "claude-code", event: str = "PreToolUse"
) -> tuple[set[str], bytes]:
    # As users run it: on the system clock (the test clock's `$CAIRN_NOW` costs an import).
    env = {k: v for k, v in os.environ.items() if k != "CAIRN_NOW"}
    env["CAIRN_HOME"] = str(home)
    out = subprocess.run(
        [sys.executable, "-S", "-c", PROBE.format(src=SRC, site=SITE), agent, event],
        input=data,
        capture_output=True,
        env=env,
        timeout=60,
        check=True,
    )
    return set(out.stderr.decode().split()), out.stdout


def _cairn(modules: set[str]) -> set[str]:
    return {m for m in modules if _top(m) == "cairn"}


def _top(name: str) -> str:
    return name.split(".")[0]


def _allowed(modules: set[str]) -> set[str]:
    stdlib = set(sys.stdlib_module_names)
    return {
        m
        for m in modules
        if _top(m) not in stdlib
        and _top(m) != "cairn"
        and _top(m) not in THIRD_PARTY_ALLOWED
        and not m.startswith("_")
    }


def test_a_call_that_cannot_match_imports_almost_nothing(
    lessons,
    home: Path,  # type: ignore[no-untyped-def]
    project: Path,
) -> None:
    data = payload("claude-code", "PreToolUse", project).replace(b"git push", b"ls -la")
    modules, out = _imported(home, data)
    assert out == b""
    # `regularfile` reads the trigger list without blocking on a FIFO or reading /dev/zero
    # forever (os, stat and errno only: ~0.2 ms).
    assert _cairn(modules) == NO_MATCH_PATH
    heavy = {
        "json",
        "re",
        "sqlite3",
        "re2",
        "tree_sitter",
        "pathlib",
        "dataclasses",
        "typing",
        "enum",
    }
    assert not heavy & modules, heavy & modules


@sqlite_only.HOOK_IMPORTS
def test_a_firing_call_imports_only_the_allow_list(lessons, home: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    modules, out = _imported(home, payload("claude-code", "PreToolUse", project))
    assert lessons["shell"].encode() in out
    assert _cairn(modules) == FIRING_PATH, _cairn(modules) ^ FIRING_PATH
    assert not _allowed(modules), _allowed(modules)
    assert not {_top(m) for m in modules} & NEVER
    assert not {m for m in modules if any(m == c or m.startswith(c + ".") for c in CAIRN_NEVER)}


@sqlite_only.HOOK_IMPORTS
def test_an_action_rule_call_loads_the_shell_parser(lessons, home: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    modules, out = _imported(home, payload("codex", "PreToolUse", project), agent="codex")
    assert lessons["rule"].encode() in out
    assert _cairn(modules) == RULE_PATH, _cairn(modules) ^ RULE_PATH
    assert "tree_sitter_bash" in modules
    assert not _allowed(modules), _allowed(modules)


@sqlite_only.HOOK_IMPORTS
def test_a_literal_shell_lesson_fires_without_any_slow_module(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    modules, out = _imported(home, payload("claude-code", "PreToolUse", project))
    assert lessons["shell"].encode() in out
    assert not modules & SLOW, modules & SLOW
    assert "re2" not in modules  # `git push` holds no regex syntax: a substring test
    # The list holds the store's generation: one query says so, the list's keeper never loads.
    assert not {m for m in modules if m.startswith("cairn.io.triggerlist")}


@sqlite_only.HOOK_IMPORTS
def test_a_simple_glob_lesson_fires_without_any_slow_module(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    data = payload("claude-code", "PreToolUse-Read", project)
    modules, out = _imported(home, data)
    assert lessons["read"].encode() in out  # `packages/db/**`: matched with string operations
    assert not modules & SLOW, modules & SLOW
    assert "re2" not in modules
    assert "cairn.core.lessons.glob" not in modules  # nor the full grammar's parser


@sqlite_only.HOOK_IMPORTS
def test_a_finite_regex_lesson_fires_without_re2(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        ref = ws.remember(
            "Images are built by CI only", when={"tool": "shell", "match": "^docker (build|push)"}
        ).ref
    data = payload("claude-code", "PreToolUse", project).replace(b"git push", b"docker build .")
    modules, out = _imported(home, data)
    assert ref.encode() in out
    assert not modules & SLOW, modules & SLOW
    assert "re2" not in modules  # two strings, matched with startswith


@sqlite_only.HOOK_IMPORTS
def test_a_gapped_regex_lesson_fires_without_re2(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        ref = ws.remember(
            "No force pushes to main", when={"tool": "shell", "match": "git push .*--force"}
        ).ref
    data = payload("claude-code", "PreToolUse", project).replace(
        b"git push", b"git push origin main --force"
    )
    modules, out = _imported(home, data)
    assert ref.encode() in out
    assert not modules & SLOW, modules & SLOW
    assert "re2" not in modules  # two pieces, found one after the other


@sqlite_only.HOOK_IMPORTS
def test_a_regex_lesson_loads_re2_and_no_slow_module(
    lessons: dict[str, str], home: Path, project: Path
) -> None:
    with cairn.open(home, project=project, cwd=project, tool="cli") as ws:
        ref = ws.remember(
            "No force pushes to main", when={"tool": "shell", "match": "git push \\S+ --force"}
        ).ref
    data = payload("claude-code", "PreToolUse", project).replace(
        b"git push", b"git push origin --force"
    )
    modules, out = _imported(home, data)
    assert ref.encode() in out
    assert "re2" in modules
    assert not modules & SLOW, modules & SLOW
