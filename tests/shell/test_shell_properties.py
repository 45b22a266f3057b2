"""Properties: the parser never raises, and action_words is a sound pre-filter."""

import ast
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from shell_corpus import GIT_ALIASES, reaches_the_parser

import cairn.core.shell
from cairn.core.shell import SimpleCommand, actions, commands

# Pieces that make shell-shaped text: programs, subcommands, wrappers, quotes, escapes,
# substitutions and heredocs, so that generated commands reach the interesting paths.
TOKENS = [
    "git", "commit", "push", "config", "gh", "pr", "new", "create", "ls", "npm", "i",
    "docker", "image", "yarn", "make", "pip3", "python", "-m", "pip", "install", "cargo",
    "+nightly", "t", "bash", "sh", "-c", "-lc", "-s", "sudo", "-u", "env", "A=1", "timeout",
    "5", "xargs", "-C", "--git-dir", "-R", "x/y", "'", '"', "\\", "\\\n", "$'", "\\x67",
    "$(", ")", "`", "$X", ";", "&&", "||", "|", "&", "(", "{", "}", "<<", "<<<", "EOF",
    "'EOF'", "#", "\n", " ", " ", " ", "g", "it", "G", "=", "-", "--", "{a,b}", "*",
]  # fmt: skip

shellish = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join)

# Commands built word by word, each word spelled one of many ways a shell reads it, some of
# which hide its letters (`g\it`, `gi""t`, `$'\x67it'`), then wrapped in shells and
# substitutions: the shapes where action_words could wrongly say "no need to parse".
VOCAB = [
    "git", "commit", "push", "gh", "pr", "new", "create", "ls", "npm", "i", "install",
    "docker", "image", "yarn", "make", "release", "pip3", "python", "-m", "pip", "cargo",
    "t", "sudo", "-u", "root", "env", "A=1", "xargs", "bash", "-c", "-C", "x", "--git-dir",
]  # fmt: skip
SPELLINGS = [
    lambda w: w,
    lambda w: f'"{w}"',
    lambda w: f"'{w}'",
    lambda w: f"\\{w}",
    lambda w: f"{w[:1]}\\{w[1:]}",
    lambda w: f'{w[:1]}""{w[1:]}',
    lambda w: f"{w[:1]}''{w[1:]}",
    lambda w: f"{w[:1]}\\\n{w[1:]}",
    lambda w: f"$'{w}'",
    lambda w: f"$'\\x{ord(w[0]):02x}{w[1:]}'",
    lambda w: f'"{w[:1]}"{w[1:]}',
]


def _dq(script: str) -> str:
    return "".join("\\" + ch if ch in '\\"$`' else ch for ch in script)


WRAPS = [
    lambda s: f"$({s})",
    lambda s: f'echo "$({s})"',
    lambda s: f"bash -c '{s}'",
    lambda s: f'sh -lc "{_dq(s)}"',
    lambda s: f"bash -c $'{s}'",
    lambda s: f"bash <<'EOF'\n{s}\nEOF",
    lambda s: f'bash <<< "{_dq(s)}"',
    lambda s: f"sudo -u x {s}",
]
word = st.builds(lambda w, spell: spell(w), st.sampled_from(VOCAB), st.sampled_from(SPELLINGS))
segment = st.builds(
    lambda words, wraps: _wrap(" ".join(words), wraps),
    st.lists(word, min_size=1, max_size=5),
    st.lists(st.sampled_from(WRAPS), max_size=3),
)
built = st.lists(segment, min_size=1, max_size=3).map(" && ".join)


def _wrap(script: str, wraps: list[Callable[[str], str]]) -> str:
    for wrap in wraps:
        script = wrap(script)
    return script


@given(st.text())
def test_actions_never_raise_on_any_text(text: str) -> None:
    found = actions(text)
    assert isinstance(found, list)
    assert all(isinstance(action, str) for action in found)


@given(st.text())
def test_commands_never_raise_on_any_text(text: str) -> None:
    found = commands(text)
    assert isinstance(found, list)
    assert all(isinstance(command, SimpleCommand) for command in found)


@given(st.binary())
def test_actions_never_raise_on_undecodable_bytes(data: bytes) -> None:
    assert isinstance(actions(data.decode("utf-8", "surrogateescape")), list)


@settings(max_examples=1000)
@given(st.one_of(built, shellish))
def test_every_command_that_fires_reaches_the_parser(command: str) -> None:
    for action in actions(command, GIT_ALIASES):
        assert reaches_the_parser(command, action, GIT_ALIASES), (command, action)


@given(shellish)
def test_actions_are_the_distinct_actions_of_commands(command: str) -> None:
    found = [c.action for c in commands(command) if c.action is not None]
    assert actions(command) == list(dict.fromkeys(found))


def test_public_surface_is_exactly_all() -> None:
    assert sorted(cairn.core.shell.__all__) == [
        "SimpleCommand",
        "action_words",
        "actions",
        "commands",
    ]
    assert dir(cairn.core.shell) == sorted(cairn.core.shell.__all__)
    for name in cairn.core.shell.__all__:
        assert not isinstance(getattr(cairn.core.shell, name), types.ModuleType), name


def test_hook_path_does_not_import_dataclasses() -> None:
    # The hook calls actions() and action_words() only; the debugging view loads on demand.
    script = (
        "import sys, cairn; before = set(sys.modules); import cairn.core.shell;"
        " cairn.core.shell.actions('git push'); cairn.core.shell.action_words('git-push');"
        " print(' '.join(sorted(set(sys.modules) - before)))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert "cairn.core.shell.actions" in loaded
    assert not loaded & {"dataclasses", "inspect", "cairn.core.shell.simple"}


def test_code_points_past_latin1_do_not_crash_the_process() -> None:
    # tree-sitter-bash's scanner reads past libc's ctype table on these (`echo {🎉}`) and
    # segfaults in about half of fresh processes, so a regression shows within a few runs.
    script = (
        "from cairn.core.shell import actions\n"
        "for cp in (0x10FFFF, 0xFFFFF, 0x7FFFF, 0x3FFFF, 0x1FFFF, 0xFFFF, 0xFFFD, 0x1F389):\n"
        "    for shape in ('echo {C}', 'x {1..2C', 'x -C', 'cat <<EOF\\na$C\\nEOF'):\n"
        "        actions(shape.replace('C', chr(cp)))\n"
        "print(actions('echo {\\U0001F389} && git push'))\n"
    )
    for _ in range(6):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert (done.returncode, done.stdout) == (0, "['git-push']\n"), done.stderr


def test_shell_imports_only_stdlib_and_tree_sitter() -> None:
    allowed = set(sys.stdlib_module_names) | {"tree_sitter", "tree_sitter_bash", "cairn"}
    package = Path(cairn.core.shell.__file__).parent
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, (path.name, name)
                if name.startswith("cairn."):
                    assert name.startswith("cairn.core.shell"), (path.name, name)
