"""TokenCounter on the shipped MiniLM tokenizer.json, the word fallback, additivity."""

from __future__ import annotations

import pytest

from citewise.chunk import TokenCounter, chunk_document, word_count
from citewise.chunk.tokens import is_additive
from citewise.config import ChunkSettings
from citewise.errors import ModelError


def test_word_count():
    assert word_count("  one two\nthree\t ") == 3
    assert word_count("") == 0


def test_constructor_is_cheap_and_a_missing_file_fails_on_first_use(tmp_path):
    counter = TokenCounter(tmp_path / "nope.json")  # nothing loaded yet
    with pytest.raises(ModelError, match="tokenizer file not found"):
        counter("text")


def test_a_corrupt_file_is_a_model_error(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    with pytest.raises(ModelError, match="Cannot read the tokenizer"):
        TokenCounter(bad).count_many(["x"])


@pytest.mark.model
def test_counts_exclude_special_tokens_and_ignore_truncation(tokenizer_json):
    counter = TokenCounter(tokenizer_json)
    assert counter("hello world") == 2  # no [CLS]/[SEP]
    assert counter("") == 0
    assert counter("word " * 300) == 300  # the file truncates/pads to 128: disabled here
    assert counter("tokenization") == 2  # WordPiece: token ##ization


@pytest.mark.model
def test_count_many_matches_single_counts(tokenizer_json):
    counter = TokenCounter(tokenizer_json)
    texts = ["hello world", "", "tokenization of sentences.", "word " * 200]
    assert counter.count_many(texts) == [counter(t) for t in texts]
    assert counter.count_many([]) == []


@pytest.mark.model
def test_minilm_is_additive_and_chunk_token_counts_are_exact(tokenizer_json, make_doc):
    counter = TokenCounter(tokenizer_json)
    assert counter.additive
    sents = " ".join(f"Tokenization example {i}, e.g. with Fig. {i} and 3.{i}." for i in range(60))
    table = "\n".join(["col | other", *[f"row{i} | déjà vu {i}" for i in range(80)]])
    doc = make_doc(("heading", "Guide", 1), ("text", sents), ("heading", "Data", 2),
                   ("table", table, 1), ("code", "\n".join(f"fn_{i}(x)" for i in range(90))))
    chunks = chunk_document(doc, "d", ChunkSettings(chunk_tokens=64, overlap_tokens=16), counter)
    assert len(chunks) > 10
    for c in chunks:
        assert c.token_count == counter(c.text)  # summed pieces == a fresh count
        assert c.token_count <= 64 or c.kind == "code"


@pytest.mark.parametrize("config, expected", [
    ({"normalizer": {"type": "BertNormalizer"}, "pre_tokenizer": {"type": "BertPreTokenizer"}},
     True),
    ({"normalizer": None, "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"}, {"type": "Punctuation"}]}}, True),
    ({"normalizer": {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Lowercase"}]},
      "pre_tokenizer": {"type": "Whitespace"}}, True),
    ({"normalizer": None, "pre_tokenizer": {"type": "ByteLevel"}}, False),
    ({"normalizer": None, "pre_tokenizer": {"type": "Metaspace"}}, False),
    ({"normalizer": {"type": "Replace"}, "pre_tokenizer": {"type": "Whitespace"}}, False),
    ({"normalizer": None, "pre_tokenizer": None}, False),
    ({"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Punctuation"}]}}, False),
])
def test_is_additive(config, expected):
    assert is_additive(config) is expected


@pytest.mark.model
def test_what_the_tokenizer_drops_still_takes_room_in_a_chunk(tokenizer_json, make_doc):
    """A security review: MiniLM counts runs of spaces in code and zero-width joiners between
    spaces as nothing, so a "110-token" chunk held 950,000 characters (and a "15-token" one
    600,000), returned whole by every search and read for seconds by every ask."""
    counter = TokenCounter(tokenizer_json)
    code = "\n".join(f"widget{i}{' ' * 50_000}gadget" for i in range(8))
    joiners = "The zed widget is configured here. " + "\u200d " * 60_000 + "End."
    doc = make_doc(("heading", "Widget", 1), ("code", code), ("text", joiners))
    settings = ChunkSettings()
    chunks = chunk_document(doc, "d", settings, counter)
    assert max(len(c.text) for c in chunks) <= 2 * settings.chunk_tokens * 16
    assert "".join(c.text for c in chunks).count("gadget") >= 8
