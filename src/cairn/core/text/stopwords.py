"""The stopwords `analyse` drops: a deliberately short English list.

Only words that carry no subject are listed: articles, auxiliaries, pronouns and the question
words of a query ("how do we deploy" searches for ``deploy``). Dropping them matters beyond
ranking: a doc matches only when it holds every query word, and coverage weighs each query
word, so a stray ``the`` would count against a good match.

Never listed, because they change what a sentence says about code: negations (``not``, ``no``,
``never``), order (``before``, ``after``, ``first``, ``last``), and direction or state words
that are also commands and flags (``up``, ``down``, ``on``, ``off``, ``in``, ``out``, ``all``,
``only``, ``without``). `KEPT` names them so a test can hold the list to it.
"""

from __future__ import annotations

__all__ = ["KEPT", "QUESTION_WORDS", "STOPWORDS"]

STOPWORDS: frozenset[str] = frozenset(
    {
        # articles and conjunctions
        "a", "an", "the", "and", "or", "if",
        # prepositions that never carry the subject
        "of", "to", "for", "with", "as", "at", "by", "from",
        # auxiliaries
        "is", "are", "was", "were", "be", "been",
        "do", "does", "did", "has", "have",
        # pronouns and determiners
        "it", "its", "this", "that", "i", "we", "you", "they", "our", "your", "their",
        # question words, as queries are asked
        "what", "which", "who", "how", "why", "where",
        # the possessive `'s` split off by tokenize
        "s",
    }
)  # fmt: skip

KEPT: frozenset[str] = frozenset(
    {
        "not", "no", "never", "before", "after", "first", "last",
        "up", "down", "on", "off", "in", "out", "all", "only", "without",
    }
)  # fmt: skip

QUESTION_WORDS: frozenset[str] = frozenset(
    {
        # modals and auxiliaries a question is built with: "can customers check out ..."
        "can", "could", "should", "would", "will", "shall", "may", "might", "must",
        "am", "being", "doing", "done",
        # question words not in STOPWORDS
        "when", "whom", "whose", "whether",
        # prepositions a question wraps its subject in: "how do I get into ..."
        "into", "onto", "about", "via",
        # pronouns and determiners
        "me", "my", "mine", "us", "he", "him", "his", "she", "her", "hers", "them", "theirs",
        "there", "here", "any", "some", "something", "anything", "thing", "things",
        # asking and wanting: "please tell me", "I need to know"
        "please", "thanks", "kindly", "tell", "know", "need", "want", "wanted", "like",
        "let", "lets", "ok", "okay", "hey", "hi", "just", "really", "actually", "also",
        "so", "then", "than", "too", "very", "still", "again", "ever", "way", "going",
        "im", "ive", "id",
    }
)  # fmt: skip
"""Question and filler words dropped from a query (never from what is indexed): "can
customers checkout without an account" searches for ``customers checkout without account``.

They are not in STOPWORDS because in a memory they can say something ("the job can retry",
"a can of worms" is rare, but "may" and "will" state policy), and an indexed word costs
nothing when no query asks for it. A query made of these words alone keeps them
(`cairn.core.text.query`)."""
