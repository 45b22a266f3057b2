"""Reading, merging and writing agents' config files without losing a byte of the user's.

Rules every agent module follows through these functions:

- A file that is not valid JSON (or TOML) is refused with `InstallError`; it is never
  overwritten.
- Nothing is written when the parsed content would not change (a second run is a no-op).
- Before an existing config file changes, its bytes are kept under Cairn's own data folder
  (`<store>/backups/<file name>-<hash of its path>/<UTC time>`, private to the user), never
  beside the file: a backup in the project would show in `git status` with whatever the file
  held (a token in a git-ignored `.mcp.json`). An unchanged copy is not kept twice, and only
  the newest `BACKUPS_KEPT` copies of each file stay. `cairn setup --uninstall` lists them.
- Writes are atomic (a temp file in the same folder, then `os.replace`) and keep the mode.
- Uninstall restores a backup's exact bytes when the file holds nothing but what that backup
  held plus Cairn's entries (the file was not touched since); otherwise it removes Cairn's
  entries from the parsed content and writes it back in the file's own indentation.

Codex's `config.toml` is edited as text: Cairn's tables live in one block between two marker
comments (`BLOCK_BEGIN` ... `BLOCK_END`), appended at the end, replaced or removed whole, and the
result is checked with `tomllib` before anything is written.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import tomlkit

from cairn.core.context import utcnow
from cairn.core.errors import CairnError
from cairn.io.regularfile import read_bytes as read_regular
from cairn.io.regularfile import size_text
from cairn.usecases.install import jsonc

BACKUPS_KEPT = 3
FOLDERS = "folders.txt"  # beside the backups: the folders setup created, removed when empty
ORIGIN = "path.txt"  # in each backup folder: the absolute path of the file it backs up
# An agent's config file is read whole; `~/.claude.json` keeps each project's history and
# grows to megabytes, so the bound is generous.
CONFIG_BYTES = 64 << 20
BLOCK_BEGIN = "# >>> cairn: written by `cairn setup`; `cairn setup AGENT --uninstall` removes it"
BLOCK_END = "# <<< cairn"
JsonObject = dict[str, Any]


class InstallError(CairnError):
    """A config file Cairn must change cannot be read, parsed or safely changed."""

    exit_code = 7


@dataclass(frozen=True)
class Edit:
    """One file's planned content: `after` None deletes it; `backup` copies the old one first."""

    path: Path
    before: bytes | None
    after: bytes | None
    backup: bool = True

    @property
    def action(self) -> str:
        """create, update, delete or unchanged."""
        if self.before == self.after:
            return "unchanged"
        if self.before is None:
            return "create"
        return "delete" if self.after is None else "update"

    def diff(self) -> str:
        """A unified diff of the change ('' when unchanged)."""
        if self.action == "unchanged":
            return ""
        old = _text(self.before).splitlines(keepends=True)
        new = _text(self.after).splitlines(keepends=True)
        lines = difflib.unified_diff(
            old,
            new,
            fromfile="/dev/null" if self.before is None else f"a{self.path}",
            tofile="/dev/null" if self.after is None else f"b{self.path}",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in lines
        )


def _text(raw: bytes | None) -> str:
    return "" if raw is None else raw.decode("utf-8", errors="replace")


def read_bytes(path: Path) -> bytes | None:
    """A config file's bytes, or None when it does not exist.

    Only a regular file (a link to one is followed: dotfile managers link them), without
    blocking and up to CONFIG_BYTES; anything else is an InstallError naming it.
    """
    try:
        return read_regular(path, CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(
            f"cannot read {path}: {exc.strerror or exc}; setup edits only a regular file "
            f"of at most {size_text(CONFIG_BYTES)}"
        ) from exc


# -- JSON -----------------------------------------------------------------------------------
def parse_json(path: Path, raw: bytes | None, *, comments: bool = False) -> JsonObject:
    """The JSON object in a config file ({} when missing or empty); refuses anything else.

    `comments`: the file is JSONC (`//`, `/* */`, trailing commas), as Gemini CLI's and
    OpenCode's are; elsewhere a comment is refused, as the agent itself would refuse it.
    """
    tree = _tree(path, raw, comments)
    return {} if tree is None else dict(tree.value)


def _tree(path: Path, raw: bytes | None, comments: bool) -> jsonc.Node | None:
    if raw is None or not raw.strip():
        return None
    try:
        tree = jsonc.parse(raw.decode("utf-8-sig"), comments=comments)
    except (UnicodeDecodeError, jsonc.JsonSyntaxError) as exc:
        kind = "JSON (comments allowed)" if comments else "JSON"
        raise InstallError(
            f"{path} is not valid {kind} ({exc}); fix or move it, then run `cairn setup` "
            f"again (nothing was written)"
        ) from exc
    if tree.kind != "object":
        raise InstallError(
            f"{path} holds a JSON {type(tree.value).__name__}, not an object; nothing was written"
        )
    return tree


def write_json(path: Path, data: JsonObject, raw: bytes | None, *, comments: bool = False) -> bytes:
    """`data` as the new text of a file that held `raw`: only what changed is rewritten
    (`cairn.usecases.install.jsonc.patch`), so comments, compact arrays and spacing stay; a new file
    is written in two-space indentation."""
    tree = _tree(path, raw, comments)
    if tree is None or raw is None:
        return dump_json(data, raw)
    bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""
    text = bom + jsonc.patch(raw.decode("utf-8-sig"), tree, data)
    if jsonc.parse(text.removeprefix(bom), comments=comments).value != data:
        raise InstallError(f"cannot edit {path} in place; nothing was written")
    return text.encode("utf-8")


def dump_json(data: JsonObject, like: bytes | None) -> bytes:
    """`data` as JSON in the indentation of `like` (2 spaces by default), newline-terminated."""
    indent: str | int = 2
    if like:
        found = re.search(rb"[{\[]\r?\n([ \t]+)\S", like)
        if found:
            indent = found.group(1).decode()
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    if like is None or like.endswith(b"\n") or not like.strip():
        text += "\n"
    return text.encode("utf-8")


def section(data: JsonObject, key: str, where: Path) -> JsonObject:
    """`data[key]` as an object, created when missing; refuses a non-object value."""
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise InstallError(
            f"{where}: `{key}` is a {type(value).__name__}, not an object; nothing was written"
        )
    return value


def without_empty(value: Any) -> Any:
    """`value` with empty objects and lists removed at every depth (for comparisons only)."""
    if isinstance(value, dict):
        out = {k: without_empty(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v != {} and v != []}
    if isinstance(value, list):
        return [without_empty(v) for v in value]
    return value


def json_edit(
    path: Path,
    change: Callable[[JsonObject], None],
    *,
    uninstall: bool,
    backups: Path,
    comments: bool = False,
    empty: Callable[[JsonObject], bool] = lambda d: not without_empty(d),
) -> Edit:
    """The edit that applies `change` (which adds or strips Cairn's entries) to a JSON file.

    On uninstall, a backup holding exactly the stripped content gives back its own bytes, and
    a file left `empty` with no such backup (Cairn created it) is deleted without a backup.
    """
    raw = read_bytes(path)
    data = parse_json(path, raw, comments=comments)
    new = copy.deepcopy(data)
    change(new)
    if new == data:
        return Edit(path, raw, raw)
    if not uninstall:
        return Edit(path, raw, write_json(path, new, raw, comments=comments))
    # Uninstall keeps no copy: it takes out only Cairn's entries, which setup put in.
    original = restorable(path, new, change, backups, comments)
    if original is not None:
        return Edit(path, raw, original, backup=False)
    if empty(new):  # Cairn created the file: it goes, with no backup of Cairn's own entries
        return Edit(path, raw, None, backup=False)
    return Edit(path, raw, write_json(path, new, raw, comments=comments), backup=False)


def restorable(
    path: Path,
    stripped: JsonObject,
    strip: Callable[[JsonObject], None],
    root: Path,
    comments: bool = False,
) -> bytes | None:
    """The bytes of the newest backup that holds `stripped` and none of Cairn's entries."""
    want = without_empty(stripped)
    for backup in backups(root, path):
        try:
            raw = read_regular(backup, CONFIG_BYTES)
            data = parse_json(backup, raw, comments=comments)
        except (OSError, InstallError):
            continue
        clean = copy.deepcopy(data)
        strip(clean)
        if clean == data and without_empty(data) == want:
            return raw
    return None


# -- backups and writing --------------------------------------------------------------------
def backup_folder(root: Path, path: Path) -> Path:
    """The folder holding the backups of `path`: ROOT/<file name>-<12 hex of its path>."""
    digest = hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()[:12]
    return root / f"{path.name}-{digest}"


def backups(root: Path, path: Path) -> list[Path]:
    """Cairn's backups of a file, newest first (each named `<sequence>-<UTC time>`)."""
    folder = backup_folder(root, path)
    try:
        found = [p for p in folder.iterdir() if _sequence(p) is not None and p.is_file()]
    except OSError:
        return []
    return sorted(found, key=lambda p: _sequence(p) or 0, reverse=True)


def _sequence(backup: Path) -> int | None:
    head = backup.name.partition("-")[0]
    return int(head) if head.isdigit() else None


def kept_backups(root: Path) -> dict[Path, list[Path]]:
    """Every file Cairn keeps backups of under `root`: its path -> its backups, newest first."""
    out: dict[Path, list[Path]] = {}
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return out
    for folder in folders:
        try:
            origin = Path((folder / ORIGIN).read_text(encoding="utf-8").strip())
        except (OSError, UnicodeDecodeError):
            continue
        found = backups(root, origin)
        if found:
            out[origin] = found
    return out


def save_backup(root: Path, path: Path, data: bytes, now: datetime | None = None) -> Path:
    """Keep `data` (the bytes of `path` before a change) under `root`; returns the copy.

    The copy is readable by the user only (it may hold a token). A copy equal to the newest
    one is not written again; past BACKUPS_KEPT copies, the oldest go.
    """
    folder = backup_folder(root, path)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    origin = folder / ORIGIN
    if not origin.exists():
        origin.write_text(os.path.abspath(path) + "\n", encoding="utf-8")
    found = backups(root, path)
    if found and found[0].read_bytes() == data:
        return found[0]
    stamp = (now or utcnow()).strftime("%Y%m%dT%H%M%SZ")
    number = (_sequence(found[0]) or 0) + 1 if found else 1
    saved = folder / f"{number:06d}-{stamp}"
    fd = os.open(saved, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    for old in backups(root, path)[BACKUPS_KEPT:]:
        old.unlink(missing_ok=True)
    return saved


def apply(edit: Edit, backups_root: Path) -> Path | None:
    """Carry out an edit; returns the backup kept, if any."""
    if edit.action == "unchanged":
        return None
    saved = None
    try:
        if edit.before is not None and edit.backup:
            saved = save_backup(backups_root, edit.path, edit.before)
        if edit.after is None:
            edit.path.unlink(missing_ok=True)
            remove_empty_folders(backups_root, edit.path.parent)
        else:
            note_new_folders(backups_root, edit.path.parent)
            _write_atomic(edit.path, edit.after)
    except OSError as exc:
        failed = edit.path if saved is not None or not edit.backup else backups_root
        raise InstallError(f"cannot write {failed}: {exc.strerror or exc}") from exc
    return saved


def note_new_folders(root: Path, folder: Path) -> None:
    """Record in ROOT/folders.txt the folders about to be created to hold a file in `folder`."""
    missing = []
    while not folder.exists() and folder.parent != folder:
        missing.append(os.path.abspath(folder))
        folder = folder.parent
    if missing:
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(root / FOLDERS, "a", encoding="utf-8") as out:
            out.writelines(f"{path}\n" for path in missing)


def remove_empty_folders(root: Path, folder: Path) -> None:
    """Remove `folder` and its parents while each is empty and was created by setup (listed
    in ROOT/folders.txt): uninstall leaves no folder it made, and never one of the user's."""
    try:
        made = set((root / FOLDERS).read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return
    removed = set()
    while os.path.abspath(folder) in made:
        try:
            folder.rmdir()  # only an empty folder: anything the user put there keeps it
        except OSError:
            break
        removed.add(os.path.abspath(folder))
        folder = folder.parent
    if removed:
        left = sorted(made - removed)
        (root / FOLDERS).write_text("".join(f"{path}\n" for path in left), encoding="utf-8")


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    tmp = path.with_name(f".{path.name}.cairn-tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


# -- TOML (Codex) -----------------------------------------------------------------------------
def parse_toml(path: Path, text: str) -> dict[str, Any]:
    """The parsed TOML of a config file; refuses invalid TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(
            f"{path} is not valid TOML ({exc}); fix it, then run `cairn setup` "
            f"again (nothing was written)"
        ) from exc


def split_block(text: str) -> tuple[str, str]:
    """(the text without Cairn's block, the block's body without its markers)."""
    begin = text.find(BLOCK_BEGIN)
    if begin < 0 or (begin > 0 and text[begin - 1] != "\n"):
        return text, ""
    end = text.find("\n" + BLOCK_END, begin)
    if end < 0:
        return text, ""
    stop = text.find("\n", end + 1)
    stop = len(text) if stop < 0 else stop + 1
    body = text[begin + len(BLOCK_BEGIN) + 1 : end + 1]
    start = begin - 1 if begin > 0 else 0  # the newline Cairn put before its block
    return text[:start] + text[stop:], body


def join_block(outside: str, body: str) -> str:
    """`outside` with Cairn's block (when `body` is not empty) appended after one newline."""
    if not body.strip():
        return outside
    block = f"{BLOCK_BEGIN}\n{body.rstrip(chr(10))}\n{BLOCK_END}\n"
    return f"{outside}\n{block}" if outside else block


def toml_tables(tables: list[tuple[list[str], dict[str, Any]]]) -> str:
    """`[a."b"]` tables with their `key = value` lines, written by tomlkit (a dict value is an
    inline table, a list an array); an empty string for no tables."""
    doc = tomlkit.document()
    for header, values in tables:
        table = tomlkit.table()
        for key, value in values.items():
            table[key] = _toml_item(value)
        parent: Any = doc
        for key in header[:-1]:
            if key not in parent:
                parent[key] = tomlkit.table(is_super_table=True)
            parent = parent[key]
        parent[header[-1]] = table
    return tomlkit.dumps(doc).rstrip("\n") + "\n" if tables else ""


def _toml_item(value: Any) -> Any:
    """A value as tomlkit writes it: dicts inline (the shapes Cairn writes)."""
    if isinstance(value, dict):
        inline = tomlkit.inline_table()
        inline.update({k: _toml_item(v) for k, v in value.items()})
        return inline
    if isinstance(value, bool | int | float | str | list):
        return value
    raise InstallError(f"cannot write {type(value).__name__} values to TOML")
