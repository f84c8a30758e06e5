"""Pure pieces of the PostgreSQL backend (no server needed): URL handling, the pgvector
version check, the wire format of vectors, ts_rank weights and the migration's score check."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from citewise.errors import ConfigError, StoreError
from citewise.index.location import redact, shown
from citewise.index.migrate import score_overlap
from citewise.index.postgres.connection import (
    check_identifier,
    check_pgvector_version,
    split_url,
    vector_bytes,
)
from citewise.index.postgres.search import ts_weights, tsquery_text


def test_postgres_split_url_strips_schema() -> None:
    assert split_url("postgresql://u@h:5/db?schema=citewise_v2&sslmode=disable") == (
        "postgresql://u@h:5/db?sslmode=disable", "citewise_v2")
    assert split_url("postgresql+psycopg://u@h/db") == ("postgresql://u@h/db", None)
    assert redact("postgresql://u:secret@h/db") == "postgresql://u:***@h/db"
    assert redact("postgresql://u@h/db?password=secret&sslmode=disable") == (
        "postgresql://u@h/db?password=***&sslmode=disable")
    assert redact("postgresql://u:a@h/db?sslmode=disable&PASSWORD=b") == (
        "postgresql://u:***@h/db?sslmode=disable&PASSWORD=***")
    assert redact("postgresql://u@h/db?passwordless=1") == "postgresql://u@h/db?passwordless=1"
    assert redact("postgresql:///db?host=/run&sslpassword=k&passfile=/home/u/.pgpass") == (
        "postgresql:///db?host=/run&sslpassword=***&passfile=***")
    for url in ("postgresql://u:s3cr#et@h:1/db", "postgresql://u:s3?cret@h/db",  # as libpq
                "postgresql://u:p@ss@h/db", "postgresql://u@h/db?%70assword=s3cret"):  # reads
        assert "s3cr" not in redact(url) and "ss@" not in redact(url), redact(url)  # them
    assert shown(Path("i.db")) == "i.db" and shown("postgresql://u:p@h/d") == "postgresql://u:***@h/d"


def test_postgres_identifiers_are_checked() -> None:
    assert check_identifier("citewise_v12") == "citewise_v12"
    for bad in ("Citewise", "v1; DROP TABLE x", "", "1abc", "a" * 64):
        with pytest.raises(ConfigError, match="Fix:"):
            check_identifier(bad)


@pytest.mark.parametrize("version,ok", [("0.8.0", True), ("0.8.1", True), ("0.10.0", True),
                                        ("1.0.0", True), ("0.7.4", False), ("0.6.0", False)])
def test_postgres_pgvector_version_gate(version: str, ok: bool) -> None:
    if ok:
        check_pgvector_version(version, "db")
    else:
        with pytest.raises(StoreError, match=r">= 0\.8.*Fix: install pgvector"):
            check_pgvector_version(version, "db")


def test_postgres_vector_wire_format() -> None:
    # pgvector's vector_recv: int16 dim, int16 unused, then float4 each, network byte order
    data = vector_bytes(np.array([1.0, -2.5], np.float32))
    assert data == struct.pack(">HHff", 2, 0, 1.0, -2.5)


def test_postgres_ts_rank_weights() -> None:
    # {D, C, B, A}: B = body 1, A = headings title_weight, scaled by 1 / max(1, title_weight)
    assert ts_weights(1.0) == [0.0, 0.0, 1.0, 1.0]
    assert ts_weights(4.0) == [0.0, 0.0, 0.25, 1.0]
    assert ts_weights(0.5) == [0.0, 0.0, 1.0, 0.5]
    assert tsquery_text(["vacation", "policy"]) == "vacation | policy"


def test_postgres_migration_score_overlap() -> None:
    assert score_overlap([0.9, 0.5, 0.5], [0.9, 0.5, 0.5]) == 1.0
    assert score_overlap([0.9, 0.5, 0.5], [0.9, 0.5, 0.4]) == 2 / 3
    assert score_overlap([0.9, 0.8], [0.1, 0.2]) == 0.0
    assert score_overlap([], []) == 0.0


def test_postgres_url_tuning_parameters() -> None:
    from citewise.index.postgres import PostgresStore
    from citewise.index.postgres.connection import url_tuning

    url = "postgresql://u@h/db?ef_search=200&sslmode=disable&exact_max=5000&schema=citewise_v2"
    assert url_tuning(url) == {"ef_search": 200, "exact_max": 5000}
    assert split_url(url) == ("postgresql://u@h/db?sslmode=disable", "citewise_v2")
    store = PostgresStore(url)  # no connection until first use
    assert (store.ef_search, store.exact_max, store.schema) == (200, 5000, "citewise_v2")
    with pytest.raises(ConfigError, match="ef_search"):
        url_tuning("postgresql://u@h/db?ef_search=lots")


def test_a_password_libpq_reads_reaches_it_as_written_and_no_message_shows_it() -> None:
    """The second review: split_url rebuilt ``u:s3?cret@host`` into a query libpq quoted
    back ("invalid URI query parameter: \\"cret@127.0.0.1…\\""), and ``50%off`` was echoed
    as an invalid percent-encoding."""
    from click.testing import CliRunner

    from citewise.cli.main import cli
    from citewise.index.location import scrub

    url = "postgresql://u:s3?cret@127.0.0.1:1/db"
    assert split_url(url) == (url, None)
    assert split_url(url + "?schema=citewise_v2&sslmode=disable") == (
        url + "?sslmode=disable", "citewise_v2")
    assert scrub('bad "s3?cret" and s3%3Fcret', url) == 'bad "***" and ***'
    for url in ("postgresql://u:s3?cret@127.0.0.1:1/db", "postgresql://u:50%off@127.0.0.1:1/db",
                "postgresql://u:s3cr#et@127.0.0.1:1/db?schema=x"):
        out = CliRunner().invoke(cli, ["status", "--db", url]).output
        assert "Error:" in out and "cret" not in out and "50%off" not in out, out


def test_a_password_with_an_at_sign_shows_no_part_of_it_in_libpqs_host_error() -> None:
    """A security review: libpq splits ``u:first@SECRETTAIL@host`` at the first ``@`` and
    said "failed to resolve host 'SECRETTAIL@127.0.0.1'", which no whole-password mask
    matched."""
    from click.testing import CliRunner

    from citewise.cli.main import cli
    from citewise.index.location import scrub

    url = "postgresql://u:first@SECRETTAIL@127.0.0.1:1/db"
    assert scrub("host 'SECRETTAIL@127.0.0.1' and first", url) == "host '***@127.0.0.1' and ***"
    out = CliRunner().invoke(cli, ["status", "--db", url]).output
    assert "Error:" in out and "SECRETTAIL" not in out and "first" not in out, out


class _Pool:
    def __init__(self, size: int) -> None:
        self.size, self.closed = size, False

    def get_stats(self) -> dict[str, int]:
        return {"pool_size": self.size}

    def close(self, timeout: float = 0) -> None:
        self.closed = True


def test_a_pool_with_no_connection_left_is_dropped_and_a_busy_one_kept() -> None:
    """An operator's server answered nothing for 17-25 s after a 40 s database outage: the
    pool's reconnection backs off to 32 s. A call that timed out waiting on a pool holding
    no connection at all drops it, so the next call connects anew (at once when the server
    is back, a fast 503 while it is down); a pool that is only busy stays."""
    pytest.importorskip("psycopg_pool")
    from citewise.index.postgres.store import POOL_WAIT_S, PostgresStore

    store = PostgresStore("postgresql://u@localhost:1/db")
    for size, dropped in ((0, True), (2, False)):
        pool = store._pool = _Pool(size)
        store._drop_if_dead(pool)
        assert (store._pool is None) == dropped and pool.closed == dropped
    assert POOL_WAIT_S <= 5
