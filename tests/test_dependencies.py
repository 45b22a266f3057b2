"""Runtime dependencies take compatible ranges; CI installs the exact versions it tested."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
REQUIREMENT = re.compile(r"^([A-Za-z0-9_.-]+)(\[[^\]]+\])?>=([0-9][^,]*),<([0-9][^,]*)$")


def _requirements() -> list[str]:
    extras = PROJECT["optional-dependencies"]
    return [*PROJECT["dependencies"], *extras["postgresql"], *extras["dev"]]


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_every_dependency_is_a_compatible_range_not_a_pin() -> None:
    for requirement in _requirements():
        found = REQUIREMENT.match(requirement)
        assert found, f"{requirement}: want NAME>=x.y,<x+1 (a 0.x package: <0.(y+1))"
        low, high = _release(found[3]), _release(found[4])
        assert low < high, requirement
        if low[0] > 0:
            assert high == (low[0] + 1,), f"{requirement}: the next major is the bound"
        else:
            assert high == (0, low[1] + 1), f"{requirement}: a 0.x package stops at its next minor"


def test_constraints_pin_every_dependency_inside_its_range() -> None:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[_key(name)] = version
    for requirement in _requirements():
        found = REQUIREMENT.match(requirement)
        assert found
        pinned = pins.get(_key(found[1]))
        assert pinned, f"{found[1]} is not pinned in constraints.txt"
        release = _release(re.match(r"[0-9.]*[0-9]", pinned)[0])  # type: ignore[index]
        assert _release(found[3]) <= release < _release(found[4]), (requirement, pinned)
