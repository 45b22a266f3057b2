"""Where the agent is: the project (git root, else the folder) and its current branch.

Read from the filesystem only (no `git` subprocess): the hook calls this on every tool call.
A git file that is not a regular file (a FIFO, a link to a device) or is implausibly large
reads as absent: outside git, or a detached HEAD.
"""

from __future__ import annotations

import os

from cairn.io.regularfile import read_text

# HEAD, `.git` (a worktree's pointer) and `commondir` hold one line each.
GIT_FILE_BYTES = 64 << 10

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# The hook's firing path calls the `*_dir` functions (strings and os.path, since `pathlib`
# costs it ~5 ms of imports); the Path-returning ones wrap them for the rest of Cairn.


def checkout_dir(cwd: str | os.PathLike[str] | None = None) -> str:
    """The git checkout holding `cwd` (a worktree's own folder), else `cwd` itself, resolved."""
    start = os.path.expanduser(os.fspath(cwd or os.getcwd()))
    try:
        start = os.path.realpath(start, strict=False)
    except (OSError, ValueError):
        return start
    folder = start
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return start
        folder = parent


def checkout_root(cwd: str | os.PathLike[str] | None = None) -> Path:
    """`checkout_dir` as a Path."""
    from pathlib import Path

    return Path(checkout_dir(cwd))


def project_dir(cwd: str | os.PathLike[str] | None = None) -> str:
    """The project of `cwd`: the main repository's root (a worktree maps to the repository it
    belongs to, so all its sessions share one project), else the folder itself."""
    root = checkout_dir(cwd)
    gd = git_dir_of(root)
    if gd is None or os.path.isdir(os.path.join(root, ".git")):
        return root
    try:
        common = read_text(os.path.join(gd, "commondir"), GIT_FILE_BYTES).strip()
        common_dir = os.path.realpath(os.path.join(gd, common))
    except (OSError, ValueError):
        return root
    if os.path.basename(common_dir) == ".git":
        return os.path.dirname(common_dir)
    return root


def project_root(cwd: str | os.PathLike[str] | None = None) -> Path:
    """`project_dir` as a Path."""
    from pathlib import Path

    return Path(project_dir(cwd))


def git_dir_of(root: str | os.PathLike[str]) -> str | None:
    """The git directory of a checkout (follows a worktree's `.git` file)."""
    dot_git = os.path.join(os.fspath(root), ".git")
    if os.path.isdir(dot_git):
        return dot_git
    if os.path.isfile(dot_git):
        try:
            text = read_text(dot_git, GIT_FILE_BYTES).strip()
        except (OSError, ValueError):
            return None
        if text.startswith("gitdir:"):
            path = text[len("gitdir:") :].strip()
            if os.path.isabs(path):
                return path
            return os.path.realpath(os.path.join(os.fspath(root), path))
    return None


def git_dir(root: Path) -> Path | None:
    """`git_dir_of` as a Path."""
    from pathlib import Path

    found = git_dir_of(root)
    return None if found is None else Path(found)


def current_branch(root: str | os.PathLike[str]) -> str:
    """The checked-out branch name, `""` outside git or on a detached HEAD."""
    gd = git_dir_of(root)
    if gd is None:
        return ""
    try:
        head = read_text(os.path.join(gd, "HEAD"), GIT_FILE_BYTES).strip()
    except (OSError, ValueError):
        return ""
    prefix = "ref: refs/heads/"
    return head[len(prefix) :] if head.startswith(prefix) else ""


def refs_signature(root: Path) -> tuple[int, ...] | None:
    """A cheap fingerprint of where the branches point: mtimes of HEAD, packed-refs and the
    ref folders (git renames a ref file into place, so its folder's mtime moves).

    None outside git. No subprocess: recall calls this before every search.
    """
    gd = git_dir(root)
    if gd is None:
        return None
    common = gd
    try:  # noqa: SIM105 - contextlib costs the hook an import
        common = (gd / read_text(gd / "commondir", GIT_FILE_BYTES).strip()).resolve()
    except (OSError, ValueError):
        pass  # not a worktree: the refs are in this git directory
    stamps: list[int] = []
    for place in (
        gd / "HEAD",
        common / "packed-refs",
        common / "refs" / "heads",
        common / "refs" / "remotes",
    ):
        try:
            stamps.append(place.stat().st_mtime_ns)
        except OSError:
            stamps.append(0)
        if place.is_dir():
            for sub in sorted(place.rglob("*")):
                if sub.is_dir():
                    stamps.append(sub.stat().st_mtime_ns)
    return tuple(stamps)


# An agent's `cwd` (the MCP tools take one on every call) is at most this long (PATH_MAX).
MAX_CWD = 4096


def agent_project(cwd: str, *, base: str, own_project: str) -> tuple[str, str]:
    """(folder, project) for the `cwd` an agent names; QueryError when it is not a project.

    `cwd` is at most MAX_CWD characters naming an existing folder (a relative one is taken
    from `base`). Its project (git root, else the folder) must be a git checkout, the
    caller's own project (`own_project`), or a folder inside the user's home folder other
    than the home folder itself; never the filesystem root. So a call cannot make `/etc`,
    `/` or the whole home folder a project whose files its citations would read.
    """
    from cairn.core.errors import QueryError

    if len(cwd) > MAX_CWD or "\0" in cwd:
        raise QueryError(
            f"cwd is not a folder name ({len(cwd)} characters); pass the folder you work in"
        )
    shown = cwd if len(cwd) <= 200 else cwd[:200] + "..."
    where = os.path.expanduser(cwd)
    if not os.path.isabs(where):
        where = os.path.join(base, where)
    try:
        is_folder = os.path.isdir(where)
        project = project_dir(where) if is_folder else ""
    except (OSError, ValueError):
        is_folder = False
    if not is_folder:
        raise QueryError(f"cwd {shown!r} is not a folder; pass the folder you work in")
    user_home = os.path.realpath(os.path.expanduser("~"))
    inside_home = project.startswith(user_home.rstrip("/") + "/") and project != user_home
    in_git = git_dir_of(checkout_dir(where)) is not None
    own = project == os.path.realpath(own_project)
    if project == os.path.dirname(project) or not (in_git or own or inside_home):
        raise QueryError(
            f"cwd {shown!r} is not a project folder: pass the folder you work in (a git "
            "checkout, or a folder in your home folder)"
        )
    return where, project


# A git config file is a few KB; one past this is not read (its aliases count as none).
GIT_CONFIG_BYTES = 256 << 10


def git_aliases(root: str | os.PathLike[str]) -> dict[str, str]:
    """The git aliases a command in checkout `root` can use: `alias.NAME = VALUE` from the
    user's git config (`$GIT_CONFIG_GLOBAL`, else `~/.config/git/config` and `~/.gitconfig`)
    and the repository's (which wins), each NAME mapped to the first word of VALUE.

    Read cheaply: a stat of each file, and a bounded read only when one changed since the
    last call of this process. A shell alias (`!git commit`) is left out, and so are
    `[include]` files; a file that is missing, not a regular file or too large counts as empty.
    """
    paths = _user_git_configs()
    git_dir = git_dir_of(root)
    if git_dir is not None:
        common = git_dir
        try:
            pointer = read_text(os.path.join(git_dir, "commondir"), GIT_FILE_BYTES).strip()
        except (OSError, ValueError):
            pointer = ""
        if pointer:  # a worktree: the config is the main repository's
            common = os.path.normpath(os.path.join(git_dir, pointer))
        paths.append(os.path.join(common, "config"))
    stamps = []
    for path in paths:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        stamps.append((path, st.st_mtime_ns, st.st_size))
    return resolve_git_aliases(dict(_aliases_of(tuple(stamps))))


def resolve_git_aliases(aliases: dict[str, str]) -> dict[str, str]:
    """Each alias mapped to what it finally runs, through aliases of aliases (`c` -> `ci` ->
    `commit`); a loop stays as git would leave it, unresolved."""
    out: dict[str, str] = {}
    for name, sub in aliases.items():
        seen = {name}
        while sub in aliases and sub not in seen:
            seen.add(sub)
            sub = aliases[sub]
        out[name] = sub
    return out


def _user_git_configs() -> list[str]:
    explicit = os.environ.get("GIT_CONFIG_GLOBAL")
    if explicit:
        return [explicit]
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return [os.path.join(xdg, "git", "config"), os.path.join(os.path.expanduser("~"), ".gitconfig")]


_ALIAS_CACHE: dict[tuple[tuple[str, int, int], ...], tuple[tuple[str, str], ...]] = {}


def _aliases_of(stamps: tuple[tuple[str, int, int], ...]) -> tuple[tuple[str, str], ...]:
    """The aliases of these files (later files win), read once per change of any of them."""
    found = _ALIAS_CACHE.get(stamps)
    if found is None:
        aliases: dict[str, str] = {}
        for path, _mtime, _size in stamps:
            try:
                text = read_text(path, GIT_CONFIG_BYTES, errors="replace")
            except (OSError, ValueError):
                continue
            aliases.update(parse_git_aliases(text))
        found = tuple(aliases.items())
        if len(_ALIAS_CACHE) > 16:
            _ALIAS_CACHE.clear()
        _ALIAS_CACHE[stamps] = found
    return found


def parse_git_aliases(text: str) -> dict[str, str]:
    """`alias.NAME` -> the first word of its value, from a git config file's text.

    Names are case-insensitive in git, so lowercased; a value in double quotes is unquoted;
    `#` and `;` start a comment outside quotes; a shell alias (`!...`) is left out.
    """
    out: dict[str, str] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            close = line.find("]")
            section = line[1:close].strip().lower() if close > 0 else ""
            line = line[close + 1 :].strip() if close > 0 else ""
            if not line:
                continue
        if section != "alias" or "=" not in line or line[0] in "#;":
            continue
        name, _, value = line.partition("=")
        value = _config_value(value)
        if value.startswith("!") or not value.split():
            continue
        out[name.strip().lower()] = value.split()[0]
    return out


def _config_value(value: str) -> str:
    """A git config value: comments cut, double quotes removed."""
    out, quoted = [], False
    for char in value.strip():
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


# The key a project is known by across machines: `git:HOST/PATH` of the repository's remote,
# else the project's folder. Read from the repository's config file (no `git` subprocess), once
# per change of that file in a process.
REMOTE_KEY_PREFIX = "git:"
# The remote named first wins; failing those, the first remote (by name) the config defines.
PREFERRED_REMOTES = ("origin", "upstream")
_KEY_CACHE: dict[tuple[str, int, int], str | None] = {}


def project_key(root: str | os.PathLike[str]) -> str:
    """The key of the project at folder `root`, the same on every machine that cloned it.

    `git:HOST/PATH` from the repository's remote URL (`normalise_remote`), the remote being
    `origin`, else `upstream`, else the first by name; a git worktree reads the config of the
    repository it belongs to, a submodule its own. Without a repository or a remote, or when
    the config cannot be read (not a regular file, larger than GIT_CONFIG_BYTES), the folder
    itself (`root` resolved), as before. Reads `config` only: no subprocess, no object parsing
    (finding the root commit means inflating the history, so it is not used).
    """
    folder = os.path.realpath(os.fspath(root))
    gd = git_dir_of(folder)
    if gd is None:
        return folder
    common = gd
    try:
        pointer = read_text(os.path.join(gd, "commondir"), GIT_FILE_BYTES).strip()
    except (OSError, ValueError):
        pointer = ""
    if pointer:  # a worktree: the remotes are the main repository's
        common = os.path.normpath(os.path.join(gd, pointer))
    config = os.path.join(common, "config")
    try:
        st = os.stat(config)
    except (OSError, ValueError):
        return folder
    stamp = (config, st.st_mtime_ns, st.st_size)
    if stamp not in _KEY_CACHE:
        if len(_KEY_CACHE) > 16:
            _KEY_CACHE.clear()
        try:
            text = read_text(config, GIT_CONFIG_BYTES, errors="replace")
        except (OSError, ValueError):
            return folder
        _KEY_CACHE[stamp] = _key_of_remotes(parse_git_remotes(text))
    return _KEY_CACHE[stamp] or folder


def _key_of_remotes(remotes: dict[str, str]) -> str | None:
    for name in (*PREFERRED_REMOTES, *sorted(remotes)):
        if name in remotes:
            found = normalise_remote(remotes[name])
            if found:
                return REMOTE_KEY_PREFIX + found
    return None


def parse_git_remotes(text: str) -> dict[str, str]:
    """`remote.NAME.url` of a git config file's text: NAME (case kept, as git does) -> URL.

    The last `url` of a remote wins, as for any single-valued key; `[include]` files are not
    followed.
    """
    out: dict[str, str] = {}
    remote: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            close = line.find("]")
            header = line[1:close].strip() if close > 0 else ""
            remote = None
            section, _, sub = header.partition(" ")
            sub = sub.strip()
            if section.lower() == "remote" and len(sub) >= 2 and sub[0] == sub[-1] == '"':
                remote = sub[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            elif section.lower().startswith("remote."):  # the old `[remote.NAME]` spelling
                remote = header[len("remote.") :]
            line = line[close + 1 :].strip() if close > 0 else ""
            if not line:
                continue
        if remote is None or "=" not in line or line[0] in "#;":
            continue
        name, _, value = line.partition("=")
        if name.strip().lower() == "url":
            url = _config_value(value)
            if url:
                out[remote] = url
    return out


def normalise_remote(url: str) -> str:
    """`host/path` of a git remote URL, the same for its SSH and HTTPS spellings; `""` when
    it names no repository.

    The scheme, any user name or password and the port are dropped (a credential never
    reaches the key); the host is lowercased; the path keeps its case, loses a trailing `/`
    and `.git`, and has repeated `/` joined. `git@host:org/repo.git`,
    `ssh://git@host:22/org/repo` and `https://user:token@host/org/repo.git/` all give
    `host/org/repo`. A local path (`/srv/git/repo.git`, `file:///srv/git/repo`) gives
    `/srv/git/repo`: only clones of the same path on each machine share it.
    """
    text = url.strip()
    if not text or any(c.isspace() or ord(c) < 32 for c in text):
        return ""
    scheme, sep, rest = text.partition("://")
    if sep and scheme.lower() == "file":
        host, path = "", rest
    elif sep:
        if not scheme.replace("+", "").replace("-", "").isalnum():
            return ""
        authority, slash, path = rest.partition("/")
        host = _bare_host(authority)
        path = (slash + path).partition("?")[0].partition("#")[0]
    elif text.startswith("/") or text.startswith("."):
        host, path = "", text  # a local path (relative ones name different places per machine)
    else:
        user, at, where = text.partition("@") if "@" in text.partition(":")[0] else ("", "", text)
        end = where.find("]:") + 1 if where.startswith("[") else where.find(":")
        authority, path = user + at + where[: max(end, 0)], where[end + 1 :]
        if end <= 0 or "/" in authority:
            return ""  # neither `host:path` (scp form) nor a URL
        host = _bare_host(authority)
    if path.startswith("/~") and host:
        path = path[1:]
    parts = [p for p in path.split("/") if p]
    if parts and parts[-1].endswith(".git"):
        parts[-1] = parts[-1][: -len(".git")]
    parts = [p for p in parts if p]
    if not parts or (not host and not path.startswith("/")) or ".." in parts:
        return ""
    joined = "/".join(parts)
    return f"{host}/{joined}" if host else "/" + joined


def _bare_host(authority: str) -> str:
    """The host of `user:password@host:port`, lowercased, without user, password or port."""
    host = authority.rpartition("@")[2]
    if host.startswith("["):  # an IPv6 address: `[::1]:22`
        return host[: host.find("]") + 1].lower() if "]" in host else ""
    return host.partition(":")[0].lower()
