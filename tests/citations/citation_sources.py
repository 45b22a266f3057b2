"""One small source file per language, and the edits that move or change its symbols.

Each language has the same shape: a free function `helper`, and a type `Store` with methods
`open` and `close` (Go spells them `Open` and `Close`). `open`'s body holds the marker `41`,
which `edited` turns into `42`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """Pieces of a source file, put together in different orders."""

    language: str
    ext: str
    header: str
    helper: str
    added: str
    type_open: str
    open: str
    close: str
    type_close: str
    method: str = "open"

    @property
    def name(self) -> str:
        return f"store{self.ext}"

    def base(self) -> str:
        return self.header + self.helper + self.type_open + self.open + self.close + self.type_close

    def inserted_above(self) -> str:
        """Another function added above everything: every symbol moves down."""
        return self.header + self.added + self.base()[len(self.header) :]

    def methods_swapped(self) -> str:
        """`open` moved below `close` within the type."""
        return self.header + self.helper + self.type_open + self.close + self.open + self.type_close

    def edited(self) -> str:
        """`open`'s body changed."""
        return self.base().replace("41", "42")

    def without_open(self) -> str:
        """`open` deleted."""
        return self.header + self.helper + self.type_open + self.close + self.type_close


SOURCES = [
    Source(
        "python",
        ".py",
        header="import os\n\n\n",
        helper="def helper(x):\n    return x + 1\n\n\n",
        added="def added():\n    return 0\n\n\n",
        type_open="class Store:\n",
        open="    def open(self):\n        path = os.getcwd()\n        return 41\n\n",
        close="    def close(self):\n        return None\n\n",
        type_close="\nSTORE = Store()\n",
    ),
    Source(
        "javascript",
        ".js",
        header="import fs from 'fs';\n\n",
        helper="export function helper(x) {\n  return x + 1;\n}\n\n",
        added="const added = () => {\n  return 0;\n};\n\n",
        type_open="export class Store {\n",
        open="  open() {\n    const path = fs.cwd();\n    return 41;\n  }\n\n",
        close="  close() {\n    return null;\n  }\n",
        type_close="}\n",
    ),
    Source(
        "typescript",
        ".ts",
        header="import * as fs from 'fs';\n\n",
        helper="export function helper(x: number): number {\n  return x + 1;\n}\n\n",
        added="interface Added {\n  x: number;\n}\n\n",
        type_open="export class Store {\n",
        open="  open(): number {\n    const path: string = fs.cwd();\n    return 41;\n  }\n\n",
        close="  close(): void {\n    return;\n  }\n",
        type_close="}\n",
    ),
    Source(
        "tsx",
        ".tsx",
        header="import React from 'react';\n\n",
        helper="export function helper(x: number) {\n  return <div>{x}</div>;\n}\n\n",
        added="type Added = { x: number };\n\n",
        type_open="export class Store {\n",
        open="  open(): number {\n    const el = <span />;\n    return 41;\n  }\n\n",
        close="  close(): void {\n    return;\n  }\n",
        type_close="}\n",
    ),
    Source(
        "go",
        ".go",
        header='package store\n\nimport "os"\n\n',
        helper="func helper(x int) int {\n\treturn x + 1\n}\n\n",
        added="func added() int {\n\treturn 0\n}\n\n",
        type_open="type Store struct {\n\tpath string\n}\n\n",
        open="func (s *Store) Open() int {\n\ts.path, _ = os.Getwd()\n\treturn 41\n}\n\n",
        close="func (s *Store) Close() error {\n\treturn nil\n}\n\n",
        type_close="",
        method="Open",
    ),
    Source(
        "rust",
        ".rs",
        header="use std::env;\n\n",
        helper="fn helper(x: i32) -> i32 {\n    x + 1\n}\n\n",
        added="fn added() -> i32 {\n    0\n}\n\n",
        type_open="pub struct Store;\n\nimpl Store {\n",
        open="    pub fn open(&self) -> i32 {\n        let _p = env::current_dir();\n"
        "        41\n    }\n\n",
        close="    pub fn close(&self) {}\n",
        type_close="}\n",
    ),
    Source(
        "java",
        ".java",
        header="package store;\n\nimport java.io.File;\n\n",
        helper="class Util {\n    static int helper(int x) {\n        return x + 1;\n    }\n}\n\n",
        added="class Added {\n    int x;\n}\n\n",
        type_open="public class Store {\n",
        open='    public int open() {\n        File f = new File(".");\n        return 41;\n'
        "    }\n\n",
        close="    public void close() {\n    }\n",
        type_close="}\n",
    ),
]


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing `needle`."""
    for number, line in enumerate(text.split("\n"), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in text")
