"""Query analysis for lexical search: text -> the terms sent to BM25.

:func:`query_terms` lowercases, splits on Unicode word characters, drops English stopwords
(:data:`STOPWORDS`) and one-character tokens, dedupes keeping first-seen order, and keeps at most
:data:`MAX_TERMS` terms. Stemming and diacritics are left to the index tokenizer (FTS5
``porter unicode61 remove_diacritics 2``), which processes the quoted terms the same way it
processed the documents.

Underscores split words (``foo_bar`` -> ``foo``, ``bar``), as they do in the FTS5 unicode61
tokenizer, so a term never turns into a multi-token phrase.
"""

from __future__ import annotations

import re

MAX_TERMS = 64
"""Upper bound on terms per query: a pasted paragraph must not become a 500-way OR."""

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)

# Function words that carry no topical signal in English questions: articles, pronouns,
# auxiliaries and modals, common prepositions and conjunctions, question words ("how",
# "what") and negations (BM25 cannot use "not" anyway). Deliberately small (~125, close to
# the NLTK English list without contractions): domain words ("policy", "time") are never
# stopwords.
STOPWORDS: frozenset[str] = frozenset({
    "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
    "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
    "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for",
    "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
    "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
    "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once",
    "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
    "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
    "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which",
    "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
    "yourselves",
})


def query_terms(text: str) -> list[str]:
    """The BM25 terms of a query, in first-seen order.

    >>> query_terms("What is the vacation policy for the Vacation team?")
    ['vacation', 'policy', 'team']
    """
    terms: list[str] = []
    seen: set[str] = set()
    for token in _TOKEN.findall(text.lower()):
        if len(token) < 2 or token in STOPWORDS or token in seen:
            continue
        seen.add(token)
        terms.append(token)
        if len(terms) == MAX_TERMS:
            break
    return terms
