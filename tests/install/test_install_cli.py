"""`cairn setup` on the command line: thin over the library, clean errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from install_support import CAIRN, read_json


def _cairn(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CAIRN, *args], capture_output=True, text=True, cwd=cwd, check=False)


def test_setup_defaults_to_the_project_of_the_cwd(proj: Path, store: Path) -> None:
    (proj / "src").mkdir()
    done = _cairn("setup", "gemini", cwd=proj / "src")
    assert done.returncode == 0, done.stderr
    hooks = read_json(proj / ".gemini" / "settings.json")["hooks"]
    command = hooks["AfterTool"][0]["hooks"][0]["command"]
    assert command.endswith("exec cairn-hook gemini AfterTool || :")
    assert str(store) not in command  # the project's file is the same on every machine
    assert f"hook command: {command}" in done.stdout


def test_dry_run_json_prints_the_diffs_and_writes_nothing(proj: Path) -> None:
    done = _cairn("setup", "codex", "--user", "--dry-run", "--json", cwd=proj)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["dry_run"] is True and result["scope"] == "user" and result["changed"]
    assert {Path(f["path"]).name for f in result["files"]} == {"hooks.json", "config.toml"}
    assert all(f["diff"] and f["backup"] is None for f in result["files"])
    assert not Path(result["files"][0]["path"]).exists()


def test_invalid_json_gives_one_clean_line_and_exit_7(proj: Path) -> None:
    settings = proj / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{nope")
    done = _cairn("setup", "claude-code", cwd=proj)
    assert done.returncode == 7
    assert done.stderr.startswith("cairn: ") and "not valid JSON" in done.stderr
    assert "Traceback" not in done.stderr


def test_uninstall_from_the_cli(proj: Path) -> None:
    assert _cairn("setup", "opencode", cwd=proj).returncode == 0
    done = _cairn("setup", "opencode", "--uninstall", cwd=proj)
    assert done.returncode == 0, done.stderr
    assert not (proj / "opencode.json").exists()
    assert not (proj / ".opencode" / "plugins" / "cairn.js").exists()
