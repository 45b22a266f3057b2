"""A synthetic, deterministic corpus of memories and queries for the speed benchmarks.

`memories(n, seed)` returns n memories as a coding agent writes them: one-sentence claims about
commands, paths, symbols, tools and team conventions, with tags and (often) a reason, of every
kind (fact, decision, preference, lesson, rule, progress). `queries(memories, n, seed)` returns
2- to 6-word queries drawn from the same vocabulary: most taken from one memory's words (a few
swapped for a related word), some built from topic words, about a tenth unanswerable (words no
memory uses).

The vocabulary is large on purpose, so 100k memories are not near-duplicates of each other:
~200 components (real names and generated code names), ~1,400 modules in ~2,500 paths, ~3,000
symbols, ~650 environment variables and ~1,400 commands, on top of ~380 plain English and
tooling words; 100k memories hold ~10,000 distinct analysed words. About 8% of the memories
cite a file (`files()` lists them, to be written under the project) and a third carry no
reason.

Deterministic: the same (n, seed) gives the same memories on every machine, and
`memories(1000)` is the first 1,000 of `memories(100_000)` (one seeded stream).
Run it to print a sample: `.venv/bin/python bench/corpus.py [n]`.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

from cairn.core.secretscan import find_secret
from cairn.core.text import analyse

_ALNUM = re.compile(r"[a-z0-9]+")
KINDS = ("fact", "decision", "preference", "lesson", "rule", "progress")
KIND_WEIGHTS = (34, 12, 8, 20, 16, 10)


@dataclass(frozen=True)
class MemorySpec:
    """One memory as `remember` takes it."""

    text: str
    kind: str
    tags: tuple[str, ...]
    reason: str = ""
    source_ref: str = ""


@dataclass(frozen=True)
class QuerySpec:
    """One query; `source` is the index of the memory it was drawn from (-1: none)."""

    text: str
    kind: str  # "memory", "topic" or "unanswerable"
    source: int = -1


# -- the vocabulary ----------------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_REAL_COMPONENTS = _words(
    "api auth billing payments ledger invoices web admin mobile worker scheduler notifier "
    "mailer search gateway storage uploads exports imports reports analytics metrics "
    "tracing audit accounts tenants sessions onboarding checkout cart catalog pricing "
    "inventory shipping orders refunds subscriptions webhooks emails sms pdf renderer cli "
    "sdk docs migrations seeds fixtures e2e infra terraform helm monitoring alerts "
    "dashboards feature-flags config secrets cache queue events stream sync importer "
    "crawler indexer ranker recommender ml-pipeline etl warehouse backoffice support chat "
    "media thumbnails geo i18n permissions rbac sso oauth saml ratelimit proxy edge cdn"
)

_SYLLABLES = _words(
    "ka lo mi ra ven tor bel qua zin dra nor fel sar ix om ul tre vos pan gri hal cer mur "
    "lex tav dun sol rik bra ost yel fen"
)

_ROOTS = ("services", "apps", "packages", "libs", "crates", "cmd", "internal", "tools")
_SUBDIRS = (
    "src", "lib", "handlers", "api", "models", "db", "jobs", "routes", "core", "adapters",
    "middleware", "schemas", "tests", "cli", "workers", "domain",
)  # fmt: skip
_LANGS = {
    "ts": ("typescript", ("pnpm", "vitest", "eslint", "tsc", "prettier")),
    "tsx": ("react", ("pnpm", "vitest", "eslint", "playwright")),
    "py": ("python", ("pytest", "ruff", "mypy", "uv", "alembic")),
    "go": ("go", ("go", "golangci-lint", "sqlc")),
    "rs": ("rust", ("cargo", "clippy", "rustfmt")),
    "java": ("java", ("gradle", "mvn", "junit")),
    "rb": ("ruby", ("bundle", "rspec", "rubocop")),
    "sql": ("sql", ("psql", "dbmate", "flyway")),
}

_NOUNS = _words(
    "cache queue worker migration schema index token session cookie webhook invoice "
    "payment refund ledger account user tenant role permission build bundle image "
    "container cluster pod deployment release branch commit changelog fixture snapshot "
    "mock stub test suite coverage lint formatter interface endpoint route handler "
    "middleware controller service client request response header payload timeout retry "
    "backoff limit log metric trace span alert dashboard config flag rollout canary "
    "replica shard partition transaction lock deadlock connection pool pgbouncer "
    "connection-string dsn socket port proxy certificate domain redirect url slug uuid "
    "timestamp timezone locale currency amount rounding tax vat discount coupon plan "
    "trial seat quota usage export import csv json yaml parser serializer validator "
    "decoder encoder hash checksum signature nonce key-rotation jwt claim scope audience "
    "issuer callback state email template attachment pdf thumbnail upload bucket object "
    "blob stream chunk buffer batch cron job scheduler lease heartbeat watchdog "
    "healthcheck probe readiness liveness sidecar init-container volume mount "
    "secret-store vault env variable default fallback feature experiment cohort segment "
    "event topic consumer producer offset dead-letter outbox saga idempotency-key dedupe "
    "debounce throttle memo selector reducer store hook component prop context router "
    "page layout form field input modal toast tooltip theme palette font icon asset "
    "sourcemap chunking treeshaking lockfile dependency version pin upgrade downgrade "
    "patch monorepo workspace package crate module namespace generic trait struct enum "
    "union macro decorator annotation reflection codegen fixture-factory seed sandbox "
    "staging production preview rollback hotfix incident postmortem runbook oncall pager "
    "sla slo error-budget latency throughput p99 memory leak goroutine thread async await "
    "promise future callback-hell race-condition retry-storm thundering-herd n-plus-one "
    "query-plan explain vacuum autovacuum bloat index-scan seq-scan materialized-view "
    "trigger constraint foreign-key unique-constraint null default-value column table row "
    "cursor pagination offset-limit keyset sort filter search ranking tokenizer stemmer "
    "embedding vector similarity"
)

_VERBS = _words(
    "run call use avoid prefer bump pin regenerate rebuild restart flush invalidate "
    "validate serialize parse retry batch debounce throttle memoize mock stub seed "
    "migrate rollback deploy promote tag sign verify encrypt decrypt rotate revoke "
    "refresh expire evict warm prefetch paginate sort filter index reindex vacuum analyze "
    "profile benchmark lint format typecheck bundle minify compress upload download "
    "stream buffer chunk dedupe merge rebase squash cherry-pick revert bisect backport "
    "release publish vendor patch upgrade"
)

_PAST = {
    "run": "ran", "pin": "pinned", "bump": "bumped", "rebuild": "rebuilt", "tag": "tagged",
    "sign": "signed", "sort": "sorted", "upload": "uploaded", "download": "downloaded",
    "stream": "streamed", "buffer": "buffered", "chunk": "chunked", "merge": "merged",
    "squash": "squashed", "vendor": "vendored", "patch": "patched", "call": "called",
}  # fmt: skip

_QUALITIES = _words(
    "slow flaky stale broken deprecated idempotent synchronous async lazy eager strict "
    "optional required nullable immutable cached sharded encrypted signed versioned "
    "legacy experimental internal public private noisy quiet fragile expensive cheap"
)

_PEOPLE = _words(
    "Marta Jonas Priya Diego Aiko Tomasz Lea Omar Sven Chloe Ravi Nadia Felix Ines Kenji "
    "Amara Lukas Sofia Mateo Yara Hugo Elif Noah Zoe Bruno Ana Kofi Mei Pavel Rosa"
)

_OTHER_TOOLS = _words(
    "docker kubectl helm terraform git gh make just redis-cli psql sqlite3 jq curl sentry "
    "grafana prometheus datadog stripe localstack minio nginx caddy envoy github-actions "
    "circleci buildkite renovate dependabot turbo nx bazel vite webpack esbuild storybook"
)

_ERRORS = (
    "ECONNRESET", "ENOENT", "EADDRINUSE", "ETIMEDOUT", "ERR_REQUIRE_ESM",
    "deadlock detected", "too many connections", "429 Too Many Requests",
    "413 Payload Too Large", "503 Service Unavailable", "502 Bad Gateway",
    "could not serialize access", "relation does not exist", "duplicate key value",
    "heap out of memory", "segmentation fault", "OOMKilled", "CrashLoopBackOff",
    "ImagePullBackOff", "certificate has expired", "no space left on device",
    "module not found", "cannot find name", "unexpected token", "maximum call stack",
    "context deadline exceeded", "broken pipe", "connection refused", "permission denied",
    "checksum mismatch", "lockfile out of date", "peer dependency conflict",
)  # fmt: skip

# Words no memory uses: the unanswerable queries are made of these.
_UNSEEN = _words(
    "astronomy telescope volcano recipe guitar violin sourdough marathon glacier orchid "
    "cathedral sonnet tapestry origami falconry meteorite archipelago harpsichord "
    "lighthouse mosaic pottery saffron tundra zeppelin kaleidoscope quasar nebula "
    "chandelier gondola trombone"
)
_ENV_SUFFIXES = ("MS", "URL", "MAX", "ENABLED", "PATH", "SIZE", "TTL", "LEVEL")
_FORMATS = ("UTC timestamps", "integer cents", "UUIDv7", "JSONB", "ULIDs", "protobuf")
_UNSEEN_SYLLABLES = ("zu", "phy", "xo", "gle", "wum", "thra", "quo", "snib")


@dataclass
class Vocabulary:
    """Everything the templates draw from, built once from a seed."""

    components: list[str] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)
    paths: list[tuple[str, str, str]] = field(default_factory=list)  # (path, component, ext)
    symbols: list[str] = field(default_factory=list)
    env_vars: list[str] = field(default_factory=list)
    commands: list[tuple[str, str]] = field(default_factory=list)  # (command, tool)
    targets: list[str] = field(default_factory=list)
    tickets: list[str] = field(default_factory=list)


def _code_name(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3)))


def _camel(words: list[str]) -> str:
    return words[0] + "".join(w.capitalize() for w in words[1:])


def _word(rng: random.Random) -> str:
    return rng.choice(_NOUNS).replace("-", "_")


@cache
def vocabulary(seed: int = 0) -> Vocabulary:
    """The components, files, symbols, variables and commands of the synthetic workspace."""
    rng = random.Random(f"vocabulary-{seed}")
    v = Vocabulary()
    names = set(_REAL_COMPONENTS)
    while len(names) < len(_REAL_COMPONENTS) + 120:
        names.add(_code_name(rng))
    v.components = sorted(names)
    rng.shuffle(v.components)

    modules: set[str] = set()
    while len(modules) < 1400:
        parts = [_word(rng) for _ in range(rng.randint(1, 3))]
        modules.add(rng.choice(("_", "-")).join(parts) if len(parts) > 1 else parts[0])
    v.modules = sorted(modules)

    exts = list(_LANGS)
    seen_paths: set[str] = set()
    while len(v.paths) < 2500:
        component = rng.choice(v.components)
        ext = rng.choices(exts, weights=(30, 10, 25, 12, 8, 5, 4, 6))[0]
        module = rng.choice(v.modules)
        if ext in ("py", "rs", "go", "rb", "sql"):
            module = module.replace("-", "_")
        sub = rng.choice(_SUBDIRS)
        path = f"{rng.choice(_ROOTS)}/{component}/{sub}/{module}.{ext}"
        if path not in seen_paths:
            seen_paths.add(path)
            v.paths.append((path, component, ext))

    symbols: set[str] = set()
    while len(symbols) < 3000:
        words = [rng.choice(_VERBS).replace("-", "")]
        words += [_word(rng).replace("_", "") for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.3:
            words.insert(1, _code_name(rng))
        style = rng.random()
        if style < 0.45:
            symbols.add(_camel(words))
        elif style < 0.8:
            symbols.add("_".join(words))
        else:
            symbols.add(
                "".join(w.capitalize() for w in words[1:])
                + rng.choice(
                    ("Service", "Client", "Repository", "Handler", "Factory", "Error", "Config")
                )
            )
    v.symbols = sorted(symbols)

    env: set[str] = set()
    while len(env) < 650:
        comp = rng.choice(v.components).upper().replace("-", "_")
        env.add(f"{comp}_{_word(rng).upper()}_{rng.choice(_ENV_SUFFIXES)}")
    v.env_vars = sorted(env)

    targets = sorted({f"{rng.choice(_VERBS)}-{rng.choice(v.components)}" for _ in range(300)})
    v.targets = targets
    v.tickets = [
        f"{rng.choice(('INC', 'OPS', 'BUG', 'PLAT', 'SEC'))}-{rng.randint(100, 9999)}"
        for _ in range(400)
    ]

    commands: set[tuple[str, str]] = set()
    while len(commands) < 1400:
        c = rng.choice(v.components)
        path, _, _ = rng.choice(v.paths)
        folder = path.rsplit("/", 1)[0]
        sym = rng.choice(v.symbols)
        options = [
            (f"pnpm test --filter {c}", "pnpm"),
            (f"pnpm --filter {c} build", "pnpm"),
            ("pnpm run lint --fix", "pnpm"),
            (f"pnpm dlx turbo run typecheck --filter={c}", "turbo"),
            (f"cargo test -p {c}", "cargo"),
            ("cargo clippy --all-targets -- -D warnings", "clippy"),
            (f"go test ./{folder}/...", "go"),
            (f"go generate ./{folder}", "go"),
            (f"pytest {folder} -k {sym}", "pytest"),
            (f"uv run pytest -x {folder}", "uv"),
            (f"ruff check --fix {folder}", "ruff"),
            (f"mypy --strict {folder}", "mypy"),
            (f"make {rng.choice(targets)}", "make"),
            (f"docker compose up -d {c}", "docker"),
            (f"docker build -t {c}:dev .", "docker"),
            (f"kubectl rollout restart deploy/{c}", "kubectl"),
            (f"kubectl logs -l app={c} --tail=200", "kubectl"),
            (f"helm upgrade {c} charts/{c} -f values-staging.yaml", "helm"),
            (f"terraform plan -target=module.{c.replace('-', '_')}", "terraform"),
            ("git rebase -i origin/main", "git"),
            ("gh pr checks --watch", "gh"),
            ("alembic upgrade head", "alembic"),
            (f"dbmate -d db/{c}/migrations up", "dbmate"),
            ("psql $DATABASE_URL -c 'EXPLAIN ANALYZE'", "psql"),
            (f"redis-cli --scan --pattern '{c}:*'", "redis-cli"),
            (f"stripe listen --forward-to localhost:{rng.randint(3000, 9000)}/webhooks", "stripe"),
            (f"npx playwright test {folder}", "playwright"),
            (f"bundle exec rspec {folder}", "rspec"),
            (f"./gradlew :{c}:test", "gradle"),
        ]
        commands.add(rng.choice(options))
    v.commands = sorted(commands)
    return v


# -- memories ----------------------------------------------------------------------------------


def _past(verb: str) -> str:
    if verb in _PAST:
        return _PAST[verb]
    return verb + ("d" if verb.endswith("e") else "ed")


def _ing(verb: str) -> str:
    if verb == "run":
        return "running"
    if verb in _PAST and _PAST[verb].endswith(verb[-1] * 2 + "ed"):
        return verb + verb[-1] + "ing"  # pin -> pinning, like pinned
    return (verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb) + "ing"


def _tick(text: str) -> str:
    return f"`{text}`"


class _Writer:
    """Fills the sentence templates from the vocabulary with one seeded RNG."""

    def __init__(self, rng: random.Random, v: Vocabulary) -> None:
        self.rng = rng
        self.v = v

    def pick(self, seq: list[str] | tuple[str, ...]) -> str:
        return self.rng.choice(seq)

    def path(self) -> tuple[str, str, str]:
        return self.rng.choice(self.v.paths)

    def command(self) -> tuple[str, str]:
        return self.rng.choice(self.v.commands)

    def noun(self) -> str:
        return self.pick(_NOUNS).replace("-", " ")

    # each returns (sentence, tags, source path or "")
    def fact(self) -> tuple[str, list[str], str]:
        path, comp, ext = self.path()
        sym, env = self.pick(self.v.symbols), self.pick(self.v.env_vars)
        n = self.rng.choice((30, 60, 100, 250, 500, 1000, 5000, 30000))
        options: list[Callable[[], str]] = [
            lambda: (
                f"{_tick(sym)} in {path} {self.pick(_VERBS)}s the {self.noun()} before the "
                f"{self.noun()} is written"
            ),
            lambda: f"The {comp} service reads {_tick(env)} at startup (default {n}).",
            lambda: (
                f"{comp} keeps its {self.noun()} in {path}, not in the shared {self.noun()} module."
            ),
            lambda: (
                f"{_tick(sym)} is {self.pick(_QUALITIES)}: call it once per {self.noun()} "
                f"in {comp}."
            ),
            lambda: (
                f"Tests for {comp} live next to the code as *.test.{ext} and use a fake "
                f"{self.noun()}."
            ),
            lambda: (
                f"{comp} talks to {self.pick(self.v.components)} over a {self.noun()} with a "
                f"{n} ms timeout."
            ),
            lambda: (
                f"The {self.noun()} table of {comp} is partitioned by {self.noun()}; queries "
                f"without it scan every partition."
            ),
            lambda: (
                f"{_tick(env)} switches {comp} to the {self.pick(_QUALITIES)} {self.noun()} path."
            ),
        ]
        return self.pick(options)(), [comp, _LANGS[ext][0], self.noun().split()[0]], path

    def decision(self) -> tuple[str, list[str], str]:
        path, comp, ext = self.path()
        tools = _LANGS[ext][1]
        a, b = self.rng.sample(list(tools) + list(_OTHER_TOOLS[:8]), 2)
        options: list[Callable[[], str]] = [
            lambda: f"We chose {a} over {b} for {comp} because the {self.noun()} step got faster.",
            lambda: (
                f"{comp} stores {self.noun()} as {self.pick(_FORMATS)}; "
                f"decided after the {self.pick(self.v.tickets)} review."
            ),
            lambda: (
                f"Decided: {comp} moves its {self.noun()} to {self.pick(self.v.components)} and "
                f"{_tick(self.pick(self.v.symbols))} becomes the only entry point."
            ),
            lambda: (
                f"No new {self.noun()} in {comp} without an ADR; the last one cost two sprints."
            ),
        ]
        return self.pick(options)(), [comp, "adr", a], path

    def preference(self) -> tuple[str, list[str], str]:
        _, comp, ext = self.path()
        who = self.pick(_PEOPLE)
        options: list[Callable[[], str]] = [
            lambda: (
                f"{who} prefers small PRs for {comp}: split {self.noun()} refactors from behaviour "
                "changes."
            ),
            lambda: (
                f"{who} wants {self.pick(_LANGS[ext][1])} output pasted in the PR when touching "
                f"{comp}."
            ),
            lambda: (
                f"In {comp}, prefer {_tick(self.pick(self.v.symbols))} over hand-written "
                f"{self.noun()} code."
            ),
            lambda: (
                f"{who} likes {self.pick(_QUALITIES)} names for {self.noun()} helpers; no "
                "abbreviations."
            ),
        ]
        return self.pick(options)(), [comp, "style", who.lower()], ""

    def lesson(self) -> tuple[str, list[str], str]:
        cmd, tool = self.command()
        path, comp, _ = self.path()
        err = self.pick(_ERRORS)
        options: list[Callable[[], str]] = [
            lambda: (
                f"{_tick(cmd)} fails with {err} when the {self.noun()} is {self.pick(_QUALITIES)}; "
                f"{self.pick(_VERBS)} the {self.noun()} first."
            ),
            lambda: (
                f"If {comp} logs {err}, check {_tick(self.pick(self.v.env_vars))} before "
                f"touching {path}."
            ),
            lambda: f"{_tick(cmd)} hangs on CI unless {self.noun()} caching is off.",
            lambda: (
                f"After {_ing(self.pick(_VERBS))} the {self.noun()} in {comp}, rerun "
                f"{_tick(cmd)} or the {self.noun()} stays stale."
            ),
            lambda: (
                f"{err} in {comp} came from a {self.pick(_QUALITIES)} {self.noun()}, not the "
                f"{self.noun()}."
            ),
        ]
        return self.pick(options)(), [comp, tool, "troubleshooting"], path

    def rule(self) -> tuple[str, list[str], str]:
        cmd, tool = self.command()
        path, comp, _ = self.path()
        sym = self.pick(self.v.symbols)
        options: list[Callable[[], str]] = [
            lambda: f"Run {_tick(cmd)} before pushing changes to {path}.",
            lambda: (
                f"Never {self.pick(_VERBS)} the {self.noun()} in {path} by hand; use "
                f"{_tick(sym)} instead."
            ),
            lambda: (
                f"Always {self.pick(_VERBS)} {comp} {self.noun()} behind the "
                f"{_tick(self.pick(self.v.env_vars))} flag."
            ),
            lambda: (
                f"Do not import {comp} from {self.pick(self.v.components)}; go through "
                f"{_tick(sym)}."
            ),
            lambda: f"Every change to {path} needs a {self.noun()} test and {_tick(cmd)} green.",
        ]
        return self.pick(options)(), [comp, tool, "rule"], path

    def progress(self) -> tuple[str, list[str], str]:
        _, comp, _ = self.path()
        total = self.rng.randint(3, 40)
        options: list[Callable[[], str]] = [
            lambda: (
                f"Migrated {self.rng.randint(1, total)} of {total} {comp} {self.noun()} handlers "
                f"to {_tick(self.pick(self.v.symbols))}."
            ),
            lambda: (
                f"{comp}: {self.noun()} cleanup done; {self.noun()} part still open "
                f"({self.pick(self.v.tickets)})."
            ),
            lambda: (
                f"Started moving {comp} off the {self.pick(_QUALITIES)} {self.noun()}; "
                f"{_tick(self.pick(self.v.targets))} works again."
            ),
        ]
        return self.pick(options)(), [comp, "progress"], ""

    def reason(self) -> str:
        if self.rng.random() < 0.33:
            return ""
        return self.pick(
            [
                f"found during {self.pick(self.v.tickets)}",
                f"the CI job {self.pick(self.v.targets)} timed out twice",
                f"{self.pick(_PEOPLE)} asked for it in review of #{self.rng.randint(10, 9999)}",
                f"otherwise the {self.noun()} is {_past(self.pick(_VERBS))} twice in prod",
                f"{self.pick(_OTHER_TOOLS)} changed the default in a minor release",
                f"cost an afternoon of {_ing(self.pick(_VERBS))} {self.noun()} on staging",
            ]
        )


def memories(n: int, seed: int = 0, cite_share: float = 0.1) -> list[MemorySpec]:
    """n distinct memories (no two share a folded sentence), deterministic in (n, seed)."""
    return list(_stream(seed, cite_share, n))


def _stream(seed: int, cite_share: float, n: int) -> Iterator[MemorySpec]:
    rng = random.Random(f"memories-{seed}")
    writer = _Writer(rng, vocabulary(seed))
    makers: dict[str, Callable[[], tuple[str, list[str], str]]] = {
        "fact": writer.fact,
        "decision": writer.decision,
        "preference": writer.preference,
        "lesson": writer.lesson,
        "rule": writer.rule,
        "progress": writer.progress,
    }
    seen: set[str] = set()
    made = 0
    while made < n:
        kind = rng.choices(KINDS, weights=KIND_WEIGHTS)[0]
        text, tags, path = makers[kind]()
        text = text[0].upper() + text[1:]
        # The corpus is ASCII, where tokenize() is lowercasing and splitting at non-alphanumerics:
        # the same key as remember's restatement check, at a fraction of the cost.
        folded = " ".join(_ALNUM.findall(text.lower()))
        if folded in seen:
            continue
        reason = writer.reason()
        tag_tuple = tuple(dict.fromkeys(t.replace(" ", "-") for t in tags if t))
        if find_secret(f"{text}\n{reason}"):
            continue  # remember would refuse it
        seen.add(folded)
        cite = path and rng.random() < cite_share
        yield MemorySpec(
            text=text,
            kind=kind,
            tags=tag_tuple,
            reason=reason,
            source_ref=path if cite else "",
        )
        made += 1


def files(specs: list[MemorySpec]) -> dict[str, str]:
    """The cited files (relative path -> content), to write under the project before saving."""
    out: dict[str, str] = {}
    for spec in specs:
        if spec.source_ref and spec.source_ref not in out:
            name = spec.source_ref.rsplit("/", 1)[-1]
            out[spec.source_ref] = f"// {name}\n" + "".join(
                f"line {k} of {name}\n" for k in range(1, 40)
            )
    return out


def write_files(project: Path, specs: list[MemorySpec]) -> int:
    """Write the files the memories cite under `project`; returns how many."""
    made = files(specs)
    for rel, text in made.items():
        target = project / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return len(made)


class SteppedClock:
    """A fixed clock for a workspace's writes: memory i of n is written `span` x (1 - i/n)
    before `end`.

    Call `at(i)` before writing memory i, and `now()` before recalling: reading the clock then
    returns `end`. Spreading the writes over `span` (400 days) gives recall's recency lift
    something to do; a fixed `end` makes two runs' scores comparable.
    """

    END = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

    def __init__(self, n: int, span: timedelta = timedelta(days=400), end: datetime = END) -> None:
        self.n = max(1, n)
        self.span = span
        self.end = end
        self.moment = end

    def at(self, i: int) -> None:
        """Move to the instant memory i is written."""
        self.moment = self.end - self.span * (1 - i / self.n)

    def now(self) -> None:
        """Move to `end` (for recalls after the writes)."""
        self.moment = self.end

    def __call__(self) -> datetime:
        return self.moment


# -- queries -----------------------------------------------------------------------------------


def queries(
    specs: list[MemorySpec], n: int = 200, seed: int = 0, unanswerable: float = 0.1
) -> list[QuerySpec]:
    """n queries of 2-6 words: from one memory's words, from topic words, or unanswerable."""
    rng = random.Random(f"queries-{seed}-{len(specs)}")
    v = vocabulary(seed)
    out: list[QuerySpec] = []
    while len(out) < n:
        roll = rng.random()
        if roll < unanswerable:
            words = rng.sample(_UNSEEN, rng.randint(1, 3))
            while len(words) < rng.randint(2, 4):
                words.append("".join(rng.choice(_UNSEEN_SYLLABLES) for _ in range(3)))
            out.append(QuerySpec(" ".join(words), "unanswerable"))
        elif roll < unanswerable + 0.15:
            words = [rng.choice(v.components), rng.choice(_NOUNS).replace("-", " ")]
            if rng.random() < 0.5:
                words.append(rng.choice(_VERBS))
            if rng.random() < 0.3:
                words.append(rng.choice(_QUALITIES))
            out.append(QuerySpec(" ".join(words), "topic"))
        else:
            index = rng.randrange(len(specs))
            text = _from_memory(rng, specs[index])
            if text:
                out.append(QuerySpec(text, "memory", index))
    return out


def _from_memory(rng: random.Random, spec: MemorySpec) -> str:
    """2-6 of the memory's words, in its order, sometimes with a question word or a swap."""
    words = [w for w in spec.text.replace("`", " ").split() if analyse(w)]
    words = [w.strip(".,;:()") for w in words]
    words = [w for w in words if w and analyse(w)]
    if len(words) < 2:
        return ""
    k = min(len(words), rng.randint(2, 6))
    picked = sorted(rng.sample(range(len(words)), k))
    chosen = [words[i] for i in picked]
    if rng.random() < 0.2:
        chosen[rng.randrange(len(chosen))] = rng.choice(_NOUNS)
    opener = rng.choice(("how do we", "where is", "why", "what about"))
    if rng.random() < 0.3 and len(chosen) + len(opener.split()) <= 6:
        chosen.insert(0, opener)
    return " ".join(chosen)


def main() -> None:
    """Print a sample and the corpus statistics."""
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    specs = memories(n)
    for spec in specs[:12]:
        print(
            f"[{spec.kind}] {spec.text}  tags={list(spec.tags)}  reason={spec.reason!r}  "
            f"cites={spec.source_ref!r}"
        )
    print()
    for q in queries(specs, 15):
        print(f"query ({q.kind}): {q.text}")
    vocab: set[str] = set()
    for spec in specs:
        vocab.update(analyse(spec.text))
        vocab.update(analyse(" ".join(spec.tags)))
        vocab.update(analyse(spec.reason))
    print(
        f"\n{n} memories, {len(vocab)} distinct analysed words, "
        f"{sum(1 for s in specs if s.source_ref)} citing a file"
    )


if __name__ == "__main__":
    main()


LESSON_TOOLS = (
    "git",
    "npm",
    "pnpm",
    "docker",
    "kubectl",
    "terraform",
    "cargo",
    "make",
    "helm",
    "gh",
)
LESSON_VERBS = (
    "push",
    "publish",
    "apply",
    "deploy",
    "release",
    "build",
    "migrate",
    "rollout",
    "delete",
    "upgrade",
    "tag",
    "sync",
    "bump",
    "seed",
    "drain",
)


def lesson_words(i: int) -> tuple[str, str]:
    """The (tool, verb) of the i-th generated lesson (bench/hook.py, bench/lessons.py)."""
    tool = LESSON_TOOLS[i % len(LESSON_TOOLS)]
    return tool, LESSON_VERBS[(i // len(LESSON_TOOLS)) % len(LESSON_VERBS)]
