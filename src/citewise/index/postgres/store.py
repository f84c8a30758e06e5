"""``PostgresStore``: the scale-out :class:`~citewise.protocols.Store` (PostgreSQL + pgvector).

One index = one schema (``citewise_v1``...; tables: :mod:`.migrations`). Lexical search is
``tsvector`` + GIN ranked by ``ts_rank`` (not BM25), dense search is pgvector HNSW with
iterative scans or an exact scan for selective filters (:mod:`.search`); both carry the
tenant/ACL predicate, and hydration (:meth:`PostgresStore.get_chunks`) repeats it on the
document row.

Connections come from a ``psycopg_pool`` pool opened on first use (the constructor does no
I/O), in autocommit mode with ``prepare_threshold=None`` (custom plans, see
:mod:`.connection`) and ``search_path = <schema>, public``. Writes take a transaction-scoped
advisory lock on the schema, so concurrent writers (threads or processes) serialise as they do
on SQLite, and the "drop unreferenced vectors" step can never race a writer that reuses one.
Searches take no lock and see each commit on their next query.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from citewise.errors import BusyError, CitewiseError, StoreError
from citewise.index.checks import acl_groups, check_search_args, check_vector, delete_ids
from citewise.index.location import redact
from citewise.index.manifest import (
    check_manifest,
    manifest_from_rows,
    manifest_to_rows,
    to_record,
)
from citewise.index.postgres import search, writes
from citewise.index.postgres.connection import (
    check_identifier,
    check_search_path,
    ensure_pgvector,
    psycopg_modules,
    register_vector_dumper,
    server_lost,
    split_url,
    url_tuning,
)
from citewise.index.postgres.generation import bump_generation, ensure_generations, read_generation
from citewise.index.postgres.migrations import (
    create_vector_index,
    lock_key,
    migrate,
    set_vector_dim,
)
from citewise.index.serialize import parsed_from_bytes, sections_from_json
from citewise.protocols import DocumentWrite, StoreCounts
from citewise.text import query_terms
from citewise.types import Chunk, Document, Manifest, ParsedDocument, Principal, ScoredId

EF_SEARCH = 100
"""Default ``hnsw.ef_search`` (raised to k when k is larger)."""
EXACT_MAX = 3_000
"""Dense search is exact when the planner estimates the principal may read at most this many
chunks (exact costs ~10 us per allowed row; HNSW ~40 us per row it has to skip)."""
POOL_WAIT_S = 5.0
"""How long a call waits for a pooled connection before it is answered "unreachable" (a 503
through the API): at 30 s, an operator's requests hung through a database restart."""


class PostgresStore:
    """The PostgreSQL backend of :class:`~citewise.protocols.Store`.

    ``url`` is a libpq URL (``postgresql://user@host:5432/db``); ``schema`` names the index
    schema. Without one (and without ``?schema=`` in the URL) the store opens the LIVE version
    of the database's :class:`~citewise.index.postgres.catalog.PostgresCatalog` (creating
    version 1 on an empty database).
    """

    def __init__(self, url: str, schema: str | None = None, *, ef_search: int = EF_SEARCH,
                 exact_max: int = EXACT_MAX, pool_size: int = 4,
                 lock_timeout_s: float | None = None) -> None:
        """``lock_timeout_s``: how long a statement waits for a lock another session holds
        before :class:`BusyError` (PostgreSQL's ``lock_timeout``; None: as long as it
        takes)."""
        self.url, url_schema = split_url(url)
        chosen = schema or url_schema
        self.schema = None if chosen is None else check_identifier(chosen)
        tuning = url_tuning(url)  # ?ef_search=…&exact_max=… in --db beat the defaults
        self.ef_search = int(tuning.get("ef_search", ef_search))
        self.exact_max = int(tuning.get("exact_max", exact_max))
        self.pool_size = int(pool_size)
        self.lock_timeout_s = lock_timeout_s
        self.last_dense_path: str | None = None  # "exact" | "hnsw", for --explain and tests
        self._pool: Any = None
        self._lock = threading.Lock()

    @property
    def version_number(self) -> int | None:
        """The index version this store serves (from its ``citewise_vN`` schema; opening the
        store resolves the live one), or ``None`` for a schema outside the catalog's naming."""
        self._open()
        from citewise.index.postgres.catalog import SCHEMA_PREFIX

        tail = str(self.schema).removeprefix(SCHEMA_PREFIX)
        return int(tail) if str(self.schema).startswith(SCHEMA_PREFIX) and tail.isdigit() \
            else None

    def __repr__(self) -> str:
        return f"PostgresStore({redact(self.url)!r}, schema={self.schema!r})"

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- connections and transactions ----------------------------------------------------------

    def _open(self) -> Any:
        with self._lock:
            if self._pool is None:
                psycopg, psycopg_pool = psycopg_modules()
                try:
                    self._pool = self._make_pool(psycopg, psycopg_pool)
                except psycopg.Error as exc:
                    raise self._error(exc, "open") from exc
            return self._pool

    def _make_pool(self, psycopg: Any, psycopg_pool: Any) -> Any:
        if self.schema is None:
            from citewise.index.postgres.catalog import PostgresCatalog

            self.schema = PostgresCatalog(self.url).live().location
        with psycopg.connect(self.url, autocommit=True, prepare_threshold=None) as conn:
            self._limit_lock_waits(conn)
            ensure_pgvector(conn, f"database {redact(self.url)}")
            self._set_search_path(conn)
            check_search_path(conn, f"database {redact(self.url)}")
            migrate(conn, self.schema)
            ensure_generations(conn)
        # a connection the server closed (a restart) is replaced when it is taken from the
        # pool: kept, it failed the next request with a 503 (psycopg_pool >= 3.2 checks)
        check = getattr(psycopg_pool.ConnectionPool, "check_connection", None)
        pool = psycopg_pool.ConnectionPool(
            self.url, min_size=1, max_size=self.pool_size, open=False, timeout=POOL_WAIT_S,
            kwargs={"autocommit": True, "prepare_threshold": None}, configure=self._configure,
            **({"check": check} if check else {}))
        pool.open(wait=True, timeout=30)
        return pool

    def _set_search_path(self, conn: Any) -> None:
        conn.execute("SELECT set_config('search_path', %s, false)", (f"{self.schema}, public",))

    def _limit_lock_waits(self, conn: Any) -> None:
        if self.lock_timeout_s is not None:
            conn.execute("SELECT set_config('lock_timeout', %s, false)",
                         (f"{int(self.lock_timeout_s * 1000)}ms",))

    def _configure(self, conn: Any) -> None:
        self._limit_lock_waits(conn)
        self._set_search_path(conn)
        conn.execute("SET jit = off")  # see citewise.index.postgres.search (dense, HNSW)
        register_vector_dumper(conn)

    @contextmanager
    def _reading(self, action: str = "read") -> Iterator[Any]:
        psycopg, psycopg_pool = psycopg_modules()
        pool = self._open()
        try:
            with pool.connection() as conn:
                yield conn
        except psycopg.Error as exc:
            if isinstance(exc, psycopg_pool.PoolTimeout):
                self._drop_if_dead(pool)
            raise self._error(exc, action) from exc

    def _drop_if_dead(self, pool: Any) -> None:
        """Forget ``pool`` when it holds no connection at all (the server went away): the
        next call opens a new one, answering at once while the server is down and working
        as soon as it is back. The pool's own reconnection backs off to 32 s and more, and an
        operator's server answered nothing for 17-25 s after a 40 s database outage."""
        if pool.get_stats().get("pool_size", 1) > 0:
            return  # busy, not dead
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.close(timeout=0)

    @contextmanager
    def _writing(self) -> Iterator[Any]:
        """One transaction holding the schema's write lock; any exception rolls it back.
        Its last statement bumps the schema's write generation (see :meth:`generation`)."""
        with self._reading("write to") as conn, conn.transaction():
            conn.execute(lock_key(str(self.schema)))
            yield conn
            bump_generation(conn, str(self.schema))

    def generation(self) -> int:
        """A number that changes after every committed write to this index or its version
        catalog, from any process (:mod:`citewise.index.postgres.generation`)."""
        with self._reading() as conn:
            return read_generation(conn, str(self.schema))

    def _error(self, exc: Exception, action: str) -> CitewiseError:
        where = f"{redact(self.url)} (schema {self.schema})"
        psycopg, _ = psycopg_modules()
        if isinstance(exc, psycopg.errors.LockNotAvailable):
            waited = f"{self.lock_timeout_s} s" if self.lock_timeout_s else "its lock_timeout"
            return BusyError(f"cannot {action} index {where}: another session holds a lock on "
                             f"it past {waited} ({exc}). Fix: retry when that session ends "
                             "(see pg_locks on the server).")
        if server_lost(exc):  # else (a deadlock, a full disk) the server log, below
            return StoreError(f"cannot {action} index {where}: {exc}. Fix: check the URL and that "
                              "the server is running and reachable.")
        if type(exc).__name__ == "UniqueViolation":
            return StoreError(f"cannot {action} index {where}: {exc}. Fix: chunk ids must be "
                              "unique across documents (derive them from doc_id, offsets and "
                              "text hash, as citewise's chunker does).")
        return StoreError(f"cannot {action} index {where}: {exc}. Fix: check the server log; "
                          "if the schema is damaged, ingest into a new one.")

    def close(self) -> None:
        """Close the pool (reopened on next use)."""
        with self._lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None

    # -- manifest and metadata -------------------------------------------------------------------

    def manifest(self) -> Manifest | None:
        with self._reading() as conn:
            return _manifest(conn)

    def ensure_manifest(self, manifest: Manifest) -> Manifest:
        """Record ``manifest`` (and build the HNSW index) on an empty index, else check it."""
        with self._writing() as conn:
            stored = _manifest(conn)
            if stored is None:
                manifest = to_record(manifest)
                with conn.cursor() as cur:
                    cur.executemany("INSERT INTO manifest(key, value) VALUES (%s, %s)",
                                    manifest_to_rows(manifest))
                set_vector_dim(conn, manifest.embedder_dim)
                create_vector_index(conn)
                return manifest
        check_manifest(stored, manifest, where=f"index {redact(self.url)} ({self.schema})")
        return stored

    def get_meta(self, key: str) -> str | None:
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM index_meta WHERE key = %s", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._writing() as conn:
            conn.execute("INSERT INTO index_meta(key, value) VALUES (%s, %s) ON CONFLICT (key) "
                         "DO UPDATE SET value = excluded.value", (key, str(value)))

    # -- documents -------------------------------------------------------------------------------

    def get_document(self, doc_id: str) -> Document | None:
        if "\x00" in doc_id:  # PostgreSQL refuses NUL in text; no id holds one (as SQLite)
            return None
        with self._reading() as conn:
            row = conn.execute(f"SELECT {_DOC_COLUMNS} FROM documents WHERE doc_id = %s",
                               (doc_id,)).fetchone()
        return None if row is None else document_from_row(row)

    def list_documents(self) -> list[Document]:
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {_DOC_COLUMNS} FROM documents ORDER BY doc_id")
            return [document_from_row(row) for row in rows]

    def get_parsed(self, doc_id: str) -> ParsedDocument | None:
        if "\x00" in doc_id:
            return None
        with self._reading() as conn:
            row = conn.execute("SELECT s.body FROM doc_sources AS s JOIN documents AS d "
                               "ON d.id = s.doc_id WHERE d.doc_id = %s", (doc_id,)).fetchone()
        return None if row is None else parsed_from_bytes(bytes(row[0]))

    def count(self) -> StoreCounts:
        with self._reading() as conn:
            docs, chunks, vectors = conn.execute(
                "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks), "
                "(SELECT count(*) FROM vectors)").fetchone()
        return StoreCounts(documents=docs, chunks=chunks, vectors=vectors)

    def cached_vectors(self, embed_hashes: Sequence[str], tenant: str | None = None) -> set[str]:
        """Which hashes have a vector in the cache ``tenant``'s documents use (the shared
        one; or, under ``index.tenancy: isolated``, the tenant's own)."""
        with self._reading() as conn:
            return writes.cached_hashes(conn, embed_hashes, tenant)

    # -- writes ----------------------------------------------------------------------------------

    def write(self, batch: Sequence[DocumentWrite]) -> None:
        """Upsert documents with all their chunks and new vectors, in one transaction."""
        if not batch:
            return
        with self._writing() as conn:
            writes.write_batch(conn, batch, _dim(conn))

    def delete(self, doc_ids: Sequence[str]) -> int:
        ids = delete_ids(doc_ids)
        with self._writing() as conn:
            return writes.delete_documents(conn, ids)

    def set_acl(self, doc_id: str, groups: Sequence[str], tenant: str | None = None) -> None:
        names = acl_groups(doc_id, groups)
        with self._writing() as conn:
            writes.set_document_acl(conn, doc_id, names, tenant)

    @contextmanager
    def bulk_load(self) -> Iterator[PostgresStore]:
        """Write many batches with the HNSW index dropped, then build it once (pgvector builds
        an index in bulk several times faster than it inserts row by row). Meanwhile dense
        searches still answer, by a sequential scan. Used by ``migrate`` and the benchmark."""
        with self._writing() as conn:
            dim = _dim(conn)
            conn.execute("DROP INDEX IF EXISTS vectors_hnsw")
        try:
            yield self
        finally:
            if dim is not None:
                with self._writing() as conn:
                    conn.execute("SET LOCAL maintenance_work_mem = '512MB'")
                    create_vector_index(conn)
                    conn.execute("ANALYZE chunks")  # fresh estimates for the dense path choice

    # -- search ----------------------------------------------------------------------------------

    def search_sparse(self, query: str, top_k: int, principal: Principal,
                      title_weight: float = 1.0) -> list[ScoredId]:
        """``ts_rank`` (not BM25) over headings (A) + text (B), among readable chunks."""
        check_search_args(top_k, title_weight)
        terms = query_terms(query)
        if not terms or not principal.groups:
            return []
        params = search.filter_params(principal.tenant, principal.groups)
        with self._reading("search") as conn:
            return search.search_sparse(conn, terms, params, top_k, title_weight)

    def search_dense(self, vector: np.ndarray, top_k: int,
                     principal: Principal) -> list[ScoredId]:
        """Cosine top-k among readable chunks (exact for selective filters, else HNSW)."""
        check_search_args(top_k)
        with self._reading("search") as conn:
            dim = _dim(conn)
            if dim is None:
                return []
            query = writes.normalised(check_vector(vector, dim, "the query vector"))
            if not principal.groups:
                return []
            params = search.filter_params(principal.tenant, principal.groups)
            path, results = search.search_dense(conn, query, params, top_k, self.ef_search,
                                                self.exact_max)
        self.last_dense_path = path
        return results

    def get_chunks(self, chunk_ids: Sequence[str],
                   principal: Principal) -> dict[str, tuple[Chunk, Document]]:
        """The chunks among ``chunk_ids`` that ``principal`` may read, with their documents."""
        if isinstance(chunk_ids, str):
            chunk_ids = [chunk_ids]
        if not chunk_ids or not principal.groups:
            return {}
        params = {**search.filter_params(principal.tenant, principal.groups),
                  "chunk_ids": list(chunk_ids)}
        out: dict[str, tuple[Chunk, Document]] = {}
        with self._reading() as conn:
            for row in conn.execute(search.VISIBLE_CHUNKS_SQL, params):
                doc = document_from_row(row[13:])
                out[row[0]] = (chunk_from_row(row[:13], doc.doc_id), doc)
        return out

    def describe_filter(self, principal: Principal) -> str:
        """The predicate as applied, from the principal's own names only (never which names
        the index holds)."""
        groups = ", ".join(repr(g) for g in sorted(principal.groups))
        with self._reading() as conn:
            tenancy = "isolated" if writes.isolated(conn) else "shared"
        text = (f"c.tenant = {principal.tenant!r} AND c.acl OPERATOR(pg_catalog.&&) "
                f"ARRAY[{groups}] "
                f"(schema {self.schema}; GIN on chunks.acl; dense: exact scan when the planner "
                f"estimates at most {self.exact_max} allowed chunks, else HNSW with iterative "
                "scan; ts_rank reads each chunk alone: no statistics across tenants; "
                f"index.tenancy {tenancy})")
        if not principal.groups:
            text += " (the principal has no groups: nothing is visible)"
        return text


_DOC_COLUMNS = ("doc_id, title, content_hash, tenant, acl, version, source_url, owner, "
                "updated_at, metadata")


def _manifest(conn: Any) -> Manifest | None:
    return manifest_from_rows(dict(conn.execute("SELECT key, value FROM manifest").fetchall()))


def _dim(conn: Any) -> int | None:
    row = conn.execute("SELECT value FROM manifest WHERE key = 'embedder_dim'").fetchone()
    return None if row is None else int(row[0])


def document_from_row(row: Sequence[Any]) -> Document:
    doc_id, title, content_hash, tenant, acl, version, source_url, owner, updated_at, meta = row
    return Document(doc_id=doc_id, title=title, content_hash=content_hash, tenant=tenant,
                    acl_groups=frozenset(acl), version=version, source_url=source_url,
                    owner=owner, updated_at=updated_at, metadata=json.loads(meta))


def chunk_from_row(row: Sequence[Any], doc_id: str) -> Chunk:
    """``text_for_embedding`` is not stored (only its hash): it comes back empty."""
    (chunk_id, ordinal, text, embed_hash, start, end, heading_path, anchor, section_id,
     token_count, kind, page, sections) = row
    return Chunk(chunk_id=chunk_id, doc_id=doc_id, ordinal=ordinal, text=text,
                 text_for_embedding="", embed_hash=embed_hash, start=start, end=end,
                 heading_path=tuple(heading_path), anchor=anchor, section_id=section_id,
                 token_count=token_count, kind=kind, page=page,
                 sections=sections_from_json(sections))
