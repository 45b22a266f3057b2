"""Pure text layer: fold, tokenize and analyse the words that recall compares.

No I/O; imports only the standard library and PyStemmer. The hook's firing path never loads it.
"""

from __future__ import annotations

from cairn.core.text.analyse import (
    ANALYSER_VERSION,
    analyse,
    analyse_fields,
    analyse_text,
    tokenize,
)
from cairn.core.text.fold import fold
from cairn.core.text.stopwords import STOPWORDS

__all__ = [
    "ANALYSER_VERSION",
    "STOPWORDS",
    "analyse",
    "analyse_fields",
    "analyse_text",
    "fold",
    "tokenize",
]
