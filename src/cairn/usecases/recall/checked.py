"""Postings read from a kept file, checked term by term (`kept._load_segment` makes them).

In a module of its own so that importing `cairn.usecases.recall.kept` does not define
`rank.Postings`
(a dataclass): `cairn recall --json` in a new process (`recall.lean`) reads the kept files
without it.
"""

from __future__ import annotations

from cairn.core import rank

__all__ = ["CheckedPostings"]


class CheckedPostings(rank.Postings):
    """Postings read from a kept file: the rows of each term are checked to lie within the
    segment the first time the term is read (a check of all of them would read them all)."""

    def span(self, term: str) -> tuple[int, int] | None:
        """As `rank.Postings.span` (which `postings` reads through); a term whose rows do not
        fit reads as absent."""
        found = super().span(term)
        if found is None:
            return None
        checked: set[str] = self.__dict__.setdefault("_checked", set())
        if term not in checked:
            rows = self.rows_of[found[0] : found[1]]
            if rows.shape[0] and (int(rows.min()) < 0 or int(rows.max()) >= self.n_rows):
                return None
            checked.add(term)
        return found
