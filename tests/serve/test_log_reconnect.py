"""The request log outlives its connection: a review restarted PostgreSQL under a running
server, which served every search after it and logged none of them until restarted (the
log kept the closed connection; ``/v1/log`` answered 503)."""

from __future__ import annotations

import time

import pytest

from citewise.errors import StoreError
from citewise.reqlog import open_log
from citewise.reqlog.record import LogRecord
from citewise.reqlog.store import RequestLog


def _record(name: str) -> LogRecord:
    return LogRecord(name, time.time(), "sam", "northwind", "search", "q", "h")


class _Conn:
    """A connection whose server goes away after ``lives`` statements (psycopg's ``closed``)."""

    def __init__(self, rows: list, lives: int) -> None:
        self.rows, self.lives, self.closed = rows, lives, False

    def execute(self, sql: str, params: tuple = ()):
        if self.closed or self.lives == 0:
            self.closed = True
            raise OSError("server closed the connection unexpectedly")
        self.lives -= 1
        if sql.startswith("INSERT INTO request_log ("):  # not its retention's meta row
            self.rows.append(params[0])
        counted = sql.startswith("SELECT count")  # the retention purge's
        return type("Cur", (), {"description": counted or None, "fetchall": lambda _: [(0,)]})()


def test_a_connection_the_server_closed_is_replaced() -> None:
    rows: list = []
    opened: list[_Conn] = []

    def connect() -> _Conn:
        opened.append(_Conn(rows, lives=8))  # the table's DDL, a purge, a few writes
        return opened[-1]

    log = RequestLog(connect, "request_log", "?")
    for i in range(12):
        log.write(_record(f"r{i}"))
    assert rows == [f"r{i}" for i in range(12)] and len(opened) > 1


def test_other_errors_are_not_retried() -> None:
    class Refusing(_Conn):
        def execute(self, sql: str, params: tuple = ()):
            if sql.startswith("INSERT"):
                raise ValueError("value too long")
            return super().execute(sql, params)

    opened: list[_Conn] = []
    log = RequestLog(lambda: opened.append(Refusing([], 99)) or opened[-1], "request_log", "?")
    with pytest.raises(StoreError, match="value too long"):
        log.write(_record("r"))
    assert len(opened) == 1


def test_the_postgres_log_writes_on_after_its_backend_is_terminated(pg_url: str) -> None:
    import psycopg

    from citewise.index.postgres.connection import split_url

    log = open_log(pg_url)
    log.write(_record("before"))
    with psycopg.connect(split_url(pg_url)[0], autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = current_database() AND pid <> pg_backend_pid()")
    log.write(_record("after"))  # the old connection is closed: a new one is opened
    assert [r.request_id for r in log.records()] == ["before", "after"]
    log.close()
