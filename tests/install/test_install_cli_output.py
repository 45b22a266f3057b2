"""What a person reads from `cairn setup` and `cairn doctor` without --json."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from install_support import CAIRN


def _cairn(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CAIRN, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "500"},
        timeout=120,
        check=False,
    )


def test_a_dry_run_says_what_it_would_do_and_shows_each_diff(proj: Path) -> None:
    done = _cairn("setup", "gemini", "--dry-run", cwd=proj)
    assert done.returncode == 0, done.stderr
    settings = proj / ".gemini" / "settings.json"
    assert f"would create {settings}" in done.stdout
    assert "+++ " in done.stdout and '+  "hooks": {' in done.stdout  # the diff of the new file
    assert "hook command: " in done.stdout
    assert not settings.exists()


def test_setup_over_a_users_file_names_its_backup(proj: Path) -> None:
    settings = proj / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"theme": "dark"}), encoding="utf-8")
    done = _cairn("setup", "gemini", cwd=proj)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if str(settings) in line]
    assert line.startswith(f"update {settings} (backup: ")
    backup = Path(line.split("(backup: ", 1)[1].rstrip(")"))
    assert json.loads(backup.read_text(encoding="utf-8")) == {"theme": "dark"}
    # Uninstalling prints no hook command: there is none to run any more.
    gone = _cairn("setup", "gemini", "--uninstall", cwd=proj)
    assert gone.returncode == 0, gone.stderr
    assert "hook command" not in gone.stdout


def test_doctor_says_when_cairn_is_installed_for_no_agent(proj: Path) -> None:
    done = _cairn("doctor", "--no-codex", cwd=proj)
    assert done.returncode == 0, done.stderr
    assert " ".join(done.stdout.split()) == (
        "Cairn is not installed for any agent here: run `cairn setup AGENT` "
        "(claude-code, codex, gemini, cursor, opencode)."
    )


def test_doctor_shows_a_table_of_checks_and_exits_1_on_a_failure(proj: Path) -> None:
    assert _cairn("setup", "gemini", cwd=proj).returncode == 0
    done = _cairn("doctor", "--no-codex", cwd=proj)
    checks = json.loads(_cairn("doctor", "--no-codex", "--json", cwd=proj).stdout)["checks"]
    assert checks and all(c["agent"] == "gemini" for c in checks)
    failed = any(c["status"] == "fail" for c in checks)
    assert done.returncode == (1 if failed else 0), done.stderr
    header = next(line for line in done.stdout.splitlines() if "agent" in line)
    assert header.split("┃")[1:-1] and [c.strip() for c in header.split("┃")[1:-1]] == [
        "agent",
        "scope",
        "check",
        "status",
        "detail",
        "ms",
    ]
    rows = [line for line in done.stdout.splitlines() if line.startswith("│ gemini")]
    assert len(rows) >= len({c["check"] for c in checks}) > 0
    # Break the install: the hook's config is gone, and doctor fails.
    (proj / ".gemini" / "settings.json").write_text("{", encoding="utf-8")
    broken = _cairn("doctor", "--no-codex", cwd=proj)
    assert broken.returncode == 1
    assert "fail" in broken.stdout
