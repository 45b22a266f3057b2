"""Folding: the one normal form every word is compared in.

`fold` makes case, accents and Unicode presentation forms irrelevant, so ``Préproduction``,
``PREPRODUCTION`` and ``preproduction`` read the same, and ``Straße`` reads ``strasse``.
Punctuation is left in place: splitting on it is `tokenize`'s job.
"""

from __future__ import annotations

import unicodedata

__all__ = ["fold"]

# Marks dropped by folding: the general-purpose diacritic blocks, where a mark is an accent on a
# letter (é, ñ, å). Marks of other scripts stay: a Japanese dakuten tells が from か and an
# Indic vowel sign is part of its word, so stripping them would merge different words.
_DIACRITIC_BLOCKS = (
    (0x0300, 0x036F),  # Combining Diacritical Marks
    (0x1AB0, 0x1AFF),  # Combining Diacritical Marks Extended
    (0x1DC0, 0x1DFF),  # Combining Diacritical Marks Supplement
    (0x20D0, 0x20FF),  # Combining Diacritical Marks for Symbols
    (0xFE20, 0xFE2F),  # Combining Half Marks
)

# Casefolding an NFKC string can leave a string that NFKC changes again (and the reverse), so
# the steps repeat until nothing moves. Real text settles in one round; the cap only guards
# against a pathological input looping.
_MAX_ROUNDS = 4


def _is_diacritic(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _DIACRITIC_BLOCKS)


def _fold_once(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    decomposed = unicodedata.normalize("NFD", text)
    if decomposed.isascii():
        return decomposed
    stripped = "".join(char for char in decomposed if not _is_diacritic(char))
    # Recompose what remains (Hangul syllables, kana with dakuten) so words keep one form.
    return unicodedata.normalize("NFC", stripped)


def fold(text: str) -> str:
    """NFKC, casefold, then drop accents (NFD, remove diacritic marks); idempotent.

    >>> fold("Préproduction Straße ﬁle")
    'preproduction strasse file'
    """
    if text.isascii():
        # ASCII needs no Unicode normalisation: lowering it is the whole fold (fast path).
        return text.lower()
    for _ in range(_MAX_ROUNDS):
        folded = _fold_once(text)
        if folded == text:
            break
        text = folded
    return text
