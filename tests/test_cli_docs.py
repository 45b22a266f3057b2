"""docs/cli.md documents every command, generated from the code (sqlite-utils' habit)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click

from cairn.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("cli_docs", ROOT / "scripts" / "cli_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_command_has_help() -> None:
    for path, command in _script().walk(cli, ["cairn"]):
        assert (command.help or "").strip(), f"{' '.join(path)} has no help"


def test_docs_cli_md_is_up_to_date() -> None:
    expected = _script().render()
    actual = (ROOT / "docs" / "cli.md").read_text()
    assert actual == expected, "docs/cli.md is stale: run `python scripts/cli_docs.py`"


def test_every_command_has_a_section() -> None:
    text = (ROOT / "docs" / "cli.md").read_text()
    for path, command in _script().walk(cli, ["cairn"]):
        assert f"`{' '.join(path)}`" in text
        if isinstance(command, click.Command):
            for param in command.params:
                for opt in getattr(param, "opts", []):
                    if opt.startswith("--"):
                        assert opt in text, f"{opt} of {' '.join(path)} is not documented"
