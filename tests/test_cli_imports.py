"""A new `cairn` process loads what its one command needs (checked in a fresh interpreter).

`cairn recall` is run by agents as a new process per search: the modules of the other
commands, rich (for people, not `--json`), and the citation checker (for hits that cite
nothing) are milliseconds each of its start. Timings are in bench/recall.py; here, the sets.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.api import RULES_K
from cairn.cli import cli
from cairn.cli.commands import COMMANDS, load_all
from cairn.usecases.calls import RULES_K as CALLS_RULES_K

PROBE = """
import json, sys
from cairn.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""
OTHER_COMMANDS = {m for m in COMMANDS.values() if m != "cairn.cli.recall"}


def modules_of(home: Path, project: Path, *args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "CAIRN_HOME": str(home)},
        timeout=60,
        check=True,
    )
    return set(json.loads(done.stderr.rsplit("\nMODULES ", 1)[1]))


def test_recall_json_loads_no_other_command_and_no_rich(home: Path, project: Path) -> None:
    import cairn

    with cairn.open(home, project=project, cwd=project) as ws:
        ws.remember("deploys run from the main branch")
    loaded = modules_of(home, project, "recall", "deploys", "--json")
    # Answered by the lean path (`cairn.cli.lean`): no click, no numpy, no command module.
    assert "cairn.cli.lean" in loaded and "cairn.usecases.recall" in loaded
    assert not {m.split(".")[0] for m in loaded} & {"click", "numpy"}
    assert not loaded & OTHER_COMMANDS
    # A form the lean path does not take (`--also`) goes to the click command, which loads
    # only its own module.
    loaded = modules_of(home, project, "recall", "deploys", "--also", "deploy", "--json")
    assert "cairn.cli.recall" in loaded and "click" in loaded
    assert not loaded & OTHER_COMMANDS
    never = {
        "rich",
        "mcp",
        "cairn.io.citations",
        "cairn.io.store.acts",
        "cairn.usecases.transfer",
        "zipfile",
    }
    assert not {m for m in loaded if m.split(".")[0] in never or m in never}


def test_remember_loads_no_numpy(home: Path, project: Path) -> None:
    loaded = modules_of(home, project, "remember", "deploys run from the main branch")
    assert "cairn.cli.memory" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("numpy", "scipy")}


def test_the_command_map_names_exactly_the_registered_commands() -> None:
    load_all()
    registered = {name: command.callback.__module__ for name, command in cli.commands.items()}
    groups = {name for name, command in cli.commands.items() if command.callback is None}
    assert set(registered) == set(COMMANDS)
    for name, module in registered.items():
        if name not in groups:
            assert COMMANDS[name] == module, name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_is_found_by_name(name: str) -> None:
    import click

    assert cli.get_command(click.Context(cli), name) is not None


def test_the_api_default_k_is_the_rules_default() -> None:
    assert RULES_K == CALLS_RULES_K
