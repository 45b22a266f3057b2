"""`cairn setup cursor`: flat hooks, mcp.json, and rules files made from the lessons."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_support import read_json, snapshot, write_json

import cairn
from cairn.core.models import Memory, Trigger
from cairn.usecases.install import InstallError, setup
from cairn.usecases.install.cursor_rules import ALWAYS_FILE, ALWAYS_MAX, MARKER, files

USER_HOOK = {"command": "./audit.sh"}


def _lessons(store: Path, proj: Path) -> dict[str, str]:
    with cairn.open(store, project=proj, cwd=proj, tool="cli") as ws:
        return {
            "push": ws.remember(
                "Before a push, run make check", when={"tool": "shell", "match": "git push"}
            ).ref,
            "db": ws.remember(
                "Migrations are append-only",
                reason="applied ones are live",
                when={"tool": "edit", "path": "db/migrations/*.sql"},
            ).ref,
            "rule": ws.remember(
                "Commit messages are one line", kind="preference", tags=["trigger:git-commit"]
            ).ref,
            "fact": ws.remember("The service is written in TypeScript").ref,
        }


def _rules(proj: Path) -> dict[str, str]:
    folder = proj / ".cursor" / "rules"
    return {p.name: p.read_text() for p in sorted(folder.glob("*.mdc"))} if folder.exists() else {}


def test_fresh_install_writes_flat_hooks_and_mcp(proj: Path, user_home: Path) -> None:
    setup("cursor", "project", proj)
    data = read_json(proj / ".cursor" / "hooks.json")
    assert data["version"] == 1
    assert list(data["hooks"]) == ["sessionStart", "beforeShellExecution", "postToolUse"]
    entry = data["hooks"]["postToolUse"][0]
    assert entry["command"].endswith(" cursor postToolUse || :") and "hooks" not in entry
    assert entry["matcher"] == "Shell|Read|Edit|Write|StrReplace"
    # For gates only: it prints nothing unless an opt-in gate stops a command once.
    (before,) = data["hooks"]["beforeShellExecution"]
    assert before["command"].endswith(" cursor beforeShellExecution || :")
    assert "matcher" not in before
    assert not (proj / ".cursor" / "mcp.json").exists()
    server = read_json(user_home / ".cursor" / "mcp.json")["mcpServers"]["cairn"]
    assert server["args"][-1] == "mcp" and server["env"] == {}


def test_rules_files_follow_the_lessons(proj: Path, store: Path) -> None:
    refs = _lessons(store, proj)
    setup("cursor", "project", proj)
    rules = _rules(proj)
    always = rules.pop(ALWAYS_FILE)
    assert "alwaysApply: true" in always and MARKER in always
    assert "`git push`" in always and refs["push"] in always
    assert "`git-commit`" in always and refs["rule"] in always
    assert refs["fact"] not in always
    ((name, text),) = rules.items()
    assert name.startswith("cairn-lesson-db-migrations-sql-")
    front = text.split("---")[1]
    assert "\nglobs: db/migrations/*.sql\n" in front and "\nalwaysApply: false\n" in front
    assert "description: Cairn lessons for files matching db/migrations/*.sql" in front
    assert refs["db"] in text and "Why: applied ones are live" in text


def test_rules_are_rewritten_and_stale_ones_removed(proj: Path, store: Path) -> None:
    refs = _lessons(store, proj)
    users = proj / ".cursor" / "rules" / "style.mdc"
    users.parent.mkdir(parents=True)
    users.write_text("---\nalwaysApply: true\n---\nTabs.\n")
    setup("cursor", "project", proj)
    with cairn.open(store, project=proj, cwd=proj, tool="cli") as ws:
        ws.forget(refs["db"])
    setup("cursor", "project", proj)
    assert set(_rules(proj)) == {ALWAYS_FILE, "style.mdc"}
    assert users.read_text() == "---\nalwaysApply: true\n---\nTabs.\n"


def test_merge_idempotence_and_uninstall(proj: Path, store: Path) -> None:
    _lessons(store, proj)
    hooks = proj / ".cursor" / "hooks.json"
    original = write_json(hooks, {"version": 1, "hooks": {"postToolUse": [USER_HOOK]}})
    setup("cursor", "project", proj)
    assert read_json(hooks)["hooks"]["postToolUse"][0] == USER_HOOK
    before = snapshot(proj)
    assert not setup("cursor", "project", proj).changed
    assert snapshot(proj) == before
    setup("cursor", "project", proj, uninstall=True)
    assert hooks.read_bytes() == original
    assert not (proj / ".cursor" / "mcp.json").exists()
    assert _rules(proj) == {}


def test_user_scope_writes_no_rules(proj: Path, user_home: Path, store: Path) -> None:
    _lessons(store, proj)
    result = setup("cursor", "user", proj)
    assert read_json(user_home / ".cursor" / "hooks.json")["hooks"]["sessionStart"]
    assert read_json(user_home / ".cursor" / "mcp.json")["mcpServers"]["cairn"]
    assert not (proj / ".cursor").exists()
    assert any("no user-level rules" in note for note in result.notes)


def test_invalid_mcp_json_is_refused(proj: Path) -> None:
    path = proj / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"mcpServers": ')
    with pytest.raises(InstallError):
        setup("cursor", "project", proj)
    assert not (proj / ".cursor" / "hooks.json").exists()


def test_the_always_file_stays_short() -> None:
    many = [
        Memory(
            f"m-{i:06x}",
            f"Lesson number {i}",
            "lesson",
            "/p",
            when=Trigger("shell", match=f"tool{i} run"),
        )
        for i in range(ALWAYS_MAX + 2)
    ]
    text = files(many)[ALWAYS_FILE]
    assert text.count("\n- Commands matching") == ALWAYS_MAX
    assert "2 more: ask the `cairn` MCP server" in text
