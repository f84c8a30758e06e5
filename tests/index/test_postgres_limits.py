"""PostgreSQL's own limits never stop a batch that SQLite indexes (a security review)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from citewise.config import Settings
from citewise.engine import Engine
from citewise.testing.fakes import FakeEmbedder
from citewise.testing.pg import scratch_database

PG_URL = os.environ.get("CITEWISE_TEST_PG_URL", "")
pytestmark = pytest.mark.skipif(not PG_URL, reason="CITEWISE_TEST_PG_URL is not set: no "
                                "PostgreSQL server (run `export CITEWISE_TEST_PG_URL=$(.ci/pg "
                                "start)`; .ci/run does this)")


def test_a_heading_of_a_megabyte_of_words_is_indexed(tmp_path: Path) -> None:
    """45,000 distinct words in one heading made a tsvector over PostgreSQL's 1 MB limit,
    and the error stopped the batch with nothing written, the normal page beside it too."""
    words = " ".join(hashlib.md5(str(i).encode()).hexdigest() + "q" for i in range(45_000))
    (tmp_path / "a-normal.md").write_text("# Normal page\n\nThe coffee machine is cleaned "
                                          "every Friday.\n", encoding="utf-8")
    (tmp_path / "y-heading.md").write_text(f"# {words}\n\nSome body text.\n", encoding="utf-8")
    with scratch_database(PG_URL) as url, \
            Engine(url, Settings(), embedder=FakeEmbedder()) as engine:
        report = engine.ingest_paths([tmp_path], {"tenant": "acme", "groups": ["staff"]})
        assert sorted(o.status for o in report.outcomes) == ["new", "new"], report.outcomes
