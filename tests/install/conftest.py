"""Fixtures for the install tests: a fake HOME, a store and a git project in tmp dirs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home folder: every user-scope config file lands here."""
    folder = tmp_path / "user"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in ("XDG_CONFIG_HOME", "CODEX_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    return folder


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Cairn store folder (CAIRN_HOME), not created yet."""
    folder = tmp_path / "store"
    monkeypatch.setenv("CAIRN_HOME", str(folder))
    return folder


@pytest.fixture
def proj(tmp_path: Path, user_home: Path, store: Path) -> Path:
    """A git project folder (resolved, as `cairn setup` resolves it)."""
    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return folder.resolve()


@pytest.fixture(autouse=True)
def cairn_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """This Cairn's `cairn-hook` and `cairn` first on PATH, as `pipx install` leaves them."""
    import os
    import sys

    bindir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bindir + os.pathsep + os.environ.get("PATH", ""))
