"""Connections to PostgreSQL: URL handling, the pool, the pgvector check and vector encoding.

* ``prepare_threshold=None``: psycopg 3 prepares a statement after 5 executions, and
  PostgreSQL may then switch to a GENERIC plan that ignores the tenant/ACL values (measured:
  broad filtered kNN 2.3 -> 348 ms, see backends.md). Never preparing keeps custom plans.
* pgvector must be >= 0.8: ``hnsw.iterative_scan`` (0.8) is what makes a filtered HNSW scan
  return the full k. Older versions silently accept the setting and return a fraction of the
  rows, so they are refused (:func:`check_pgvector_version`).
* Vectors travel in pgvector's binary format (int16 dim, int16 unused, float4[dim], big
  endian) through a dumper registered for :class:`numpy.ndarray` on our connections only.
"""

from __future__ import annotations

import re
import struct
from typing import Any
from urllib.parse import parse_qsl, urlencode

import numpy as np

from citewise.errors import BackendUnavailable, ConfigError, StoreError
from citewise.index.location import split_query

MIN_PGVECTOR = (0, 8, 0)
SCHEMA_PARAM = "schema"
"""URL query parameter naming one version schema (``?schema=citewise_v2``); stripped before
the URL reaches libpq. Without it :func:`~citewise.index.open_store` opens the live version."""

TUNING_PARAMS = ("ef_search", "exact_max")
"""URL query parameters that tune dense search (``?ef_search=200&exact_max=5000``, see
:class:`~citewise.index.postgres.PostgresStore`); stripped before the URL reaches libpq."""

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def split_url(url: str) -> tuple[str, str | None]:
    """``(libpq URL, schema or None)``; ``postgresql+psycopg://`` is accepted as an alias.
    Only the query is rebuilt: a password as libpq reads it (with a ``?``, ``#`` or ``%`` in
    it) reaches libpq as written, not re-encoded into a query libpq quotes back in its error
    (the second review)."""
    if url.startswith("postgresql+psycopg://"):
        url = "postgresql://" + url[len("postgresql+psycopg://"):]
    base, query = split_query(url)
    pairs = parse_qsl(query, keep_blank_values=True)
    schema = next((v for k, v in pairs if k == SCHEMA_PARAM), None)
    ours = (SCHEMA_PARAM, *TUNING_PARAMS)
    if not any(k in ours for k, _ in pairs):
        return url, schema
    rest = urlencode([(k, v) for k, v in pairs if k not in ours])
    return base + (f"?{rest}" if rest else ""), schema


def url_tuning(url: str) -> dict[str, int]:
    """The :data:`TUNING_PARAMS` given in ``url`` as positive integers."""
    out: dict[str, int] = {}
    for key, value in parse_qsl(split_query(url)[1], keep_blank_values=True):
        if key in TUNING_PARAMS:
            if not value.isdigit() or int(value) < 1:
                raise ConfigError(f"URL parameter {key}={value!r} is not a positive integer. "
                                  f"Fix: e.g. ?{key}=200.")
            out[key] = int(value)
    return out


def check_identifier(name: str, what: str = "schema name") -> str:
    """``name`` if it is a plain lower-case SQL identifier, else :class:`ConfigError`."""
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ConfigError(f"invalid {what} {name!r}. Fix: use lower-case letters, digits and "
                          "underscores, starting with a letter (e.g. citewise_v2).")
    return name


def psycopg_modules() -> tuple[Any, Any]:
    """``(psycopg, psycopg_pool)`` or :class:`BackendUnavailable` naming the install."""
    try:
        import psycopg
        import psycopg_pool
    except ImportError as exc:
        raise BackendUnavailable(
            f"the PostgreSQL backend needs psycopg 3 and psycopg_pool ({exc}). Fix: "
            "pip install 'citewise[postgres]'.") from exc
    return psycopg, psycopg_pool


def server_lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the server is gone, refused the connection or closed it (a
    restart): a plain ``OperationalError`` (a failed or closed connection), ``AdminShutdown``,
    ``CrashShutdown``, ``CannotConnectNow``, ``ConnectionException`` or the pool's
    ``PoolTimeout``; not a deadlock, a full disk or a statement timeout (also
    ``OperationalError`` subclasses), which the server log explains."""
    psycopg, psycopg_pool = psycopg_modules()
    errors = psycopg.errors
    lost = (errors.AdminShutdown, errors.CrashShutdown, errors.CannotConnectNow,
            errors.ConnectionException, psycopg_pool.PoolTimeout)
    return type(exc) is psycopg.OperationalError or isinstance(exc, lost)


def parse_version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def pgvector_version(conn: Any) -> str | None:
    """The installed ``vector`` extension's version in this database, or ``None``."""
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    return None if row is None else str(row[0])


def check_pgvector_version(version: str | None, where: str) -> None:
    """Refuse a missing or pre-0.8 pgvector with the fix."""
    if version is None:
        raise StoreError(f"{where} has no pgvector extension and it could not be created. Fix: "
                         "install pgvector >= 0.8 on the server and run `CREATE EXTENSION vector` "
                         "as a superuser in this database.")
    if parse_version(version) < MIN_PGVECTOR:
        raise StoreError(
            f"{where} has pgvector {version}; citewise needs >= 0.8 (hnsw.iterative_scan: older "
            "versions return only part of the top-k under an ACL filter). Fix: install pgvector "
            ">= 0.8 and run `ALTER EXTENSION vector UPDATE`.")


_UNTRUSTED_WRITERS = """
SELECT n.nspname, coalesce(r.rolname, 'PUBLIC')
FROM pg_namespace AS n,
     aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) AS a
     LEFT JOIN pg_roles AS r ON r.oid = a.grantee
WHERE n.nspname = ANY(current_schemas(false)) AND a.privilege_type = 'CREATE'
  AND (a.grantee = 0 OR NOT (r.rolsuper OR pg_has_role(current_user, r.oid, 'MEMBER')
       OR (r.rolname = 'pg_database_owner' AND EXISTS (
           SELECT 1 FROM pg_database WHERE datname = current_database()
           AND pg_has_role(current_user, datdba, 'MEMBER')))))
UNION
SELECT n.nspname, r.rolname FROM pg_namespace AS n JOIN pg_roles AS r ON r.oid = n.nspowner
WHERE n.nspname = ANY(current_schemas(false)) AND NOT r.rolsuper
  AND r.rolname <> 'pg_database_owner' AND NOT pg_has_role(current_user, r.oid, 'MEMBER')"""


def check_search_path(conn: Any, where: str) -> None:
    """Refuse a search path with a schema another role may create objects in (PostgreSQL
    14 and older let every role create in ``public``): an operator or function defined
    there with argument types closer than pg_catalog's is called instead of it. A security
    review's role with no rights on citewise's schemas defined ``public.&&(text[],
    text[])``, and every search's ACL predicate returned true and copied every tenant's
    chunks into her table, with citewise's privileges (the CVE-2018-1058 pattern). The
    fix is PostgreSQL's own advice for a schema others share."""
    rows = conn.execute(_UNTRUSTED_WRITERS).fetchall()
    if rows:
        schema, role = rows[0]
        raise StoreError(
            f"{where}: role {role} may create objects in schema {schema}, which citewise "
            "searches (search_path), so it could replace the operators of citewise's ACL "
            f"filter. Fix: as a superuser, `REVOKE CREATE ON SCHEMA {schema} FROM {role}` "
            f"(PostgreSQL 15's default for PUBLIC), or create the vector extension in a "
            "schema only trusted roles may write")


def ensure_pgvector(conn: Any, where: str) -> None:
    """Create the extension if it is missing (needs the right privilege), then check it."""
    if pgvector_version(conn) is None:
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except Exception:  # noqa: BLE001 - reported as missing below
            conn.rollback()
    check_pgvector_version(pgvector_version(conn), where)


def vector_bytes(vec: np.ndarray) -> bytes:
    """pgvector's binary wire format of a 1-d float vector."""
    arr = np.ascontiguousarray(vec, dtype=">f4")
    return struct.pack(">HH", arr.shape[0], 0) + arr.tobytes()


def register_vector_dumper(conn: Any) -> None:
    """Send :class:`numpy.ndarray` parameters as pgvector ``vector`` values on ``conn``."""
    from psycopg.adapt import Dumper
    from psycopg.pq import Format
    from psycopg.types import TypeInfo

    info = TypeInfo.fetch(conn, "vector")
    if info is None:
        return  # checked (and reported) by ensure_pgvector

    class VectorDumper(Dumper):
        format = Format.BINARY
        oid = info.oid

        def dump(self, obj: Any) -> bytes:
            return vector_bytes(obj)

    conn.adapters.register_dumper(np.ndarray, VectorDumper)
