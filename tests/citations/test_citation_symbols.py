"""Finding a symbol with tree-sitter in each supported language."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from citation_sources import SOURCES, Source, line_of

from cairn.io.citations import locate_symbol
from cairn.io.citations.symbols import definitions, find_symbol, language_for

IDS = [s.language for s in SOURCES]


def _write(tmp_path: Path, source: Source, text: str) -> Path:
    file = tmp_path / source.name
    file.write_text(text, encoding="utf-8")
    return file


def _piece_lines(piece: str) -> int:
    return piece.rstrip("\n").count("\n")


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_locate_symbol_finds_a_method_by_type_and_name(tmp_path: Path, source: Source) -> None:
    text = source.base()
    found = locate_symbol(_write(tmp_path, source, text), f"Store.{source.method}")
    assert found is not None
    start, end, body = found
    first = source.open.split("\n")[0].strip()
    assert start == line_of(text, first)
    assert end == start + _piece_lines(source.open)
    assert body.startswith(first) and "41" in body


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_locate_symbol_follows_a_symbol_moved_down(tmp_path: Path, source: Source) -> None:
    before = locate_symbol(_write(tmp_path, source, source.base()), "helper")
    after = locate_symbol(_write(tmp_path, source, source.inserted_above()), "helper")
    assert before is not None and after is not None
    shift = source.added.count("\n")
    assert after[:2] == (before[0] + shift, before[1] + shift)
    assert after[2] == before[2]


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_locate_symbol_follows_a_method_moved_within_its_type(
    tmp_path: Path, source: Source
) -> None:
    symbol = f"Store.{source.method}"
    before = locate_symbol(_write(tmp_path, source, source.base()), symbol)
    after = locate_symbol(_write(tmp_path, source, source.methods_swapped()), symbol)
    assert before is not None and after is not None
    assert after[0] == before[0] + source.close.count("\n")
    assert after[2] == before[2]


@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_locate_symbol_is_none_for_a_missing_symbol(tmp_path: Path, source: Source) -> None:
    file = _write(tmp_path, source, source.without_open())
    assert locate_symbol(file, f"Store.{source.method}") is None
    assert locate_symbol(file, "Nowhere") is None


def test_locate_symbol_is_none_without_a_grammar_or_a_file(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Install\n")
    assert locate_symbol(notes, "Install") is None
    assert locate_symbol(tmp_path / "absent.py", "f") is None


def test_locate_symbol_reads_given_source_instead_of_the_file(tmp_path: Path) -> None:
    found = locate_symbol(tmp_path / "never_written.py", "f", b"x = 1\n\ndef f():\n    pass\n")
    assert found == (3, 4, "def f():\n    pass")


@pytest.mark.parametrize(
    ("name", "language"),
    [
        ("a.py", "python"),
        ("a.pyi", "python"),
        ("a.js", "javascript"),
        ("a.mjs", "javascript"),
        ("a.jsx", "javascript"),
        ("a.ts", "typescript"),
        ("A.TS", "typescript"),
        ("a.tsx", "tsx"),
        ("a.go", "go"),
        ("a.rs", "rust"),
        ("a.java", "java"),
        ("a.md", None),
        ("Makefile", None),
    ],
)
def test_language_for_maps_extensions_to_grammars(name: str, language: str | None) -> None:
    assert language_for(name) == language


def _paths(source: bytes, language: str) -> list[str]:
    return [d.path for d in definitions(source, language)]


def test_go_methods_are_named_by_their_receiver_type() -> None:
    src = b"package p\n\nfunc (l *List[T]) Push(v T) {}\nfunc (s Server) Start() {}\n"
    assert _paths(src, "go") == ["List.Push", "Server.Start"]


def test_rust_prefers_the_struct_to_its_impl_and_names_methods_by_impl_type() -> None:
    src = b"impl<T> Tr for Foo<T> { fn m(&self) {} }\nstruct Foo;\nimpl a::Foo { fn n() {} }\n"
    found = definitions(src, "rust")
    assert [d.path for d in found] == ["Foo", "Foo.m", "Foo", "Foo", "Foo.n"]
    assert find_symbol(found, "Foo")[0].kind == "struct_item"


def test_typescript_prefers_the_overload_with_a_body() -> None:
    src = b"function f(a: string): void;\nfunction f(a: any) {\n  return a;\n}\n"
    best = find_symbol(definitions(src, "typescript"), "f")[0]
    assert (best.kind, best.start, best.end) == ("function_declaration", 2, 4)


def test_python_definition_includes_its_decorators() -> None:
    src = b"@cache\n@other(1)\ndef f():\n    return 1\n"
    (d,) = definitions(src, "python")
    assert (d.start, d.end) == (1, 4) and d.text.startswith("@cache")


def test_locals_are_not_symbols_but_module_constants_are() -> None:
    js = b"const top = () => 1;\nfunction f() {\n  const local = 2;\n}\n"
    assert _paths(js, "javascript") == ["top", "f"]
    py = b"LIMIT = 3\ndef f():\n    inner = 1\nclass A:\n    x: int = 1\n"
    assert _paths(py, "python") == ["LIMIT", "f", "A", "A.x"]
    go = b"package p\nconst C = 1\nfunc f() {\n\tvar v = 2\n}\n"
    assert _paths(go, "go") == ["C", "f"]


def test_nested_types_give_dotted_paths() -> None:
    src = b"class Outer {\n  class Inner {\n    void m() {}\n  }\n}\n"
    found = definitions(src, "java")
    assert [d.path for d in found] == ["Outer", "Outer.Inner", "Outer.Inner.m"]
    assert [d.path for d in find_symbol(found, "Inner.m")] == ["Outer.Inner.m"]
    assert [d.path for d in find_symbol(found, "m")] == ["Outer.Inner.m"]
    assert find_symbol(found, "Other.m") == []


def test_grammars_are_imported_only_when_a_file_of_theirs_is_read(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    pass\n")
    script = f"""
import sys
import cairn.io.citations
from pathlib import Path
assert "tree_sitter" not in sys.modules, "tree_sitter imported with the package"
found = cairn.io.citations.locate_symbol(Path({str(tmp_path / "a.py")!r}), "f")
assert found == (1, 2, "def f():\\n    pass"), found
print(",".join(sorted({{m.split(".")[0] for m in sys.modules if m.startswith("tree_sitter_")}})))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "tree_sitter_python"
