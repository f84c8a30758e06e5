from __future__ import annotations

from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.ingest.sidecar import read_sidecar
from citewise.testing import FakeEmbedder
from citewise.types import Chunk, Document, Hit, ScoredId

ROOT = Path(__file__).resolve().parents[2]


def make_hit(text: str, rank: int = 1, score: float | None = None, doc_id: str | None = None,
             heading: tuple[str, ...] = ("Guide", "Setup"), dense: float | None = None,
             title: str = "Guide") -> Hit:
    doc_id = doc_id or f"doc{rank}"
    chunk = Chunk(chunk_id=f"{doc_id}#{rank}", doc_id=doc_id, ordinal=rank, text=text,
                  text_for_embedding=text, embed_hash=f"h{rank}", start=0, end=len(text),
                  heading_path=heading, anchor="setup", section_id=f"{doc_id}/s")
    doc = Document(doc_id=doc_id, title=title, content_hash="c", tenant="acme",
                   acl_groups=frozenset({"staff"}), source_url=f"docs/{doc_id}.md",
                   updated_at="2026-03-01T00:00:00Z")
    signals = {"dense": ScoredId(chunk.chunk_id, dense, rank)} if dense is not None else {}
    return Hit(rank=rank, score=1.0 / (60 + rank) if score is None else score, chunk=chunk,
               document=doc, signals=signals)


@pytest.fixture
def hit():
    return make_hit


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """The bundled corpus indexed once per test module (tenant northwind, group staff, the
    sidecar restricting the salary bands to hr) with the FakeEmbedder."""
    path = tmp_path_factory.mktemp("answer") / "index.db"
    with Engine(path, Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([ROOT / "examples" / "corpus"],
                                     {"tenant": "northwind", "groups": ["staff"]},
                                     read_sidecar(ROOT / "examples" / "corpus.meta.jsonl"))
        assert not [o for o in report.outcomes if o.status == "failed"]
    return path
