"""Numbered schema migrations for the SQLite index (the sqlite-utils / llm pattern).

Each migration is a function ``mNNN_name(conn)`` registered in :data:`MIGRATIONS`, applied in
order, each in its own ``BEGIN IMMEDIATE`` transaction, and recorded by name in the
``migrations`` table, so reopening an index applies only what is missing. The schema version of
an index is the number of migrations applied (:data:`SCHEMA_VERSION` for this release).

Schema (m001)::

    migrations (id, name UNIQUE, applied_at)
    manifest   (key PK, value JSON)                 -- the index identity, one row per field
    meta       (key PK, value INTEGER)              -- 'generation': +1 per write/delete/ACL change
    tenants    (id INTEGER PK, name UNIQUE)         -- FTS token t<id>
    groups     (id INTEGER PK, name UNIQUE)         -- FTS token g<id>
    documents  (id INTEGER PK, doc_id UNIQUE, version, content_hash, title, source_url, owner,
                tenant, tenant_id -> tenants, acl JSON, updated_at, metadata JSON)
    doc_groups (doc_rowid -> documents, group_id -> groups)   -- the authoritative ACL
    chunks     (id INTEGER PK, chunk_id UNIQUE, doc_rowid -> documents, ordinal, text,
                heading_path JSON, anchor, start_char, end_char, section_id, token_count, kind,
                page, embed_hash)
    vectors    (embed_hash PK, vec BLOB little-endian float32)  -- one model, named in manifest
    chunks_fts FTS5(title, body, acl, tenant), contentless with contentless_delete=1,
               rowid = chunks.id

Later migrations: m002 ``doc_sources`` (parsed bodies) and ``index_meta``; m003 the catalog of
index versions (:mod:`citewise.index.sqlite.catalog`)::

    index_versions    (number PK, state live|shadow|retired|refused, created_at, changed_at, note)
                      -- at most one 'live' row (partial unique index); 1 = this file's own data
    index_version_log (id PK, number, state, note, at)   -- every state change, for the record

m004: ``vectors (embed_hash, scope, vec)`` keyed ``(embed_hash, scope)``: scope 0 is the cache
shared by all tenants, scope N the cache of tenant N under ``index.tenancy: isolated``
(which also keeps one FTS5 table ``chunks_fts_t<N>`` per tenant; :mod:`.tenancy`).
m005: the change log (deletes and ACL changes every version applies when it becomes live,
:mod:`citewise.index.changelog`): ``index_changes`` and ``index_versions.applied_seq``.
m006: ``dense_changes (generation, doc_rowid)``, the documents each write generation touched,
so an in-memory dense matrix catches up by re-reading those documents alone
(:mod:`.dense_state`); ``meta.dense_log_from``: the log holds every change after it.

``chunks_fts`` is contentless (``content=''``): the text lives once, in ``chunks``; measured on
100k chunks it is 38 MB vs 86 MB for a regular FTS table, inserts 85k vs 61k rows/s, and the
same query latency. ``contentless_delete=1`` (SQLite >= 3.43) allows DELETE of single rows,
which BM25's row count keeps counting (:mod:`.fts_stats` sets it right).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.errors import StoreError
from citewise.private import create_private, foreign

try:  # pragma: no cover - exercised implicitly
    from pysqlite3 import dbapi2 as sqlite3
except ImportError:  # pragma: no cover
    import sqlite3  # type: ignore[no-redef]

Connection = Any  # a (py)sqlite3 connection

MIN_SQLITE = (3, 43, 0)  # FTS5 contentless_delete
BUSY_TIMEOUT_MS = 5000
"""How long a connection waits for another process's write lock."""


def m001_initial(conn: Connection) -> None:
    """Tables for documents, ACLs, chunks, vectors, the FTS index, manifest and generation."""
    for statement in _M001:
        conn.execute(statement)
    conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('generation', 0)")


_M001 = (
    "CREATE TABLE manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "CREATE TABLE tenants (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
    "CREATE TABLE groups (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
    """CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        doc_id TEXT NOT NULL UNIQUE,
        version INTEGER NOT NULL,
        content_hash TEXT NOT NULL,
        title TEXT NOT NULL,
        source_url TEXT,
        owner TEXT,
        tenant TEXT NOT NULL,
        tenant_id INTEGER NOT NULL REFERENCES tenants(id),
        acl TEXT NOT NULL,
        updated_at TEXT,
        metadata TEXT NOT NULL)""",
    """CREATE TABLE doc_groups (
        doc_rowid INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        group_id INTEGER NOT NULL REFERENCES groups(id),
        PRIMARY KEY (doc_rowid, group_id)) WITHOUT ROWID""",
    "CREATE INDEX doc_groups_group ON doc_groups(group_id, doc_rowid)",
    """CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        chunk_id TEXT NOT NULL UNIQUE,
        doc_rowid INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        text TEXT NOT NULL,
        heading_path TEXT NOT NULL,
        anchor TEXT,
        start_char INTEGER NOT NULL,
        end_char INTEGER NOT NULL,
        section_id TEXT,
        token_count INTEGER NOT NULL,
        kind TEXT NOT NULL,
        page INTEGER,
        embed_hash TEXT NOT NULL)""",
    "CREATE INDEX chunks_doc ON chunks(doc_rowid, ordinal)",
    "CREATE INDEX chunks_embed_hash ON chunks(embed_hash)",
    "CREATE TABLE vectors (embed_hash TEXT PRIMARY KEY, vec BLOB NOT NULL)",
    """CREATE VIRTUAL TABLE chunks_fts USING fts5(
        title, body, acl, tenant,
        tokenize = 'porter unicode61 remove_diacritics 2',
        content = '', contentless_delete = 1)""",
)

def m002_sources_and_meta(conn: Connection) -> None:
    """Parsed document bodies (for reindexing without the files) and free-form index metadata
    (calibrated thresholds), which is not part of the manifest's identity."""
    conn.execute("""CREATE TABLE doc_sources (
        doc_rowid INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
        body BLOB NOT NULL)""")
    conn.execute("CREATE TABLE index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def m003_index_versions(conn: Connection) -> None:
    """The catalog of index versions (``citewise reindex``/``versions``/``rollback``). Version 1
    is this file's own data and live until another version is promoted; version N > 1 lives in
    the sibling file ``PATH.vN`` (see :mod:`citewise.index.sqlite.catalog`)."""
    conn.execute("""CREATE TABLE index_versions (
        number INTEGER PRIMARY KEY CHECK (number >= 1),
        state TEXT NOT NULL CHECK (state IN ('live', 'shadow', 'retired', 'refused')),
        created_at TEXT NOT NULL,
        changed_at TEXT NOT NULL,
        note TEXT NOT NULL DEFAULT '')""")
    conn.execute("CREATE UNIQUE INDEX index_versions_one_live ON index_versions(state) "
                 "WHERE state = 'live'")
    conn.execute("""CREATE TABLE index_version_log (
        id INTEGER PRIMARY KEY, number INTEGER NOT NULL, state TEXT NOT NULL,
        note TEXT NOT NULL, at TEXT NOT NULL)""")
    now = datetime.now(UTC).isoformat(timespec="seconds")
    row = conn.execute("SELECT json_extract(value, '$') FROM manifest "
                       "WHERE key = 'created_at'").fetchone()
    conn.execute("INSERT INTO index_versions(number, state, created_at, changed_at, note) "
                 "VALUES (1, 'live', ?, ?, '')", (row[0] if row else now, now))


def m004_tenant_scoped_vectors(conn: Connection) -> None:
    """The embedding cache gets a scope (``index.tenancy``, :mod:`.tenancy`): 0 = shared by
    all tenants (every vector of an older index), a tenant id = that tenant's own cache.
    Keyed ``(embed_hash, scope)``, so lookups by hash alone still use the key. The table is
    copied once (measured 1.5 s for 100k 384-d vectors)."""
    conn.execute("""CREATE TABLE vectors_scoped (
        embed_hash TEXT NOT NULL, scope INTEGER NOT NULL DEFAULT 0, vec BLOB NOT NULL,
        PRIMARY KEY (embed_hash, scope))""")
    conn.execute("INSERT INTO vectors_scoped(embed_hash, scope, vec) "
                 "SELECT embed_hash, 0, vec FROM vectors")
    conn.execute("DROP TABLE vectors")
    conn.execute("ALTER TABLE vectors_scoped RENAME TO vectors")
    conn.execute("CREATE INDEX vectors_scope ON vectors(scope)")


def m005_change_log(conn: Connection) -> None:
    """The change log every version honours when it becomes live (deletes and ACL changes;
    :mod:`citewise.index.sqlite.changes`), and the last change each version applied."""
    conn.execute("""CREATE TABLE index_changes (
        doc_id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('put', 'acl', 'delete')),
        tenant TEXT,
        groups TEXT)""")
    conn.execute("ALTER TABLE index_versions ADD COLUMN applied_seq INTEGER NOT NULL DEFAULT 0")


def m006_dense_changes(conn: Connection) -> None:
    """Which documents each write generation touched (:mod:`.dense_state`); complete from
    the generation the index has now."""
    conn.execute("""CREATE TABLE dense_changes (
        generation INTEGER NOT NULL, doc_rowid INTEGER NOT NULL)""")
    conn.execute("CREATE INDEX dense_changes_generation ON dense_changes(generation)")
    conn.execute("INSERT OR REPLACE INTO meta(key, value) SELECT 'dense_log_from', value "
                 "FROM meta WHERE key = 'generation'")


def m007_chunk_sections(conn: Connection) -> None:
    """Where a chunk of merged sections passes into the next one (``Chunk.sections``, JSON),
    so a citation opens the section its quote is in. Older chunks have none (``[]``): their
    citations open the chunk's first section, as before, until ``citewise reindex`` rebuilds
    them (ingest re-chunks a document only when its content changed)."""
    conn.execute("ALTER TABLE chunks ADD COLUMN sections TEXT NOT NULL DEFAULT '[]'")


def m008_hand_deletes(conn: Connection) -> None:
    """Which logged deletes someone asked for (``citewise delete``): an ingest of such a
    document's file does not index it again unless told to (:mod:`citewise.source_claims`).
    Deletes logged before stay ordinary ones."""
    conn.execute("ALTER TABLE index_changes ADD COLUMN by_hand INTEGER NOT NULL DEFAULT 0")


def m009_put_hashes(conn: Connection) -> None:
    """The text each logged write stored (``index_changes.content_hash``): its readers are
    replayed onto that text only (:func:`citewise.index.changelog.apply_changes`). Writes
    logged before keep none, and are replayed as before."""
    conn.execute("ALTER TABLE index_changes ADD COLUMN content_hash TEXT")


MIGRATIONS: tuple[Callable[[Connection], None], ...] = (
    m001_initial, m002_sources_and_meta, m003_index_versions, m004_tenant_scoped_vectors,
    m005_change_log, m006_dense_changes, m007_chunk_sections, m008_hand_deletes,
    m009_put_hashes)
SCHEMA_VERSION = len(MIGRATIONS)


def connect(path: str | Path) -> Connection:
    """Open a connection in autocommit mode (we issue BEGIN ourselves) with WAL, a 5 s busy
    timeout, foreign keys and ``secure_delete`` on; a new file is created owner-only (0600).
    Raises :class:`StoreError` naming the fix."""
    if sqlite3.sqlite_version_info < MIN_SQLITE:
        raise StoreError(
            f"SQLite {sqlite3.sqlite_version} is too old for citewise (needs 3.43+ for FTS5 "
            "contentless_delete). Fix: `pip install pysqlite3-binary`.")
    target = str(path)
    if target != ":memory:":
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        _check_own(target)  # before anything is created through a planted link
        try:
            create_private(target)  # 0600, and so its -wal/-shm files (SQLite copies the mode)
        except OSError as exc:
            raise StoreError(f"cannot create index {target}: {exc.strerror or exc}. Fix: check "
                             "the folder exists and is writable, or pass another --db.") from exc
    try:
        conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False,
                               timeout=BUSY_TIMEOUT_MS / 1000)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA secure_delete = ON")  # deleted text is zeroed, not left in pages
        if target != ":memory:":  # (checked again: a -wal planted since is refused before
            _check_own(target, conn)  # SQLite first reads the index, which replays it)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"cannot open index {target}: {exc}. Fix: pass the path of a citewise index "
            "(or a new file name to create one).") from exc
    return conn


def _check_own(target: str, conn: Connection | None = None) -> None:
    """Refuse an index whose file, ``-wal``, ``-shm`` or ``-journal`` another user owns
    (:func:`~citewise.private.foreign`), closing ``conn`` first."""
    real = os.path.realpath(target)  # SQLite names the -wal after the file it opens
    for name in dict.fromkeys(f"{base}{suffix}" for base in (target, real)
                              for suffix in ("", "-wal", "-shm", "-journal")):
        problem = foreign(name)
        if problem:
            if conn is not None:
                conn.close()
            raise StoreError(f"index file {name} {problem}; not opened. Fix: run citewise as "
                             "its owner, or remove it if no one you trust made it, or pass "
                             "a --db in a folder only you may write")


def applied_migrations(conn: Connection) -> list[str]:
    """Names of the migrations recorded in this database (empty for a new file)."""
    conn.execute("""CREATE TABLE IF NOT EXISTS migrations (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)""")
    return [row[0] for row in conn.execute("SELECT name FROM migrations ORDER BY id")]


def migrate(conn: Connection) -> list[str]:
    """Apply the missing migrations in order; returns the names applied now.

    Raises :class:`StoreError` when the index was made by a newer citewise. An index that
    has them all is only read (no write lock: opening it never waits for a writer)."""
    known = {fn.__name__ for fn in MIGRATIONS}
    has_table = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                             "AND name = 'migrations'").fetchone() is not None
    applied = [row[0] for row in conn.execute("SELECT name FROM migrations ORDER BY id")] \
        if has_table else applied_migrations(conn)
    unknown = [name for name in applied if name not in known]
    if unknown:
        raise StoreError(
            f"this index was created by a newer citewise (unknown migrations {unknown}). "
            "Fix: upgrade citewise, or re-create the index with `citewise ingest --db NEW.db`.")
    done: list[str] = []
    if known <= set(applied):
        return done
    for fn in MIGRATIONS:
        conn.execute("BEGIN IMMEDIATE")
        try:
            seen = conn.execute("SELECT 1 FROM migrations WHERE name = ?", (fn.__name__,))
            if seen.fetchone() is None:
                fn(conn)
                conn.execute("INSERT INTO migrations(name, applied_at) VALUES (?, ?)",
                             (fn.__name__, datetime.now(UTC).isoformat(timespec="seconds")))
                done.append(fn.__name__)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite rolls back by itself on a full disk: say that
                conn.execute("ROLLBACK")
            raise
    return done
