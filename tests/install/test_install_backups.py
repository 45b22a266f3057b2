"""Backups of the files setup changes: in Cairn's folder, never in the project; few; listed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from install_support import backups_of, write_json

from cairn.usecases.install import setup
from cairn.usecases.install.files import BACKUPS_KEPT, save_backup


def test_a_backup_never_lands_in_the_project(proj: Path, store: Path) -> None:
    subprocess.run(["git", "init", "-q", str(proj)], check=True, capture_output=True)
    # A settings file kept out of git because it holds a token.
    (proj / ".gitignore").write_text(".claude/settings.json\n", encoding="utf-8")
    settings = proj / ".claude" / "settings.json"
    write_json(settings, {"env": {"API_TOKEN": "tok-123"}})
    setup("claude-code", "project", proj)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=proj,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "tok-123" not in status and "backup" not in status
    assert sorted(line[3:] for line in status.splitlines()) == [".gitignore"]
    [kept] = backups_of(settings)
    assert b"tok-123" in kept.read_bytes()
    assert kept.is_relative_to(store / "backups")
    assert kept.stat().st_mode & 0o777 == 0o600  # it holds the token: the user's eyes only


def test_cycles_keep_few_backups(proj: Path, store: Path) -> None:
    settings = proj / ".claude" / "settings.json"
    for i in range(6):
        write_json(settings, {"model": f"opus-{i}"})
        setup("claude-code", "project", proj)
        setup("claude-code", "project", proj, uninstall=True)
    assert len(backups_of(settings)) == BACKUPS_KEPT
    newest = backups_of(settings)[-1]
    assert b"opus-5" in newest.read_bytes()


def test_the_same_bytes_are_kept_once(tmp_path: Path) -> None:
    root, path = tmp_path / "backups", tmp_path / "f.json"
    first = save_backup(root, path, b"{}\n")
    assert save_backup(root, path, b"{}\n") == first
    assert len(list(first.parent.iterdir())) == 2  # the copy and the file naming its origin


def test_uninstall_lists_the_backups(proj: Path, store: Path) -> None:
    settings = proj / ".claude" / "settings.json"
    write_json(settings, {"model": "opus"})
    setup("claude-code", "project", proj)
    [kept] = backups_of(settings)
    result = setup("claude-code", "project", proj, uninstall=True)
    [note] = [n for n in result.notes if str(settings) in n]
    assert str(kept) in note
