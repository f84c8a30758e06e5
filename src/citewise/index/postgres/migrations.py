"""Numbered schema migrations for one PostgreSQL index schema (e.g. ``citewise_v1``).

As in :mod:`citewise.index.sqlite.migrations`: functions ``mNNN_name(conn)`` in
:data:`MIGRATIONS`, applied in order, each in its own transaction, recorded by name in
``migrations``. A transaction-scoped advisory lock on the schema name makes concurrent openers
wait instead of racing to create the same tables.

Schema (m001)::

    migrations  (id serial PK, name UNIQUE, applied_at)
    manifest    (key PK, value JSON text)              -- the index identity, one row per field
    index_meta  (key PK, value text)                   -- calibrated thresholds & co
    documents   (id bigserial PK, doc_id UNIQUE, version, content_hash, title, source_url, owner,
                 tenant, acl text[], updated_at, metadata JSON text)   -- authoritative ACL
    chunks      (id bigserial PK, chunk_id UNIQUE, doc_id -> documents ON DELETE CASCADE,
                 ordinal, text, heading_path text[], anchor, start_char, end_char, section_id,
                 token_count, kind, page, embed_hash,
                 tenant, acl text[],                   -- copies of the document's, for filters
                 tsv tsvector)                         -- A: title + headings, B: text
    vectors     (embed_hash PK, embedding vector)      -- narrow: never TOASTed (STORAGE PLAIN)
    doc_sources (doc_id PK -> documents ON DELETE CASCADE, body bytea)

m002: ``vectors`` keyed ``(embed_hash, scope)`` and ``chunks.vec_scope``: scope ``''`` is the
embedding cache shared by all tenants, a tenant name that tenant's own cache
(``index.tenancy: isolated``).

Indexes: GIN on ``chunks.tsv`` and ``chunks.acl``, b-tree on ``(tenant)`` and ``embed_hash``.
The vector column gets its dimension and the HNSW index (inner product; vectors are stored
L2-normalised, so it ranks like cosine) when the manifest is recorded (:func:`set_vector_dim`,
:func:`create_vector_index`), since only the manifest knows the dimension.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from psycopg import sql

HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64


def m001_initial(conn: Any) -> None:
    """Tables and indexes of one index version."""
    for statement in _M001:
        conn.execute(statement)


_M001 = (
    "CREATE TABLE manifest (key text PRIMARY KEY, value text NOT NULL)",
    "CREATE TABLE index_meta (key text PRIMARY KEY, value text NOT NULL)",
    """CREATE TABLE documents (
        id bigserial PRIMARY KEY,
        doc_id text NOT NULL UNIQUE,
        version integer NOT NULL,
        content_hash text NOT NULL,
        title text NOT NULL,
        source_url text,
        owner text,
        tenant text NOT NULL,
        acl text[] NOT NULL,
        updated_at text,
        metadata text NOT NULL)""",
    """CREATE TABLE chunks (
        id bigserial PRIMARY KEY,
        chunk_id text NOT NULL UNIQUE,
        doc_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ordinal integer NOT NULL,
        text text NOT NULL,
        heading_path text[] NOT NULL,
        anchor text,
        start_char integer NOT NULL,
        end_char integer NOT NULL,
        section_id text,
        token_count integer NOT NULL,
        kind text NOT NULL,
        page integer,
        embed_hash text NOT NULL,
        tenant text NOT NULL,
        acl text[] NOT NULL,
        tsv tsvector NOT NULL)""",
    "CREATE INDEX chunks_doc ON chunks (doc_id, ordinal)",
    "CREATE INDEX chunks_embed_hash ON chunks (embed_hash)",
    "CREATE INDEX chunks_tenant ON chunks (tenant)",
    "CREATE INDEX chunks_acl ON chunks USING gin (acl)",
    "CREATE INDEX chunks_tsv ON chunks USING gin (tsv)",
    "CREATE TABLE vectors (embed_hash text PRIMARY KEY, embedding vector NOT NULL)",
    "ALTER TABLE vectors ALTER COLUMN embedding SET STORAGE PLAIN",
    """CREATE TABLE doc_sources (
        doc_id bigint PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
        body bytea NOT NULL)""",
)

def m002_tenant_scoped_vectors(conn: Any) -> None:
    """The embedding cache gets a scope (``index.tenancy``): ``''`` = shared by all tenants
    (every vector of an older index), a tenant name = that tenant's own cache. Each chunk
    records the scope of its vector (``vec_scope``), so searches join on both columns."""
    conn.execute("ALTER TABLE vectors ADD COLUMN scope text NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE vectors DROP CONSTRAINT vectors_pkey")
    conn.execute("ALTER TABLE vectors ADD PRIMARY KEY (embed_hash, scope)")
    conn.execute("ALTER TABLE chunks ADD COLUMN vec_scope text NOT NULL DEFAULT ''")


def m003_chunk_sections(conn: Any) -> None:
    """Where a chunk of merged sections passes into the next one (``Chunk.sections``, JSON;
    the SQLite index's ``m007_chunk_sections``); older chunks have none (``'[]'``)."""
    conn.execute("ALTER TABLE chunks ADD COLUMN sections text NOT NULL DEFAULT '[]'")


MIGRATIONS: tuple[Callable[[Any], None], ...] = (
    m001_initial, m002_tenant_scoped_vectors, m003_chunk_sections)
SCHEMA_VERSION = len(MIGRATIONS)


def lock_key(schema: str) -> sql.Composed:
    """``pg_advisory_xact_lock(hashtext('citewise:<schema>'))``: serialises migrations and
    writes of one schema (searches never take it)."""
    return sql.SQL("SELECT pg_advisory_xact_lock(hashtext({}))").format(
        sql.Literal(f"citewise:{schema}"))


def migrate(conn: Any, schema: str) -> list[str]:
    """Create ``schema`` if needed and apply its missing migrations; returns the names applied.

    ``conn`` is in autocommit mode with ``search_path`` = ``schema, public``."""
    from citewise.errors import StoreError

    known = {fn.__name__ for fn in MIGRATIONS}
    done: list[str] = []
    with conn.transaction():
        conn.execute(lock_key(schema))
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        conn.execute("""CREATE TABLE IF NOT EXISTS migrations (
            id serial PRIMARY KEY, name text NOT NULL UNIQUE,
            applied_at timestamptz NOT NULL DEFAULT now())""")
        applied = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY id")]
        unknown = [name for name in applied if name not in known]
        if unknown:
            raise StoreError(
                f"schema {schema} was created by a newer citewise (unknown migrations {unknown})."
                " Fix: upgrade citewise, or ingest into a new schema/database.")
        for fn in MIGRATIONS:
            if fn.__name__ not in applied:
                fn(conn)
                conn.execute("INSERT INTO migrations(name) VALUES (%s)", (fn.__name__,))
                done.append(fn.__name__)
    return done


def set_vector_dim(conn: Any, dim: int) -> None:
    """Give the (empty) vector column its dimension, when the manifest is recorded. ALTER TYPE
    resets the column's storage to the type's default, so PLAIN (never TOASTed) is set again."""
    conn.execute(sql.SQL("ALTER TABLE vectors ALTER COLUMN embedding TYPE vector({})").format(
        sql.Literal(int(dim))))
    conn.execute("ALTER TABLE vectors ALTER COLUMN embedding SET STORAGE PLAIN")


def create_vector_index(conn: Any) -> None:
    """Build the HNSW index (inner product on unit vectors) inside the caller's transaction."""
    conn.execute(sql.SQL(
        "CREATE INDEX IF NOT EXISTS vectors_hnsw ON vectors USING hnsw (embedding vector_ip_ops)"
        " WITH (m = {}, ef_construction = {})").format(
            sql.Literal(HNSW_M), sql.Literal(HNSW_EF_CONSTRUCTION)))
