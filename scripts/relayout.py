"""Group src/cairn by layer: `python scripts/relayout.py` (from the repository root).

Moves each top-level module and package of the pure core, the I/O layer and the use cases
into `cairn/core/`, `cairn/io/` and `cairn/usecases/` (`git mv`), renames two whose names
meant two things (`evidence/`, the git package, becomes `io/repo/`: "evidence" is the table
and the score factor; `learn.py` becomes `usecases/codeacts.py`, beside `core/lessons/`), and
rewrites every reference to the old module paths in src, tests, bench, e2e, scripts, docs,
README.md, pyproject.toml and Makefile: imports of every form (`from cairn import x` is split
by the new parents), module names in strings (`importlib`, `mock.patch`, the hook's import
list), dotted names and paths in comments and docs. Then `ruff` sorts the imports and formats.

The facade (`cairn/api.py`) and the entry points (`cli/`, `hooks/`, `mcp_server.py`, `web/`)
stay where they are: agents' installed hook and MCP commands name `cairn.hooks.entry` and
`cairn.cli`, so those paths must keep working after an upgrade.

Deterministic and safe to run again: it refuses a dirty worktree, does nothing (exit 0) once
applied, and refuses (exit 1) a half-applied tree. CHANGELOG.md is history and is not edited.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "cairn"

# old name under cairn -> new dotted name under cairn
MOVES: dict[str, str] = {
    # pure core: functions of their arguments, no I/O
    "errors": "core.errors",
    "codec": "core.codec",
    "models": "core.models",
    "context": "core.context",
    "lifecycle": "core.lifecycle",
    "secretscan": "core.secretscan",
    "text": "core.text",
    "rank": "core.rank",
    "lessons": "core.lessons",
    "shell": "core.shell",
    # I/O: the store, files, git
    "store": "io.store",
    "citations": "io.citations",
    "evidence": "io.repo",
    "workspace": "io.workspace",
    "triggerlist": "io.triggerlist",
    "regularfile": "io.regularfile",
    # use cases
    "remember": "usecases.remember",
    "rekey": "usecases.rekey",
    "recall": "usecases.recall",
    "describe": "usecases.describe",
    "transfer": "usecases.transfer",
    "brief": "usecases.brief",
    "docs": "usecases.docs",
    "sessions": "usecases.sessions",
    "progress": "usecases.progress",
    "tidy": "usecases.tidy",
    "stats": "usecases.stats",
    "rules": "usecases.rules",
    "calls": "usecases.calls",
    "gates": "usecases.gates",
    "learn": "usecases.codeacts",
    "undo": "usecases.undo",
    "install": "usecases.install",
    "opened": "usecases.opened",
}

LAYER_PACKAGES = {
    "core": "The pure core: functions of their arguments, no I/O (docs/architecture.md).",
    "io": "I/O: the store (every SQL statement), cited files, git, the files beside the store.",
    "usecases": "The use cases: remember, recall, lessons on a call, tidy, transfer, install...",
}

# Where text is rewritten (tracked files only); CHANGELOG.md is history.
TREES = ("src", "tests", "bench", "e2e", "scripts", "docs", "bin")
FILES = ("README.md", "pyproject.toml", "Makefile", "AGENTS.md", "CLAUDE.md")
SKIP = {"CHANGELOG.md", "scripts/relayout.py", "tests/test_relayout.py"}
TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".sh", ".cfg", ".ini", ".yml", ".yaml", ".json"}

# References the patterns below cannot see: (file, old, new), each must be found once.
SPECIAL = [
    ("tests/test_store_boundary.py", 'STORE = SRC / "store"', 'STORE = SRC / "io" / "store"'),
    # A firing call now imports the layer packages the modules it runs live in.
    (
        "tests/hooks/test_hook_imports.py",
        '        "cairn.hooks.fastpath",\n',
        '        "cairn.hooks.fastpath",\n        "cairn.core",\n        "cairn.io",\n',
    ),
    (
        "tests/test_architecture.py",
        "LAYERS: dict[str, int] = {\n",
        "LAYERS: dict[str, int] = {\n"
        + "".join(
            f'    "cairn.{name}": {n},\n' for n, name in enumerate(("core", "io", "usecases"))
        ),
    ),
]

# The picture in docs/architecture.md, between its markers, once the tree is grouped.
PICTURE = """```
src/cairn/
  core/         pure core: errors, models, context, codec, lifecycle, secretscan/, text/,
    |           rank/, lessons/, shell/ (no I/O: functions of their arguments; safe for the
    v           hook's hot path)
  io/           I/O: store/ (every SQL statement), citations/, repo/ (git facts, code acts),
    |           workspace, triggerlist/, regularfile (every file Cairn reads but does not
    v           control)
  usecases/     remember, recall/ (the pipeline; kept.py: postings and LSA kept beside the
    |           store), describe (get_memory), calls (lessons, action rules), gates, brief,
    |           sessions, docs, progress, codeacts (learning from git), tidy, rules, stats,
    v           transfer, install/ (setup, doctor), undo, rekey, opened
  api.py        the facade: `cairn.open()` composing the use cases
    |
    v
  cli/ hooks/ mcp_server.py web/
                entry points (the app: `cairn serve`, docs/app.md); their module paths are
                named in agents' installed configs, so they stay at the top
```"""
BEGIN, END = "<!-- layout:begin -->", "<!-- layout:end -->"


def new_dotted(old: str) -> str:
    """`cairn.<old>...` rewritten: the first name after `cairn.` mapped by MOVES."""
    head, _, rest = old.partition(".")
    moved = MOVES[head]
    return f"{moved}.{rest}" if rest else moved


_NAMES = "|".join(sorted(MOVES, key=len, reverse=True))
DOTTED = re.compile(rf"(?<![\w.])cairn\.({_NAMES})(?![\w-])")
PATHS = re.compile(rf"(?<![\w.-])((?:src/)?cairn/)({_NAMES})(?=/|\.py\b)")
BARE = re.compile(rf"(?<![\w./-])({_NAMES})/(?=\w+\.py\b)")


def _path(name: str) -> str:
    return MOVES[name].replace(".", "/")


def rewrite_text(text: str, bare: bool = True) -> str:
    """Dotted module names and paths in prose, comments and strings."""
    text = DOTTED.sub(lambda m: "cairn." + MOVES[m.group(1)], text)
    text = PATHS.sub(lambda m: m.group(1) + _path(m.group(2)), text)
    if bare:
        text = BARE.sub(
            lambda m: _path(m.group(1)) + "/" if _is_package(m.group(1)) else m.group(0), text
        )
    return text


def _is_package(name: str) -> bool:
    return (PKG / name).is_dir() or (PKG / MOVES[name].replace(".", "/")).is_dir()


def _offsets(source: str) -> list[int]:
    starts, at = [0], 0
    for line in source.splitlines(keepends=True):
        at += len(line)
        starts.append(at)
    return starts


def rewrite_python(source: str) -> str:
    """Imports, module names in strings and comments, and `cairn.x` chains of a module
    imported whole (`import cairn.x`), rewritten; other code (a variable named `cairn`) kept."""
    source = _split_from_cairn(source)
    starts = _offsets(source)
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    whole = bool(re.search(rf"^\s*import cairn\.({_NAMES})\b(?! as)", source, re.M))
    edits: list[tuple[int, int, str]] = []
    statement: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
            if tok.type == tokenize.NEWLINE:
                statement = []
            i += 1
            continue
        start = starts[tok.start[0] - 1] + tok.start[1]
        end = starts[tok.end[0] - 1] + tok.end[1]
        if tok.type in (tokenize.STRING, tokenize.COMMENT) or tok.type == getattr(
            tokenize, "FSTRING_MIDDLE", -1
        ):
            # Bare package paths (`recall/kept.py`) only in prose: comments and docstrings.
            prose = tok.type == tokenize.COMMENT or tok.string.lstrip("rbuRBUfF")[:3] in (
                '"""',
                "'''",
            )
            new = rewrite_text(tok.string, bare=prose)
            if new != tok.string:
                edits.append((start, end, new))
        elif (
            tok.type == tokenize.NAME
            and tok.string == "cairn"
            and i + 2 < len(tokens)
            and tokens[i + 1].string == "."
            and tokens[i + 2].string in MOVES
            and (not statement or statement[-1] != ".")
        ):
            in_import = bool(statement) and statement[0] in ("import", "from")
            if in_import or whole:
                last = tokens[i + 2]
                stop = starts[last.end[0] - 1] + last.end[1]
                edits.append((start, stop, "cairn." + MOVES[last.string]))
        if tok.type != tokenize.COMMENT:
            statement.append(tok.string)
        i += 1
    for start, end, new in sorted(edits, reverse=True):
        source = source[:start] + new + source[end:]
    return source


def wrap_long(source: str, before: str, limit: int = 100) -> str:
    """Lines the rewrite made longer than `limit` (in comments and docstrings), cut at a space
    and continued on the next line with the same indentation."""
    old = set(before.splitlines())
    prose: set[int] = set()  # line numbers of comments and docstrings
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT and not tok.line[: tok.start[1]].strip():
            prose.add(tok.start[0])
        elif tok.type == tokenize.STRING and tok.string.lstrip("rbuRBU")[:3] in ('"""', "'''"):
            prose.update(range(tok.start[0], tok.end[0] + 1))
    out: list[str] = []
    for number, line in enumerate(source.splitlines(keepends=True), 1):
        body = line.rstrip("\n")
        while number in prose and len(body) > limit and body not in old:
            cut = body.rfind(" ", 0, limit)
            indent = len(body) - len(body.lstrip())
            if cut <= indent:
                break
            stripped = body.lstrip()
            lead = " " * indent + ("# " if stripped.startswith("#") else "")
            out.append(body[:cut] + "\n")
            body = lead + body[cut + 1 :]
        out.append(body + ("\n" if line.endswith("\n") else ""))
    return "".join(out)


def _split_from_cairn(source: str) -> str:
    """`from cairn import a, b as c` regrouped by the new parents of a and b."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module == "cairn"
        and node.level == 0
        and any(alias.name in MOVES for alias in node.names)
    ]
    for node in sorted(found, key=lambda n: n.lineno, reverse=True):
        first = lines[node.lineno - 1]
        indent = first[: len(first) - len(first.lstrip())]
        groups: dict[str, list[str]] = {}
        for alias in node.names:
            if alias.name in MOVES:
                parent, _, leaf = MOVES[alias.name].rpartition(".")
                module = f"cairn.{parent}"
                bound = alias.asname or alias.name
                groups.setdefault(module, []).append(
                    leaf if bound == leaf else f"{leaf} as {bound}"
                )
            else:
                named = alias.name + (f" as {alias.asname}" if alias.asname else "")
                groups.setdefault("cairn", []).append(named)
        new = "".join(
            f"{indent}from {m} import {', '.join(names)}\n" for m, names in groups.items()
        )
        lines[node.lineno - 1 : node.end_lineno] = [new]
    return "".join(lines)


def state() -> str:
    """'before', 'after', or 'mixed' (some modules moved, some not)."""
    old = [(PKG / name).is_dir() or (PKG / f"{name}.py").is_file() for name in MOVES]
    if all(old) and not (PKG / "core").exists():
        return "before"
    if not any(old) and (PKG / "core").is_dir():
        return "after"
    return "mixed"


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout


def tracked() -> list[Path]:
    """The tracked text files whose references are rewritten."""
    out = []
    for rel in git("ls-files", "-z", *TREES, *FILES).split("\0"):
        if not rel or rel in SKIP:
            continue
        path = ROOT / rel
        if path.is_file() and (
            path.suffix in TEXT_SUFFIXES or rel in ("Makefile", "bin/cairn-hook")
        ):
            out.append(path)
    return out


def move() -> None:
    """`git mv` each module and package to its layer's package."""
    for layer, doc in LAYER_PACKAGES.items():
        (PKG / layer).mkdir()
        init = PKG / layer / "__init__.py"
        init.write_text(f'"""{doc}"""\n', encoding="utf-8")
        git("add", str(init))
    for old, new in MOVES.items():
        source = PKG / old if (PKG / old).is_dir() else PKG / f"{old}.py"
        target = PKG / new.replace(".", "/")
        if source.suffix == ".py":
            target = target.with_suffix(".py")
        git("mv", str(source), str(target))


def rewrite(paths: list[Path]) -> int:
    """Rewrite every reference in `paths`; how many files changed."""
    changed = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py" or path.name == "cairn-hook":
            new = wrap_long(rewrite_python(text), text)
        elif path.name == "pyproject.toml":
            new = rewrite_text(text)
            for name in MOVES:
                new = new.replace(f'    "{name}/', f'    "{_path(name)}/')
        else:
            new = rewrite_text(text)
        if path.name == "architecture.md" and BEGIN in new:
            head, _, rest = new.partition(BEGIN)
            _, _, tail = rest.partition(END)
            new = f"{head}{BEGIN}\n{PICTURE}\n{END}{tail}"
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    for rel, old, new in SPECIAL:
        path = ROOT / rel
        text = path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise SystemExit(f"relayout: {rel} should hold {old!r} once")
        path.write_text(text.replace(old, new), encoding="utf-8")
    return changed


def main() -> int:
    now = state()
    if now == "after":
        print("relayout: already applied; nothing to do")
        return 0
    if now == "mixed":
        print("relayout: src/cairn is half moved; restore it (git checkout) first", file=sys.stderr)
        return 1
    if git("status", "--porcelain"):
        print("relayout: the worktree has changes; commit or stash them first", file=sys.stderr)
        return 1
    move()
    changed = rewrite(tracked())
    ruff = [sys.executable, "-m", "ruff"]
    targets = ["src", "tests", "bench", "e2e", "scripts"]
    subprocess.run(
        [*ruff, "check", "--fix", "--select", "I", "-q", *targets], cwd=ROOT, check=False
    )
    subprocess.run([*ruff, "format", "-q", *targets], cwd=ROOT, check=True)
    present = [name for name in FILES if (ROOT / name).exists()]
    git("add", "-A", *TREES, *present)
    print(f"relayout: moved {len(MOVES)} modules and packages, rewrote {changed} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
