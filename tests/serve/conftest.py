"""A served index of examples/corpus (tenant northwind; compensation-bands.md readable only by
hr) on SQLite and on PostgreSQL, behind a real uvicorn server on loopback, with four keys."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from citewise import connect
from citewise.ingest import read_sidecar
from citewise.serve import create_app
from citewise.serve.keys import KeyFile
from citewise.testing import FakeEmbedder
from citewise.testing.pg import scratch_database
from citewise.testing.server import serving

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"
PG_URL = os.environ.get("CITEWISE_TEST_PG_URL", "")
SETTINGS = {"generate": {"generator": "extractive"}, "gate": {"threshold": 0.0}}
SECRET = "143,500"  # only the hr-restricted compensation-bands.md contains it
SECRET_DOC = "hr-compensation-bands-2026"


@pytest.fixture
def pg_url() -> Iterator[str]:
    if not PG_URL:
        pytest.skip("CITEWISE_TEST_PG_URL is not set: no PostgreSQL server (run "
                    "`export CITEWISE_TEST_PG_URL=$(.ci/pg start)`)")
    with scratch_database(PG_URL, "citewise_srv") as url:
        yield url


def build_index(db: str, settings: dict | None = None) -> None:
    with connect(db, settings or SETTINGS, embedder=FakeEmbedder()) as engine:
        engine.ingest_files([CORPUS], {"tenant": "northwind", "groups": ["staff"]},
                            read_sidecar(ROOT / "examples" / "corpus.meta.jsonl"))


def make_keys(path: Path) -> dict[str, str]:
    kf = KeyFile.load(path, must_exist=False)
    return {"sam": kf.add("sam", "northwind", ["staff"], "reader"),
            "hana": kf.add("hana", "northwind", ["staff", "hr"], "reader"),
            "eddie": kf.add("eddie", "northwind", ["staff"], "editor"),
            "ada": kf.add("ada", "northwind", ["staff", "hr"], "admin"),
            "otto": kf.add("otto", "northwind", ["staff"], "operator")}


@dataclass
class Served:
    url: str
    keys: dict[str, str]
    db: str
    app: object

    def client(self, who: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.keys[who]}"} if who else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30.0)


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "index.db")
    return request.getfixturevalue("pg_url")


def serve_index(db: str, tmp_path: Path, settings: dict | None = None):  # noqa: ANN201
    build_index(db, settings)
    keys = make_keys(tmp_path / "keys.json")
    engine = connect(db, settings or SETTINGS, embedder=FakeEmbedder())
    app = create_app(engine, KeyFile.load(tmp_path / "keys.json"))
    return keys, app


@pytest.fixture
def served(db_url: str, tmp_path: Path) -> Iterator[Served]:
    keys, app = serve_index(db_url, tmp_path)
    with serving(app) as url:
        yield Served(url, keys, db_url, app)
