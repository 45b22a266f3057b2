"""How a glob and a path are read before either matcher runs: a leading `./` or `/`, and
whether the glob is anchored at the project root.

Shared by the string matcher (`cairn.core.lessons.globmatch`, the hook's) and the full grammar
(`cairn.core.lessons.glob`), so neither imports the other to read a glob.
"""

from __future__ import annotations

__all__ = ["glob_body", "strip_dot_slash"]


def strip_dot_slash(text: str) -> str:
    """`text` without its leading `./` (any number of them)."""
    while text.startswith("./"):
        text = text[2:]
    return text


def glob_body(glob: str) -> tuple[str, bool]:
    """(the glob without a leading `./` or `/`, whether it is anchored at the project root).

    A glob holding `/` is always tested from the root; a leading `/` or `./` anchors one that
    holds none (`/Makefile` is the root's Makefile only), as in `.gitignore`.
    """
    body = strip_dot_slash(glob)
    anchored = body != glob
    if body.startswith("/"):
        body, anchored = body[1:], True
    return body, anchored or "/" in body
