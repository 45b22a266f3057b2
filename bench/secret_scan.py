"""The secret scan's two error rates, and what the quick check costs.

Run: `.venv/bin/python bench/secret_scan.py [--per-shape 6] [--harmless 1000] [--seed 0]
[--worst-kb 600]`.

1. Secrets let through: every secret of the labelled corpus (bench/secret_corpus/) is put in
   each field `remember` scans, and `check_secrets` is asked about that field alone. Prints the
   share refused per field and per shape, and the first secrets let through. Target: >= 98% in
   every field.
2. Harmless memories refused: each memory of the corpus's harmless half goes through
   `check_secrets` with all its fields, as `remember` does. Prints the share refused and every
   refusal with the rule that fired. Target: <= 0.5%. The hand-written Ledgerly memories
   (bench/data/memories.jsonl, written for the recall benchmark, not for this one) are scanned
   too, as a set the rules were not tuned on.
3. Cost: microseconds per memory for `may_hold_secret` (the quick check on all fields joined)
   and for `check_secrets` (the whole check), over the harmless memories and over the synthetic
   memories of bench/corpus.py that bench/remember.py times: CPU time, best of five rounds (the
   wall clock of a shared machine is noisier).
4. Worst case: milliseconds for `find_secret` on crafted texts of ~600 kB (many secret words,
   long runs without spaces, escapes), to show the scan stays linear.

The targets are read, not enforced: the script exits 0 either way.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import corpus
import secret_corpus
from secret_corpus import FIELDS, fields_of

from cairn.core.errors import SecretError
from cairn.core.secretscan import find_secret, may_hold_secret
from cairn.usecases.remember import check_secrets

SECRETS_TARGET = 0.98
HARMLESS_TARGET = 0.005
LEDGERLY = Path(__file__).resolve().parent / "data" / "memories.jsonl"


def refusal(fields: dict[str, str]) -> str | None:
    """The message `remember` would refuse these fields with, or None."""
    try:
        check_secrets(fields)
    except SecretError as exc:
        return str(exc)
    return None


def best_of(rounds: int, work: Callable[[], object]) -> float:
    """The fastest of `rounds` runs of `work`, in CPU seconds."""
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def report_secrets(cases: list[secret_corpus.SecretCase]) -> None:
    """Refusal rates per field and per shape; the first misses."""
    refused = {c.id: refusal({c.field: c.text}) is not None for c in cases}
    by_field: dict[str, list[bool]] = defaultdict(list)
    by_shape: dict[str, list[bool]] = defaultdict(list)
    for c in cases:
        by_field[c.field].append(refused[c.id])
        by_shape[c.shape].append(refused[c.id])
    n_secrets = len(cases) // len(FIELDS)
    print(f"secrets: {n_secrets} of {len(by_shape)} shapes, each placed in {len(FIELDS)} fields")
    worst = 1.0
    for field in FIELDS:
        hits = by_field[field]
        rate = sum(hits) / len(hits)
        worst = min(worst, rate)
        print(f"  {field:<11} refused {sum(hits):>4}/{len(hits)}  {rate:7.2%}")
    total = sum(refused.values())
    print(f"  {'all':<11} refused {total:>4}/{len(cases)}  {total / len(cases):7.2%}")
    print("  per shape (refused of placements):")
    for shape, hits in sorted(by_shape.items(), key=lambda kv: (sum(kv[1]) / len(kv[1]), kv[0])):
        print(f"    {sum(hits):>3}/{len(hits):<3} {shape}")
    missed = [c for c in cases if not refused[c.id]]
    for c in missed[:15]:
        print(f"  let through [{c.shape} / {c.field}]: {c.text[:140]}")
    if len(missed) > 15:
        print(f"  ... and {len(missed) - 15} more let through")
    verdict = "met" if worst >= SECRETS_TARGET else "NOT met"
    print(f"  worst field {worst:.2%} (target >= {SECRETS_TARGET:.0%} in every field: {verdict})")


def report_harmless(label: str, memories: list[tuple[str, dict[str, str]]]) -> None:
    """The share of harmless memories refused, and each refusal."""
    refused = [(mid, fields, why) for mid, fields in memories if (why := refusal(fields))]
    rate = len(refused) / len(memories)
    verdict = "met" if rate <= HARMLESS_TARGET else "NOT met"
    print(
        f"{label}: refused {len(refused)}/{len(memories)}  {rate:.2%}"
        f"  (target <= {HARMLESS_TARGET:.1%}: {verdict})"
    )
    for mid, fields, why in refused:
        shown = {k: v for k, v in fields.items() if v}
        print(f"  [{mid}] {why.split(';')[0]}\n      {shown}")


def ledgerly() -> list[tuple[str, dict[str, str]]]:
    """The recall benchmark's hand-written memories, as fields."""
    out = []
    for line in LEDGERLY.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        out.append(
            (
                record["id"],
                {
                    "sentence": " ".join(record["text"].split()),
                    "reason": " ".join(record.get("reason", "").split()),
                    "tags": " ".join(record.get("tags", [])),
                    "source_ref": record.get("source_ref", ""),
                    "trigger": "",
                },
            )
        )
    return out


def report_cost(label: str, memories: list[dict[str, str]]) -> None:
    """Microseconds per memory for the quick check and the whole check."""
    joined = ["\n".join(fields.values()) for fields in memories]
    quick = best_of(5, lambda: [may_hold_secret(text) for text in joined])
    full = best_of(5, lambda: [refusal(fields) for fields in memories])
    passed = sum(may_hold_secret(text) for text in joined)
    n = len(memories)
    print(
        f"cost over {n} {label}: may_hold_secret {quick / n * 1e6:.2f} us/memory "
        f"(lets {passed / n:.1%} through to the scan), check_secrets {full / n * 1e6:.2f} us/memory"
    )


# Texts built to make a careless scanner super-linear: many anchors, each inviting a long look.
WORST_CASES = {
    "secret words in one name": "token_",
    "password is, repeated": "password is ",
    "key for a long phrase": "the key for a b c d e ",
    "random runs, no spaces": "Ab1" * 11 + "!",
    "URL look-alikes": "x://a:b",
    "regex escapes": "\\.",
}


def report_worst_cases(kilobytes: float) -> None:
    """Milliseconds for the scan of each crafted text of about `kilobytes`."""
    print(f"worst case (find_secret on crafted texts of ~{kilobytes:g} kB):")
    for label, unit in WORST_CASES.items():
        text = unit * int(kilobytes * 1000 / len(unit))
        seconds = best_of(1, lambda text=text: find_secret(text))
        print(f"  {label:<26} {len(text) / 1000:>5.0f} kB  {seconds * 1000:9.1f} ms")


def main() -> None:
    """Build the corpus, then report both error rates and the cost."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-shape", type=int, default=6, help="secrets of each shape")
    parser.add_argument("--harmless", type=int, default=1000, help="harmless memories")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed")
    parser.add_argument(
        "--worst-kb", type=float, default=600, help="size of the crafted texts (0: skip them)"
    )
    args = parser.parse_args()

    report_secrets(secret_corpus.secrets(args.per_shape, args.seed))
    harmless = [(m.id, fields_of(m)) for m in secret_corpus.harmless(args.harmless, args.seed)]
    report_harmless("harmless memories", harmless)
    report_harmless("Ledgerly memories (not tuned on)", ledgerly())
    report_cost("harmless memories", [fields for _, fields in harmless])
    synthetic = [
        {
            "sentence": s.text,
            "reason": s.reason,
            "tags": " ".join(s.tags),
            "source_ref": s.source_ref,
            "trigger": "",
        }
        for s in corpus.memories(10_000, seed=args.seed)
    ]
    report_cost("bench/corpus.py memories", synthetic)
    kinds = Counter(refusal(f) is not None for f in synthetic)
    print(f"  bench/corpus.py memories refused: {kinds[True]}/{len(synthetic)}")
    if args.worst_kb:
        report_worst_cases(args.worst_kb)


if __name__ == "__main__":
    main()
