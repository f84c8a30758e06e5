"""The attack suite's fixtures: one canary index per backend (SQLite file, fresh PostgreSQL
database), every CLI Engine embedding with the deterministic fake (no model is loaded)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.testing.canaries import CanaryIndex, fake_models
from citewise.testing.pg import scratch_database

PG_URL = os.environ.get("CITEWISE_TEST_PG_URL", "")
NO_PG = ("CITEWISE_TEST_PG_URL is not set: no PostgreSQL server to attack (run `export "
         "CITEWISE_TEST_PG_URL=$(.ci/pg start)`; .ci/run does this)")


@pytest.fixture(autouse=True)
def _fake_models() -> Iterator[None]:
    with fake_models():
        yield


@pytest.fixture
def pg_db() -> Iterator[str]:
    """A new PostgreSQL database with pgvector, dropped afterwards."""
    if not PG_URL:
        pytest.skip(NO_PG)
    with scratch_database(PG_URL, "citewise_sec") as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An index target on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "canary.db")
    return request.getfixturevalue("pg_db")


@pytest.fixture
def canary(db: str, tmp_path: Path) -> CanaryIndex:
    """The canary corpus ingested as an operator would (acme with a sidecar, globex)."""
    index = CanaryIndex(db)
    index.ingest(tmp_path / "docs")
    return index
