"""The layer rule of docs/architecture.md, read from the imports with `ast`.

pure core (0) -> I/O (1) -> use cases (2) -> entry points (3). A module imports only from its
own layer or below, and entry points never import each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "cairn"

LAYERS: dict[str, int] = {
    "errors": 0,
    "codec": 0,
    "models": 0,
    "context": 0,
    "secretscan": 0,
    "lifecycle": 0,
    "text": 0,
    "rank": 0,
    "lessons": 0,
    "shell": 0,
    "store": 1,
    "citations": 1,
    "evidence": 1,
    "workspace": 1,
    "triggerlist": 1,
    "regularfile": 1,
    "remember": 2,
    "rekey": 2,
    "recall": 2,
    "describe": 2,
    "transfer": 2,
    "api": 2,
    "actions": 2,
    "brief": 2,
    "docs": 2,
    "sessions": 2,
    "progress": 2,
    "tidy": 2,
    "stats": 2,
    "rules": 2,
    "calls": 2,
    "gates": 2,
    "learn": 2,
    "undo": 2,
    "install": 2,
    "hooks": 3,
    "cli": 3,
    "mcp_server": 3,
    "web": 3,
}
ENTRY_POINTS = {"hooks", "cli", "mcp_server", "web"}


def _top(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "cairn" or len(parts) < 2:
        return None
    return parts[1]


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py"))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _owner(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py")


def test_every_module_has_a_layer() -> None:
    owners = {_owner(p) for p in _modules()} - {"__init__", "__main__"}
    assert owners <= set(LAYERS), owners - set(LAYERS)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_imports_point_down_the_layers(path: Path) -> None:
    owner = _owner(path)
    if owner in ("__init__", "__main__"):
        return
    for module in _imports(path):
        target = _top(module)
        if target is None or target == owner:
            continue
        assert target in LAYERS, f"{path.name} imports unknown cairn.{target}"
        assert LAYERS[target] <= LAYERS[owner], (
            f"{owner} (layer {LAYERS[owner]}) imports {module} (layer {LAYERS[target]})"
        )
        if owner in ENTRY_POINTS:
            assert target not in ENTRY_POINTS, f"entry point {owner} imports {module}"


def test_the_rule_catches_a_backward_arrow(tmp_path: Path) -> None:
    bad = tmp_path / "x.py"
    bad.write_text("from cairn.cli import main\n")
    assert "cairn.cli" in _imports(bad)
    assert LAYERS["cli"] > LAYERS["store"]
