"""The SQLite store's project docs: the pages `cairn docs` indexes, and `DocPage`.

`SqliteStore` methods (this class is one of its bases) over the doc tables: file hashes and
stat signatures, the pages of a file replaced at once, and pages read back by rowid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.core.value import Value

if TYPE_CHECKING:
    from collections.abc import Sequence

    from cairn.io.store.connection import Connection
    from cairn.io.store.transaction import Transaction

__all__ = ["DocPage", "SqliteDocs"]


class DocPage(Value):
    """One page (a heading's section) of a project doc."""

    __slots__ = ("id", "project", "path", "heading", "ordinal", "text", "captured")  # noqa: RUF023
    id: int
    project: str
    path: str
    heading: str
    ordinal: int
    text: str
    captured: bool

    def __init__(
        self,
        id: int,
        project: str,
        path: str,
        heading: str,
        ordinal: int,
        text: str,
        captured: bool = False,
    ) -> None:
        self._assign(id, project, path, heading, ordinal, text, captured)


class SqliteDocs:
    """Doc files and their pages."""

    conn: Connection
    if TYPE_CHECKING:

        def transaction(self) -> Transaction: ...  # SqliteStore's

    # -- docs ---------------------------------------------------------------------------
    def doc_file_hash(self, project: str, path: str) -> str | None:
        """The content hash recorded when this doc file was last indexed."""
        row = self.conn.execute(
            "SELECT hash FROM doc_files WHERE project = ? AND path = ?", (project, path)
        ).fetchone()
        return str(row[0]) if row else None

    def doc_paths(self, project: str) -> list[str]:
        """Doc files indexed for a project."""
        rows = self.conn.execute("SELECT path FROM doc_files WHERE project = ?", (project,))
        return [r[0] for r in rows]

    def doc_signatures(self, project: str) -> dict[str, str]:
        """Doc files indexed for a project, each with the stat signature it was read with."""
        rows = self.conn.execute(
            "SELECT path, signature FROM doc_files WHERE project = ?", (project,)
        )
        return {path: signature for path, signature in rows}

    def set_doc_signature(self, project: str, path: str, signature: str) -> None:
        """Record the stat signature of a doc file read again and found unchanged."""
        with self.transaction():
            self.conn.execute(
                "UPDATE doc_files SET signature = ? WHERE project = ? AND path = ?",
                (signature, project, path),
            )

    def replace_doc_file(
        self,
        project: str,
        path: str,
        file_hash: str | None,
        pages: Sequence[tuple[str, str, str, str, bool]],
        signature: str = "",
    ) -> None:
        """Swap a doc file's pages: (heading, text, analysed title, analysed body, captured).

        `file_hash=None` removes the file from the index; `signature` is the file's stat
        signature when it was read (`cairn.usecases.docs`).
        """
        with self.transaction():
            old = self.conn.execute(
                "SELECT id, fts_title, fts_body, n_tokens FROM docs WHERE project = ? AND path = ?",
                (project, path),
            ).fetchall()
            for rowid, title, body, n in old:
                self.conn.execute(
                    "INSERT INTO doc_fts (doc_fts, rowid, fts_title, fts_body) "
                    "VALUES ('delete', ?, ?, ?)",
                    (rowid, title, body),
                )
                self.conn.execute("DELETE FROM docs WHERE id = ?", (rowid,))
                self.conn.execute(
                    "UPDATE index_stats SET n_docs = n_docs - 1, n_tokens = n_tokens - ? "
                    "WHERE name = 'docs'",
                    (n,),
                )
            self.conn.execute(
                "DELETE FROM doc_files WHERE project = ? AND path = ?", (project, path)
            )
            if file_hash is None:
                return
            self.conn.execute(
                "INSERT INTO doc_files (project, path, hash, signature) VALUES (?, ?, ?, ?)",
                (project, path, file_hash, signature),
            )
            for ordinal, (heading, text, title, body, captured) in enumerate(pages):
                n = len(title.split()) + len(body.split())
                cur = self.conn.execute(
                    "INSERT INTO docs (project, path, heading, ordinal, text, captured, "
                    "fts_title, fts_body, n_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (project, path, heading, ordinal, text, int(captured), title, body, n),
                )
                self.conn.execute(
                    "INSERT INTO doc_fts (rowid, fts_title, fts_body) VALUES (?, ?, ?)",
                    (cur.lastrowid, title, body),
                )
                self.conn.execute(
                    "UPDATE index_stats SET n_docs = n_docs + 1, n_tokens = n_tokens + ? "
                    "WHERE name = 'docs'",
                    (n,),
                )

    def docs_by_ids(self, ids: Sequence[int]) -> dict[int, tuple[DocPage, str, str]]:
        """Doc pages by rowid, with their analysed title and body."""
        out: dict[int, tuple[DocPage, str, str]] = {}
        for i in range(0, len(ids), 500):
            chunk = list(ids[i : i + 500])
            marks = ",".join("?" * len(chunk))
            for r in self.conn.execute(
                "SELECT id, project, path, heading, ordinal, text, captured, fts_title, fts_body "
                f"FROM docs WHERE id IN ({marks})",
                chunk,
            ):
                out[r[0]] = (DocPage(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6])), r[7], r[8])
        return out
