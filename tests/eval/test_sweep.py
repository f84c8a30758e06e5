"""sweep: grid parsing, one index per index-shaping setting, one embedder per embed setting."""

import pytest

from citewise.errors import ConfigError
from citewise.eval.sweep import parse_vary, resolve_key, sweep
from citewise.testing import FakeEmbedder
from citewise.types import Principal


def test_keys_and_grid():
    assert resolve_key("mode") == "retrieve.mode"
    assert resolve_key("chunk_tokens") == "chunk.chunk_tokens"
    assert resolve_key("chunk.overlap_tokens") == "chunk.overlap_tokens"
    with pytest.raises(ConfigError, match="it is in"):
        resolve_key("threads")  # embed, rerank and generate all have one
    with pytest.raises(ConfigError, match="no section has it"):
        resolve_key("colour")
    with pytest.raises(ConfigError, match="expected KEY=V1,V2"):
        parse_vary(["mode"])
    grid = parse_vary(["chunk_tokens=64,128", "mode=bm25,dense"])
    assert grid == [{"chunk.chunk_tokens": "64", "retrieve.mode": "bm25"},
                    {"chunk.chunk_tokens": "64", "retrieve.mode": "dense"},
                    {"chunk.chunk_tokens": "128", "retrieve.mode": "bm25"},
                    {"chunk.chunk_tokens": "128", "retrieve.mode": "dense"}]


def test_sweep_shares_indexes_and_the_embedder(corpus, questions, personas):
    made: list[FakeEmbedder] = []

    def factory(settings):
        made.append(FakeEmbedder())
        return made[-1]

    rows = sweep(questions, [corpus], parse_vary(
        ["chunk_tokens=32,64", "mode=bm25,hybrid"]), ingest_defaults={"groups": ["staff"]},
        personas=personas, principal=personas["staff"], k=5, embedder_factory=factory)
    assert len(rows) == 4 and len(made) == 1
    # two chunkings -> two ingests; the mode variants reuse them
    assert made[0].batch_count == 2
    assert [r.label for r in rows] == ["chunk_tokens=32 mode=bm25", "chunk_tokens=32 mode=hybrid",
                                       "chunk_tokens=64 mode=bm25", "chunk_tokens=64 mode=hybrid"]
    for row in rows:
        assert set(row.figures) == {"hit@5", "recall@5", "ndcg@10", "tokens_per_request",
                                    "latency_p50_ms"}
        assert row.figures["hit@5"] == pytest.approx(1.0)
        assert row.run.settings["retrieve"]["mode"] == row.variant["retrieve.mode"]


def test_bad_value_is_refused(corpus, questions):
    with pytest.raises(ConfigError, match="chunk_tokens"):
        sweep(questions, [corpus], parse_vary(["chunk_tokens=1"]),
              principal=Principal.of("staff"), embedder_factory=lambda s: FakeEmbedder())
