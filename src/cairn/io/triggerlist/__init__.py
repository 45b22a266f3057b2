"""The trigger list: a small file beside the store that the hook reads before anything else.

It holds one line per lesson trigger, action rule and cited file (see
`cairn.core.lessons.prefilter.Entry`), just enough for the hook to decide from the raw payload
whether anything could match, and to open the database only then. `triggers.keys` holds each
line's key, in the same order, so the hook can find the lines it needs without reading every
line's fields.

**A function of the store.** The list's lines are exactly `entries_for` over
`SqliteStore.trigger_memories()` (in some order). SQL triggers on `memories` (migration
`0010_trigger_changes`) log every change to that set in the writing transaction itself, so no
writer can forget it; the newest change is the store's *trigger generation*. Both files open
with a header naming the store and the generation they hold (`lessons.prefilter.token`), so
any reader can tell a current list from a stale one, and a rebuild is always correct.

**One after-write step.** Every write that may change memories runs inside
`TriggerList.writing()` (`Cairn.remember`, `remember_many`, `correct`, `forget`, `restore`,
`import_`, and through them rules import and tidy): it takes the list's lock (`triggers.lock`,
an flock) before the store's transaction, marks the keys file `!` (a write under way), and
after the COMMIT brings the list up to date under the same lock, reading the store inside it:
nothing when the generation did not move; the new memories' lines appended when the store
only gained some since the list's generation; else the whole list rewritten (a temp file and
a rename, each file). The new header clears the `!`. A writer that found the keys file
settled (no `!`) trusts the headers and reads neither file (`_after_write`); otherwise, and
for every reader, both files are read and checked first (`_refresh`).

**Noticing a stale list, and when it is repaired.**

- The hook's fast path, on every call, without SQLite: a keys file marked `!` (a write under
  way, or a writer killed between its COMMIT and the list's refresh), missing while a
  database is there, or in an older format; once a key could match, a list whose header or
  line count disagrees with its keys. Then it takes the slow path, which answers from the
  store's own triggers, not the list, and repairs the list.
- The hook's slow path (it opens the store anyway: a key matched, or a session starts or
  ends) compares the store's generation with that of the list the fast path read (one query;
  this module is not even imported when they agree). It, every `cairn.open()` (each CLI
  command, API user, the MCP server's start; not `cairn recall --json`'s process, which never
  reads the list and opens with `check_triggers=False`) and each MCP tool call run `ensure`:
  it compares generations, checks both files' headers and line counts (`cairn.open()` every
  line too), and repairs a stale list. None of them waits for the lock: a writer holding it
  refreshes the list when it is done.
- `cairn doctor` compares every line with the store (`diagnose`) and repairs nothing.

The trade-off: the hook's no-match path never opens SQLite, so it cannot see a generation moved
by a write that never marked the list (an older Cairn, code calling `cairn.usecases.remember`
functions
on a bare store, a hand-run SQL statement). Such a change reaches the fast path at the next
hook call that takes the slow path, or the next `cairn` command (but `recall --json`), whichever
comes first. A
lesson committed by a writer killed before its refresh is seen by the very next hook call (the
`!`). A file damaged in place with its line counts intact is found by the next `cairn.open()`
that checks the list.

Line order carries no meaning. One bad entry never stops the others: a stored trigger the
matchers cannot run (a list where the regex goes, a regex RE2 cannot compile) gets no line and
is logged in `hook-errors.log` each time the list is built, never by a hook call; a damaged
file is rewritten, and logged once.

This module is on the hook's slow path: standard library at import time; what building lines
needs (citations, the regex reader, the shell parser) is imported when a line is built.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from cairn.core.lessons.prefilter import (
    PENDING,
    Entry,
    choose_key,
    list_token,
    token,
    usable_needles,
)
from cairn.io.triggerlist import files
from cairn.io.triggerlist.files import FILE_NAME, KEYS_NAME, keys_path, list_path

__all__ = [
    "FILE_NAME",
    "KEYS_NAME",
    "TriggerList",
    "action_entries",
    "diagnose",
    "ensure",
    "entries_for",
    "keys_path",
    "lines_of",
    "list_path",
]

if TYPE_CHECKING:
    from collections.abc import Iterable
    from types import TracebackType

    from cairn.core.models import Memory
    from cairn.io.store.protocol import Store


def entries_for(memory: Memory) -> list[Entry]:
    """The trigger-list lines one memory needs (none for a plain fact).

    A trigger the matchers cannot run (`cairn.core.lessons.triggers.trigger_problem`) gets no line:
    it could never fire, and a line would only send calls to the slow path.
    """
    from cairn.core.errors import CairnError
    from cairn.core.lessons.glob import glob_literals
    from cairn.core.lessons.triggers import required_literals, trigger_problem
    from cairn.io.citations import parse_source_ref

    project = "*" if memory.scope == "workspace" else memory.project
    out: list[Entry] = []
    if memory.when is not None and not trigger_problem(memory.when):
        if memory.when.tool == "shell":
            literals = required_literals(memory.when) or ()
        else:
            literals = glob_literals(memory.when.path or "") or ()
        needles = usable_needles(literals)
        out.append(Entry(memory.when.tool, memory.ref, project, needles, choose_key(needles)))
    for action in memory.action_names():
        out += action_entries(memory.ref, project, action)
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


def action_entries(ref: str, project: str, action: str) -> list[Entry]:
    """The lines of a rule for `action`: one for each of its spellings (`gh pr create`,
    `hub pull-request`), since the prefilter asks for all of a line's needles and a command
    holds one spelling's words; and for a git action one keyed `a:SUB`, which a call passes
    when a git alias of its checkout runs SUB."""
    from cairn.core.shell.actions import action_words, git_subcommand

    out: list[Entry] = []
    for spelling in action_words(action):
        needles = usable_needles(spelling)
        # Action words are whole words of the command as bash joins it, so one is an exact
        # key; not the program's, when there is another (`pip3` and `pip3.11` run pip).
        words = [n for n in needles if n.isascii() and n.isalnum()]
        keyed = words[1:] or words
        key = f"w:{max(keyed, key=len)}" if keyed else choose_key(needles)
        out.append(Entry("action", ref, project, needles, key, action))
    sub = git_subcommand(action)
    if sub:
        # `git ci` with `alias.ci = commit`: the hook reads the checkout's aliases for it.
        out.append(Entry("action", ref, project, (), f"a:{sub}", action))
    return out


class TriggerList:
    """The trigger list of one open store: `writing()` around its writes, `ensure()` on reads."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._depth = 0
        self._lock: files.Lock | None = None
        self._keys = -1  # the keys file, open from the writer's `!` to its refresh
        self._settled = False  # no `!` was there when the writer took the lock

    def writing(self) -> _Writing:
        """The one after-write step, around every write that may change memories.

        `with triggers.writing():` takes the list's lock and marks it `!` before the body's
        transaction, and after it brings the list up to date under the same lock. Nested
        blocks join the outer one; the body's transactions must be inside, not around it.
        """
        return _Writing(self)

    def ensure(self, *, thorough: bool = False) -> str:
        """Check the list against the store and repair it when stale (see the module
        docstring): `current`, `repaired`, or `busy` (stale, and a writer holds the lock: it
        refreshes the list when it is done). `thorough` also checks every line's shape."""
        if self._depth:
            return "busy"  # this handle is writing: its own refresh comes at the end
        return ensure(self.store, thorough=thorough)

    def rebuild(self) -> int:
        """Rewrite the whole list from the store, whatever its state; returns its line count."""
        lock = (
            None if self._depth else files.Lock(self.store.folder, wait=True)
        )  # else ours already
        try:
            with self.store.reading():
                entries = _entries(self.store.folder, self.store.trigger_memories())
                files.rewrite(self.store.folder, entries, token(*self.store.trigger_generation()))
        finally:
            if lock is not None:
                lock.release()
        return len(entries)


class _Writing:
    """`TriggerList.writing()` (a class, not @contextmanager: contextlib costs an import)."""

    __slots__ = ("triggers",)

    def __init__(self, triggers: TriggerList) -> None:
        self.triggers = triggers

    def __enter__(self) -> None:
        triggers = self.triggers
        if triggers._depth == 0:
            if triggers.store.in_transaction:
                # The lock is taken before the store's write lock, never after: a writer waiting
                # for the lock while holding the store's would deadlock with one doing the reverse.
                raise RuntimeError("enter the trigger list's writing() before a transaction")
            try:
                lock = files.Lock(triggers.store.folder, wait=True)
            except OSError as exc:  # a read-only or full folder: nothing is written at all
                from cairn.io.store.failures import file_failure

                raise file_failure(exc, str(triggers.store.folder)) from exc
            try:
                triggers._keys, triggers._settled = files.mark(triggers.store.folder)
            except BaseException:
                lock.release()
                raise
            triggers._lock = lock
        triggers._depth += 1

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        triggers = self.triggers
        triggers._depth -= 1
        if triggers._depth:
            return
        lock, triggers._lock = triggers._lock, None
        keys, triggers._keys = triggers._keys, -1
        try:
            _after_write(triggers.store, keys, triggers._settled)
        except OSError as exc:
            if kind is None:  # else the body's own error matters more
                from cairn.io.store.failures import list_failure

                raise list_failure(exc, str(triggers.store.folder)) from exc
        except Exception:
            if kind is None:
                raise
            # The body's own error matters more; the `!` stays, so the next reader repairs.
        finally:
            if keys >= 0:
                os.close(keys)
            if lock is not None:
                lock.release()


def ensure(store: Store, *, thorough: bool = False) -> str:
    """`TriggerList.ensure` for a store without a `TriggerList` (the hook's slow path)."""
    home = store.folder
    if _current(store, thorough):
        return "current"
    lock = files.Lock(home, wait=False)
    if not lock.held:
        return "busy"
    try:
        return "current" if _refresh(store, thorough) == "current" else "repaired"
    finally:
        lock.release()


def diagnose(store: Store) -> str:
    """What is wrong with the list, compared line by line with the store ('' when nothing).

    For `cairn doctor`: reads the whole list and every trigger memory, and repairs nothing.
    """
    keys, text = files.read(store.folder)
    if keys is None or text is None:
        return "the trigger list is missing"
    have = list_token(keys, text, thorough=True)
    if have is None:
        return "the trigger list is damaged"
    if keys[:1] == PENDING:
        return "a write to the trigger list was cut short"
    store_id, generation = store.trigger_generation()
    if have != token(store_id, generation):
        name, held = _parse(have)
        if name != store_id:
            return "the trigger list is another store's"
        return f"the trigger list is stale (generation {held}; the store is at {generation})"
    listed = set(filter(None, map(Entry.from_line, _lines(text))))
    wanted = {e for m in store.trigger_memories() for e in entries_for(m)}
    if listed != wanted:
        return (
            f"the trigger list differs from the store ({len(wanted - listed)} lines missing, "
            f"{len(listed - wanted)} not wanted)"
        )
    return ""


def lines_of(home: str | os.PathLike[str]) -> list[Entry]:
    """The entries the list holds now, in file order (unreadable lines left out)."""
    text = files.read_file(os.path.join(os.fspath(home), files.FILE_NAME))
    return [e for e in map(Entry.from_line, _lines(text or b"")) if e is not None]


def _lines(text: bytes) -> list[str]:
    lines = text.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    return [line for line in lines if not line.startswith("#")]


def _current(store: Store, thorough: bool) -> bool:
    """Is the list the store's current one: same token, settled, well formed?"""
    keys, text = files.read(store.folder)
    if keys is None or text is None or keys[:1] == PENDING:
        return False
    return list_token(keys, text, thorough) == token(*store.trigger_generation())


def _after_write(store: Store, keys: int, settled: bool) -> None:
    """A writer's refresh, with the lock and the keys file (`keys`, -1 when there was none).

    When the keys file was `settled` as the writer took the lock (no `!`: every earlier writer
    and repair finished), its header says what both files hold, and they are not read: most
    writes (a plain fact, a confirmation) moved nothing the list holds, and only the `!` is
    cleared; a write that added memories appends their lines (`_update`). Anything else (a
    `!` left by a write cut short, no list, a memory gone from the set) goes to `_refresh`,
    which reads and checks both files. A file damaged in place is a reader's to find
    (`cairn.open()` checks every line).
    """
    if keys >= 0 and settled:
        want = token(*store.trigger_generation())
        head = os.pread(keys, len(want) + 2, 0)
        if head == f"!{want}\n".encode():
            os.pwrite(keys, b"#", 0)
            return
        end = head.find(b"\n")
        held = head[1:end].decode("ascii", "replace")
        if head[:5] == b"!gen:" and end > 0 and _update(store, held):
            return
    _refresh(store)


def _refresh(store: Store, thorough: bool = False) -> str:
    """Bring the list up to date with one snapshot of the store (the caller holds the lock),
    reading and checking both files first.

    Returns what it did: `current` (nothing to do but clear a `!`), `appended` or `rewritten`.
    """
    home = store.folder
    with store.reading():
        keys, text = files.read(home)
        have = list_token(keys, text, thorough) if keys is not None and text is not None else None
        if have is not None and _update(store, have):
            return "current" if have == token(*store.trigger_generation()) else "appended"
        if have is None and _damaged(keys, text):
            files.log(home, "the trigger list was damaged; rewritten from the store")
        files.rewrite(
            home, _entries(home, store.trigger_memories()), token(*store.trigger_generation())
        )
        return "rewritten"


def _update(store: Store, have: str) -> bool:
    """Bring well-formed files holding `have` up to the store's generation without rewriting
    them: nothing (but clear the `!`) when it is theirs, the new memories' lines appended when
    the store only gained some since. False when they need rewriting."""
    home = store.folder
    with store.reading():
        store_id, generation = store.trigger_generation()
        want = token(store_id, generation)
        if have != want:
            added = _added_since(store, have, store_id, generation)
            if added is None or len(have) != len(want):
                return False
            found = store.get_memories(added)
            try:
                files.append(home, _entries(home, [found[r] for r in added if r in found]), want)
            except FileNotFoundError:
                return False  # a file gone since: rewrite both
            return True
    files.write_at(os.path.join(home, files.KEYS_NAME), f"#{want}".encode())
    return True


def _damaged(keys: bytes | None, text: bytes | None) -> bool:
    """Are the files there but not a list (rather than missing, or an older Cairn's list)?"""
    if keys is None and text is None:
        return False
    return not (text or b"").startswith(b"# cairn trigger list v1")


def _added_since(
    store: Store, have: str | None, store_id: str, generation: int
) -> list[str] | None:
    """The refs the store gained since the list's token `have`, when it only gained some (no
    memory left the set, the log reaches back, the list is this store's); else None."""
    if have is None:
        return None
    name, since = _parse(have)
    if name != store_id or not 0 <= since <= generation:
        return None
    changes = store.trigger_changes(since)
    if changes is None or any(op != "add" for _, _, op in changes):
        return None
    return list(dict.fromkeys(ref for _, ref, _ in changes))


def _parse(held: str) -> tuple[str, int]:
    """(store id, generation) of a token; generation -1 when it cannot be read."""
    name, _, number = held.removeprefix("gen:").partition("-")
    try:
        return name, int(number, 16)
    except ValueError:
        return name, -1


def _entries(home: str, memories: Iterable[Memory]) -> list[Entry]:
    """The lines of these memories; a trigger the matchers cannot run is logged, not listed."""
    from cairn.core.lessons.triggers import trigger_problem

    out: list[Entry] = []
    skipped: list[str] = []
    for memory in memories:
        out += entries_for(memory)
        problem = trigger_problem(memory.when) if memory.when is not None else ""
        if problem:
            skipped.append(f"{memory.ref}: trigger left out of the trigger list: {problem}")
    for line in skipped:
        files.log(home, line)
    return out
