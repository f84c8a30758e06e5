"""Priming (parse, chunk, embed before a write lock) changes nothing but when the work is
done: the write embeds nothing again, and a file that cannot be read fails the write exactly
as it did unprimed (:mod:`citewise.prime`)."""

from __future__ import annotations

from pathlib import Path

from citewise.config import Settings
from citewise.engine import Engine
from citewise.indexing import Pending
from citewise.sources import FileLoad
from citewise.testing import FakeEmbedder
from citewise.types import Principal

STAFF = Principal.of("staff")


class CountingEmbedder(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    def embed_batch(self, texts):  # noqa: ANN001, ANN201
        self.texts += len(texts)
        return super().embed_batch(texts)


def _item(path: Path) -> Pending:
    return Pending(path.name, path.name,
                   FileLoad(path, Settings().limits, {}, {"groups": ["staff"]}))


def test_a_primed_write_embeds_nothing_again_and_searches_alike(tmp_path):
    page = tmp_path / "guide.md"
    page.write_text("# Guide\n\n## Leave\n\nParental leave is sixteen weeks.\n\n## Pay\n\n"
                    "Salaries are paid monthly.\n", encoding="utf-8")
    embedder = CountingEmbedder()
    with Engine(tmp_path / "a.db", Settings(), embedder=embedder) as engine:
        primed = engine.prime(_item(page))
        made = embedder.texts
        assert made > 0 and len(primed.vectors) == made
        report = engine.ingest([primed.item], primed=primed)
        assert embedder.texts == made  # the write took the primed vectors
        assert report.count("new") == 1
        primed_hits = engine.search("parental leave", STAFF).hits
    with Engine(tmp_path / "b.db", Settings(), embedder=FakeEmbedder()) as engine:
        engine.ingest([_item(page)])
        plain_hits = engine.search("parental leave", STAFF).hits
    assert [(h.chunk.chunk_id, round(h.score, 6)) for h in primed_hits] == \
        [(h.chunk.chunk_id, round(h.score, 6)) for h in plain_hits]


def test_a_file_that_cannot_be_read_fails_its_write_as_before(tmp_path):
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"not a pdf at all")
    with Engine(tmp_path / "a.db", Settings(), embedder=FakeEmbedder()) as engine:
        primed = engine.prime(_item(bad))
        assert primed.vectors == {}
        report = engine.ingest([primed.item], primed=primed)
        plain = engine.ingest([_item(bad)])
    assert [(o.status, o.error) for o in report.outcomes] == \
        [(o.status, o.error) for o in plain.outcomes]
    assert report.outcomes[0].status == "failed" and "pdf" in report.outcomes[0].error.lower()


def test_vectors_another_model_made_are_not_stored(tmp_path):
    """A review: primed with one model, written by another (a reindex with a new embedder
    promoted in between), the first model's vectors were stored."""
    page = tmp_path / "guide.md"
    page.write_text("# Guide\n\nParental leave is sixteen weeks.\n", encoding="utf-8")
    writer = CountingEmbedder()
    with Engine(tmp_path / "a.db", Settings(), embedder=writer) as engine:
        primed = engine.prime(_item(page))
        other = type(primed)(primed.item, primed.vectors, "another-model")
        engine.ingest([other.item], primed=other)
        assert writer.texts == 2 * len(primed.vectors)  # embedded again by the writer


def test_a_file_that_cannot_be_chunked_is_not_chunked_again_by_the_write(tmp_path,
                                                                        monkeypatch):
    """A review's upload made 73,511 chunks (over limits.max_chunks): the priming's
    chunking failed after 60 s, and the write chunked it again under the server's write
    lock (an ACL change waited). The write reports the priming's error as it is."""
    from citewise import indexing

    page = tmp_path / "many.md"
    page.write_text("# Many\n\n" + "".join(f"Paragraph {i} has words.\n\n" for i in range(30)))
    settings = Settings.model_validate({"limits": {"max_chunks": 2},
                                        "chunk": {"chunk_tokens": 16, "min_tokens": 0}})
    with Engine(tmp_path / "a.db", settings, embedder=FakeEmbedder()) as engine:
        primed = engine.prime(_item(page))
        assert primed.vectors == {}
        chunked = []
        real = indexing.chunk_document
        monkeypatch.setattr(indexing, "chunk_document",
                            lambda *a, **k: chunked.append(1) or real(*a, **k))
        report = engine.ingest([primed.item], primed=primed)
    (outcome,) = report.outcomes
    assert outcome.status == "failed" and "limits.max_chunks" in outcome.error
    assert chunked == []


def test_an_uploads_passage_limit_stops_the_chunking(tmp_path, monkeypatch) -> None:
    """A security review's 473 KB ``.md.gz`` upload made all its 8,214 passages (82 s,
    the server's one upload slot held) before the 413 for more than
    ``serve.max_upload_chunks`` (2,000): the chunking stops once past the limit."""
    import pytest

    from citewise.chunk import structure
    from citewise.errors import LimitExceededError

    page = tmp_path / "many.md"
    page.write_text("".join(f"# Part {i}\n\nParagraph {i} has words.\n\n" for i in range(300)))
    settings = Settings.model_validate({"chunk": {"chunk_tokens": 16, "min_tokens": 0}})
    packed = []
    real = structure.pack_section
    monkeypatch.setattr(structure, "pack_section", lambda *a: packed.append(1) or real(*a))
    with Engine(tmp_path / "a.db", settings, embedder=FakeEmbedder()) as engine, \
            pytest.raises(LimitExceededError, match="more than 5 passages"):
        engine.prime(_item(page), max_chunks=5)
    assert 0 < len(packed) <= 6, len(packed)
