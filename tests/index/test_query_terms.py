"""citewise.text.query_terms: the terms sparse search sends to FTS5."""

from __future__ import annotations

from citewise.text import MAX_TERMS, STOPWORDS, query_terms


def test_lowercase_stopwords_short_tokens_and_dedupe() -> None:
    assert query_terms("What is the Vacation policy for a Vacation in Q3?") == [
        "vacation", "policy", "q3"]
    assert query_terms("the of and a I") == []
    assert query_terms("") == []


def test_unicode_and_underscores() -> None:
    assert query_terms("Café über_alles naïve 東京") == ["café", "über", "alles", "naïve", "東京"]
    assert query_terms('"); DROP TABLE chunks; --') == ["drop", "table", "chunks"]


def test_cap() -> None:
    words = [f"w{i}" for i in range(200)]
    assert query_terms(" ".join(words)) == words[:MAX_TERMS]


def test_stopword_list_is_small_and_lowercase() -> None:
    assert 100 <= len(STOPWORDS) <= 150
    assert all(w == w.lower() and w.isalpha() for w in STOPWORDS)
    assert not {"policy", "time", "salary"} & STOPWORDS
