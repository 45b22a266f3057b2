"""`cairn setup opencode`: the generated plugin (checked and run with node) and opencode.json."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from install_support import read_json, snapshot, write_json

import cairn
from cairn.usecases.install import InstallError, setup
from cairn.usecases.install.command import Launch
from cairn.usecases.install.opencode import MARKER, hook_argv, plugin

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(not NODE, reason="node is not on PATH")
USER_CONFIG = {
    "$schema": "https://opencode.ai/config.json",
    "model": "anthropic/x",
    "mcp": {"docs": {"type": "local", "command": ["/usr/bin/docs"], "enabled": True}},
}
# Imports the plugin, runs one tool call through it, prints what the model would read.
HARNESS = """
const [file, dir, tool, args] = process.argv.slice(2);
const mod = await import(file);
const hooks = await mod.Cairn({ directory: dir, worktree: dir });
// Before each model request: the system prompt (twice: the brief is fetched once, kept).
const system = { system: ["BASE"] };
await hooks["experimental.chat.system.transform"]({ sessionID: "s1", model: {} }, system);
const again = { system: ["BASE"] };
await hooks["experimental.chat.system.transform"]({ sessionID: "s1", model: {} }, again);
await hooks["experimental.chat.system.transform"]({ model: {} }, { system: [] });
const output = { title: "", output: "ORIGINAL", metadata: {} };
const before = { args: JSON.parse(args) };
const frozen = JSON.stringify(before.args);
await hooks["tool.execute.before"]({ tool, sessionID: "s1", callID: "c1" }, before);
await hooks["tool.execute.before"](null, null);
await hooks["tool.execute.after"](null, null);
const started = Date.now();
await hooks["tool.execute.after"](
  { tool, sessionID: "s1", callID: "c1", args: JSON.parse(args) }, output);
console.log(JSON.stringify({ output: output.output, ms: Date.now() - started,
                             argsKept: JSON.stringify(before.args) === frozen,
                             system: system.system, again: again.system }));
"""


def test_install_writes_the_plugin_and_the_mcp_server(proj: Path, user_home: Path) -> None:
    setup("opencode", "project", proj)
    source = (proj / ".opencode" / "plugins" / "cairn.js").read_text()
    assert source.startswith(MARKER)
    argv, env = hook_argv(source.encode())
    assert argv == ("cairn-hook",) and env == {}  # the same on every machine
    assert "TIMEOUT_MS = 2000" in source and "output.args =" not in source
    assert not (proj / "opencode.json").exists()
    server = read_json(user_home / ".config" / "opencode" / "opencode.json")["mcp"]["cairn"]
    assert server["type"] == "local" and server["enabled"] is True
    assert os.path.isabs(server["command"][0]) and server["command"][-1] == "mcp"


def test_user_scope_uses_the_xdg_config_folder(
    proj: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    setup("opencode", "user", proj)
    assert (tmp_path / "xdg" / "opencode" / "plugins" / "cairn.js").exists()
    assert read_json(tmp_path / "xdg" / "opencode" / "opencode.json")["mcp"]["cairn"]


def test_merge_idempotence_and_exact_uninstall(proj: Path, user_home: Path) -> None:
    config = user_home / ".config" / "opencode" / "opencode.json"
    original = write_json(config, USER_CONFIG)
    setup("opencode", "user", proj)
    data = read_json(config)
    assert data["model"] == "anthropic/x" and list(data["mcp"]) == ["docs", "cairn"]
    before = snapshot(user_home)
    assert not setup("opencode", "user", proj).changed
    assert snapshot(user_home) == before
    setup("opencode", "user", proj, uninstall=True)
    assert config.read_bytes() == original
    assert not (config.parent / "plugins" / "cairn.js").exists()


def test_a_plugin_file_that_is_not_cairns_is_refused(proj: Path) -> None:
    mine = proj / ".opencode" / "plugins" / "cairn.js"
    mine.parent.mkdir(parents=True)
    mine.write_text("export const Mine = async () => ({});\n")
    with pytest.raises(InstallError, match="not written by Cairn"):
        setup("opencode", "project", proj)
    setup("opencode", "project", proj, uninstall=True)
    assert mine.read_text() == "export const Mine = async () => ({});\n"


def test_dry_run_writes_nothing(proj: Path) -> None:
    before = snapshot(proj)
    result = setup("opencode", "project", proj, dry_run=True)
    assert snapshot(proj) == before
    assert any("tool.execute.after" in c.diff for c in result.changes)


@needs_node
def test_the_plugin_is_valid_javascript(proj: Path) -> None:
    setup("opencode", "project", proj)
    done = subprocess.run(
        [str(NODE), "--check", str(proj / ".opencode/plugins/cairn.js")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def _run_plugin(source: Path, proj: Path, tool: str, args: dict[str, str]) -> dict[str, object]:
    harness = proj / "harness.mjs"
    harness.write_text(HARNESS)
    done = subprocess.run(
        [str(NODE), str(harness), str(source), str(proj), tool, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


@needs_node
def test_the_plugin_appends_the_lesson_to_the_tool_output(proj: Path, store: Path) -> None:
    with cairn.open(store, project=proj, cwd=proj, tool="cli") as ws:
        ref = ws.remember(
            "Before a push, run make check", when={"tool": "shell", "match": "git push"}
        ).ref
    setup("opencode", "project", proj)
    result = _run_plugin(
        proj / ".opencode/plugins/cairn.js", proj, "bash", {"command": "git push origin main"}
    )
    text = str(result["output"])
    assert text.startswith("ORIGINAL\n\n") and ref in text and "make check" in text
    assert result["argsKept"] is True


@needs_node
def test_a_hanging_hook_is_killed_and_nothing_is_added(proj: Path, tmp_path: Path) -> None:
    hang = tmp_path / "hang.sh"
    hang.write_text("#!/bin/sh\nexec sleep 30\n")
    hang.chmod(0o755)
    source = tmp_path / "cairn.mjs"
    source.write_text(plugin_for(Launch((str(hang),), ("x",)), proj))
    started = time.monotonic()
    result = _run_plugin(source, proj, "bash", {"command": "ls"})
    assert result["output"] == "ORIGINAL"
    assert 1500 <= int(str(result["ms"])) < 10_000  # the `after` call, cut at 2 s
    assert time.monotonic() - started < 20


@needs_node
def test_a_missing_hook_program_never_throws(proj: Path, tmp_path: Path) -> None:
    source = tmp_path / "cairn.mjs"
    source.write_text(plugin_for(Launch((str(tmp_path / "gone"),), ("x",)), proj))
    result = _run_plugin(source, proj, "bash", {"command": "ls"})
    assert result["output"] == "ORIGINAL" and result["argsKept"] is True


def plugin_for(how: Launch, proj: Path) -> str:
    """The plugin source for a given launch (to point it at a fake hook)."""
    from cairn.usecases.install.apply import target

    where = target("project", proj)
    return plugin(type(where)(where.scope, where.project, where.user_home, how, where.store))


# Runs a tool call through the plugin's `tool.execute.before` twice (a call and its retry) and
# reports what each did: threw (the text the model would get as the result) or let it run.
GATE_HARNESS = """
const [file, dir, tool, args] = process.argv.slice(2);
const mod = await import(file);
const hooks = await mod.Cairn({ directory: dir, worktree: dir });
const results = [];
for (const callID of ["c1", "c2"]) {
  const before = { args: JSON.parse(args) };
  const frozen = JSON.stringify(before.args);
  try {
    await hooks["tool.execute.before"]({ tool, sessionID: "s1", callID }, before);
    results.push({ ran: true, argsKept: JSON.stringify(before.args) === frozen });
  } catch (err) {
    results.push({ ran: false, error: String(err && err.message) });
  }
}
console.log(JSON.stringify(results));
"""


def _run_gate_harness(source: Path, proj: Path, command: str) -> list[dict[str, object]]:
    harness = proj / "gate-harness.mjs"
    harness.write_text(GATE_HARNESS)
    done = subprocess.run(
        [str(NODE), str(harness), str(source), str(proj), "bash", json.dumps({"command": command})],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: list[dict[str, object]] = json.loads(done.stdout)
    return result


@needs_node
def test_a_gate_throws_its_reason_once_and_the_retry_runs(proj: Path, store: Path) -> None:
    with cairn.open(store, project=proj, cwd=proj, tool="cli") as ws:
        ref = ws.remember(
            "Before a push, run make check",
            when={"tool": "shell", "match": "git push"},
            gate=True,
        ).ref
    setup("opencode", "project", proj)
    first, retry = _run_gate_harness(
        proj / ".opencode/plugins/cairn.js", proj, "git push origin main"
    )
    assert first["ran"] is False
    error = str(first["error"])
    assert ref in error and "make check" in error and "run the command again" in error
    assert retry == {"ran": True, "argsKept": True}


@needs_node
def test_an_ungated_lesson_or_a_failing_hook_never_throws(
    proj: Path, store: Path, tmp_path: Path
) -> None:
    with cairn.open(store, project=proj, cwd=proj, tool="cli") as ws:
        ws.remember("Before a push, run make check", when={"tool": "shell", "match": "git push"})
    setup("opencode", "project", proj)
    ran = {"ran": True, "argsKept": True}
    source = proj / ".opencode/plugins/cairn.js"
    assert _run_gate_harness(source, proj, "git push origin main") == [ran, ran]
    # A hook that prints text but fails, or cannot be started: the call runs.
    noisy = tmp_path / "noisy.sh"
    noisy.write_text("#!/bin/sh\necho 'Before this call runs, junk'\nexit 3\n")
    noisy.chmod(0o755)
    for program in (noisy, tmp_path / "gone"):
        other = tmp_path / "other.mjs"
        other.write_text(plugin_for(Launch((str(program),), ("x",)), proj))
        assert _run_gate_harness(other, proj, "git push origin main") == [ran, ran]


@needs_node
def test_the_brief_goes_into_the_system_prompt_never_the_tool_output(
    proj: Path, store: Path
) -> None:
    with cairn.open(store, project=proj, cwd=proj, tool="cli") as ws:
        ref = ws.remember("Releases are cut on Tuesdays from the main branch").ref
    setup("opencode", "project", proj)
    result = _run_plugin(proj / ".opencode/plugins/cairn.js", proj, "bash", {"command": "ls"})
    system = result["system"]
    assert isinstance(system, list) and system[0] == "BASE" and len(system) == 2
    assert system[1].startswith("Cairn memory for this project") and ref in system[1]
    assert result["again"] == system  # every request of the session carries it
    assert result["output"] == "ORIGINAL"  # the brief is not appended to a tool result
