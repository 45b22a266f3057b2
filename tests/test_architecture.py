"""The layer rule of docs/architecture.md, read from the imports with `ast`, module by module.

pure core (0) -> I/O (1) -> use cases (2) -> the facade (3) -> entry points (4). A module
imports only from its own layer or a layer above it in the picture (a lower number); entry
points never import each other (running one with `runpy` counts as importing it); and no
modules import each other in a circle, however far round (an import under `if TYPE_CHECKING:`
never runs, so it keeps the layer rule but makes no cycle).

Every form of import counts, wherever it is written (at the top, inside a function, under
`if TYPE_CHECKING`): `import cairn.x`, `from cairn import x`, `from cairn.x import y`, relative
imports, and `importlib.import_module` / `runpy.run_module` of a literal name. A module that
imports by a computed name (a lazy table of names) imports every Cairn module its string
constants name. The rule itself is tested on planted source trees, so it cannot pass by
finding nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "cairn"

# A module's layer is that of the longest entry naming it or a package holding it.
LAYERS: dict[str, int] = {
    "cairn.core": 0,
    "cairn.io": 1,
    "cairn.usecases": 2,
    "cairn.core.errors": 0,
    "cairn.core.codec": 0,
    "cairn.core.models": 0,
    "cairn.core.context": 0,
    "cairn.core.secretscan": 0,
    "cairn.core.lifecycle": 0,
    "cairn.core.text": 0,
    "cairn.core.rank": 0,
    "cairn.core.lessons": 0,
    "cairn.core.shell": 0,
    "cairn.io.store": 1,
    "cairn.io.citations": 1,
    "cairn.io.repo": 1,
    "cairn.io.workspace": 1,
    "cairn.io.triggerlist": 1,
    "cairn.io.regularfile": 1,
    "cairn.usecases.remember": 2,
    "cairn.usecases.rekey": 2,
    "cairn.usecases.recall": 2,
    "cairn.usecases.describe": 2,
    "cairn.usecases.transfer": 2,
    "cairn.usecases.brief": 2,
    "cairn.usecases.docs": 2,
    "cairn.usecases.sessions": 2,
    "cairn.usecases.progress": 2,
    "cairn.usecases.tidy": 2,
    "cairn.usecases.stats": 2,
    "cairn.usecases.rulesfiles": 2,
    "cairn.usecases.calls": 2,
    "cairn.usecases.gates": 2,
    "cairn.usecases.codeacts": 2,
    "cairn.usecases.undo": 2,
    "cairn.usecases.install": 2,
    "cairn.usecases.opened": 2,
    "cairn": 3,  # the package itself: the public names, resolved lazily from the facade
    "cairn.api": 3,
    "cairn.hooks": 4,
    "cairn.cli": 4,
    "cairn.mcp_server": 4,
    "cairn.web": 4,
}
ENTRY = 4
NAMES = {0: "pure core", 1: "I/O", 2: "use cases", 3: "the facade", 4: "entry points"}


@dataclass(frozen=True)
class Edge:
    """One import of `target` by `source` (both dotted module names), at `line`."""

    source: str
    target: str
    line: int
    by_runpy: bool = False
    typing_only: bool = False  # under `if TYPE_CHECKING:`: never run, so in no cycle


def module_names(root: Path, package: str = "cairn") -> dict[str, Path]:
    """Every module under `root` (the package's folder) by dotted name; a package is its
    `__init__`."""
    out: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join([package, *parts])] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module `name` loads: itself, or the nearest package or module holding it."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _literal(call: ast.Call) -> str | None:
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    if isinstance(func, ast.Name):
        return func.id
    return ""


def edges(
    name: str, path: Path, modules: dict[str, Path], package: str = "cairn"
) -> Iterator[Edge]:
    """The Cairn modules that module `name` (read from `path`) imports, in every form."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    computed = False
    typing_only = {
        id(inner)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for inner in ast.walk(block)
    }
    for node in ast.walk(tree):
        found: list[tuple[str, bool]] = []
        if isinstance(node, ast.Import):
            found = [(alias.name, False) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            for alias in node.names:
                whole = f"{base}.{alias.name}"
                found.append((whole if whole in modules else base, False))
        elif isinstance(node, ast.Call):
            called = _call_name(node)
            if called in ("importlib.import_module", "import_module", "__import__"):
                literal = _literal(node)
                computed = computed or literal is None
                if literal is not None:
                    found = [(literal, False)]
            elif called in ("runpy.run_module", "run_module"):
                literal = _literal(node)
                computed = computed or literal is None
                if literal is not None:
                    found = [(literal, True)]
        for target, by_runpy in found:
            resolved = _resolve(target, modules) if target.split(".")[0] == package else None
            if resolved is not None and resolved != name:
                line = getattr(node, "lineno", 0)
                yield Edge(name, resolved, line, by_runpy, id(node) in typing_only)
    if computed:  # a lazy table: every module its strings name is imported by name
        for node in ast.walk(tree):
            named = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if named and node.value in modules and node.value != name:
                yield Edge(name, node.value, node.lineno)


def layer(name: str, layers: dict[str, int] = LAYERS) -> int | None:
    """The layer of module `name`: that of the longest LAYERS entry holding it (the bare
    package's entry is its `__init__` alone, not a default for the modules under it)."""
    if name in layers:
        return layers[name]
    probe = name.rpartition(".")[0]
    while "." in probe:
        if probe in layers:
            return layers[probe]
        probe = probe.rpartition(".")[0]
    return None


def _entry_point(name: str, layers: dict[str, int]) -> str:
    """The entry point a layer-4 module belongs to: the layers entry holding it."""
    probe = name
    while probe not in layers:
        probe = probe.rpartition(".")[0]
    return probe


def violations(root: Path, package: str = "cairn", layers: dict[str, int] = LAYERS) -> list[str]:
    """Every breach of the layer rule among the modules of `package` (its folder `root`)."""
    modules = module_names(root, package)
    out: list[str] = []
    for name, path in modules.items():
        mine = layer(name, layers)
        if mine is None:
            out.append(f"{name} has no layer (add it to LAYERS)")
            continue
        for edge in edges(name, path, modules, package):
            theirs = layer(edge.target, layers)
            how = "runs" if edge.by_runpy else "imports"
            where = f"{name}:{edge.line} {how} {edge.target}"
            if theirs is None:
                out.append(f"{where}, which has no layer")
            elif theirs > mine:
                out.append(f"{where}: {NAMES[mine]} may not reach up to {NAMES[theirs]}")
            elif mine == theirs == ENTRY and _entry_point(name, layers) != _entry_point(
                edge.target, layers
            ):
                out.append(f"{where}: entry points never import each other")
    return out


def cycles(root: Path, package: str = "cairn") -> list[list[str]]:
    """The modules of `package` that import each other in a circle (Tarjan's SCCs)."""
    modules = module_names(root, package)
    graph = {
        name: sorted({e.target for e in edges(name, path, modules, package) if not e.typing_only})
        for name, path in modules.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_module_has_a_layer_and_imports_point_one_way() -> None:
    assert violations(SRC) == [], "\n".join(violations(SRC))


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert cycles(SRC) == [], "\n".join(" <-> ".join(group) for group in cycles(SRC))


def test_every_layers_entry_names_a_module() -> None:
    modules = module_names(SRC)
    packages = {name.rpartition(".")[0] for name in modules}
    stale = [name for name in LAYERS if name not in modules and name not in packages]
    assert stale == []


# The rule, run on planted trees: each form of a backward import, and a cycle, must be caught.


# A planted tree is its own package, `plant`, with its own layers (so that moving Cairn's
# modules, scripts/relayout.py, leaves these trees and their expectations as they are).
PLANTED = {
    "plant.errors": 0,
    "plant.models": 0,
    "plant.lessons": 0,
    "plant.store": 1,
    "plant": 3,
    "plant.hooks": 4,
    "plant.cli": 4,
}


def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "plant"
    for rel, text in {
        "__init__.py": "",
        "models.py": "",
        "store/__init__.py": "",
        "store/sqlite.py": "",
        "cli/__init__.py": "",
        "cli/app.py": "",
        "hooks/__init__.py": "",
        "hooks/entry.py": "",
        "lessons/__init__.py": "",
        "lessons/glob.py": "",
        "lessons/match.py": "",
        **files,
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_planted_tree_that_keeps_the_rule_passes(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "store/sqlite.py": "from plant.models import Memory\nimport plant.errors\n",
            "cli/app.py": "from plant import store\nfrom .. import models\n",
            "hooks/entry.py": "from plant.lessons import glob\n",
            "errors.py": "",
        },
    )
    assert violations(root, "plant", PLANTED) == []
    assert cycles(root, "plant") == []


BACKWARD = {
    "import": "import plant.cli.app\n",
    "from package import module": "from plant import cli\n",
    "from module import name": "from plant.cli.app import main\n",
    "relative": "from ..cli import app\n",
    "relative module": "from ..cli.app import main\n",
    "in a function": "def f():\n    from plant.cli.app import main\n",
    "importlib": "import importlib\nimportlib.import_module('plant.cli.app')\n",
    "from importlib": "from importlib import import_module\nimport_module('plant.cli')\n",
    "computed name": "import importlib\nWHERE = {'x': 'plant.cli.app'}\n"
    "def f(n):\n    return importlib.import_module(WHERE[n])\n",
    "runpy": "import runpy\nrunpy.run_module('plant.cli.app')\n",
}


@pytest.mark.parametrize("source", BACKWARD.values(), ids=BACKWARD.keys())
def test_a_planted_backward_import_fails(tmp_path: Path, source: str) -> None:
    root = _plant(tmp_path, {"store/sqlite.py": source})
    found = violations(root, "plant", PLANTED)
    assert len(found) == 1 and found[0].startswith("plant.store.sqlite:"), found
    assert "I/O may not reach up to entry points" in found[0]


@pytest.mark.parametrize(
    "source",
    [
        "from plant.hooks.entry import main\n",
        "from plant import hooks\n",
        "import runpy\nrunpy.run_module('plant.hooks.entry', run_name='x')\n",
    ],
)
def test_a_planted_entry_point_importing_another_fails(tmp_path: Path, source: str) -> None:
    found = violations(_plant(tmp_path, {"cli/app.py": source}), "plant", PLANTED)
    assert len(found) == 1 and "entry points never import each other" in found[0], found


def test_a_planted_module_without_a_layer_fails(tmp_path: Path) -> None:
    planted = {"newthing.py": "", "models.py": "import plant.newthing\n"}
    found = violations(_plant(tmp_path, planted), "plant", PLANTED)
    assert "plant.newthing has no layer (add it to LAYERS)" in found
    assert any("imports plant.newthing, which has no layer" in line for line in found)


def test_a_planted_cycle_fails_however_far_round(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "lessons/glob.py": "def f():\n    from plant.lessons import match\n",
            "lessons/match.py": "from .glob import f\n",
            "store/sqlite.py": "import plant.store\n",
            "store/__init__.py": "from plant.store.sqlite import X\n",
        },
    )
    assert violations(root, "plant", PLANTED) == []
    assert cycles(root, "plant") == [
        ["plant.lessons.glob", "plant.lessons.match"],
        ["plant.store", "plant.store.sqlite"],
    ]


# The picture in docs/architecture.md is the tree: each layer's folder holds exactly the
# modules (`name`) and packages (`name/`) its lines name, and the top holds the facade and the
# entry points it draws.

DOC = SRC.parents[1] / "docs" / "architecture.md"


def _picture() -> dict[str, set[str]]:
    """The names each layer folder's lines in the picture give (`core`, `io`, `usecases`), and
    those drawn at the top (`.`)."""
    text = DOC.read_text(encoding="utf-8")
    picture = text.split("<!-- layout:begin -->")[1].split("<!-- layout:end -->")[0]
    blocks: dict[str, str] = {}
    current = ""
    top: set[str] = set()
    for line in picture.splitlines():
        head = re.match(r"^  (core|io|usecases)/\s+(.*)$", line)
        if head:
            current = head.group(1)
            blocks[current] = head.group(2)
        elif current and re.match(r"^    [|v]\s", line):
            blocks[current] += " " + line[5:].strip()
        else:
            current = ""
            if re.match(r"^  \S", line) and not line.startswith("  src/"):
                top.update(w for w in line.split() if re.fullmatch(r"[a-z_]+(/|\.py)", w))
    out: dict[str, set[str]] = {".": top}
    for layer_dir, described in blocks.items():
        while re.search(r"\([^()]*\)", described):
            described = re.sub(r"\s*\([^()]*\)", "", described)
        described = described.split(": ", 1)[-1]  # "pure core: errors, ..." -> "errors, ..."
        out[layer_dir] = {name.strip() for name in described.split(",")}
    return out


def _on_disk(folder: Path) -> set[str]:
    return {
        f"{p.name}/" if p.is_dir() else p.name.removesuffix(".py")
        for p in folder.iterdir()
        if (p.is_dir() and (p / "__init__.py").exists())
        or (p.suffix == ".py" and p.stem != "__init__")
    }


def test_the_layout_picture_is_the_tree() -> None:
    picture = _picture()
    assert set(picture) == {".", "core", "io", "usecases"}
    for layer_dir in ("core", "io", "usecases"):
        assert picture[layer_dir] == _on_disk(SRC / layer_dir), layer_dir
    top = _on_disk(SRC)
    drawn = {name.removesuffix(".py") for name in picture["."]} | {"core/", "io/", "usecases/"}
    assert drawn == top
