"""Install then uninstall: every user file byte for byte, comments kept where the agent reads
them, compact arrays not reflowed, and no folder left behind that setup made."""

from __future__ import annotations

from pathlib import Path

import pytest
from install_support import read_json

from cairn.usecases.install import AGENTS, InstallError, setup

GEMINI_JSONC = b"""{
  // my theme, do not touch
  "ui": {"theme": "GitHub"},
  "security": {"auth": {"selectedType": "gemini-api-key"}}, /* auth */
}
"""
OPENCODE_JSONC = b"""{
  "$schema": "https://opencode.ai/config.json",
  // the model I pay for
  "model": "anthropic/claude",
  "mcp": {}
}
"""
CLAUDE_COMPACT = b"""{
  "permissions": {"allow": ["Bash(ls:*)", "Bash(git status)", "Read"], "deny": []},
  "model": "opus"
}
"""


def tree(*roots: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under the roots."""
    out: dict[str, bytes | None] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            out[str(path)] = path.read_bytes() if path.is_file() else None
    return out


def test_gemini_settings_with_comments_keep_them(proj: Path) -> None:
    path = proj / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(GEMINI_JSONC)
    setup("gemini", "project", proj)
    text = path.read_text()
    assert "// my theme, do not touch" in text and "/* auth */" in text
    assert '"ui": {"theme": "GitHub"},' in text
    setup("gemini", "project", proj, uninstall=True)
    assert path.read_bytes() == GEMINI_JSONC


def test_opencode_jsonc_with_comments_is_used_and_kept(proj: Path, user_home: Path) -> None:
    folder = user_home / ".config" / "opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.jsonc").write_bytes(OPENCODE_JSONC)
    setup("opencode", "project", proj)
    text = (folder / "opencode.jsonc").read_text()
    assert "// the model I pay for" in text and '"cairn"' in text
    assert not (folder / "opencode.json").exists()
    setup("opencode", "project", proj, uninstall=True)
    assert (folder / "opencode.jsonc").read_bytes() == OPENCODE_JSONC


def test_comments_are_refused_where_the_agent_reads_plain_json(proj: Path) -> None:
    path = proj / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(b'{\n  // Claude Code refuses this file\n  "model": "opus"\n}\n')
    with pytest.raises(InstallError, match="not valid JSON"):
        setup("claude-code", "project", proj)


def test_compact_arrays_are_not_reflowed(proj: Path) -> None:
    path = proj / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(CLAUDE_COMPACT)
    result = setup("claude-code", "project", proj)
    assert CLAUDE_COMPACT.splitlines()[1] in path.read_bytes().splitlines()
    [change] = [c for c in result.changes if c.path == path]
    removed = [x for x in change.diff.splitlines() if x.startswith("-") and not x.startswith("--")]
    assert removed == ['-  "model": "opus"']  # only the line that gains a comma
    assert read_json(path)["permissions"]["allow"] == ["Bash(ls:*)", "Bash(git status)", "Read"]


@pytest.mark.parametrize("scope", ["project", "user"])
def test_install_then_uninstall_leaves_every_file_and_folder_as_it_was(
    proj: Path, user_home: Path, scope: str
) -> None:
    (proj / ".claude").mkdir()
    (proj / ".claude" / "settings.json").write_bytes(CLAUDE_COMPACT)
    (proj / ".gemini").mkdir()
    (proj / ".gemini" / "settings.json").write_bytes(GEMINI_JSONC)
    (user_home / ".claude.json").write_bytes(b'{"numStartups": 3, "projects": {}}\n')
    before = tree(proj, user_home)
    for agent in AGENTS:
        setup(agent, scope, proj)  # type: ignore[arg-type]
    assert tree(proj, user_home) != before
    for agent in AGENTS:
        setup(agent, scope, proj, uninstall=True)  # type: ignore[arg-type]
    assert tree(proj, user_home) == before
