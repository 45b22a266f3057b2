"""Git hooks that run `cairn learn` after merges, rewrites and branch checkouts.

Cairn adds one marked block to `post-merge`, `post-rewrite` and `post-checkout` in the
repository's hooks folder (`git rev-parse --git-path hooks`, so `core.hooksPath` and worktrees
are honoured), right after the shebang, so an `exit` in the hook's own content cannot skip it:

    #!/bin/sh
    # >>> cairn learn >>>
    ( cairn learn --quiet >/dev/null 2>&1 & ) >/dev/null 2>&1 || true
    # <<< cairn learn <<<
    ...what the hook held before...

`learn` runs in the background with its output discarded, so git never waits for it and never
fails because of it; the hook's status stays the one its own content gives (`post-checkout`'s
status becomes `git checkout`'s). Installing twice changes nothing; uninstalling removes only
the block (and the file, when nothing but a shebang is left). A hook written in another
language than the shell is left alone.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cairn.core.errors import CairnError
from cairn.io.regularfile import read_text
from cairn.io.repo.git import git

HOOKS = ("post-merge", "post-rewrite", "post-checkout")
HOOK_BYTES = 1 << 20  # a git hook is a script: one larger than this is not one Cairn edits
BEGIN = "# >>> cairn learn >>>"
END = "# <<< cairn learn <<<"
SHEBANG = "#!/bin/sh"
DEFAULT_COMMAND = "cairn learn --quiet"
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "ash"}


def hooks_dir(root: Path) -> Path | None:
    """The folder git runs hooks from for the repository at `root`, or None outside git."""
    out = git(root, "rev-parse", "--git-path", "hooks")
    if out is None or not out.strip():
        return None
    path = Path(out.strip())
    return path if path.is_absolute() else (root / path)


def block(hook: str, command: str = DEFAULT_COMMAND) -> str:
    """The lines Cairn adds to one hook.

    Rule: `post-checkout` learns only on a branch checkout (its third argument is 1), not
    when files are checked out.
    """
    run = f"( {command} >/dev/null 2>&1 & ) >/dev/null 2>&1 || true"
    if hook == "post-checkout":
        run = f'if [ "$3" = "1" ]; then {run}; fi'
    note = "# Cairn learns what happened to the code; `cairn githooks uninstall` removes this."
    return "\n".join([BEGIN, note, run, END]) + "\n"


def _split(text: str) -> tuple[str, str]:
    """(shebang line, the rest) of a hook, with Cairn's block taken out of the rest."""
    first, _, rest = text.partition("\n")
    if not first.startswith("#!"):
        first, rest = "", text
    start = rest.find(BEGIN)
    if start >= 0:
        end = rest.find(END, start)
        end = len(rest) if end < 0 else end + len(END)
        rest = rest[:start] + rest[end:].removeprefix("\n")
    return first, rest


def _is_shell(shebang: str) -> bool:
    """Does the hook run in a POSIX-like shell (or have no shebang, so git's sh runs it)?"""
    if not shebang:
        return True
    words = shebang[2:].split()
    program = words[1] if words and words[0].endswith("/env") and len(words) > 1 else ""
    program = program or (words[0].rsplit("/", 1)[-1] if words else "")
    return program in SHELLS


def install_git_hooks(root: Path, command: str = DEFAULT_COMMAND) -> dict[str, str]:
    """Add (or refresh) Cairn's block in each hook.

    Per hook: installed, updated, unchanged, or skipped (a hook in another language).
    """
    folder = hooks_dir(root)
    if folder is None:
        raise CairnError(f"{root} is not a git repository; run this inside one")
    folder.mkdir(parents=True, exist_ok=True)
    done: dict[str, str] = {}
    for hook in HOOKS:
        path = folder / hook
        old = _read_hook(path)
        if old is None:
            done[hook] = "skipped"
            continue
        shebang, rest = _split(old)
        if not _is_shell(shebang):
            done[hook] = "skipped"
            continue
        # A new (or empty) hook gets a shebang; one that ran without it is left without.
        head = shebang or ("" if old.strip() else SHEBANG)
        new = (head + "\n" if head else "") + block(hook, command) + rest
        if new == old:
            done[hook] = "unchanged"
        else:
            done[hook] = "updated" if BEGIN in old else "installed"
            path.write_text(new, encoding="utf-8")
        mode = path.stat().st_mode
        path.chmod(mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return done


def _read_hook(path: Path) -> str | None:
    """A hook's text ("" when there is none); None when it is not one Cairn edits: not a
    regular file (a FIFO would hold the read for ever), over HOOK_BYTES, or not UTF-8."""
    try:
        return read_text(path, HOOK_BYTES)
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError):
        return None


def uninstall_git_hooks(root: Path) -> dict[str, str]:
    """Remove Cairn's block from each hook; per hook: removed or absent."""
    folder = hooks_dir(root)
    done: dict[str, str] = {}
    for hook in HOOKS:
        path = folder / hook if folder is not None else None
        old = _read_hook(path) if path is not None else ""
        if path is None or not old or BEGIN not in old:
            done[hook] = "absent"
            continue
        shebang, rest = _split(old)
        if not rest.strip():
            os.remove(path)
        else:
            path.write_text((shebang + "\n" if shebang else "") + rest, encoding="utf-8")
        done[hook] = "removed"
    return done
