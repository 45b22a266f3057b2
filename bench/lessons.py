"""In-process cost of deciding a tool call, for 10, 100 and 1,000 lessons.

- no match: the hook's decision from the raw payload (`Prefilter.candidates`), with the
  trigger list already read; and the cost of reading the list itself;
- with a match: the prefilter plus `lessons_for` against the open store (SQLite included);
- the shell parser: median microseconds per command over a mixed corpus;
- the match-all check (`cairn.core.lessons.triggers.match_all_share`): on hand-labelled patterns
  (match-alls like `\\S` or `*.*`, specific ones like `git push` or `packages/db/**`), how
  many match-alls it accepts (false accepts) and how many specific ones it refuses (false
  refusals); and, on a held-out sample of at least 500 commands and 500 paths it never saw
  (the shell test corpus and this repository's files, plus generated ones), the share of
  that sample each wrong verdict's pattern matches.

Targets: no match <= 50 us at 1,000 lessons; with a match <= 2 ms including the database.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import corpus

import cairn
from cairn.core import shell
from cairn.core.lessons.prefilter import Prefilter
from cairn.io import triggerlist
from cairn.usecases.calls import Call, lessons_for

COMMANDS = [
    "git status",
    "git commit -m 'fix: x'",
    "cd api && pnpm test --filter api",
    "ls -la",
    "git -c commit.gpgsign=false commit -m x",
    "docker build -t app . && docker push app",
    "FOO=1 make deploy",
    "sudo -u deploy kubectl apply -f k8s/",
    "bash -c 'git push origin'",
    "git commit -m \"$(cat <<'EOF'\nfeat: add refunds\nEOF\n)\"",
    "cat README.md | grep x",
    "terraform plan -out tf.plan; terraform apply tf.plan",
    'echo "git commit"',
]


def per_call_us(fn, n: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - start) / n * 1e6)
    return min(samples)


def bench(count: int) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "proj"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        with cairn.open(home, project=project, cwd=project, tool="bench", session="b") as ws:
            for i in range(count - 1):
                tool, verb = corpus.lesson_words(i)
                when = (
                    {"tool": "shell", "match": f"{tool} {verb}{i}"}
                    if i % 2
                    else {"tool": "edit", "path": f"services/svc{i}/**"}
                )
                ws.remember(f"lesson {i} about {tool} {verb}", when=when)
            ws.remember(
                "Before a push, run make check", when={"tool": "shell", "match": "git push"}
            )
            lines = triggerlist.list_path(home).read_text().splitlines(keepends=True)
            load_us = per_call_us(lambda: Prefilter.from_lines(lines), 20)
            prefilter = Prefilter.from_lines(lines)
            miss = json.dumps(
                {
                    "session_id": "b",
                    "cwd": str(project),
                    "tool_name": "Bash",
                    "tool_input": {"command": "ls -la src/payments"},
                }
            ).encode()
            hit = miss.replace(b"ls -la src/payments", b"git push origin main")
            assert prefilter.candidates(miss) == []
            miss_us = per_call_us(lambda: prefilter.candidates(miss), 2000)
            call = Call("shell", command="git push origin main")

            def decide() -> None:
                entries = prefilter.candidates(hit)
                decision = lessons_for(ws.store, ws.ctx, call, entries, record=False)
                assert decision.fired

            hit_us = per_call_us(decide, 200)
    return load_us, miss_us, hit_us


MATCH_ALL_REGEXES = [
    r"\S", "[^ ]", "[[:graph:]]", r"[^\t ]", r"\w", r"\b", "[a-z]", ".", ".*", "^", "$", r"\s",
    " ", "[a-z]+", r"\w+", r"^\S", "^[a-z]", "[aeiou]", "[^x]", r"\B", "(?i)[a-z]", "^.",
    ".+", r"\S+\s*", "e", "[a-zA-Z]{2}", "[[:alpha:]]", "[[:print:]]", '[^"]', r"\W|\w",
    "[a-z0-9]", r"^\w", "[st]", "[a-z]$", r"\w$", "[^\n]", r"\D", "[^0-9]", "(?s).", "[ -~]",
]  # fmt: skip
SPECIFIC_REGEXES = [
    "git push", "^git push", "git push.*--force", "npm publish", "terraform (apply|destroy)",
    "rm -rf", "kubectl delete", "docker push", r"--force\b", "git commit", "^make deploy",
    "pnpm -r build", "DROP TABLE", "(?i)drop table", "psql .*prod", "git rebase -i",
    "git reset --hard", "npm version", "cargo publish", "helm upgrade", "alembic upgrade",
    "prisma migrate", "rails db:migrate", "git checkout main", "chmod 777", r"curl .*\| *sh",
    "sudo ", "pip install", "yarn add", "go mod tidy", "pytest", "^ls", r"\bnpx\b", "aws s3",
    "gcloud", "ssh ", "scp ", "rsync", "docker compose down", "git stash drop",
    "git clean -fd", "migrate", "deploy", "release", "publish", r"\.env", r"package\.json",
    "^cd ", "npm test", "make check", "^git ", "npm", "docker", "test",
]  # fmt: skip
MATCH_ALL_GLOBS = [
    "*", "**", "**/*", "*.*", "?*", "[a-zA-Z0-9._~ -]**", "*[a-z]*", "{*,**}", "./**",
    "**/*.*", "**/?*", "*?", "**/*[a-z]*", "[!/]**", "*[!x]", "**/*[!0-9]*",
]  # fmt: skip
SPECIFIC_GLOBS = [
    "packages/db/**", "*.sql", "src/**/*.ts", "Dockerfile", ".env*", "**/*.py", "*.md",
    "docs/**", "migrations/*.py", "app/[slug]/*", ".github/workflows/*.yml", "package.json",
    "**/test_*.py", "*.{ts,tsx}", "terraform/**", "k8s/*.yaml", "Makefile", "src/**",
    "*.lock", "**/*.test.ts", "README.md", "LICENSE", "config/*.yaml", "*.go", "*.rs",
    ".cursor/rules/*.mdc", "infra/**", "services/payments/**", "db/migrate/*.rb", "/src/*.py",
    "*.json", "tests/**",
]  # fmt: skip


def held_out_commands() -> list[str]:
    """At least 500 commands the check's samples do not hold: the shell test corpus, then
    generated ones."""
    import importlib.util
    import random

    from cairn.core.lessons.triggers import _samples

    spec = importlib.util.spec_from_file_location(
        "shell_corpus",
        Path(__file__).resolve().parent.parent / "tests" / "shell" / "shell_corpus.py",
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen = set(_samples("commands.txt"))
    out = [c for c, _ in module.CASES if c.strip() and len(c) <= 512 and c.isprintable()]
    rng = random.Random(15)
    tools = "git npm kubectl docker cargo go python make terraform helm yarn pnpm aws gcloud psql"
    tools += " curl rg sed jq uv"
    verbs = "status log run build get apply describe list show exec install test lint fmt plan"
    verbs += " check sync diff info top"
    args = ["", " -v", " --all", " ./...", " src/", " -n prod", " --dry-run", " app", " 42"]
    while len(out) < 560:
        command = f"{rng.choice(tools.split())} {rng.choice(verbs.split())}{rng.choice(args)}"
        if command not in seen:
            out.append(command)
    return list(dict.fromkeys(c for c in out if c not in seen))


def held_out_paths() -> list[str]:
    """At least 500 paths the check's samples do not hold: this repository's files, then
    generated ones."""
    import random

    from cairn.core.lessons.triggers import _samples

    root = Path(__file__).resolve().parent.parent
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=False
    ).stdout.split()
    seen = set(_samples("paths.txt"))
    out = [p for p in listed if p not in seen]
    rng = random.Random(15)
    folders = "web/src/ api/ lib/core/ pkg/ scripts/ charts/app/ cmd/x/ ui/ svc/a/ tools/ ops/"
    names = "index.tsx handler.go model.py schema.prisma Dockerfile notes.txt Cargo.toml"
    names += " main.swift app.vue style.scss .envrc BUILD a.json run.sh data.csv LICENSE.txt"
    names += " values.yaml main.tf page.tsx"
    pairs = [(f, n) for f in ["", *folders.split()] for n in names.split()]
    rng.shuffle(pairs)
    out += [f + n for f, n in pairs]
    return list(dict.fromkeys(p for p in out if p not in seen))


def match_all_check() -> None:
    """Print the match-all check's false accepts and false refusals (see the docstring)."""
    from cairn.core.lessons.globmatch import glob_matches
    from cairn.core.lessons.match import command_matches
    from cairn.core.lessons.triggers import MATCH_ALL_SHARE, _samples, match_all_share

    commands, paths = held_out_commands(), held_out_paths()
    print(
        f"match-all check: samples of {len(_samples('commands.txt'))} commands and "
        f"{len(_samples('paths.txt'))} paths; refuses at {MATCH_ALL_SHARE:.0%} or every probe"
    )
    print(f"held-out sample: {len(commands)} commands, {len(paths)} paths")
    for kind, match_alls, specific, sample, hit in (
        ("shell", MATCH_ALL_REGEXES, SPECIFIC_REGEXES, commands, command_matches),
        ("path", MATCH_ALL_GLOBS, SPECIFIC_GLOBS, paths, glob_matches),
    ):
        accepted = [p for p in match_alls if match_all_share(p, kind) is None]
        refused = [p for p in specific if match_all_share(p, kind) is not None]
        print(
            f"  {kind:5}: {len(accepted)} false accepts of {len(match_alls)} match-alls, "
            f"{len(refused)} false refusals of {len(specific)} specific patterns"
        )
        wide = [
            p
            for p in match_alls + specific
            if sum(1 for text in sample if hit(p, text)) >= MATCH_ALL_SHARE * len(sample)
        ]
        print(
            f"         held out: {len(wide)} of these patterns match {MATCH_ALL_SHARE:.0%} of it; "
            f"{sum(1 for p in wide if match_all_share(p, kind) is None)} of those accepted"
        )
        for pattern in accepted + refused:
            share = sum(1 for text in sample if hit(pattern, text)) / len(sample)
            verdict = "accepted" if pattern in accepted else "refused"
            print(f"      {verdict} {pattern!r}: matches {share:.0%} of the held-out sample")


def main() -> None:
    match_all_check()
    print(f"{'lessons':>8} {'read list us':>13} {'no match us':>12} {'match ms':>9}")
    for count in (10, 100, 1000):
        load_us, miss_us, hit_us = bench(count)
        print(f"{count:8d} {load_us:13.1f} {miss_us:12.1f} {hit_us / 1000:9.3f}")
    print("targets at 1,000 lessons: no match <= 50 us; with a match <= 2 ms (database included)")
    corpus = COMMANDS * 100
    times = []
    for command in corpus:
        start = time.perf_counter()
        shell.actions(command)
        times.append((time.perf_counter() - start) * 1e6)
    print(
        f"shell parser: median {statistics.median(times):.1f} us per command "
        f"over {len(corpus)} commands"
    )


if __name__ == "__main__":
    main()
