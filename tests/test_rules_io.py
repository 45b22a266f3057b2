"""Lessons to skills: export to each rules format, import back, and read foreign rules files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

import cairn
from cairn.api import Cairn
from cairn.cli import cli
from cairn.core.errors import QueryError, UnknownRefError
from cairn.core.models import Event
from cairn.io.store import new_eid
from cairn.usecases.rulesfiles import (
    AGENTS_BEGIN,
    AGENTS_END,
    FORMATS,
    GENERATED,
    export_rules,
    import_rules,
    read_rules,
)

LESSONS = [
    ("Run make check before pushing", "lesson", {"tool": "shell", "match": "git push"}),
    ("SQL files are indented with tabs", "lesson", {"tool": "read", "path": "*.sql"}),
    ("Migrations must be reversible", "lesson", {"tool": "edit", "path": "db/migrations/**"}),
    ("Keep handlers thin", "decision", {"tool": "edit", "path": "src/api/**/*.{ts,tsx}"}),
    ("Use pnpm, not npm", "preference", None),
    ("Answer in British English", "preference", None),
]


def _fill(ws: Cairn) -> list[str]:
    refs = []
    for text, kind, when in LESSONS:
        refs.append(ws.remember(text, kind=kind, when=when).ref)
    ws.remember("Postgres 16 runs in prod")  # a fact: not exported by default
    return refs


def _shape(memories: list[cairn.Memory]) -> set[tuple[str, str, str | None]]:
    return {
        (m.text, m.kind, json.dumps(m.when.to_dict(), sort_keys=True) if m.when else None)
        for m in memories
    }


def _expected() -> set[tuple[str, str, str | None]]:
    return {
        (text, kind, json.dumps(when, sort_keys=True) if when else None)
        for text, kind, when in LESSONS
    }


@pytest.fixture
def empty(tmp_path: Path, project: Path, clock) -> Callable[[], Cairn]:  # type: ignore[no-untyped-def]
    opened: list[Cairn] = []

    def _open() -> Cairn:
        ws = cairn.open(
            tmp_path / "other-home",
            project=project,
            cwd=project,
            tool="codex",
            session="s9",
            clock=clock,
        )
        opened.append(ws)
        return ws

    yield _open  # type: ignore[misc]
    for ws in opened:
        ws.close()


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_then_import_round_trips_sentence_globs_and_kind(
    ws: Cairn, empty: Callable[[], Cairn], tmp_path: Path, fmt: str
) -> None:
    ws.remember(
        "Vendored code is never edited",
        kind="lesson",
        reason="upstream owns it",
        when={"tool": "edit", "path": "vendor/**"},
    )
    _fill(ws)
    out = tmp_path / "out"
    exported = export_rules(ws, fmt, out)
    assert len(exported.refs) == len(LESSONS) + 1
    assert all(Path(f).is_file() and str(out) in f for f in exported.files)
    other = empty()
    result = import_rules(other, exported.files)
    assert result.counts() == {"new": len(LESSONS) + 1}
    got = other.list()
    assert _shape(got) == _expected() | {
        (
            "Vendored code is never edited",
            "lesson",
            json.dumps({"tool": "edit", "path": "vendor/**"}, sort_keys=True),
        ),
    }
    assert next(m for m in got if m.text.startswith("Vendored")).reason == "upstream owns it"
    assert {m.tool for m in got} == {"import"}


def test_each_format_writes_the_files_its_agent_reads(ws: Cairn, project: Path) -> None:
    _fill(ws)
    skill = export_rules(ws, "claude-skill")
    assert skill.files == (str(project / ".claude/skills/cairn-lessons/SKILL.md"),)
    text = Path(skill.files[0]).read_text()
    assert text.startswith("---\nname: cairn-lessons\ndescription: ")
    assert "## When editing `db/migrations/**`" in text

    rules = export_rules(ws, "claude-rules")
    names = sorted(Path(f).name for f in rules.files)
    assert names == [
        "cairn-db-migrations.md",
        "cairn-lessons.md",
        "cairn-sql.md",
        "cairn-src-api-ts-tsx.md",
    ]
    sql = (project / ".claude/rules/cairn-sql.md").read_text()
    assert sql.startswith('---\npaths:\n  - "**/*.sql"\n---\n')  # any depth, as Cairn reads it
    assert not (project / ".claude/rules/cairn-lessons.md").read_text().startswith("---")

    cursor = export_rules(ws, "cursor")
    assert len(cursor.files) == 4
    mdc = (project / ".cursor/rules/cairn-src-api-ts-tsx.mdc").read_text()
    assert "globs: src/api/**/*.{ts,tsx}\nalwaysApply: false\n" in mdc
    always = (project / ".cursor/rules/cairn-lessons.mdc").read_text()
    assert "globs:\nalwaysApply: true\n" in always and "Use pnpm, not npm" in always

    copilot = export_rules(ws, "copilot")
    assert len(copilot.files) == 4
    inst = (project / ".github/instructions/cairn-db-migrations.instructions.md").read_text()
    assert inst.startswith('---\napplyTo: "db/migrations/**"\n---\n')
    general = (project / ".github/instructions/cairn-lessons.instructions.md").read_text()
    assert general.startswith('---\napplyTo: "**"\n---\n')


def test_agents_md_section_is_replaced_and_the_rest_kept(ws: Cairn, project: Path) -> None:
    agents = project / "AGENTS.md"
    agents.write_text("# Agents\n\nBuild with `make`.\n")
    _fill(ws)
    export_rules(ws, "agents")
    first = agents.read_text()
    assert first.startswith("# Agents\n\nBuild with `make`.\n\n" + AGENTS_BEGIN)
    agents.write_text(first + "\n## Release\n\nTag from main.\n")
    ws.remember("Never rebase a shared branch", kind="preference")
    export_rules(ws, "agents")
    second = agents.read_text()
    assert second.count(AGENTS_BEGIN) == 1 and second.count(AGENTS_END) == 1
    assert second.startswith("# Agents\n\nBuild with `make`.\n")
    assert second.endswith("## Release\n\nTag from main.\n")
    assert "Never rebase a shared branch" in second


def test_a_new_export_removes_the_files_it_no_longer_needs(ws: Cairn, project: Path) -> None:
    ref = ws.remember(
        "SQL files are indented with tabs", when={"tool": "read", "path": "*.sql"}
    ).ref
    ws.remember("Use pnpm, not npm", kind="preference")
    mine = project / ".claude/rules/cairn-mine.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("Hand-written, not ours to delete.\n")
    export_rules(ws, "claude-rules")
    assert (project / ".claude/rules/cairn-sql.md").exists()
    ws.forget(ref)
    again = export_rules(ws, "claude-rules")
    assert again.removed == (str(project / ".claude/rules/cairn-sql.md"),)
    assert not (project / ".claude/rules/cairn-sql.md").exists() and mine.exists()


def test_chosen_refs_and_what_is_left_out(ws: Cairn, tmp_path: Path, clock) -> None:  # type: ignore[no-untyped-def]
    refs = _fill(ws)
    fact = ws.remember("Redis holds the session cache").ref
    retired = ws.remember("Tabs in YAML are refused", kind="lesson").ref
    ws.forget(retired)
    exported = export_rules(ws, "agents", tmp_path)
    assert set(exported.refs) == set(refs)
    picked = export_rules(ws, "agents", tmp_path, refs=[fact, refs[0]])
    assert set(picked.refs) == {refs[0], fact}
    with pytest.raises(UnknownRefError):
        export_rules(ws, "agents", tmp_path, refs=[retired])
    with pytest.raises(QueryError):
        export_rules(ws, "yaml", tmp_path)
    clock.advance(days=41)  # lessons rest but still fire, so they are still exported
    assert set(export_rules(ws, "agents", tmp_path).refs) == set(refs)
    ws.store.add_events(
        Event(new_eid(), refs[0], "revert", "git", f"s{i}", ws.ctx.now()) for i in range(2)
    )  # contradicted twice: it stops firing, and leaves the rules file
    assert set(export_rules(ws, "agents", tmp_path).refs) == set(refs[1:])


def test_importing_the_same_file_again_is_an_echo(
    ws: Cairn, empty: Callable[[], Cairn], tmp_path: Path
) -> None:
    _fill(ws)
    files = export_rules(ws, "cursor", tmp_path).files
    other = empty()
    import_rules(other, files)
    again = import_rules(other, files)
    assert again.counts() == {"echo": len(LESSONS)}
    events = other.store.events_for([m.ref for m in other.list()])
    assert {e.event for e in events} == {"echo"}


def test_importing_what_the_store_already_holds_is_no_confirmation(
    ws: Cairn, tmp_path: Path
) -> None:
    refs = _fill(ws)
    files = export_rules(ws, "claude-skill", tmp_path).files
    result = import_rules(ws, files)
    assert result.counts() == {"held": len(LESSONS)}
    assert {i.ref for i in result.items} == set(refs)
    assert ws.store.events_for(refs) == []


def test_foreign_files_become_lessons_and_preferences(ws: Cairn, tmp_path: Path) -> None:
    claude = tmp_path / "CLAUDE.md"
    claude.write_text(
        "# Project notes\n\nIntro paragraph, not a rule.\n\n"
        "- Keep pull requests small\n"
        "* Prefer explicit imports\n  over star imports\n"
        "  - Why: star imports hide where names come from\n"
        "1. Never commit generated files\n"
        "   - Run the formatter before committing\n\n"
        "```sh\n- not a rule, a line in a code block\n```\n"
        "---\n"
    )
    mdc = tmp_path / "ts.mdc"
    mdc.write_text(
        "---\ndescription: TypeScript\nglobs: src/**/*.ts, src/**/*.tsx\n"
        "alwaysApply: false\n---\n- Use strict mode\n"
    )
    always = tmp_path / "always.mdc"
    always.write_text(
        "---\ndescription: core\nglobs: src/**\nalwaysApply: true\n---\n- Explain before editing\n"
    )
    rules = tmp_path / "api.md"
    rules.write_text('---\npaths:\n  - "src/api/**"\n  - "docs/*.md"\n---\n- Document endpoints\n')
    copilot = tmp_path / "py.instructions.md"
    copilot.write_text('---\napplyTo: "**/*.py"\n---\n\n# Python\n\n- Type every function\n')
    result = import_rules(ws, [claude, mdc, always, rules, copilot])
    assert result.counts() == {"new": 8}
    got = {m.text: m for m in ws.list()}
    assert set(got) == {
        "Keep pull requests small",
        "Prefer explicit imports over star imports",
        "Never commit generated files",
        "Run the formatter before committing",
        "Use strict mode",
        "Explain before editing",
        "Document endpoints",
        "Type every function",
    }
    assert got["Prefer explicit imports over star imports"].reason == (
        "star imports hide where names come from"
    )
    assert {got[t].kind for t in ("Keep pull requests small", "Explain before editing")} == {
        "preference"
    }
    assert got["Explain before editing"].when is None
    strict = got["Use strict mode"]
    assert strict.kind == "lesson" and strict.when is not None
    assert strict.when.to_dict() == {"tool": "read", "path": "src/**/*.ts"}  # two `**`: first
    note = next(i for i in result.items if i.text == "Use strict mode").reason
    assert "dropped src/**/*.tsx" in note
    assert got["Document endpoints"].when.to_dict() == {  # type: ignore[union-attr]
        "tool": "read",
        "path": "{src/api/**,docs/*.md}",
    }
    assert got["Type every function"].when.to_dict() == {"tool": "read", "path": "**/*.py"}  # type: ignore[union-attr]


def test_edited_globs_in_an_exported_file_win(
    ws: Cairn, empty: Callable[[], Cairn], tmp_path: Path
) -> None:
    ws.remember("Migrations must be reversible", when={"tool": "edit", "path": "db/**"})
    (path,) = export_rules(ws, "claude-rules", tmp_path).files
    text = Path(path).read_text().replace('"db/**"', '"db/migrations/**"')
    Path(path).write_text(text)
    other = empty()
    import_rules(other, [path])
    (m,) = other.list()
    assert m.when is not None
    assert m.when.to_dict() == {"tool": "edit", "path": "db/migrations/**"}


def test_refused_bullets_are_reported_and_the_rest_imported(ws: Cairn, tmp_path: Path) -> None:
    agents = tmp_path / "AGENTS.md"
    token = "ghp_" + "a1B2c3D4" * 5
    agents.write_text(
        f"- The deploy token is {token}\n- {'word ' * 260}\n- Tag releases from main\n"
        '- Pushes are gated <!-- cairn {"kind":"lesson","when":{"tool":"shell","match":".*"}} -->\n'
    )
    result = import_rules(ws, [agents])
    assert result.counts() == {"refused": 3, "new": 1}
    reasons = [i.reason for i in result.items if i.outcome == "refused"]
    assert "GitHub token" in reasons[0] and "limit" in reasons[1] and "every command" in reasons[2]
    assert [m.text for m in ws.list()] == ["Tag releases from main"]


def test_read_rules_parses_flow_lists_block_text_and_comments() -> None:
    items = read_rules(
        "---\ndescription: >\n  Long text\n  on two lines\n"
        "globs: [\"lib/**/*.rb\", 'app/*.rb']  \n---\n+ Prefer service objects\n"
    )
    assert len(items) == 1 and items[0].text == "Prefer service objects"
    assert items[0].when == {"tool": "read", "path": "{lib/**/*.rb,app/*.rb}"}
    assert read_rules("no bullets here\n") == []
    assert read_rules("- a <!-- cairn {broken -->\n")[0].kind == "preference"


@pytest.mark.parametrize(
    ("header", "path"),
    [
        ("globs: **/*.ts", "**/*.ts"),  # YAML reads `*` as an alias: read again quoted
        ("globs: *.tsx, lib/*.ts  # both", "{*.tsx,lib/*.ts}"),
        ("globs: src/{a,b}/**", "src/{a,b}/**"),
        ("paths:\n  - \"db/**\"\n  - '*.sql'", "{db/**,*.sql}"),
        ("applyTo: 'it''s/**'", "it's/**"),
    ],
)
def test_read_rules_reads_the_headers_agents_write(header: str, path: str) -> None:
    items = read_rules(f"---\ndescription: x\n{header}\nalwaysApply: false\n---\n- Do it\n")
    assert [(i.text, i.when) for i in items] == [("Do it", {"tool": "read", "path": path})]


def test_a_header_that_is_not_yaml_scopes_nothing() -> None:
    items = read_rules("---\nglobs: [unclosed\n---\n- Do it\n")
    assert [(i.text, i.when) for i in items] == [("Do it", None)]


def test_missing_paths_are_refused(ws: Cairn, tmp_path: Path) -> None:
    with pytest.raises(QueryError):
        import_rules(ws, [tmp_path / "nope.md"])


def test_cli_export_and_import(ws: Cairn, project: Path, tmp_path: Path) -> None:
    _fill(ws)
    runner = CliRunner()
    out = tmp_path / "rules"
    result = runner.invoke(
        cli,
        [
            "--project",
            str(project),
            "export-rules",
            "--format",
            "cursor",
            "--out",
            str(out),
            "--json",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    exported = json.loads(result.stdout)
    assert exported["format"] == "cursor" and len(exported["refs"]) == len(LESSONS)
    human = runner.invoke(cli, ["--project", str(project), "export-rules", "--format", "agents"])
    assert human.exit_code == 0 and "AGENTS.md" in human.stdout
    back = runner.invoke(cli, ["--project", str(project), "import-rules", str(out), "--json"])
    assert back.exit_code == 0, back.output
    assert json.loads(back.stdout)["counts"] == {"held": len(LESSONS)}
    again = runner.invoke(
        cli, ["--project", str(project), "import-rules", str(project / "AGENTS.md")]
    )
    assert again.exit_code == 0 and f"{len(LESSONS)} held" in again.stdout
    assert GENERATED in (project / "AGENTS.md").read_text()


def test_rules_import_refuses_what_remember_refuses(ws: Cairn, tmp_path: Path) -> None:
    agents = tmp_path / "AGENTS.md"
    deep = "[" * 50_000 + "]" * 50_000
    agents.write_text(
        "- Releases are cut on Mondays\n"
        f"  - Why: {'because ' * 600}\n"
        '- Pushes are gated <!-- cairn {"kind":"lesson","when":{"tool":"shell",'
        '"match":["git push"]}} -->\n'
        '- Pulls are gated <!-- cairn {"kind":"lesson","when":{"tool":"shell",'
        '"match":"(a+)+"}} -->\n'
        f'- Reviews need two approvals <!-- cairn {{"kind": {deep}}} -->\n'
    )
    result = import_rules(ws, [agents])
    assert result.counts() == {"refused": 3, "new": 1}
    reasons = [i.reason for i in result.items if i.outcome == "refused"]
    assert "4000 limit" in reasons[0] and "when.match" in reasons[1] and "(a+)+" in reasons[2]
    assert [m.text for m in ws.list()] == ["Reviews need two approvals"]


def test_a_users_own_cursor_rule_with_globs_and_a_prose_body_becomes_a_lesson(
    ws: Cairn, project: Path
) -> None:
    rule = project / ".cursor" / "rules" / "db.mdc"
    rule.parent.mkdir(parents=True)
    rule.write_text(
        "---\ndescription: SQL migrations\nglobs: db/**/*.sql\nalwaysApply: false\n---\n"
        "# Migrations\n\nMigrations are append-only: never edit one that has been applied.\n",
        encoding="utf-8",
    )
    result = import_rules(ws, [rule])
    assert result.counts() == {"new": 1}
    memory = ws.store.get_memory(result.items[0].ref)
    assert memory is not None and memory.kind == "lesson"
    assert memory.when is not None and memory.when.path == "db/**/*.sql"


def test_an_always_on_rule_with_a_prose_body_becomes_a_preference(ws: Cairn, project: Path) -> None:
    rule = project / "style.mdc"
    rule.write_text(
        "---\nalwaysApply: true\n---\nUse tabs in Go files.\n\n```go\nx := 1\n```\n",
        encoding="utf-8",
    )
    result = import_rules(ws, [rule])
    assert [(i.outcome, i.text) for i in result.items] == [("new", "Use tabs in Go files.")]
    memory = ws.store.get_memory(result.items[0].ref)
    assert memory is not None and memory.kind == "preference"


def test_files_that_cannot_be_imported_are_listed_with_the_reason(ws: Cairn, project: Path) -> None:
    empty = project / "notes.md"
    empty.write_text("Just prose, no rules file frontmatter.\n", encoding="utf-8")
    binary = project / "bad.mdc"
    binary.write_bytes(b"---\nglobs: x/**\n---\n\xff\xfe not text\n")
    good = project / "CLAUDE.md"
    good.write_text("- Run make check before a push\n", encoding="utf-8")
    result = import_rules(ws, [empty, binary, good])
    assert result.counts() == {"skipped": 2, "new": 1}
    reasons = {Path(i.path).name: i.reason for i in result.items if i.outcome == "skipped"}
    assert "nothing to import" in reasons["notes.md"]
    assert "not UTF-8" in reasons["bad.mdc"]
