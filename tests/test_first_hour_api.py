"""The library surface behind issue 12's fixes: an empty query is refused in every mode (not
answered with arbitrary hits), documents resolve from the path they were ingested from, and
unsupported files are reported."""

from pathlib import Path

import pytest

from citewise.engine import Engine
from citewise.errors import ConfigError, NotFoundError
from citewise.testing import FakeEmbedder
from citewise.types import Principal

STAFF = Principal.of("staff")


@pytest.fixture
def engine(tmp_path: Path):
    docs = tmp_path / "docs"
    (docs / "guides").mkdir(parents=True)
    (docs / "guides" / "setup.md").write_text("# Setup\n\nInstall the agent, then log in.\n")
    (docs / "style.css").write_text("body {}")
    with Engine(tmp_path / "i.db", embedder=FakeEmbedder()) as eng:
        report = eng.ingest_paths([docs], {"groups": ["staff"]})
        assert report.skipped == [(docs / "style.css").as_posix()]
        assert report.summary()["skipped"] == 1
        yield eng


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
@pytest.mark.parametrize("query", ["", "  ", "\n\t"])
def test_an_empty_query_is_refused_in_every_mode(engine, mode, query):
    with pytest.raises(ConfigError, match="the query is empty.*Fix:"):
        engine.search(query, STAFF, mode=mode)


def test_documents_resolve_by_id_and_by_ingest_path(engine, tmp_path, monkeypatch):
    assert engine.resolve_documents(["guides/setup.md"]) == ["guides/setup.md"]
    absolute = str(tmp_path / "docs" / "guides" / "setup.md")
    assert engine.resolve_documents([absolute]) == ["guides/setup.md"]
    monkeypatch.chdir(tmp_path / "docs")
    assert engine.resolve_documents(["./guides/setup.md"]) == ["guides/setup.md"]
    with pytest.raises(NotFoundError, match="citewise status --documents"):
        engine.resolve_documents(["guides/missing.md"])
