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
`cairn.core.shell.argv.Word`): `git $SUB`, `git "$(x)"` or `git COMMIT` perform no action.
A `--help` or `--version` among the leading options means no subcommand runs.
"""

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from cairn.core.shell.argv import Options, Word, basename, options, skip_options
from cairn.core.shell.parse import argvs

__all__ = [
    "GH_GROUPS",
    "action_for",
    "action_programs",
    "action_words",
    "actions",
    "git_subcommand",
    "known_action",
]

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


def actions(command: str, git_aliases: Mapping[str, str] | None = None) -> list[str]:
    """The actions `command` performs, in order of appearance, each once.

    `actions("cd repo && git commit -m x") == ["git-commit"]`; quoted text, comments and
    heredoc bodies perform none, and no input makes it raise. `git_aliases` maps a git alias
    to the subcommand it runs (`{"ci": "commit"}`: `git ci` is `git-commit`).
    """
    found = (action_for(argv, git_aliases) for argv in argvs(command))
    return list(dict.fromkeys(action for action in found if action is not None))


def action_for(argv: Sequence[Word], git_aliases: Mapping[str, str] | None = None) -> str | None:
    """The action a simple command performs (`git-commit`, `pr-create`), or None.

    None too when the command only asks for help (`git commit --help`, `gh pr create -h`).
    """
    action = _action(argv, git_aliases or {})
    if action is not None and _asks_help(argv, action):
        return None
    return action


def _asks_help(argv: Sequence[Word], action: str) -> bool:
    """Does a `--help` (or, for git and gh, `-h`) come among the options, before any `--`?"""
    short = action.partition("-")[0] not in _TOOLS or action.startswith("git-")
    if action in ("git-grep", "git-ls-remote"):
        short = False  # `git grep -h` hides file names
    for word in argv[1:]:
        if word.text == "--":
            return False
        if word.text == "--help" or (short and word.text == "-h"):
            return True
    return False


def _action(argv: Sequence[Word], git_aliases: Mapping[str, str]) -> str | None:
    if not argv or not argv[0].plain:
        return None
    program = basename(argv[0].text)
    if program == "gh":
        return _gh(argv)
    if program == "hub":
        return _hub(argv, git_aliases)
    if program.startswith("git-") and _NAME.fullmatch(program[4:]):
        return program  # `git-commit`: git's own commands are programs named so
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
    if program == "git":
        sub = _git_alias(sub, git_aliases)
    if i + 1 < len(argv) and argv[i + 1].plain:
        sub = tool.aliases.get(f"{sub} {argv[i + 1].text}", sub)
    sub = tool.aliases.get(sub, sub)
    return f"{program}-{sub}" if _NAME.fullmatch(sub) else None


def _git_alias(sub: str, git_aliases: Mapping[str, str]) -> str:
    """The subcommand a git alias runs, through chains of aliases (`ci` -> `commit`)."""
    seen = {sub}
    while sub in git_aliases:
        sub = git_aliases[sub]
        if sub in seen:
            break  # git refuses a looping alias; so does this
        seen.add(sub)
    return sub


# hub (GitHub's older CLI) wraps git: its own commands are gh's, the rest are git's.
_HUB_OWN = {"pull-request": "pr-create", "ci-status": "run-list"}
_HUB_GROUPS = frozenset({"pr", "issue", "release", "gist", "api", "browse", "sync"})


def _hub(argv: Sequence[Word], git_aliases: Mapping[str, str]) -> str | None:
    i = skip_options(argv, 1, _TOOLS["git"].options)
    if i is None or i >= len(argv) or not argv[i].plain:
        return None
    sub = argv[i].text
    if sub in _HUB_OWN:
        return _HUB_OWN[sub]
    if sub in _HUB_GROUPS:
        return _gh(argv)
    return _action([Word("git", True, True), *argv[1:]], git_aliases)


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


def action_words(action: str) -> tuple[tuple[str, ...], ...]:
    """The spellings of `action`: for each, the words a command's text holds (lowercased, as
    bash joins it: quotes and backslashes dropped) when it performs `action` that way.

    A command performing `action` holds every word of at least one spelling, or, for a git
    action, runs it through a git alias (`git ci`; see `git_subcommand`). Only words all its
    forms share count: `git-commit` needs ("git", "commit") or ("hub", "commit");
    `pr-create` needs ("gh", "pr") (`gh pr new` creates one too),
    ("hub", "pr") or ("hub", "pull", "request"); `npm-install` only ("npm",) because of
    `npm i`. The hook tests these on the raw payload and skips parsing when none holds.
    """
    prefix, _, rest = action.partition("-")
    if prefix == "git":
        return (("git", rest), ("hub", rest)) if rest else (("git",), ("hub",))
    if prefix == "gh":
        words: tuple[str, ...] = ("gh", rest) if rest else ("gh",)
    elif prefix in _TOOLS:
        tool = _TOOLS[prefix]
        spellings = [spelling for spelling, sub in tool.aliases.items() if sub == rest]
        if tool.default == rest:
            spellings.append("")
        if rest and all(rest in spelling for spelling in spellings):
            return ((prefix, rest),)
        return ((prefix,),)
    else:
        pieces = [piece for piece in action.split("-") if piece]
        if len(pieces) > 1 and pieces[-1] in _GH_VERBS.values():
            pieces.pop()
        words = ("gh", *pieces)
    out = [words, ("hub", *words[1:])]
    out += [("hub", *own.split("-")) for own, name in _HUB_OWN.items() if name == action]
    return tuple(dict.fromkeys(out))


def git_subcommand(action: str) -> str:
    """The git subcommand of a git action (`git-commit` -> `commit`), '' for any other: a
    git alias may run it without the word in the command."""
    prefix, _, rest = action.partition("-")
    return rest if prefix == "git" else ""


# gh's command groups (`gh GROUP VERB` is the action GROUP-VERB), and its one-word commands.
GH_GROUPS = (
    "alias", "attestation", "auth", "cache", "codespace", "config", "extension", "gist",
    "gpg-key", "issue", "label", "org", "pr", "project", "release", "repo", "ruleset", "run",
    "search", "secret", "ssh-key", "variable", "workflow",
)  # fmt: skip


def known_action(action: str) -> str:
    """Why `action` is not one the parser can report ('' when it is): an action is
    PROGRAM-SUBCOMMAND for a program of `action_programs()`, gh's GROUP-VERB, or gh-COMMAND."""
    if not action:
        return "it names no action"
    if not _NAME.fullmatch(action):
        return "an action is lowercase letters, digits and `-`, like git-commit"
    prefix, _, rest = action.partition("-")
    if prefix in _TOOLS or prefix == "git":
        return "" if rest else f"it names the program {prefix} but no subcommand"
    if prefix == "gh":
        return "" if rest in _GH_LEAVES else f"gh has no one-word command `{rest}`"
    for group in GH_GROUPS:
        if action.startswith(group + "-") and len(action) > len(group) + 1:
            return ""
    return "it is not PROGRAM-SUBCOMMAND for a program Cairn reads, nor a gh command"


def action_programs() -> dict[str, str]:
    """What `cairn rules --list` shows: each form of action, with examples."""
    out = {f"{name}-SUBCOMMAND": f"{name} ... SUBCOMMAND" for name in _TOOLS}
    out["git-SUBCOMMAND"] = "git SUBCOMMAND, a git alias of it, git-SUBCOMMAND, hub SUBCOMMAND"
    out["make-TARGET"] = "make TARGET (the first target)"
    del out["make-SUBCOMMAND"]
    for group in GH_GROUPS:
        out[f"{group}-VERB"] = f"gh {group} VERB" + (" (hub pr ...)" if group == "pr" else "")
    for leaf in sorted(_GH_LEAVES):
        out[f"gh-{leaf}"] = f"gh {leaf}"
    return out
