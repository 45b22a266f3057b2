"""The given-files: a per-session cache of what the hook already handed out."""

from __future__ import annotations

import os
from pathlib import Path

from cairn.hooks.fastpath import given_path
from cairn.hooks.run import GIVEN_FILES_KEPT, GIVEN_MAX_AGE, PRUNED, remember_given


def _fs_now(folder: Path) -> float:
    """Now on the file system's clock (file ages are measured on it, as the hook does)."""
    probe = folder / ".probe"
    probe.write_text("")
    now = probe.stat().st_mtime
    probe.unlink()
    return now


def _old_files(folder: Path, n: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    old = _fs_now(folder) - GIVEN_MAX_AGE - 3600
    files = []
    for i in range(n):
        path = folder / f"old-{i}"
        path.write_text("m-000001\n")
        os.utime(path, (old, old))
        files.append(path)
    return files


def test_a_new_session_prunes_old_files_once_there_are_many(tmp_path: Path) -> None:
    old = _old_files(tmp_path / "given", GIVEN_FILES_KEPT + 1)
    recent = tmp_path / "given" / "recent"
    recent.write_text("m-000002\n")
    remember_given(str(tmp_path), "s-new", ["m-000003"])
    assert not any(p.exists() for p in old)
    assert recent.exists()
    assert Path(given_path(str(tmp_path), "s-new")).read_text() == "m-000003\n"


def test_few_files_are_all_kept(tmp_path: Path) -> None:
    old = _old_files(tmp_path / "given", 10)
    remember_given(str(tmp_path), "s-new", ["m-000003"])
    assert all(p.exists() for p in old)


def test_a_known_session_appends_without_pruning(tmp_path: Path) -> None:
    remember_given(str(tmp_path), "s-1", ["m-000001"])
    old = _old_files(tmp_path / "given", GIVEN_FILES_KEPT + 1)
    remember_given(str(tmp_path), "s-1", ["m-000002"])
    assert Path(given_path(str(tmp_path), "s-1")).read_text() == "m-000001\nm-000002\n"
    assert all(p.exists() for p in old)  # pruning waits for the next new session


def test_the_folder_is_looked_at_at_most_once_an_hour(tmp_path: Path) -> None:
    remember_given(str(tmp_path), "s-1", ["m-000001"])  # looks: nothing to prune yet
    old = _old_files(tmp_path / "given", GIVEN_FILES_KEPT + 1)
    remember_given(str(tmp_path), "s-2", ["m-000002"])
    assert all(p.exists() for p in old)  # a new session, but the folder was just looked at
    hours_ago = _fs_now(tmp_path) - 7200
    os.utime(tmp_path / PRUNED, (hours_ago, hours_ago))
    remember_given(str(tmp_path), "s-3", ["m-000003"])
    assert not any(p.exists() for p in old)
