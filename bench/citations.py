"""Citation checks: 1,000 citations over a 200-file git repository, cold and cached.

Run: `.venv/bin/python bench/citations.py`. Prints timings; asserts nothing (targets are read,
not enforced: a slow machine must not fail a build). Target: a recall page of 8 cached
citations in at most 2 ms.

The repository is built in a temp dir with the real `git`; files get an mtime an hour in the
past, because `check` does not cache a file written in the last 2 seconds (a rewrite within the
same mtime tick could hide behind the cache).
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from cairn.io.citations import SourceRef, check, fingerprint, parse_source_ref
from cairn.io.citations.status import clear_cache
from cairn.io.citations.symbols import definitions, language_for

FILES = 200
REFS = 1000
PAGE = 8
PAGES = 2000

_GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _python(i: int) -> str:
    funcs = "".join(
        f"def func_{i}_{k}(x):\n    y = x * {k}\n    return y + {i}\n\n\n" for k in range(8)
    )
    methods = "".join(
        f"    def method_{k}(self, v):\n        self.v = v + {k}\n        return self.v\n\n"
        for k in range(6)
    )
    return f"import os\n\n\n{funcs}class Model{i}:\n{methods}"


def _javascript(i: int) -> str:
    funcs = "".join(
        f"export function func_{i}_{k}(x) {{\n  return x * {k};\n}}\n\n" for k in range(8)
    )
    methods = "".join(f"  method_{k}(v) {{\n    return v + {k};\n  }}\n" for k in range(6))
    return f"import fs from 'fs';\n\n{funcs}export class Model{i} {{\n{methods}}}\n"


def _typescript(i: int) -> str:
    funcs = "".join(
        f"export function func_{i}_{k}(x: number): number {{\n  return x * {k};\n}}\n\n"
        for k in range(8)
    )
    methods = "".join(
        f"  method_{k}(v: number): number {{\n    return v + {k};\n  }}\n" for k in range(6)
    )
    return f"import * as fs from 'fs';\n\n{funcs}export class Model{i} {{\n{methods}}}\n"


def _go(i: int) -> str:
    funcs = "".join(f"func Func{i}_{k}(x int) int {{\n\treturn x * {k}\n}}\n\n" for k in range(8))
    methods = "".join(
        f"func (m *Model{i}) Method_{k}(v int) int {{\n\treturn v + {k}\n}}\n\n" for k in range(6)
    )
    return f"package pkg\n\ntype Model{i} struct {{\n\tv int\n}}\n\n{funcs}{methods}"


def _rust(i: int) -> str:
    funcs = "".join(f"pub fn func_{i}_{k}(x: i32) -> i32 {{\n    x * {k}\n}}\n\n" for k in range(8))
    methods = "".join(
        f"    pub fn method_{k}(&self, v: i32) -> i32 {{\n        v + {k}\n    }}\n"
        for k in range(6)
    )
    return f"pub struct Model{i};\n\n{funcs}impl Model{i} {{\n{methods}}}\n"


def _java(i: int) -> str:
    methods = "".join(
        f"    public int method_{k}(int v) {{\n        return v + {k};\n    }}\n\n"
        for k in range(14)
    )
    return f"package pkg;\n\npublic class Model{i} {{\n{methods}}}\n"


_MAKERS = [
    (".py", _python),
    (".js", _javascript),
    (".ts", _typescript),
    (".go", _go),
    (".rs", _rust),
    (".java", _java),
]


def build_repo(root: Path) -> list[Path]:
    """~200 source files in six languages, committed; mtimes an hour old."""
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True, env=_GIT_ENV)
    files = []
    for i in range(FILES):
        ext, make = _MAKERS[i % len(_MAKERS)]
        file = root / "src" / f"pkg{i % 10}" / f"mod_{i}{ext}"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(make(i), encoding="utf-8")
        files.append(file)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=_GIT_ENV)
    subprocess.run(
        ["git", "commit", "-q", "--no-gpg-sign", "-m", "init"], cwd=root, check=True, env=_GIT_ENV
    )
    then = time.time_ns() - 3600 * 10**9
    for file in files:
        os.utime(file, ns=(then, then))
    return files


def make_refs(root: Path, files: list[Path], rng: random.Random) -> list[SourceRef]:
    """1,000 refs: a third whole files, a third line ranges, a third symbols."""
    refs = []
    for n in range(REFS):
        file = rng.choice(files)
        rel = file.relative_to(root).as_posix()
        if n % 3 == 0:
            refs.append(parse_source_ref(rel))
        elif n % 3 == 1:
            count = len(file.read_text().splitlines())
            start = rng.randint(1, count - 5)
            refs.append(parse_source_ref(f"{rel}:{start}-{start + rng.randint(0, 4)}"))
        else:
            language = language_for(file)
            assert language is not None
            names = [d.path for d in definitions(file.read_bytes(), language)]
            refs.append(parse_source_ref(f"{rel}#{rng.choice(names)}"))
    return refs


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def main() -> None:
    """Build the repository, then time fingerprints, cold checks, cached checks and pages."""
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = build_repo(root)
        refs = make_refs(root, files, rng)

        started = time.perf_counter()
        prints: list[dict[str, Any]] = [fingerprint(ref, root) for ref in refs]
        saved = time.perf_counter() - started

        # Edit a tenth of the files so some answers are `changed` or moved, not all `same`.
        then = time.time_ns() - 3600 * 10**9
        for file in rng.sample(files, FILES // 10):
            file.write_text("// edited\n" + file.read_text())
            os.utime(file, ns=(then, then))
        roots = [root]

        clear_cache()
        started = time.perf_counter()
        cold = [check(ref, fp, roots) for ref, fp in zip(refs, prints, strict=True)]
        cold_s = time.perf_counter() - started

        started = time.perf_counter()
        warm = [check(ref, fp, roots) for ref, fp in zip(refs, prints, strict=True)]
        warm_s = time.perf_counter() - started
        assert warm == cold

        pairs = list(zip(refs, prints, strict=True))
        pages = []
        for _ in range(PAGES):
            page = rng.sample(pairs, PAGE)
            started = time.perf_counter()
            for ref, fp in page:
                check(ref, fp, roots)
            pages.append(time.perf_counter() - started)
        pages.sort()

        kinds = Counter(ref.kind for ref in refs)
        statuses = Counter(c.status for c in cold)
        moved = sum(1 for c in cold if c.note.startswith("moved"))
        print(f"repository: {len(files)} files, {REFS} refs {dict(kinds)}")
        print(f"statuses:   {dict(statuses)} ({moved} same after moving)")
        print(f"fingerprint x{REFS}:        {_ms(saved)}  ({_ms(saved / REFS)} each)")
        print(f"check x{REFS}, cold:        {_ms(cold_s)}  ({_ms(cold_s / REFS)} each)")
        print(f"check x{REFS}, cached:      {_ms(warm_s)}  ({_ms(warm_s / REFS)} each)")
        median = statistics.median(pages)
        p95 = pages[int(len(pages) * 0.95)]
        print(f"recall page of {PAGE}, cached:  median {_ms(median)}, p95 {_ms(p95)}")
        print(f"target: cached page <= 2 ms: {'met' if p95 <= 0.002 else 'MISSED'} (p95)")


if __name__ == "__main__":
    main()
