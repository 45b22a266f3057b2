"""How long cairn.core.shell takes to turn one command into actions (run: python
bench/shell_parse.py).

Times `actions()` on every command of the test corpus (tests/shell/shell_corpus.py), each
parsed ROUNDS times, and prints the median, 90th percentile and slowest microseconds per
parse, for the whole corpus and for the commands of agent size (at most 200 characters),
plus the one-off cost of importing the package and building the parser.
"""

import importlib.util
import statistics
import time
from pathlib import Path

ROUNDS = 20
AGENT_SIZE = 200
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "shell" / "shell_corpus.py"


def load_corpus() -> list[str]:
    """The commands of the shell test corpus."""
    spec = importlib.util.spec_from_file_location("shell_corpus", CORPUS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [command for command, _ in module.CASES]


def report(label: str, timings: list[float]) -> None:
    """Print the median, p90 and slowest of `timings` (microseconds)."""
    ordered = sorted(timings)
    p90 = ordered[int(len(ordered) * 0.9)]
    print(
        f"{label}: {len(ordered):,} parses, median {statistics.median(ordered):,.1f} us,"
        f" p90 {p90:,.1f} us, slowest {ordered[-1]:,.1f} us"
    )


def main() -> None:
    """Run the benchmark and print its numbers."""
    started = time.perf_counter_ns()
    from cairn.core.shell import actions

    imported = time.perf_counter_ns()
    actions("git commit -m x")  # builds the parser
    first = time.perf_counter_ns()
    print(f"import cairn.core.shell: {(imported - started) / 1000:,.0f} us")
    print(f"first call (builds the parser): {(first - imported) / 1000:,.0f} us")

    commands = load_corpus()
    timed: list[tuple[str, float]] = []
    for _ in range(ROUNDS):
        for command in commands:
            before = time.perf_counter_ns()
            actions(command)
            timed.append((command, (time.perf_counter_ns() - before) / 1000))
    report(f"all {len(commands)} corpus commands", [t for _, t in timed])
    report(
        f"commands of at most {AGENT_SIZE} characters",
        [t for command, t in timed if len(command) <= AGENT_SIZE],
    )


if __name__ == "__main__":
    main()
