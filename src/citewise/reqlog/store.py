"""Where request log records live: a ``request_log`` table in the index database itself (the
``--db`` SQLite file, next to the version catalog; a ``citewise_log.requests`` table on
PostgreSQL). Records older than ``retention_days`` are never read back (export, the API,
``monitor``, feedback: a security review exported a 40-day-old record of an idle server), and
are deleted on the first write and then at most hourly as records are written; ``citewise log
purge`` deletes them on demand."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from citewise.errors import ConfigError, NotFoundError, StoreError
from citewise.index.location import is_postgres
from citewise.index.sqlite.database import checkpoint
from citewise.reqlog.record import LogRecord

COLUMNS = ("request_id", "at", "principal", "tenant", "kind", "query", "query_hash",
           "retrieved", "index_version", "versions", "latencies_ms", "tokens_in",
           "tokens_out", "cited", "validation", "declined", "reason", "gate_passed",
           "rerank_status", "cached", "feedback", "feedback_note", "trace")
_JSON = {"retrieved", "versions", "latencies_ms", "cited", "trace"}
_BOOL = {"declined", "gate_passed", "cached"}
_TYPES = {"at": "DOUBLE PRECISION", "index_version": "INTEGER", "tokens_in": "INTEGER",
          "tokens_out": "INTEGER", "declined": "INTEGER", "gate_passed": "INTEGER",
          "cached": "INTEGER", "feedback": "INTEGER"}
_LIGHT = {"query": "''", "trace": "''", "feedback_note": "NULL"}
"""What the drift rates never read, left out of a ``light`` read: a trace is about 7 KB an
ask, and a security review's admin, asking for a month's drift of 10,000 records ten times
at once, held the log's lock (every request's write waits on it) for 25 s."""
PURGE_EVERY_S = 3600.0


def _ddl(table: str) -> list[str]:
    cols = ", ".join(f"{c} {_TYPES.get(c, 'TEXT')}" + (" PRIMARY KEY" if c == "request_id"
                                                        else "") for c in COLUMNS)
    return [f"CREATE TABLE IF NOT EXISTS {table} ({cols})",
            f"CREATE INDEX IF NOT EXISTS request_log_at ON {table} (at)",
            f"CREATE INDEX IF NOT EXISTS request_log_principal ON {table} (principal, at)",
            f"CREATE TABLE IF NOT EXISTS {table}_meta (key TEXT PRIMARY KEY, value TEXT)"]


def _row(record: LogRecord) -> tuple[Any, ...]:
    out = []
    for c in COLUMNS:
        value = getattr(record, c)
        if c in _JSON:
            value = json.dumps(value, default=list)
        elif c in _BOOL and value is not None:
            value = int(value)
        out.append(_storable(value))
    return tuple(out)


def _storable(value: Any) -> Any:
    """A string without NUL, which PostgreSQL refuses in text: a question holding one was
    answered and never logged there (security review); both backends store U+FFFD."""
    return value.replace("\x00", "\ufffd") if isinstance(value, str) else value


def _record(row: Sequence[Any]) -> LogRecord:
    data = dict(zip(COLUMNS, row, strict=True))
    for c in _JSON:
        data[c] = json.loads(data[c]) if data[c] else ({} if c in ("versions", "latencies_ms",
                                                                   "trace") else [])
    data["retrieved"] = tuple(tuple(x) for x in data["retrieved"])
    data["cited"] = tuple(data["cited"])
    for c in _BOOL:
        if data[c] is not None:
            data[c] = bool(data[c])
    return LogRecord(**data)


def _failed(exc: Exception) -> StoreError:
    return StoreError(f"request log: {exc}. Fix: check the index database (`citewise status`)")


def missing(request_id: str) -> NotFoundError:
    return NotFoundError(f"no request {request_id} in the log (it may have been purged: see "
                         "log.retention_days). Fix: list requests with `citewise log export`")


RETENTION_KEY = "retention_days"


class RequestLog:
    """The request log of one index database. Thread-safe; cheap to construct (connects on
    first use). ``paramstyle`` differs between the backends, the SQL does not."""

    def __init__(self, connect: Any, table: str, placeholder: str,
                 retention_days: float = 30.0) -> None:
        self._connect, self.table, self._ph = connect, table, placeholder
        self.retention_days = retention_days
        self._conn: Any = None
        self._lock = threading.Lock()
        self._last_purge = 0.0

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of ``sql``. A connection the server closed (PostgreSQL restarted, an idle
        connection ended) is replaced and the statement run once more: kept, it failed
        every later request, and a review's server logged nothing more until restarted
        while serving every search."""
        with self._lock:
            try:
                return self._run(sql, params)
            except Exception as exc:
                if not self._drop_closed():
                    raise _failed(exc) from exc
            try:
                return self._run(sql, params)
            except Exception as exc:
                raise _failed(exc) from exc

    def _run(self, sql: str, params: Sequence[Any]) -> list[Any]:
        if self._conn is None:
            self._conn = self._connect()
            for stmt in _ddl(self.table):
                self._conn.execute(stmt)
        cur = self._conn.execute(sql.replace("?", self._ph), tuple(params))
        return cur.fetchall() if cur.description else []

    def _drop_closed(self) -> bool:
        """Forget the connection when its server closed it (psycopg's ``closed``)."""
        if self._conn is None or not getattr(self._conn, "closed", False):
            return False
        self._conn = None
        return True

    def write(self, record: LogRecord) -> None:
        marks = ", ".join("?" for _ in COLUMNS)
        self._execute(f"INSERT INTO {self.table} ({', '.join(COLUMNS)}) VALUES ({marks})",
                      _row(record))
        if time.time() - self._last_purge > PURGE_EVERY_S:
            self.keep_retention()

    def keep_retention(self) -> int:
        """Record this log's retention (:meth:`effective_days` of every reader follows it)
        and purge what is past it; how many records went. The server calls it as it starts
        and hourly as it writes: an operator's `log export` without the server's --config
        read records past its retention for the first hour after each start."""
        self._execute(f"INSERT INTO {self.table}_meta (key, value) VALUES (?, ?) "
                      "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                      (RETENTION_KEY, repr(float(self.retention_days))))
        return self.purge()

    def effective_days(self) -> float:
        """The retention records are kept for: this log's, or the shorter one the writer of
        the log (``citewise serve``) keeps, which it records. An operator's trial: `log
        export` and `log purge` run without the server's --config read 849 records past its
        retention of 432 s, and purged none ("older than 30d")."""
        rows = self._execute(f"SELECT value FROM {self.table}_meta WHERE key = ?",
                             (RETENTION_KEY,))
        try:
            kept = float(rows[0][0]) if rows else self.retention_days
        except ValueError:
            kept = self.retention_days
        return min(self.retention_days, kept)

    def _cutoff(self, days: float | None = None) -> float:
        """The time before which records are past ``days`` (default: the retention,
        :meth:`effective_days`)."""
        return time.time() - (self.effective_days() if days is None else days) * 86400.0

    def purge(self, older_than_days: float | None = None) -> int:
        """Delete records older than the retention period; returns how many."""
        cutoff = self._cutoff(older_than_days)
        self._last_purge = time.time()
        count = self._execute(f"SELECT count(*) FROM {self.table} WHERE at < ?", (cutoff,))
        self._execute(f"DELETE FROM {self.table} WHERE at < ?", (cutoff,))
        if int(count[0][0]) and self._ph == "?":  # SQLite: the purged questions leave the WAL
            with self._lock:
                if self._conn is not None:
                    checkpoint(self._conn)
        return int(count[0][0])

    def get(self, request_id: str) -> LogRecord:
        rows = self._execute(f"SELECT {', '.join(COLUMNS)} FROM {self.table} "
                             "WHERE request_id = ? AND at >= ?", (request_id, self._cutoff()))
        if not rows:
            raise missing(request_id)
        return _record(rows[0])

    def set_feedback(self, request_id: str, rating: int, note: str | None) -> None:
        self.get(request_id)
        self._execute(f"UPDATE {self.table} SET feedback = ?, feedback_note = ? "
                      "WHERE request_id = ?", (rating, _storable(note), request_id))

    def records(self, since: float | None = None, until: float | None = None,
                principal: str | None = None, tenant: str | None = None,
                limit: int | None = None, light: bool = False) -> list[LogRecord]:
        """Records (newest last) in ``[since, until)``, optionally of one principal/tenant;
        never one past the retention period. ``light``: without their question, trace and
        feedback note (:data:`_LIGHT`), for the drift rates."""
        where, params = ["at >= ?"], [self._cutoff()]
        for clause, value in (("at >= ?", since), ("at < ?", until),
                              ("principal = ?", principal), ("tenant = ?", tenant)):
            if value is not None:
                where.append(clause)
                params.append(value)
        columns = ", ".join(_LIGHT.get(c, c) if light else c for c in COLUMNS)
        sql = (f"SELECT {columns} FROM {self.table} WHERE {' AND '.join(where)} "
               "ORDER BY at DESC")
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [_record(r) for r in reversed(self._execute(sql, params))]

    def iter_all(self) -> Iterator[LogRecord]:
        yield from self.records()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def open_log(db: str | Path, retention_days: float = 30.0) -> RequestLog:
    """The request log of the index at ``db`` (same forms as ``--db``)."""
    target = str(db)
    if is_postgres(target):
        return _postgres_log(target, retention_days)
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///"):]
    if target in ("", ":memory:", "sqlite://"):
        raise ConfigError("an in-memory index keeps no request log. Fix: pass --db PATH.")

    def connect() -> Any:
        from citewise.index.sqlite.migrations import connect as sqlite_connect

        return sqlite_connect(target)

    return RequestLog(connect, "request_log", "?", retention_days)


def _postgres_log(url: str, retention_days: float) -> RequestLog:
    from citewise.index.postgres.connection import split_url

    libpq, _schema = split_url(url)

    def connect() -> Any:
        import psycopg

        conn = psycopg.connect(libpq, autocommit=True, prepare_threshold=None)
        conn.execute("CREATE SCHEMA IF NOT EXISTS citewise_log")
        return conn

    return RequestLog(connect, "citewise_log.requests", "%s", retention_days)
