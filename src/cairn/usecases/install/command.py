"""How an agent starts Cairn: the hook command, the MCP server command, and how to spot them.

The hook runs on every watched tool call, so its command is the one that starts fastest without
being fragile. Measured on a 2-core box (20 runs each, interleaved, a PreToolUse payload that
matches no trigger, so only start-up and the trigger-list check are timed; medians):

    pyenv shim `python3 -c pass` (start-up alone, for scale)   112.5 ms
    /abs/.venv/bin/python -m cairn.hooks.entry                 25.2 ms
    /abs/.venv/bin/cairn-hook  (console script)                20.4 ms
    /abs/.venv/bin/python -S launcher.py  (sys.path preset)    17.8 ms

(`runpy` costs `-m` ~5 ms.) A `-S` launcher saves ~2.6 ms more but is not used: it has to be a
generated file, and when a script file is missing Python exits with status 2, which Claude Code,
Codex and Gemini read as "block this tool call". A deleted launcher would block every shell
call of the agent. A missing console script or interpreter exits 127, a non-blocking error.

So the hook command is `python -I -S -c CODE AGENT EVENT`, with the absolute interpreter and
a one-line CODE that puts Cairn's package folder and the venv's site-packages on sys.path and
calls `cairn.hooks.entry.console_main()`: the speed of the `-S` launcher without its file, so
nothing can go missing but Cairn itself, and a missing Cairn is an ImportError (exit 1, which
no agent reads as "block"). `-I` (isolated) keeps the agent's working folder off sys.path:
with `-c`, Python would otherwise search the project the agent works in before the standard
library, so a project's own `types.py` or `collections/` would be imported (and run) by the
hook; it also ignores PYTHON* variables, so a `PYTHONPATH` naming the project cannot slip its
`encodings/` into the interpreter's start. Without a usable package folder (a zipped install)
the hook is `python -I -m cairn.hooks.entry`, and the MCP server is always
`python -I -c "...main()" mcp`: never the `cairn` / `cairn-hook` console scripts pip writes,
which start a plain `python` that honours PYTHONPATH. Either way no PATH lookup and no pyenv
shim. (Typed in a shell, `cairn` is an ordinary Python program and honours PYTHONPATH, as
every other one does.) An explicit store folder (`--home` or
`$CAIRN_HOME` at setup time) is written into the command as `CAIRN_HOME=... `, so the hook
reads the same store as the CLI that installed it.

That is the command for the user's own config files (`--user`). A project's config files are
committed and pulled by teammates, so they must be the same on every machine: there the hook
is the stable command `PORTABLE` below, which runs the `cairn-hook` script found on PATH
(`pipx install` / `uv tool install` put it there) and does nothing, visibly or not, where
Cairn is not installed (`command -v` fails, the line exits 0). `cairn-hook` is a plain script
whose first line the installer points at Cairn's interpreter (bin/cairn-hook): no `-I -S`, so
`site` runs, but no `re` as pip's console-script wrapper would import. Measured in
bench/hook.py through `sh -c`, as the agents run it. The MCP server and an explicit store folder are
machine-specific, so at project scope they go to each agent's personal config instead (see
the agent modules).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

HOOK_MODULE = "cairn.hooks.entry"
HOOK_SCRIPT = "cairn-hook"  # the script on PATH a project's committed hook commands run
# A project's hook command: the same on every machine, silent where Cairn is not installed.
PORTABLE = "command -v {script} >/dev/null 2>&1 && exec {script} {agent} {event} || :"
SERVER_NAME = "cairn"
HOME_VAR = "CAIRN_HOME"
# `cairn-hook` as a word of the command (a path ending in it, or the bare name), not a part
# of some other program's name such as `my-cairn-hook-wrapper`.
_SCRIPT_WORD = re.compile(r"(?:^|[\s/'\"])cairn-hook(?:$|[\s'\"])")
_CLI_MAIN = "import sys; from cairn.cli import main; sys.exit(main())"


@dataclass(frozen=True)
class Launch:
    """The argv that starts Cairn's hook and MCP server, and the environment they need.

    `portable`: the hook is the stable `cairn-hook` command (a project's committed files);
    `home` then reaches the MCP server only (`server_env`), never the hook command.
    """

    hook: tuple[str, ...]
    server: tuple[str, ...]
    home: str | None = None
    portable: bool = False

    @property
    def env(self) -> dict[str, str]:
        """Variables the hook command carries (an explicit store folder, unless portable)."""
        return {HOME_VAR: self.home} if self.home and not self.portable else {}

    @property
    def server_env(self) -> dict[str, str]:
        """Variables the MCP server needs (an explicit store folder)."""
        return {HOME_VAR: self.home} if self.home else {}

    def hook_argv(self, agent: str, event: str) -> list[str]:
        """The hook's argv for one agent and event."""
        if self.portable:
            return [HOOK_SCRIPT, agent, event]
        return [*self.hook, agent, event]

    def hook_command(self, agent: str, event: str) -> str:
        """The hook as one shell command line (agents run it through `sh -c`)."""
        if self.portable:
            return PORTABLE.format(script=HOOK_SCRIPT, agent=agent, event=event)
        prefix = "".join(f"{k}={shlex.quote(v)} " for k, v in self.env.items())
        return prefix + shlex.join(self.hook_argv(agent, event))


def launch(
    home: str | os.PathLike[str] | None = None,
    executable: str | None = None,
    *,
    portable: bool = False,
) -> Launch:
    """How this installation of Cairn is started (see the module docstring for the choice)."""
    python = executable or sys.executable
    if not python:
        from cairn.usecases.install.files import InstallError

        raise InstallError("cannot tell which Python runs Cairn (sys.executable is empty)")
    python = os.path.abspath(python)  # never resolved: a venv's python is a symlink
    fast = fast_launch_code()
    if fast and executable is None:
        hook: tuple[str, ...] = (python, "-I", "-S", "-c", fast)
    else:
        hook = (python, "-I", "-m", HOOK_MODULE)
    server = (python, "-I", "-c", _CLI_MAIN, "mcp")
    where = os.path.abspath(os.path.expanduser(os.fspath(home))) if home else None
    return Launch(hook, server, where, portable)


def fast_launch_code() -> str | None:
    """The `-c` code of the fast hook command, or None when Cairn is not a plain folder."""
    from importlib.util import find_spec  # where the package is, not its facade

    import re2  # the slow path's native module: its folder is the site-packages to add

    spec = find_spec("cairn")
    if spec is None or spec.origin is None:
        return None
    package_root = Path(spec.origin).resolve().parent.parent
    site = Path(re2.__file__).resolve().parent.parent
    if not (package_root / "cairn" / "hooks" / "entry.py").is_file():
        return None
    import json  # double quotes inside: the command line quotes it with single quotes

    # Cairn's folder first; site-packages (for RE2 and tree-sitter) last, after the standard
    # library, where `site` would have put it: prepended, it would be searched (and listed)
    # for every standard module the hook imports.
    code = f"import sys;sys.path[:0]={json.dumps([str(package_root)])};"
    if site != package_root:
        code += f"sys.path.append({json.dumps(str(site))});"
    return code + f"from {HOOK_MODULE} import console_main;console_main()"


def is_cairn_hook(command: object) -> bool:
    """True for a hook command Cairn wrote (it runs `cairn.hooks.entry` or `cairn-hook`)."""
    if not isinstance(command, str):
        return False
    return HOOK_MODULE in command or _SCRIPT_WORD.search(command) is not None


def split_command(command: str) -> tuple[dict[str, str], list[str]]:
    """A hook command's leading `NAME=value` assignments, and the argv after them."""
    try:
        words = shlex.split(command)
    except ValueError:
        return {}, command.split()
    env: dict[str, str] = {}
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    return env, words
