"""The trigger list: a small file beside the store that the hook reads before anything else.

It holds one line per lesson trigger, action rule and cited file (see
`cairn.lessons.prefilter.Entry`), just enough for the hook to decide from the raw payload
whether anything could match, and to open the database only then.

The store is the truth; this file is derived from it. New entries are appended (one `write`
of whole lines, under an advisory lock); corrections and removals rewrite the whole file
atomically (temp file + `os.replace`). A stale line is harmless: the hook checks every
candidate against the store before anything fires.

`triggers.keys` holds each line's key, in the same order, so the hook can find the lines it
needs without reading every line's fields. Both files open with the same generation
(`gen:` and 16 hex digits), new at each creation and rewrite; the hook uses the keys as an
index only when the generations and the line counts agree
(`cairn.lessons.prefilter.candidates_from`), else it reads the whole list.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from cairn.citations import parse_source_ref
from cairn.errors import CairnError
from cairn.lessons.glob import glob_literals
from cairn.lessons.prefilter import Entry, Prefilter, choose_key, usable_needles
from cairn.lessons.triggers import required_literals
from cairn.models import Memory
from cairn.regularfile import open_append, read_text
from cairn.shell.actions import action_words

FILE_NAME = "triggers.tsv"
KEYS_NAME = "triggers.keys"  # just the keys, one a line: what the hook reads first
LIST_BYTES = 64 << 20  # read no more (the hook's bound too: hooks.entry.TRIGGER_LIST_BYTES)
HEADER = "# cairn trigger list v1: kind ref project key needles extra\n"


def _generation() -> tuple[str, str]:
    """A new generation: (the list's header line, the keys file's first line)."""
    gen = "gen:" + os.urandom(8).hex()
    return HEADER[:-1] + " " + gen + "\n", "#" + gen + "\n"


def list_path(home: Path) -> Path:
    """Where the trigger list of a workspace lives."""
    return Path(home) / FILE_NAME


def keys_path(home: Path) -> Path:
    """Where the list's keys live (kept in step with the list, under the same lock)."""
    return Path(home) / KEYS_NAME


def entries_for(memory: Memory) -> list[Entry]:
    """The trigger-list lines one memory needs (none for a plain fact)."""
    project = "*" if memory.scope == "workspace" else memory.project
    out: list[Entry] = []
    if memory.when is not None:
        if memory.when.tool == "shell":
            literals = required_literals(memory.when) or ()
        else:
            literals = glob_literals(memory.when.path or "") or ()
        needles = usable_needles(literals)
        out.append(Entry(memory.when.tool, memory.ref, project, needles, choose_key(needles)))
    for action in memory.action_names():
        needles = usable_needles(action_words(action))
        # Action words are whole words of the parsed command, so any one is an exact key.
        words = [n for n in needles if n.isascii() and n.isalnum()]
        key = f"w:{max(words, key=len)}" if words else choose_key(needles)
        out.append(Entry("action", memory.ref, project, needles, key, action))
    if memory.source_ref:
        try:
            path = parse_source_ref(memory.source_ref).path
        except CairnError:
            path = ""
        if path:
            needles = usable_needles([path])
            out.append(
                Entry("cited", memory.ref, project, needles, choose_key(needles), memory.kind)
            )
    return out


@contextlib.contextmanager
def _locked(home: Path) -> Iterator[None]:
    try:
        lock = os.open(os.path.join(home, "triggers.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    except FileNotFoundError:  # no workspace folder yet
        os.makedirs(home, mode=0o700, exist_ok=True)
        lock = os.open(os.path.join(home, "triggers.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    finally:
        os.close(lock)


def append(home: Path, entries: Iterable[Entry]) -> None:
    """Add entries for new memories (whole lines in one write, under the lock)."""
    entries = list(entries)
    text = "".join(e.to_line() for e in entries)
    if not text:
        return
    with _locked(home):
        header, keys_header = _generation()
        if os.path.exists(list_path(home)) and os.path.exists(keys_path(home)):
            header = keys_header = ""  # both exist: keep their generation
        # Keys first: a key without its line only costs a slow path; a line without its key
        # would be a lesson the hook never sees.
        _append(keys_path(home), "".join(f"{e.key}\n" for e in entries), keys_header)
        _append(list_path(home), text, header)


def _append(path: Path, text: str, header: str) -> None:
    """Append `text` to a file in one write, with `header` first when the file is empty.

    os.open and os.write, not `open`: one remember pays this for each cited file, and the
    buffered text layer costs more than the two system calls it wraps.
    """
    fd = open_append(path)  # a regular file only, never waiting on a FIFO; 0600 when new
    try:
        data = ((header if header and os.fstat(fd).st_size == 0 else "") + text).encode()
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)


def rewrite(home: Path, memories: Iterable[Memory]) -> int:
    """Replace the whole list with the entries of `memories`; returns the line count."""
    entries = [e for m in memories for e in entries_for(m)]
    path = list_path(home)
    header, keys_header = _generation()
    with _locked(home):
        _replace(path, header + "".join(e.to_line() for e in entries))
        _replace(keys_path(home), keys_header + "".join(f"{e.key}\n" for e in entries))
    return len(entries)


def _replace(path: Path, text: str) -> None:
    """Write a file atomically: a temp file, fsync, rename."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.unlink(missing_ok=True)  # a stale one (the lock is held): O_EXCL opens no FIFO
    with open(
        os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8"
    ) as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def load(home: Path) -> Prefilter:
    """The trigger list as a Prefilter (empty when there is no list yet)."""
    try:
        text = read_text(list_path(home), LIST_BYTES, follow=False)
    except OSError:
        return Prefilter(())
    return Prefilter.from_lines(text.splitlines(keepends=True))
