"""The attack suite's fixtures: one canary index per backend (SQLite file, fresh PostgreSQL
database), every CLI Engine embedding with the deterministic fake (no model is loaded)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from citewise.testing.canaries import CanaryIndex, fake_models

PG_URL = os.environ.get("CITEWISE_TEST_PG_URL", "")
NO_PG = ("CITEWISE_TEST_PG_URL is not set: no PostgreSQL server to attack (run `export "
         "CITEWISE_TEST_PG_URL=$(.ci/pg start)`; .ci/run does this)")


@pytest.fixture(autouse=True)
def _fake_models() -> Iterator[None]:
    with fake_models():
        yield


def _admin(url: str):
    import psycopg

    return psycopg.connect(url, autocommit=True)


@pytest.fixture
def pg_db() -> Iterator[str]:
    """A new PostgreSQL database with pgvector, dropped afterwards."""
    if not PG_URL:
        pytest.skip(NO_PG)
    name = f"citewise_sec_{uuid.uuid4().hex[:10]}"
    with _admin(PG_URL) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = urlunsplit(urlsplit(PG_URL)._replace(path=f"/{name}"))
    with _admin(url) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    yield url
    with _admin(PG_URL) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


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
