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
    assert 100 <= len(STOPWORDS) <= 170
    assert all(w == w.lower() and w.isalpha() for w in STOPWORDS)
    assert not {"policy", "time", "salary"} & STOPWORDS


def test_contraction_pieces_are_not_terms() -> None:
    # "isn" of "isn't" is no topic: the gate's coverage counted it as a word a passage lacked
    assert query_terms("my build file isn't called build.ninja, why doesn't it work?") == [
        "build", "file", "called", "ninja", "work"]
    assert query_terms("import re; re.compile won't work") == [
        "import", "re", "compile", "won", "work"]


def test_a_release_number_is_one_term() -> None:
    """One-letter words are no terms, so "3.4.6" was none at all (a new user's "When was
    Python 3.4.6 released?" ranked 3.6.4 first); the index reads it as a phrase."""
    assert query_terms("When was Python 3.4.6 released?") == ["3.4.6", "python", "released"]
    assert query_terms("What changed in strace 6.0?") == ["6.0", "changed", "strace"]
    assert query_terms("wait 2.5 seconds") == ["wait", "seconds"]  # a value
