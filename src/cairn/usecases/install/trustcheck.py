"""The doctor's Codex trust check: is every Cairn hook trusted (from `config.toml`, or from
Codex itself through `codex app-server` when a `codex` binary is found)?"""

from __future__ import annotations

import shutil

from cairn.usecases.install.plan import Installed, Target
from cairn.usecases.install.report import Check
from cairn.usecases.install.rpc import app_server_trust


def trust_checks(found: Installed, where: Target, codex_bin: str | bool | None) -> list[Check]:
    """Codex only: the project is trusted, and every Cairn hook is (from Codex when it can say)."""
    a, s = found.agent, found.scope
    out: list[Check] = []
    trust_file = str(found.extra.get("trust_file", ""))
    if s == "project" and not found.extra.get("project_trusted", False):
        out.append(
            Check(
                a,
                s,
                "project",
                "warn",
                f"{where.project} is not marked trusted in {trust_file}: Codex reads "
                f"its .codex/hooks.json only in a trusted project (trust it when Codex "
                f"asks)",
                path=trust_file,
            )
        )
    sites = [site for site in found.hooks if site.key]
    if not sites:
        return out
    if codex_bin is False:
        program = None
    elif codex_bin is None or codex_bin is True:
        program = shutil.which("codex")
    else:
        program = codex_bin
    told = app_server_trust(program, where.project) if program else None
    written: dict[str, str] = found.extra.get("trusted", {})
    states: list[str] = []
    for site in sites:
        if told is not None and site.key in told:
            states.append(told[site.key])
        elif written.get(site.key) == site.hash:
            states.append("trusted")
        else:
            states.append("modified" if site.key in written else "untrusted")
    source = "Codex's hooks/list" if told is not None else "config.toml"
    bad = [
        f"{site.event} {state}"
        for site, state in zip(sites, states, strict=True)
        if state not in ("trusted", "managed")
    ]
    if bad:
        flag = "" if s == "project" else " --user"
        detail = (
            f"{', '.join(bad)} (from {source}): Codex skips these hooks without a word. Run "
            f"`cairn setup codex{flag} --trust`, or approve them under /hooks in the Codex TUI"
        )
        out.append(Check(a, s, "trust", "fail", detail, path=trust_file))
    else:
        out.append(
            Check(
                a, s, "trust", "ok", f"{len(sites)} hooks trusted (from {source})", path=trust_file
            )
        )
    return out
