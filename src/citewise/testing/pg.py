"""A throwaway PostgreSQL database (with pgvector) for tests against a real server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit


@contextmanager
def scratch_database(admin_url: str, prefix: str = "citewise_db") -> Iterator[str]:
    """Create a new database on the server of ``admin_url`` with the ``vector`` extension,
    yield its URL, and drop it afterwards (``WITH (FORCE)``: open connections go too)."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        yield url
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
