"""In-process cost of deciding a tool call, for 10, 100 and 1,000 lessons.

- no match: the hook's decision from the raw payload (`Prefilter.candidates`), with the
  trigger list already read; and the cost of reading the list itself;
- with a match: the prefilter plus `lessons_for` against the open store (SQLite included);
- the shell parser: median microseconds per command over a mixed corpus.

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
from cairn import shell, triggerlist
from cairn.calls import Call, lessons_for
from cairn.lessons.prefilter import Prefilter

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


def main() -> None:
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
