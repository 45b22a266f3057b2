"""Find a cited symbol (`Name` or `Class.method`) in a source file with tree-sitter.

Each language lists the node types that define something with a name; a definition's dotted
path is its name after the names of the definitions around it (`Store.open`; a Go method takes
its receiver's type, a Rust method its `impl` type). Grammars are imported on first use and one
parser per language is kept per thread (a tree-sitter parser is not safe to share).
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["Definition", "definitions", "find_symbol", "language_for", "locate_symbol"]

EXTENSIONS = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}

# language -> (grammar module, function returning its language)
_GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
}

_JS = {
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "method_definition",
    "field_definition",
    "variable_declarator",
}
_TS = (_JS - {"field_definition"}) | {
    "abstract_class_declaration",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "internal_module",
    "module",
    "function_signature",
    "method_signature",
    "abstract_method_signature",
    "public_field_definition",
}
_KINDS: dict[str, frozenset[str]] = {
    "python": frozenset({"function_definition", "class_definition", "assignment"}),
    "javascript": frozenset(_JS),
    "typescript": frozenset(_TS),
    "tsx": frozenset(_TS),
    "go": frozenset(
        {
            "function_declaration",
            "method_declaration",
            "type_spec",
            "method_elem",
            "const_spec",
            "var_spec",
        }
    ),
    "rust": frozenset(
        {
            "function_item",
            "function_signature_item",
            "struct_item",
            "enum_item",
            "union_item",
            "trait_item",
            "impl_item",
            "mod_item",
            "const_item",
            "static_item",
            "type_item",
            "macro_definition",
        }
    ),
    "java": frozenset(
        {
            "class_declaration",
            "interface_declaration",
            "enum_declaration",
            "record_declaration",
            "annotation_type_declaration",
            "method_declaration",
            "constructor_declaration",
            "variable_declarator",
            "enum_constant",
        }
    ),
}
# Declarations without a body, and Rust `impl` blocks: when a path names several definitions,
# the one with the code (the function, the struct) is meant.
_WEAK = frozenset(
    {
        "impl_item",
        "function_signature",
        "method_signature",
        "abstract_method_signature",
        "function_signature_item",
    }
)
# Wrappers whose text belongs to the definition inside (decorators, `const`, a Java field's
# type and modifiers), taken when they wrap this one definition only.
_WRAPPERS = frozenset(
    {
        "decorated_definition",
        "expression_statement",
        "lexical_declaration",
        "variable_declaration",
        "field_declaration",
        "constant_declaration",
        "type_declaration",
        "const_declaration",
        "var_declaration",
    }
)
_NAME = re.compile(r"(?:[^\W\d]|\$)(?:\w|\$)*")
_local = threading.local()

Node = Any  # tree_sitter.Node; the library is imported lazily, so it is not named in types


@dataclass(frozen=True)
class Definition:
    """One named definition: dotted path, node type, 1-based inclusive lines, source text."""

    path: str
    kind: str
    start: int
    end: int
    text: str
    weak: bool = False


def language_for(path: str | Path) -> str | None:
    """The grammar for a file, by extension, or None when Cairn has none for it."""
    return EXTENSIONS.get(Path(path).suffix.lower())


@cache
def _language(name: str) -> Any:
    from tree_sitter import Language

    module_name, function = _GRAMMARS[name]
    module = importlib.import_module(module_name)
    return Language(getattr(module, function)())


@cache
def _query(name: str) -> Any:
    from tree_sitter import Query

    pattern = "[" + " ".join(f"({kind})" for kind in sorted(_KINDS[name])) + "] @def"
    return Query(_language(name), pattern)


def _parser(name: str) -> Any:
    parsers: dict[str, Any] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    parser = parsers.get(name)
    if parser is None:
        from tree_sitter import Parser

        parser = parsers[name] = Parser(_language(name))
    return parser


def definitions(source: bytes, language: str) -> list[Definition]:
    """Every named definition in `source`, in source order."""
    from tree_sitter import QueryCursor

    tree = _parser(language).parse(source)
    captured = QueryCursor(_query(language)).captures(tree.root_node).get("def", [])
    kinds = _KINDS[language]
    found: list[Definition] = []
    for node in sorted(captured, key=lambda n: n.start_byte):
        names = _path(node, kinds)
        if names is None:
            continue
        span = _span(node)
        start, end = span.start_point.row + 1, span.end_point.row + 1
        if span.end_point.column == 0 and end > start:
            end -= 1  # the node stops at the start of the next line
        text = source[span.start_byte : span.end_byte].decode("utf-8", errors="replace")
        found.append(Definition(".".join(names), node.type, start, end, text, node.type in _WEAK))
    return found


def _path(node: Node, kinds: frozenset[str]) -> list[str] | None:
    """The dotted path of a definition node, or None when it is not a named definition."""
    name = _name(node)
    if name is None:
        return None
    names = [name]
    if node.type == "method_declaration" and node.child_by_field_name("receiver") is not None:
        receiver = _type_name(node.child_by_field_name("receiver"))
        if receiver:
            names.insert(0, receiver)
    parent = node.parent
    while parent is not None:
        if parent.type in kinds:
            outer = _name(parent)
            if outer is not None:
                names.insert(0, outer)
        parent = parent.parent
    return names


def _name(node: Node) -> str | None:
    """A definition's own name, or None (anonymous, computed, local, not a definition here)."""
    check = _SCOPE_CHECKS.get(node.type)
    if check is not None and not check(node):
        return None
    if node.type == "impl_item":
        return _type_name(node.child_by_field_name("type"))
    field = node.child_by_field_name("name") or node.child_by_field_name("property")
    if node.type == "assignment":
        field = node.child_by_field_name("left")
    if field is None:
        return None
    text = field.text.decode("utf-8", errors="replace")
    return text if _NAME.fullmatch(text) else None


def _type_name(node: Node | None) -> str | None:
    """The bare type name in `*Server`, `List[T]`, `Foo<T>`, `&Foo`, `crate::a::Bar`."""
    if node is None:
        return None
    if node.type in ("type_identifier", "identifier", "field_identifier"):
        text: str = node.text.decode("utf-8", errors="replace")
        return text
    # A Go receiver `(s *Server)` names its variable first: take the declared type.
    field = {
        "scoped_type_identifier": "name",
        "generic_type": "type",
        "parameter_declaration": "type",
    }.get(node.type)
    if field is not None:
        return _type_name(node.child_by_field_name(field))
    for child in node.named_children:
        found = _type_name(child)
        if found:
            return found
    return None


def _python_assignment(node: Node) -> bool:
    """`NAME = ...` in a module or class body; not locals, not `a.b = ...`, not tuples."""
    left = node.child_by_field_name("left")
    statement = node.parent
    if left is None or left.type != "identifier" or statement is None:
        return False
    if statement.type != "expression_statement" or statement.parent is None:
        return False
    scope = statement.parent
    if scope.type == "module":
        return True
    in_class = scope.parent is not None and scope.parent.type == "class_definition"
    return scope.type == "block" and in_class


def _top_level_declarator(node: Node) -> bool:
    """A JS/TS `const x = ...` at module or namespace level, or a Java field; not a local."""
    declaration = node.parent
    if declaration is None:
        return False
    if declaration.type in ("field_declaration", "constant_declaration"):
        return True
    scope = declaration.parent
    if declaration.type not in ("lexical_declaration", "variable_declaration") or scope is None:
        return False
    if scope.type == "export_statement":
        scope = scope.parent
    if scope is None:
        return False
    if scope.type == "program":
        return True
    return (
        scope.type == "statement_block"
        and scope.parent is not None
        and scope.parent.type
        in (
            "internal_module",
            "module",
        )
    )


def _go_top_level(node: Node) -> bool:
    """A Go `const`/`var` spec at package level, not inside a function."""
    declaration = node.parent
    return (
        declaration is not None
        and declaration.parent is not None
        and declaration.parent.type == "source_file"
    )


_SCOPE_CHECKS: dict[str, Callable[[Node], bool]] = {
    "assignment": _python_assignment,
    "variable_declarator": _top_level_declarator,
    "const_spec": _go_top_level,
    "var_spec": _go_top_level,
}


def _span(node: Node) -> Node:
    """The node whose text is the definition: a sole-child wrapper, or the node itself."""
    parent = node.parent
    while parent is not None and parent.type in _WRAPPERS and _sole_definition(parent):
        node, parent = parent, parent.parent
    return node


def _sole_definition(wrapper: Node) -> bool:
    """A wrapper holds one definition (`const a = 1`, not `const a = 1, b = 2`)."""
    if wrapper.type == "decorated_definition":
        return True
    named = [c for c in wrapper.named_children if c.type not in ("comment", "modifiers")]
    declarators = [
        c
        for c in named
        if c.type in ("variable_declarator", "type_spec", "const_spec", "var_spec", "assignment")
    ]
    return len(declarators) == 1


def find_symbol(
    found: list[Definition], symbol: str, prefer_path: str = "", prefer_kind: str = ""
) -> list[Definition]:
    """Definitions a symbol names, best first.

    `symbol` matches a definition whose dotted path ends with it (`open` finds `Store.open`).
    Order: the recorded path and kind (when given), an exact path, shorter paths, definitions
    with a body before signatures and `impl` blocks, then source order.
    """
    wanted = symbol.split(".")
    matches = [d for d in found if d.path.split(".")[-len(wanted) :] == wanted]

    def rank(d: Definition) -> tuple[bool, bool, bool, int, bool]:
        return (
            d.path != prefer_path,
            d.kind != prefer_kind,
            d.path != symbol,
            d.path.count("."),
            d.weak,
        )

    return sorted(matches, key=rank)  # sorted() is stable: source order breaks ties


def locate_symbol(
    file: Path, symbol: str, source: bytes | None = None
) -> tuple[int, int, str] | None:
    """(start_line, end_line, body_text) of `symbol` in `file`, or None.

    None when the file has no grammar, cannot be read, or defines no such symbol. Pass
    `source` to locate in text already read (the file is then used only for its extension).
    """
    language = language_for(file)
    if language is None:
        return None
    if source is None:
        from cairn.io.citations.lines import read_source

        try:
            source = read_source(file)
        except OSError:
            return None
    best = find_symbol(definitions(source, language), symbol)
    if not best:
        return None
    return best[0].start, best[0].end, best[0].text
