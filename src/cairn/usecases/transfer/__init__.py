"""Export and import: the whole workspace as JSON Lines, lossless and idempotent.

Each line is one record with a `type`: `memory` (every version, so history survives),
`act` (code acts, with whether they were undone, so an undone act stays undone), `evidence`,
`session`, `progress`. Importing the same file twice changes nothing the second time.

An import trusts nothing in the file. Every field of every record has its type checked (text,
a `m-` + 6 hex ref, an ISO 8601 moment, true/false, ...), an unknown key is refused, and a
memory passes every rule `remember` applies (`cairn.usecases.remember.check_memory`: sentence, kind,
tags, reason, trigger, scope, secrets, citation), a progress record those of
`log_mission_progress`. Fields are stored as those rules normalise them, timestamps in the
form Cairn writes (`2026-11-29T13:21:12.123456Z`). A memory's `source_ref` is read relative
to that memory's own `project` (the absolute path export writes, which need not exist on this
machine): a path that climbs out of it is refused, an absolute path inside it is made relative.
An evidence event must be on a memory of the file or of the store.

The file is read in one transaction and every line is checked: when any is refused nothing is
written, and `ImportRefusedError` lists one line per refusal, naming the line, the record type
and its id. One exception: a memory record equal, field for field (JSON types included), to the
version already stored under its ref writes nothing and is not checked again (importing a
store's export back into it re-checked 100k memories). A `BLOCK` of lines at a time, the store
names the lines that are exactly a stored version (`Store.unchanged_memories`: over SQLite, a
line whose text is the one export writes for it, or an older export's line SQLite finds equal
as JSON, so those lines are not even parsed here); the others are parsed, and a memory among
them compared with its stored version (`Store.memory_records`).

Export writes memory lines as the store writes them (`Store.memory_lines`: SQLite's
`json_object`, keys sorted, no spaces), the other records with the same encoding. The new
memories of a block are written together once all its lines are checked
(`Store.load_memories`: one statement, where one a memory cost five), then its other records
in the file's order; what is derived (the trigger list, recall's postings) is brought up to
date once, after the import (`Cairn.import_`).

Modules: `export` (the lines export writes), `importing` (reading a file back, all or
nothing), `records` (each record type's schema and checks), `fields` (each field's check),
`copying` (a store copied to another backend, `cairn store copy`).
"""

from __future__ import annotations

from cairn.usecases.transfer.copying import Copied, copy_store
from cairn.usecases.transfer.export import FORMAT_VERSION, export_lines
from cairn.usecases.transfer.importing import BLOCK, Imported, import_lines

__all__ = [
    "BLOCK",
    "FORMAT_VERSION",
    "Copied",
    "Imported",
    "copy_store",
    "export_lines",
    "import_lines",
]
