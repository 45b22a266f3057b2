"""Hook start-up cost, side by side: bare interpreter, a call that cannot match, a firing call.

Builds a store with 1,000 lessons in a temp folder, then times N runs of each (wall clock,
fresh process each time) with the same interpreter:

- `python -S -c pass`                       the floor: interpreter start alone;
- the hook on a call no lesson matches;
- the hook on a call that fires a lesson (new session each run, so the ledger lets it fire):
  a shell command matching a literal trigger (`git push`), one matching a regex that stands for
  a few strings (`^docker (build|push)`), one matching such pieces joined by `.*`
  (`^kubectl delete .*--all`), all three matched without RE2; one matching a regex that needs
  RE2 (`^helm upgrade \\S+ --force`); and a file read matching a glob (`docs/area2/*.md`,
  matched without RE2); and a gate (a literal trigger, `git stash`, marked `gate`) denying the
  first matching call of a session: the claim is written to the store before the deny is
  printed. The hook answers each call in its own process, as it always does.

The hook runs exactly as `cairn setup` registers it (`cairn.usecases.install.command.launch`) and
as the
agents run it, through `sh -c`: a project's committed files hold the stable command (the
`cairn-hook` script found on PATH; the firing rows use it), the user's own files the absolute
interpreter with `-I -S` (its own no-match row). The package is byte-compiled first, as
`pip install` leaves it (an editable install writes the .pyc files on first use; without them
every call would compile Cairn's modules again).
The rows are interleaved, one run of each in turn, so load on the machine hits them alike.
`x bare` is a row's median over the bare interpreter's median; `paired` is the median of each
run's ratio to the bare start timed just before it (steadier on a busy machine), and the one
the targets are read on: no match <= 1.5x and a firing call <= 2.5x the bare interpreter start.
"""

from __future__ import annotations

import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import corpus

import cairn
from cairn.usecases.install.command import launch

RUNS = int(os.environ.get("BENCH_RUNS", "40"))
LESSONS = int(os.environ.get("BENCH_LESSONS", "1000"))


def build(home: Path, project: Path) -> None:
    with cairn.open(home, project=project, cwd=project, tool="bench") as ws:
        for i in range(LESSONS):
            tool, verb = corpus.lesson_words(i)
            if i % 3 == 0:
                when = {"tool": "shell", "match": f"{tool} {verb}{i}"}
            elif i % 3 == 1:
                when = {"tool": "edit", "path": f"services/svc{i}/**"}
            else:
                when = {"tool": "read", "path": f"docs/area{i}/*.md"}
            ws.remember(f"lesson {i}: check {tool} {verb} before running it", when=when)
        ws.remember("Before a push, run make check", when={"tool": "shell", "match": "git push"})
        ws.remember(
            "Images are built by CI only", when={"tool": "shell", "match": "^docker (build|push)"}
        )
        ws.remember(
            "Never delete all pods of a namespace",
            when={"tool": "shell", "match": "^kubectl delete .*--all"},
        )
        ws.remember(
            "Never force a helm upgrade: roll back first",
            when={"tool": "shell", "match": "^helm upgrade \\S+ --force"},
        )
        ws.remember(
            "Stash with a message, so the stash list says what each one holds",
            when={"tool": "shell", "match": "git stash"},
            gate=True,
        )


def timed(argv: list[str], data: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        argv, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False
    )
    return (time.perf_counter() - start) * 1000


def payload(project: Path, command: str, session: str) -> bytes:
    return call(project, session, "Bash", {"command": command, "description": "bench"})


def read_payload(project: Path, path: str, session: str) -> bytes:
    return call(project, session, "Read", {"file_path": str(project / path)})


def call(project: Path, session: str, tool: str, tool_input: dict[str, str]) -> bytes:
    """A Claude Code PreToolUse payload."""
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
        }
    ).encode()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "proj"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        t0 = time.perf_counter()
        build(home, project)
        print(f"store: {LESSONS + 5} lessons built in {time.perf_counter() - t0:.1f} s")
        env = {**os.environ, "CAIRN_HOME": str(home)}
        compileall.compile_dir(str(Path(cairn.__file__).parent), quiet=1)
        bindir = os.path.dirname(sys.executable)
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        committed = launch(portable=True).hook_command("claude-code", "PreToolUse")
        personal = launch().hook_command("claude-code", "PreToolUse")
        hook = ["/bin/sh", "-c", committed]
        user_hook = ["/bin/sh", "-c", personal]
        # Each timed call must do what its row says: check the output once, before timing.
        for data, fires in (
            (payload(project, "ls -la src", "check-m"), False),
            (payload(project, "git push origin main", "check-f"), True),
            (payload(project, "docker build -t app .", "check-r"), True),
            (payload(project, "kubectl delete pods --all", "check-k"), True),
            (payload(project, "helm upgrade api --force", "check-h"), True),
            (read_payload(project, "docs/area2/setup.md", "check-g"), True),
        ):
            out = subprocess.run(hook, input=data, capture_output=True, env=env, check=True)
            if (b"additionalContext" in out.stdout) != fires:
                raise SystemExit(f"bench setup is wrong: {data!r} gave {out.stdout!r}")
        out = subprocess.run(
            hook, input=payload(project, "git stash", "check-d"), capture_output=True, env=env
        )
        if b'"permissionDecision": "deny"' not in out.stdout.replace(b'":"', b'": "'):
            raise SystemExit(f"bench setup is wrong: the gate gave {out.stdout!r}")
        calls = {
            "literal": lambda i: payload(project, "git push origin main", f"f{i}"),
            "few-string regex": lambda i: payload(project, "docker build -t app .", f"r{i}"),
            "gapped regex": lambda i: payload(project, "kubectl delete pods --all", f"k{i}"),
            "RE2 regex": lambda i: payload(project, "helm upgrade api --force", f"h{i}"),
            "read glob": lambda i: read_payload(project, "docs/area2/setup.md", f"g{i}"),
            "a gate denies": lambda i: payload(project, "git stash", f"d{i}"),
        }
        bare: list[float] = []
        miss: list[float] = []
        user_miss: list[float] = []
        fire: dict[str, list[float]] = {name: [] for name in calls}
        for i in range(RUNS):  # interleaved, so load on the machine hits every row alike
            bare.append(timed([sys.executable, "-S", "-c", "pass"], b"", env))
            miss.append(timed(hook, payload(project, "ls -la src", f"m{i}"), env))
            user_miss.append(timed(user_hook, payload(project, "ls -la src", f"u{i}"), env))
            for name, make in calls.items():
                fire[name].append(timed(hook, make(i), env))
        if (home / "hook.sock").exists():
            raise SystemExit("a hook call left a socket beside the store")
        b = statistics.median(bare)
        rows: list[tuple[str, list[float], float | None]] = [
            ("python -S -c pass", bare, None),
            ("hook, no match", miss, 1.5),
            ("hook --user, no match", user_miss, 1.5),
        ]
        rows += [
            (
                f"hook, {name}" if name.startswith("a gate") else f"hook, fires ({name})",
                fire[name],
                2.5,
            )
            for name in calls
        ]
        print(f"{'':30} {'median ms':>10} {'p95 ms':>8} {'x bare':>7} {'paired':>7}  target")
        for name, values, target in rows:
            med = statistics.median(values)
            p95 = sorted(values)[int(0.95 * (len(values) - 1))]
            paired = statistics.median(v / w for v, w in zip(values, bare, strict=True))
            verdict = (
                ""
                if target is None
                else (f"<= {target}x {'met' if paired <= target else 'NOT met'}")
            )
            print(f"{name:30} {med:10.1f} {p95:8.1f} {med / b:7.2f} {paired:7.2f}  {verdict}")


if __name__ == "__main__":
    main()
