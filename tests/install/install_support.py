"""Helpers for the install tests: files as bytes and JSON, and a tree snapshot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hooks"
CAIRN = str(Path(sys.executable).parent / "cairn")


def read_json(path: Path) -> Any:
    """A file's parsed JSON."""
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path: Path, data: Any, indent: int = 2) -> bytes:
    """Write JSON the way a user might (given indent); returns the bytes written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = (json.dumps(data, indent=indent) + "\n").encode()
    path.write_bytes(raw)
    return raw


def read_toml(path: Path) -> dict[str, Any]:
    """A file's parsed TOML."""
    return tomllib.loads(path.read_text(encoding="utf-8"))


def snapshot(*roots: Path) -> dict[str, bytes]:
    """Every file under the roots, path -> bytes (to prove nothing was written)."""
    out: dict[str, bytes] = {}
    for root in roots:
        if root.exists():
            for path in sorted(root.rglob("*")):
                if path.is_file():
                    out[str(path)] = path.read_bytes()
    return out


def backups_of(path: Path) -> list[Path]:
    """Cairn's backups of a file (under the store folder, `$CAIRN_HOME`), oldest first."""
    from cairn.usecases.install.files import backups

    return sorted(backups(Path(os.environ["CAIRN_HOME"]) / "backups", path))


def payload(agent: str, name: str, project: Path) -> bytes:
    """A recorded hook payload with its `/work/app` paths moved into `project`."""
    text = (FIXTURES / agent / f"{name}.json").read_text(encoding="utf-8")
    return text.replace("/work/app", str(project)).encode()


def run_hook_command(command: str, data: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run a hook command string the way the agents do (`sh -c`)."""
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=data,
        capture_output=True,
        cwd=cwd,
        timeout=30,
        check=False,
    )
