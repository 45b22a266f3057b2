"""The app's page render time at 10k memories: p50 and p95 per page (target p95 <= 50 ms).

Run: `.venv/bin/python bench/app.py [--memories 10000] [--rounds 40]`. Prints timings; the
target is read, not enforced, so the script exits 0 on a slow machine.

One store of `--memories` memories: 5% lessons with a trigger and action rules
(`lessons_and_rules`), the rest from `bench/corpus.py` (10% of them citing a file written
under the project), a branch whose session cited 20 of them, a few confirmations and
contradictions, progress steps. Each page is then asked for `--rounds` times through
Starlette's test client (the whole app: guard, routing, library calls, Jinja2), after one
warm-up request each; a render is the wall time from request to the last byte, with the
process's CPU time beside it (steadier than wall time on a busy machine; it counts the test
client's own work too). The search page is recall plus the page around it; the lessons preview
is `cairn lessons test`'s library call (`lessons_for`) plus the page.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus
from starlette.testclient import TestClient

import cairn
from cairn.usecases.remember import remember_many
from cairn.web import Keys, create_app

TARGET_P95_MS = 50.0
PORT = 8765


def build(home: Path, project: Path, n: int) -> tuple[cairn.Cairn, list[str]]:
    """A store of n memories with evidence, a branch and progress."""
    triggered = lessons_and_rules(n // 20)
    specs = corpus.memories(n - len(triggered))
    corpus.write_files(project, specs)
    clock = corpus.SteppedClock(n)
    ws = cairn.open(home, project=project, cwd=project, tool="bench", session="", clock=clock)
    items: list[dict[str, Any]] = [
        {
            "text": s.text,
            "kind": s.kind,
            "tags": list(s.tags),
            "reason": s.reason,
            "source_ref": s.source_ref,
        }
        for s in specs
    ]
    items += triggered
    refs: list[str] = []
    for start in range(0, n, 5000):
        refs.extend(d.ref for d in remember_many(ws.store, ws.ctx, items[start : start + 5000]))
    ws.rebuild_triggers()
    clock.now()
    agent = ws.using(tool="claude-code", session="s-bench", branch="feature/bench")
    agent.cite(refs[:20])
    agent.log_mission_progress("Bench the app", "Build the store", "done")
    agent.log_mission_progress("Bench the app", "Time the pages", "in_progress")
    for ref in refs[20:40]:
        ws.using(tool="user").confirm(ref)
    for ref in refs[40:50]:
        ws.using(tool="user", session="a").contradict(ref)
    return ws, refs


def lessons_and_rules(count: int) -> list[dict[str, Any]]:
    """`count` lessons with a trigger (shell regexes and edit globs, as bench/lessons.py writes
    them) and one action rule for every tenth, so the lessons pages have something to list and
    the preview something to check."""
    out: list[dict[str, Any]] = []
    for i in range(count):
        tool, verb = corpus.lesson_words(i)
        when = (
            {"tool": "shell", "match": f"{tool} {verb}{i}"}
            if i % 2
            else {"tool": "edit", "path": f"services/svc{i}/**"}
        )
        out.append({"text": f"lesson {i} about {tool} {verb}", "kind": "lesson", "when": when})
        if i % 10 == 0:
            action = ("git-push", "git-commit", "npm-publish", "terraform-apply")[i // 10 % 4]
            out.append(
                {"text": f"rule {i} for {action}", "kind": "rule", "tags": [f"trigger:{action}"]}
            )
    return out[:count]


def _percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[
        min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))
    ]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "proj"
        project.mkdir()
        started = time.perf_counter()
        ws, refs = build(home, project, args.memories)
        print(f"store of {args.memories} memories built in {time.perf_counter() - started:.1f} s")
        cited = next(r for r in refs if ws.store.get_memory(r).source_ref)
        keys = Keys(PORT)
        client = TestClient(create_app(ws, keys), base_url=f"http://127.0.0.1:{PORT}")
        client.get(f"/?token={keys.token}")
        pages = {
            "list": "/",
            "list page 20": "/?page=20",
            "list tag filter": "/?tag=rule",
            "search": "/?q=flaky+test+timeout",
            "card": f"/m/{refs[len(refs) // 2]}",
            "card with citation": f"/m/{cited}",
            "review": "/review",
            "lessons": "/lessons",
            "lessons preview": "/lessons?call=shell&value=git+push+origin+main",
            "lessons preview edit": "/lessons?call=edit&value=services/svc40/app.py",
            "stats": "/stats",
            "progress": "/progress",
        }
        worst = 0.0
        print(f"{'page':<22}{'p50 ms':>9}{'p95 ms':>9}{'cpu p50':>9}{'cpu p95':>9}")
        for name, path in pages.items():
            assert client.get(path).status_code == 200, path  # warm-up
            times, cpu = [], []
            for _ in range(args.rounds):
                t0, c0 = time.perf_counter(), time.process_time()
                response = client.get(path)
                times.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
                assert response.status_code == 200
            p50, p95 = _percentiles(times)
            c50, c95 = _percentiles(cpu)
            worst = max(worst, p95)
            flag = "" if p95 <= TARGET_P95_MS else "  over target"
            print(f"{name:<22}{p50:>9.1f}{p95:>9.1f}{c50:>9.1f}{c95:>9.1f}{flag}")
        client.close()
        ws.close()
    verdict = "met" if worst <= TARGET_P95_MS else "NOT met"
    print(f"slowest page p95 {worst:.1f} ms; target p95 <= {TARGET_P95_MS:.0f} ms: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
