"""`cairn doctor`: a working install passes, a broken one fails, Codex trust is read."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from install_support import CAIRN, read_json, write_json

import cairn
from cairn.usecases.install import Check, doctor, setup


def _by(checks: list[Check], agent: str, scope: str = "project") -> dict[str, Check]:
    return {c.name: c for c in checks if c.agent == agent and c.scope == scope}


def _lesson(store: Path, proj: Path) -> None:
    with cairn.open(store, project=proj, cwd=proj, tool="cli") as ws:
        ws.remember("Before a push, run make check", when={"tool": "shell", "match": "git push"})


def test_nothing_installed_reports_nothing(proj: Path) -> None:
    assert doctor(proj, codex_bin=False) == []


def test_a_working_install_passes_every_check(proj: Path, store: Path) -> None:
    _lesson(store, proj)
    setup("claude-code", "project", proj)
    checks = _by(doctor(proj, codex_bin=False), "claude-code")
    assert {n: c.status for n, c in checks.items()} == {
        "config": "ok",
        "hook": "ok",
        "hooks": "ok",
        "mcp": "ok",
        "store": "ok",
        "triggers": "ok",
    }
    assert checks["hook"].ms is not None and checks["hook"].ms > 0
    assert "exit 0, no output" in checks["hook"].detail
    assert checks["store"].detail.startswith("1 memories for")
    assert "PreToolUse, SessionStart, Stop, SessionEnd" in checks["config"].detail


def test_a_hook_pointing_at_a_missing_file_fails(proj: Path, store: Path) -> None:
    setup("claude-code", "project", proj)
    settings = proj / ".claude" / "settings.json"
    data = read_json(settings)
    data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = (
        f"{proj}/gone/cairn-hook claude-code PreToolUse"
    )
    write_json(settings, data)
    hook = _by(doctor(proj, codex_bin=False), "claude-code")["hook"]
    assert hook.status == "fail" and "exit 127" in hook.detail


def test_a_missing_store_is_a_warning_not_a_failure(proj: Path) -> None:
    setup("gemini", "user", proj)
    checks = _by(doctor(proj, codex_bin=False), "gemini", "user")
    assert checks["hook"].status == "ok"
    assert checks["store"].status == "warn" and checks["triggers"].status == "warn"


def test_a_stale_trigger_list_is_flagged_with_its_fix(proj: Path, store: Path) -> None:
    from click.testing import CliRunner

    from cairn.cli import cli
    from cairn.usecases.remember import remember as remember_on_store

    _lesson(store, proj)
    setup("claude-code", "project", proj)
    with cairn.open(store, project=proj, cwd=proj, tool="cli") as ws:
        # Saved without the API's after-write step (a script, an older Cairn): the list
        # does not have it.
        remember_on_store(
            ws.store, ws.ctx, "Images by CI", when={"tool": "shell", "match": "docker"}
        )
    triggers = _by(doctor(proj, codex_bin=False), "claude-code")["triggers"]
    assert triggers.status == "warn" and "stale" in triggers.detail
    assert "cairn lessons rebuild" in triggers.detail
    result = CliRunner().invoke(cli, ["--project", str(proj), "lessons", "rebuild"])
    assert result.exit_code == 0, result.output
    triggers = _by(doctor(proj, codex_bin=False), "claude-code")["triggers"]
    assert triggers.status == "ok" and triggers.detail.startswith("2 trigger lines")
    # A line gone from both files, headers intact: found by comparing with the store.
    for name in ("triggers.tsv", "triggers.keys"):
        lines = (store / name).read_text().splitlines(True)
        (store / name).write_text("".join(lines[:-1]))
    triggers = _by(doctor(proj, codex_bin=False), "claude-code")["triggers"]
    assert triggers.status == "warn" and "1 lines missing" in triggers.detail


def test_a_trigger_list_behind_the_store_is_flagged(proj: Path, store: Path) -> None:
    from cairn.io.store import SqliteStore

    _lesson(store, proj)
    setup("claude-code", "project", proj)
    opened = SqliteStore(store, create=False)
    try:  # a write by other means than Cairn's API (an older Cairn, a script, SQL by hand)
        with opened.transaction():
            opened.conn.execute("UPDATE memories SET status = 'retired'")
    finally:
        opened.close()
    triggers = _by(doctor(proj, codex_bin=False), "claude-code")["triggers"]
    assert triggers.status == "warn" and "stale" in triggers.detail
    assert "cairn lessons rebuild" in triggers.detail


def test_every_agent_is_probed_in_its_own_shape(proj: Path, store: Path) -> None:
    _lesson(store, proj)
    for agent in ("claude-code", "codex", "gemini", "cursor", "opencode"):
        setup(agent, "project", proj)
    checks = doctor(proj, codex_bin=False)
    hooks = {c.agent: c.status for c in checks if c.name == "hook"}
    assert hooks == dict.fromkeys(("claude-code", "codex", "gemini", "cursor", "opencode"), "ok")
    assert _by(checks, "cursor")["rules"].status == "ok"


def test_codex_trust_is_read_from_config_toml(proj: Path, user_home: Path) -> None:
    setup("codex", "user", proj, trust=True)
    assert _by(doctor(proj, codex_bin=False), "codex", "user")["trust"].status == "ok"
    config = user_home / ".codex" / "config.toml"
    text = config.read_text()
    config.write_text(text.replace('trusted_hash = "sha256:', 'trusted_hash = "sha256:0'))
    trust = _by(doctor(proj, codex_bin=False), "codex", "user")["trust"]
    assert trust.status == "fail" and "modified" in trust.detail and "/hooks" in trust.detail
    assert "`cairn setup codex --user --trust`" in trust.detail
    setup("codex", "user", proj, trust=True)  # the remedy it gives works
    assert _by(doctor(proj, codex_bin=False), "codex", "user")["trust"].status == "ok"


def test_codex_project_hooks_warn_when_the_project_is_not_trusted(proj: Path) -> None:
    setup("codex", "project", proj, trust=True)
    checks = _by(doctor(proj, codex_bin=False), "codex")
    assert checks["project"].status == "warn" and checks["trust"].status == "ok"


def test_the_cli_exits_1_on_a_failure_and_prints_json(proj: Path) -> None:
    setup("cursor", "project", proj)
    good = subprocess.run(
        [CAIRN, "doctor", "--json", "--no-codex", "--project-dir", str(proj)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["ok"] is True
    hooks = proj / ".cursor" / "hooks.json"
    data = read_json(hooks)
    data["hooks"]["postToolUse"][0]["command"] = "/nonexistent/cairn-hook cursor postToolUse"
    write_json(hooks, data)
    bad = subprocess.run(
        [CAIRN, "doctor", "--json", "--no-codex", "--project-dir", str(proj)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1
    report = json.loads(bad.stdout)
    assert report["ok"] is False
    assert any(c["check"] == "hook" and c["status"] == "fail" for c in report["checks"])


def test_an_install_without_the_before_tool_hook_gates_need_is_a_warning(
    proj: Path, store: Path
) -> None:
    _lesson(store, proj)
    for agent in ("gemini", "opencode", "cursor"):
        setup(agent, "project", proj)
    assert {c.agent: c.status for c in doctor(proj, codex_bin=False) if c.name == "config"} == {
        "gemini": "ok",
        "opencode": "ok",
        "cursor": "ok",
    }
    # As an older Cairn installed them: Gemini without BeforeTool, OpenCode's plugin calling
    # the hook after the call only, Cursor without beforeShellExecution.
    settings = proj / ".gemini" / "settings.json"
    data = read_json(settings)
    del data["hooks"]["BeforeTool"]
    write_json(settings, data)
    plugin = proj / ".opencode" / "plugins" / "cairn.js"
    plugin.write_text(plugin.read_text().replace("// cairn:gates\n", ""))
    hooks = proj / ".cursor" / "hooks.json"
    data = read_json(hooks)
    del data["hooks"]["beforeShellExecution"]
    write_json(hooks, data)
    configs = {c.agent: c for c in doctor(proj, codex_bin=False) if c.name == "config"}
    assert {a: c.status for a, c in configs.items()} == {a: "warn" for a in configs}
    assert "missing BeforeTool" in configs["gemini"].detail
    assert "missing before" in configs["opencode"].detail
    assert "missing beforeShellExecution" in configs["cursor"].detail
    assert "run `cairn setup gemini` again" in configs["gemini"].detail
    hooks_ok = {c.agent: c.status for c in doctor(proj, codex_bin=False) if c.name == "hook"}
    assert hooks_ok == {"gemini": "ok", "opencode": "ok", "cursor": "ok"}


def _doctor_cli(proj: Path) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [CAIRN, "doctor", "--json", "--no-codex", "--project-dir", str(proj)],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


def _check(report: dict[str, Any], agent: str, name: str) -> dict[str, Any]:
    [found] = [c for c in report["checks"] if c["agent"] == agent and c["check"] == name]
    return found


def test_a_file_where_the_store_should_be_fails_with_a_remedy_that_works(
    proj: Path, store: Path
) -> None:
    setup("claude-code", "project", proj)
    shutil.rmtree(store, ignore_errors=True)  # setup keeps its notes there
    store.write_text("oops\n")
    code, report = _doctor_cli(proj)
    assert code == 1 and report["ok"] is False
    check = _check(report, "claude-code", "store")
    assert check["status"] == "fail" and "is a file" in check["detail"]
    # The remedy, word for word: move it aside, then `cairn init`.
    move = check["detail"].split("`mv ")[1].split("`")[0].split()
    Path(move[0]).rename(move[1])
    subprocess.run([CAIRN, "--project", str(proj), "init"], check=True, capture_output=True)
    code, report = _doctor_cli(proj)
    assert code == 0, report
    assert _check(report, "claude-code", "store")["status"] == "ok"


def test_a_damaged_database_fails(proj: Path, store: Path) -> None:
    setup("claude-code", "project", proj)
    store.mkdir(exist_ok=True)
    (store / "cairn.db").write_bytes(b"not a database at all" * 200)
    code, report = _doctor_cli(proj)
    check = _check(report, "claude-code", "store")
    assert code == 1 and check["status"] == "fail" and "is damaged" in check["detail"]
    # The MCP server still lists its tools: the agent is told nothing is wrong with it.
    assert _check(report, "claude-code", "mcp")["status"] == "ok"


def test_the_mcp_server_is_started_and_lists_its_tools(proj: Path, store: Path) -> None:
    setup("gemini", "project", proj)
    mcp = _by(doctor(proj, codex_bin=False), "gemini")["mcp"]
    assert mcp.status == "ok" and mcp.detail.startswith("6 tools (recall, get_memory")
    settings = proj.parent / "user" / ".gemini" / "settings.json"
    data = read_json(settings)
    data["mcpServers"]["cairn"]["args"] = ["-c", "import sys; sys.exit(3)"]
    write_json(settings, data)
    mcp = _by(doctor(proj, codex_bin=False), "gemini")["mcp"]
    assert mcp.status == "fail" and "did not list its tools" in mcp.detail


def test_every_registered_hook_command_is_run(proj: Path, store: Path) -> None:
    setup("claude-code", "project", proj)
    settings = proj / ".claude" / "settings.json"
    data = read_json(settings)
    data["hooks"]["Stop"][0]["hooks"][0]["command"] = "/nonexistent/cairn-hook claude-code Stop"
    write_json(settings, data)
    hooks = _by(doctor(proj, codex_bin=False), "claude-code")["hooks"]
    assert hooks.status == "fail" and hooks.detail.startswith("Stop: exit 127")


def test_untrusted_codex_hooks_fail_with_the_command_that_trusts_them(proj: Path) -> None:
    setup("codex", "project", proj)  # no --trust: the user was told to approve them
    trust = _by(doctor(proj, codex_bin=False), "codex")["trust"]
    assert trust.status == "fail" and "`cairn setup codex --trust`" in trust.detail
