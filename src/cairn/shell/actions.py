"""A simple command's argv -> the action it performs, and the words each action needs.

An action is named `PROGRAM-SUBCOMMAND`, from the first operand after the program's leading
global options, for the programs below; any other program performs no action.

    program          leading options that take a value           subcommand spellings folded
    ---------------  ------------------------------------------  ----------------------------
    git              -c -C --git-dir --work-tree --namespace     none (git aliases are the
                     --config-env --super-prefix --list-cmds     user's own config)
                     --attr-source
    npm              -C -w --prefix --workspace --registry ...   i/add -> install, t -> test,
                                                                 rm/un -> uninstall, ...
    pnpm             -C -F --dir --filter                        i -> install, rm -> remove...
    yarn             --cwd                                       bare `yarn` -> install
    bun              --cwd                                       i, a, rm
    docker           -c -H -l --context --host --config ...      `image push` -> push,
                                                                 `buildx build` -> build, ...
    kubectl          -n -s --namespace --context --kubeconfig    none
    helm             -n --namespace --kube-context ...           del/un -> uninstall, ls
    terraform, tofu  (-chdir=DIR takes its value attached)       none
    cargo            +toolchain, -Z, -C, --config, --color       b c d t r rm
    pip (pip3...)    --python --cache-dir --proxy ...            none
    uv               --directory --project --cache-dir ...       none
    poetry           -C -P --directory --project                 none
    twine, go        (go -C DIR)                                 none
    make             -C -f -I -o -W; VAR=value and job counts    the first target is the
                     are skipped                                 subcommand: make-release

`gh` names its own: `gh GROUP VERB` is `GROUP-VERB` (`gh pr create` and `gh pr new` are
`pr-create`, `gh issue ls` is `issue-list`), skipping `-R/--repo OWNER/REPO` wherever it
stands; the few one-word commands (`gh api`, `gh browse`, ...) are `gh-api`, `gh-browse`. A
gh group named like a program above (`gh git ...`) gives no action, so names never collide.

A subcommand must be spelled in lowercase (`[a-z][a-z0-9._:-]*`) by a plain word (see
`cairn.shell.argv.Word`): `git $SUB`, `git "$(x)"` or `git COMMIT` perform no action.
A `--help` or `--version` among the leading options means no subcommand runs.
"""

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from cairn.shell.argv import Options, Word, basename, options, skip_options
from cairn.shell.parse import argvs

__all__ = ["action_for", "action_words", "actions"]

_NAME = re.compile(r"[a-z][a-z0-9._:-]*")
_PIP = re.compile(r"pip[0-9.]*")


# NamedTuple, not a dataclass: `dataclasses` pulls in `inspect`, milliseconds the hook would
# pay on every shell command.
class _Tool(NamedTuple):
    options: Options
    # spelling -> canonical subcommand; a two-word spelling ("image push") is a group + verb
    aliases: Mapping[str, str] = MappingProxyType({})
    default: str | None = None  # run when no subcommand is given
    toolchain: bool = False  # a leading `+nightly` selects a toolchain
    targets: bool = False  # make: VAR=value operands and a bare job count are not targets


def _aliases(table: str) -> dict[str, str]:
    """`"install: i in; test: t"` -> {"i": "install", "in": "install", "t": "test"}."""
    out: dict[str, str] = {}
    for entry in table.split(";"):
        canonical, _, spellings = entry.partition(":")
        for spelling in spellings.split(","):
            out[spelling.strip()] = canonical.strip()
    return out


_TOOLS: dict[str, _Tool] = {
    "git": _Tool(
        options(
            "cC",
            "git-dir work-tree namespace config-env super-prefix list-cmds attr-source",
            "-v -h --exec-path --html-path --man-path --info-path",
        )
    ),
    "npm": _Tool(
        options(
            "Cw",
            "prefix workspace registry loglevel userconfig globalconfig cache otp tag scope",
            "-v -h",
        ),
        _aliases(
            "install: i, in, ins, inst, insta, instal, isnt, isnta, isntal, isntall, add;"
            "ci: clean-install, ic, install-clean, isntall-clean; test: t, tst;"
            "run: run-script, rum, urn; uninstall: un, unlink, remove, rm, r;"
            "update: up, upgrade, udpate; exec: x; version: verison; list: ls, la, ll;"
            "install-test: it; link: ln"
        ),
    ),
    "pnpm": _Tool(
        options("CF", "dir filter reporter loglevel", "-v -h"),
        _aliases(
            "install: i; remove: rm, uninstall, un; update: up, upgrade; run: run-script;"
            "test: t, tst; list: ls"
        ),
    ),
    "yarn": _Tool(options(long="cwd", stop="-v -h"), default="install"),
    "bun": _Tool(options(long="cwd", stop="-v -h"), _aliases("install: i; add: a; remove: rm")),
    "docker": _Tool(
        options("cHl", "config context host log-level tlscacert tlscert tlskey", "-v -h"),
        _aliases(
            "push: image push; pull: image pull; build: image build, buildx build, builder build;"
            "tag: image tag; run: container run; exec: container exec"
        ),
    ),
    "kubectl": _Tool(
        options(
            "nsv",
            "namespace context cluster kubeconfig user server token as as-group as-uid"
            " request-timeout cache-dir certificate-authority client-certificate client-key"
            " tls-server-name password username profile profile-output log-file",
        )
    ),
    "helm": _Tool(
        options(
            "n",
            "namespace kube-context kubeconfig registry-config repository-cache"
            " repository-config burst-limit kube-apiserver kube-as-group kube-as-user"
            " kube-ca-file kube-token qps",
            "-h",
        ),
        _aliases("uninstall: del, delete, un; list: ls"),
    ),
    "terraform": _Tool(options(stop="-version -help -v -h")),
    "tofu": _Tool(options(stop="-version -help -v -h")),
    "cargo": _Tool(
        options("ZC", "color config", "-V --list -h"),
        _aliases("build: b; check: c; doc: d; test: t; run: r; remove: rm"),
        toolchain=True,
    ),
    "pip": _Tool(
        options(
            long="python log proxy retries timeout exists-action trusted-host cert client-cert"
            " cache-dir use-feature use-deprecated",
            stop="-V -h",
        )
    ),
    "uv": _Tool(options(long="directory project cache-dir config-file color python", stop="-V")),
    "poetry": _Tool(options("CP", "directory project", "-V -h")),
    "twine": _Tool(options(stop="-v -h")),
    "go": _Tool(options("C")),
    "make": _Tool(
        options(
            "CfIoW",
            "directory file makefile include-dir old-file what-if new-file assume-new assume-old",
            "-v -h",
        ),
        targets=True,
    ),
}

_GH_OPTIONS = options("R", "repo", "-h")
_GH_LEAVES = frozenset({"api", "browse", "status", "completion", "help", "version"})
# A group named like a program here (`gh git ...`, `gh gh ...`) would give a name that
# action_words reads as that program's action, so such a group gives none.
_GH_RESERVED = frozenset({*_TOOLS, "gh"})
# Verb aliases gh defines on many groups (`gh pr new`, `gh issue ls`, `gh repo new`, ...).
_GH_VERBS = {"new": "create", "ls": "list"}


def actions(command: str) -> list[str]:
    """The actions `command` performs, in order of appearance, each once.

    `actions("cd repo && git commit -m x") == ["git-commit"]`; quoted text, comments and
    heredoc bodies perform none, and no input makes it raise.
    """
    found = (action_for(argv) for argv in argvs(command))
    return list(dict.fromkeys(action for action in found if action is not None))


def action_for(argv: Sequence[Word]) -> str | None:
    """The action a simple command performs (`git-commit`, `pr-create`), or None."""
    if not argv or not argv[0].plain:
        return None
    program = basename(argv[0].text)
    if program == "gh":
        return _gh(argv)
    if _PIP.fullmatch(program):
        program = "pip"
    tool = _TOOLS.get(program)
    if tool is None:
        return None
    start = 2 if tool.toolchain and len(argv) > 1 and argv[1].text.startswith("+") else 1
    while True:
        i = skip_options(argv, start, tool.options)
        if i is None:
            return None
        if not (tool.targets and i < len(argv) and _not_target(argv[i].text)):
            break
        start = i + 1
    if i >= len(argv):
        return f"{program}-{tool.default}" if tool.default else None
    if not argv[i].plain:
        return None
    sub = argv[i].text
    if i + 1 < len(argv) and argv[i + 1].plain:
        sub = tool.aliases.get(f"{sub} {argv[i + 1].text}", sub)
    sub = tool.aliases.get(sub, sub)
    return f"{program}-{sub}" if _NAME.fullmatch(sub) else None


def _not_target(text: str) -> bool:
    return "=" in text or text.isdigit()


def _gh(argv: Sequence[Word]) -> str | None:
    i = skip_options(argv, 1, _GH_OPTIONS)
    if i is None or i >= len(argv) or not argv[i].plain:
        return None
    group = argv[i].text
    if group in _GH_LEAVES:
        return f"gh-{group}"
    if not _NAME.fullmatch(group) or group.partition("-")[0] in _GH_RESERVED:
        return None
    j = skip_options(argv, i + 1, _GH_OPTIONS)
    if j is None or j >= len(argv) or not argv[j].plain:
        return None
    verb = _GH_VERBS.get(argv[j].text, argv[j].text)
    return f"{group}-{verb}" if _NAME.fullmatch(verb) else None


def action_words(action: str) -> tuple[str, ...]:
    """The words a command's text must contain (lowercased) for `action` to fire.

    Only words every spelling shares count: `git-commit` needs ("git", "commit"), but
    `pr-create` needs only ("gh", "pr") because `gh pr new` creates one too, and
    `npm-install` only ("npm",) because of `npm i`. The hook tests these against the raw
    command and skips parsing when one is missing.
    """
    prefix, _, rest = action.partition("-")
    if prefix == "gh":
        return ("gh", rest) if rest else ("gh",)
    tool = _TOOLS.get(prefix)
    if tool is not None:
        spellings = [spelling for spelling, sub in tool.aliases.items() if sub == rest]
        if tool.default == rest:
            spellings.append("")
        if rest and all(rest in spelling for spelling in spellings):
            return (prefix, rest)
        return (prefix,)
    pieces = [piece for piece in action.split("-") if piece]
    if len(pieces) > 1 and pieces[-1] in _GH_VERBS.values():
        pieces.pop()
    return ("gh", *pieces)
