"""Every command, MCP tool and hook event on stores of 1k, 10k and 100k memories: time and memory.

Run: `.venv/bin/python bench/scale.py [SIZE ...]` (default 1000 10000 100000). Each store is
built once and kept under `bench/.cache/scale/<size>` (or `$CAIRN_SCALE_CACHE`), so a second run
only measures. A run works on a copy of the kept store, so writing commands (remember, forget,
tidy decline, ...) leave the kept one as built.

The memories: WordNet 3.0 entries (Debian's `wordnet-base`, as `bench/labelled.py` reads them:
"bank, bank building: a building in which the business of banking transacted"), the public
corpus of one short sentence each that issue 21 was timed on; every 20th memory is one an agent
writes instead (`bench/corpus.py`: facts, decisions, preferences, lessons, rules and progress
on commands, paths and tools, some citing a file written under the project), and every 100th
is a lesson with a trigger (shell, read or edit, as `bench/hook.py` makes them), so the hooks
have lessons to match. Writes are spread over 400 days (`corpus.SteppedClock`), and every run
reads the clock at the end of that span (`$CAIRN_NOW`).

Each row runs in a fresh process, as a user or agent starts it: wall time, and the peak
resident memory of that process (`wait4`'s ru_maxrss). An MCP row starts `cairn mcp`,
initializes, times one `tools/call`, and reports the server's peak memory. A hook row pipes a
recorded Claude Code payload into `cairn hook claude-code EVENT`. The budgets of issue 21 are
printed beside each row: tidy <= 30 s and 1 GB at 100k, everything else <= 2 s and 300 MB.

`import (the export)` reads the run's export back into the store it came from (every record
already there); `import (into an empty store)` reads the same file into a new, empty store, as a
team moving its store to another machine or backend does.

The table is printed as Markdown; `--write FILE` also writes it (bench/results/scale.md).
`--only LABEL[,LABEL...]` runs just the rows whose label starts with one of those (`export`,
`import`, `tidy decline`, ...), to measure a change without the whole run.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import corpus
import labelled

import cairn
from cairn.core.context import stamp
from cairn.core.secretscan import find_secret

BENCH = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("CAIRN_SCALE_CACHE", BENCH / ".cache" / "scale"))
FIXTURES = BENCH.parent / "tests" / "fixtures" / "hooks" / "claude-code"
SIZES = (1_000, 10_000, 100_000)
BATCH = 2_000
AGENT_SHARE = 20  # every 20th memory is an agent-written one from bench/corpus.py
LESSON_SHARE = 100  # every 100th is a lesson with a trigger
BRANCH = "feature/scale"
BIN = Path(sys.executable).parent


@dataclass
class Row:
    """One measured run."""

    what: str
    seconds: float
    peak_mb: float
    ok: bool
    note: str = ""
    cpu: float = float("nan")


# -- the stores ----------------------------------------------------------------------------------


def _lesson(i: int) -> dict[str, Any]:
    tool, verb = corpus.lesson_words(i)
    if i % 3 == 0:
        when = {"tool": "shell", "match": f"{tool} {verb}{i}"}
    elif i % 3 == 1:
        when = {"tool": "edit", "path": f"services/svc{i}/**"}
    else:
        when = {"tool": "read", "path": f"docs/area{i}/*.md"}
    return {"text": f"lesson {i}: check {tool} {verb} before running it", "when": when}


def items(n: int) -> list[dict[str, Any]]:
    """The n memories to save, deterministic in n."""
    folder = labelled.ensure_wordnet()
    entries = [
        f"{', '.join(s.words)}: {s.definition}"[:990]
        for s in labelled.synsets(folder)
        if not find_secret(f"{', '.join(s.words)}: {s.definition}")
    ]
    random.Random(f"scale-{n}").shuffle(entries)
    agent = iter(corpus.memories(n // AGENT_SHARE + 1))
    out: list[dict[str, Any]] = []
    words = iter(entries)
    for i in range(n):
        if i % LESSON_SHARE == LESSON_SHARE // 2:
            out.append(_lesson(i))
        elif i % AGENT_SHARE == 0:
            spec = next(agent)
            out.append(
                {
                    "text": spec.text,
                    "kind": spec.kind,
                    "tags": list(spec.tags),
                    "reason": spec.reason,
                    "source_ref": spec.source_ref,
                }
            )
        else:
            out.append({"text": next(words)})
    return out


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)


def build(n: int) -> Path:
    """The kept store of n memories (built on first use): its folder, holding home/ and project/."""
    folder = CACHE / str(n)
    if (folder / "built").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    home, project = folder / "home", folder / "project"
    project.mkdir(parents=True)
    todo = items(n)
    specs = [corpus.MemorySpec(t["text"], "fact", (), "", t.get("source_ref", "")) for t in todo]
    corpus.write_files(project, specs)
    (project / "README.md").write_text("# scale\n\nA project for bench/scale.py.\n")
    _git(project, "init", "-q", "-b", "main")
    _git(project, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "add", "-A")
    _git(
        project,
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@example.invalid",
        "commit",
        "-qm",
        "start",
    )
    _git(project, "checkout", "-q", "-b", BRANCH)
    clock = corpus.SteppedClock(n)
    started = time.perf_counter()
    with cairn.open(
        home, project=project, cwd=project, tool="bench", session="build", clock=clock
    ) as ws:
        for start in range(0, n, BATCH):
            clock.at(start)
            ws.remember_many(todo[start : start + BATCH])
            print(f"  built {min(n, start + BATCH):,}/{n:,}", file=sys.stderr, flush=True)
        ws.rebuild_triggers()
    (folder / "built").write_text(f"{time.perf_counter() - started:.1f} s\n")
    return folder


# -- running -------------------------------------------------------------------------------------


def _env(home: Path, project: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        CAIRN_HOME=str(home),
        CAIRN_PROJECT=str(project),
        CAIRN_NOW=stamp(corpus.SteppedClock.END),
        CAIRN_SESSION="bench-s1",
        CAIRN_TOOL="claude-code",
        NO_COLOR="1",
    )
    env.pop("CAIRN_TIDY_PROGRESS", None)
    return env


# A child forked from this (large) process counts this process's pages in its peak until it
# execs: the measured command is forked from a bare `python -S` instead, which writes its
# child's peak (ru_maxrss, KB) and CPU seconds (user + system) to the file named first.
_WRAP = """import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _wrapped(argv: Sequence[str], peak: Path) -> list[str]:
    return [sys.executable, "-S", "-c", _WRAP, str(peak), *argv]


def _peak(peak: Path) -> tuple[float, float]:
    """(peak MB, CPU seconds) the wrapper wrote."""
    try:
        kb, cpu = peak.read_text().split()
        return int(kb) / 1024, float(cpu)
    except (OSError, ValueError):
        return float("nan"), float("nan")


def timed(argv: Sequence[str], env: dict[str, str], cwd: Path, stdin: bytes = b"") -> Row:
    """Run argv once in a fresh process: wall time and its peak resident memory."""
    with tempfile.TemporaryDirectory() as tmp:
        peak = Path(tmp) / "peak"
        started = time.perf_counter()
        done = subprocess.run(
            _wrapped(argv, peak), input=stdin, capture_output=True, env=env, cwd=cwd
        )
        seconds = time.perf_counter() - started
        note = done.stderr.decode("utf-8", "replace").strip().splitlines()
        mb, cpu = _peak(peak)
        return Row("", seconds, mb, done.returncode == 0, note[-1] if note else "", cpu)


def mcp_call(tool: str, arguments: dict[str, Any], env: dict[str, str], cwd: Path) -> Row:
    """Start `cairn mcp`, initialize, time one tools/call; the server's peak memory."""
    peak = Path(tempfile.mkdtemp()) / "peak"
    proc = subprocess.Popen(
        _wrapped([str(BIN / "cairn"), "mcp"], peak),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    def answer(mid: int) -> dict[str, Any]:
        assert proc.stdout is not None
        while True:
            line = proc.stdout.readline()
            if not line:
                return {"error": "server closed"}
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == mid:
                return message

    send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "claude-code", "version": "1"},
            },
        }
    )
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    started = time.perf_counter()
    send(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": tool, "arguments": {**arguments, "cwd": str(cwd)}},
        }
    )
    reply = answer(2)
    seconds = time.perf_counter() - started
    proc.stdin.close()
    proc.wait()
    ok = "error" not in reply and not reply.get("result", {}).get("isError")
    note = "" if ok else json.dumps(reply)[:120]
    mb, cpu = _peak(peak)
    row = Row("", seconds, mb, ok, note, cpu)
    shutil.rmtree(peak.parent, ignore_errors=True)
    return row


def run_all(n: int, only: Sequence[str] = ()) -> list[Row]:
    """Every row on a copy of the kept store of n memories (those `only` names, if any)."""
    kept = build(n)
    with tempfile.TemporaryDirectory(prefix="cairn-scale-") as tmp:
        work = Path(tmp)
        # The memories name the project by its path: the copy is of the store alone, and the
        # project folder is the kept one (only `githooks install` writes there; undone below).
        shutil.copytree(kept / "home", work / "home")
        home, project = work / "home", kept / "project"
        env = _env(home, project)
        with cairn.open(home, project=project, cwd=project, tool="bench") as ws:
            listed = ws.store.list_memories(project=ws.ctx.project, limit=3)
            ref, other, third = (m.ref for m in listed)
        rows: list[Row] = []

        def wanted(label: str) -> bool:
            return not only or label.startswith(tuple(only))

        def cli(label: str, *args: str, stdin: bytes = b"", home_of: Path | None = None) -> None:
            if not wanted(label):
                return
            run_env = env if home_of is None else {**env, "CAIRN_HOME": str(home_of)}
            row = timed([str(BIN / "cairn"), *args], run_env, project, stdin)
            row.what = label
            rows.append(row)
            print(
                f"  {n:>7,} {label:<36} {row.seconds:7.2f} s {row.cpu:7.2f} cpu "
                f"{row.peak_mb:7.0f} MB",
                flush=True,
            )

        # Reads first, on the store as built.
        cli("recall (first of the run)", "recall", "how are database migrations run", "--json")
        cli("recall", "recall", "a building where banking is done", "--json")
        cli("list --json", "list", "--json")
        cli("show", "show", ref, "--json")
        cli("stats --json", "stats", "--json")
        cli("export", "export", "-o", str(work / "export.jsonl"))
        cli("rules", "rules", "git-commit", "--json")
        cli("lessons test", "lessons", "test", "--shell", "git push origin main")
        cli("gate list", "gate", "list")
        cli("review list", "review", "list")
        cli("tidy --json", "tidy", "--json")
        cli("tidy (text, piped)", "tidy")
        cli("tidy --limit 20 --json", "tidy", "--limit", "20", "--json")
        cli("export-rules", "export-rules", "--format", "agents", "--out", str(work / "rules"))
        cli("doctor", "doctor", "--no-codex", "--json")
        cli("setup --dry-run", "setup", "claude-code", "--dry-run")
        cli("init", "init")
        cli("docs index", "docs", "index")
        cli("learn", "learn", "--json")
        # Hooks, as Claude Code sends them.
        for event in ("SessionStart", "PreToolUse", "PreToolUse-Read", "PostToolUse", "Stop"):
            payload = json.loads((FIXTURES / f"{event}.json").read_text())
            payload["cwd"] = str(project)
            name = payload["hook_event_name"]
            cli(f"hook {event}", "hook", "claude-code", name, stdin=json.dumps(payload).encode())
        # MCP tools, each in a fresh server.
        for tool, arguments in (
            ("recall", {"query": "how are database migrations run"}),
            ("get_memory", {"refs": [ref]}),
            ("remember", {"text": f"The scale bench wrote this at size {n}."}),
            ("log_mission_progress", {"goal": "scale", "step": "measure", "status": "open"}),
            ("get_action_rules", {"action": "git-commit"}),
            ("tidy", {}),
        ):
            if not wanted(f"mcp {tool}"):
                continue
            row = mcp_call(tool, arguments, env, project)
            row.what = f"mcp {tool}"
            rows.append(row)
            print(
                f"  {n:>7,} {row.what:<36} {row.seconds:7.2f} s {row.cpu:7.2f} cpu "
                f"{row.peak_mb:7.0f} MB",
                flush=True,
            )
        # Writes.
        cli("remember", "remember", f"The scale bench remembers this at size {n}.")
        cli("progress", "progress", "scale the store", "measure every command")
        cli("confirm", "confirm", ref)
        cli("pin", "pin", ref)
        cli("unpin", "unpin", ref)
        cli("correct", "correct", other, "A corrected sentence from the scale bench.")
        cli("forget", "forget", third)
        cli("restore", "restore", third)
        if wanted("import") and not (work / "export.jsonl").exists():
            subprocess.run(
                [str(BIN / "cairn"), "export", "-o", str(work / "export.jsonl")],
                env=env,
                cwd=project,
                check=True,
                capture_output=True,
            )
        cli("import (the export)", "import", str(work / "export.jsonl"))
        # How a team moves a store: the export read into a store that holds nothing yet.
        empty = work / "empty-home"
        empty.mkdir()
        cli("import (into an empty store)", "import", str(work / "export.jsonl"), home_of=empty)
        cli("lessons rebuild", "lessons", "rebuild")
        cli("githooks install", "githooks", "install")
        cli("githooks uninstall", "githooks", "uninstall")
        cli("review merge", "review", "merge", BRANCH)
        cli("review undo", "review", "undo")
        first = _first_tidy_id(env, project) if wanted("tidy decline") else ""
        if first:
            cli("tidy decline", "tidy", "decline", first)
        return rows


def _first_tidy_id(env: dict[str, str], project: Path) -> str:
    done = subprocess.run(
        [str(BIN / "cairn"), "tidy", "--limit", "1", "--json"],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
    )
    found = json.loads(done.stdout or "[]")
    return str(found[0]["id"]) if found else ""


def _budget(what: str, n: int) -> tuple[float, float]:
    if n < 100_000:
        return (0.0, 0.0)
    if what.startswith(("tidy --", "tidy (text", "mcp tidy")):
        return (30.0, 1024.0)
    return (2.0, 300.0)


HEADER = """# Every command at 1k, 10k and 100k memories

Written by `bench/scale.py --write bench/results/scale.md` (see its docstring for the stores
and how each row is run). Budgets at 100k (issue 21): tidy <= 30 s and 1 GB, every other
command, MCP tool and hook event <= 2 s and 300 MB; a figure over its budget is bold. An MCP
row's time is the one `tools/call`; its CPU time and memory are the server's, start-up
included. The machine is shared: wall time includes waiting for a core, CPU time does not.
The stores are built with `remember_many`, which brings recall's kept files up to date, so
the first recall of a run is not the cold fit after a bulk import (issue 21 timed that at
21 s; recall's cold path is outside this table).

"""


def table(results: dict[int, list[Row]]) -> str:
    """One Markdown table: a row per command; wall seconds, CPU seconds and peak MB per size.
    A figure over its budget (at 100k) is bold."""
    sizes = sorted(results)
    head = "| command | " + " | ".join(f"{n:,}: s | cpu s | MB" for n in sizes) + " |"
    rule = "|---|" + "---:|---:|---:|" * len(sizes)
    lines = [head, rule]
    names = [r.what for r in results[sizes[0]]]
    for name in names:
        cells = []
        for n in sizes:
            row = next((r for r in results[n] if r.what == name), None)
            if row is None:
                cells += ["", "", ""]
                continue
            seconds, mb = _budget(name, n)
            over_s = seconds and row.seconds > seconds
            over_mb = mb and row.peak_mb > mb
            mark = "" if row.ok else " (failed)"
            cells.append(f"{'**' if over_s else ''}{row.seconds:.2f}{'**' if over_s else ''}{mark}")
            cells.append(f"{row.cpu:.2f}")
            cells.append(f"{'**' if over_mb else ''}{row.peak_mb:.0f}{'**' if over_mb else ''}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    write = ""
    if "--write" in sys.argv:
        write = sys.argv[sys.argv.index("--write") + 1]
        args = [a for a in args if a != write]
    only: list[str] = []
    if "--only" in sys.argv:
        chosen = sys.argv[sys.argv.index("--only") + 1]
        args = [a for a in args if a != chosen]
        only = [label.strip() for label in chosen.split(",") if label.strip()]
    sizes = [int(a) for a in args] or list(SIZES)
    results: dict[int, list[Row]] = {}
    loads = [os.getloadavg()[0]]
    for n in sizes:
        print(f"store of {n:,} memories", file=sys.stderr, flush=True)
        results[n] = run_all(n, only)
        loads.append(os.getloadavg()[0])
    text = table(results)
    text += (
        f"\n\n{os.cpu_count()} cores; load average (1 min) during the run: "
        + ", ".join(f"{x:.1f}" for x in loads)
        + ". Wall time (s) counts waiting for a core; CPU time (cpu s) does not."
    )
    failed = [f"{n}: {r.what}: {r.note}" for n, rows in results.items() for r in rows if not r.ok]
    print()
    print(text)
    for line in failed:
        print(f"failed {line}")
    if write:
        Path(write).write_text(HEADER + text + "\n")


if __name__ == "__main__":
    main()
