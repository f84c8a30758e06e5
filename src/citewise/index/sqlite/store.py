"""``SQLiteStore``: the embedded :class:`~citewise.protocols.Store`, one SQLite file.

Documents, chunks, ACLs, vectors, the FTS5 index and the manifest live in one WAL-mode file
(schema: :mod:`citewise.index.sqlite.migrations`). Lexical search is FTS5 BM25 with the ACL in
the MATCH (:mod:`.fts`); dense search is exact filtered search over an in-process matrix
(:mod:`.vectors`); hydration repeats the ACL predicate in SQL (:mod:`.rows`).

One connection per store object, opened on first use and guarded by a lock, so a store may be
shared between threads. Several processes may open the same file: writes serialise on SQLite's
write lock (5 s busy timeout) and readers see each commit on their next call.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import numpy as np

from citewise.errors import StoreError
from citewise.index.checks import acl_groups, check_search_args, delete_ids
from citewise.index.manifest import (
    check_manifest,
    manifest_from_rows,
    manifest_to_rows,
    to_record,
)
from citewise.index.serialize import parsed_from_bytes
from citewise.index.sqlite import cleanup, fts, rows, writes
from citewise.index.sqlite.acl import (
    ResolvedPrincipal,
    describe_principal,
    display_tokens,
    resolve_principal,
)
from citewise.index.sqlite.database import Database
from citewise.index.sqlite.migrations import connect, sqlite3
from citewise.index.sqlite.prune import TermStats, search_sparse_pruned
from citewise.index.sqlite.tenancy import fts_table_exists, layout_of
from citewise.index.sqlite.vectors import GENERATION_SQL, DenseIndex, check_query
from citewise.protocols import DocumentWrite, StoreCounts
from citewise.text import query_terms
from citewise.types import Chunk, Document, Manifest, ParsedDocument, Principal, ScoredId


class SQLiteStore:
    """The SQLite backend of :class:`~citewise.protocols.Store`.

    ``path`` is a file path (created with its parent folders if missing) or ``":memory:"``
    (private to this object). The constructor does no I/O.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._database = Database(self.path, self._error)
        self._lock = self._database.lock
        self._db = self._database.connection
        self._reading = self._database.reading
        self._writing = self._database.writing
        self._dense = DenseIndex(None if self.path == ":memory:" else self._second_connection)
        self._purger = cleanup.Purger(self._database)
        self._term_stats: dict[str, TermStats] = {}  # per FTS table

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- connection and transactions -------------------------------------------------------

    def _error(self, exc: Exception, action: str) -> StoreError:
        if "readonly" in str(exc):
            return read_only(self.path, exc)
        if "locked" in str(exc) or "busy" in str(exc):
            return StoreError(f"index {self.path} is busy: another process held its write lock "
                              f"for over 5 s ({exc}). Fix: retry when the other ingest ends.")
        if isinstance(exc, sqlite3.IntegrityError):
            return StoreError(f"cannot {action} index {self.path}: {exc}. Fix: chunk ids must be "
                              "unique across documents (derive them from doc_id, offsets and "
                              "text hash, as citewise's chunker does).")
        return StoreError(f"cannot {action} index {self.path}: {exc}. Fix: check the path and "
                          "disk space; if the file is damaged, re-create it with "
                          "`citewise ingest --db NEW.db`.")

    def _second_connection(self) -> Any:
        """The dense index's own connection (never creates the file: one removed while this
        store was open is an error, not a new empty index)."""
        if not Path(self.path).exists():
            raise StoreError(f"index {self.path} is gone (its version was removed, e.g. by "
                             "`citewise versions --gc`). Fix: run the command again.")
        return connect(self.path)

    def close(self) -> None:
        """Close the connection and drop the in-memory matrix (reopened on next use)."""
        with self._lock:
            self._database.close()
            self._dense.invalidate()

    # -- manifest ----------------------------------------------------------------------------

    def manifest(self) -> Manifest | None:
        with self._reading() as conn:
            return self._manifest(conn)

    def _manifest(self, conn: Any) -> Manifest | None:
        return manifest_from_rows(dict(conn.execute("SELECT key, value FROM manifest")))

    def ensure_manifest(self, manifest: Manifest) -> Manifest:
        """Record ``manifest`` on an index without one; else check it matches the stored one."""
        with self._writing() as conn:
            stored = self._manifest(conn)
            if stored is None:
                manifest = to_record(manifest)
                conn.executemany("INSERT INTO manifest(key, value) VALUES (?, ?)",
                                 manifest_to_rows(manifest))
                return manifest
        check_manifest(stored, manifest, where=f"index {self.path}")
        return stored

    def _dim(self, conn: Any) -> int | None:
        row = conn.execute("SELECT value FROM manifest WHERE key = 'embedder_dim'").fetchone()
        return None if row is None else int(row[0])

    # -- documents -----------------------------------------------------------------------------

    def get_document(self, doc_id: str) -> Document | None:
        with self._reading() as conn:
            return rows.get_document(conn, doc_id)

    def get_parsed(self, doc_id: str) -> ParsedDocument | None:
        with self._reading() as conn:
            row = conn.execute("SELECT s.body FROM doc_sources s JOIN documents d "
                               "ON d.id = s.doc_rowid WHERE d.doc_id = ?", (doc_id,)).fetchone()
        return None if row is None else parsed_from_bytes(row[0])

    def get_meta(self, key: str) -> str | None:
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM index_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Set ``key``; a new generation, as a write: what the caches keyed by it computed
        under the gate's old calibration is not served after a new one is stored (a security
        review: servers kept serving answers the new threshold declines)."""
        with self._writing() as conn:
            conn.execute("INSERT OR REPLACE INTO index_meta(key, value) VALUES (?, ?)",
                         (key, str(value)))
            writes.bump_generation(conn, ())

    def generation(self) -> int:
        """``meta.generation``: +1 in every write, delete and ACL change, from any process."""
        with self._reading() as conn:
            return int(conn.execute(GENERATION_SQL).fetchone()[0])

    def list_documents(self) -> list[Document]:
        with self._reading() as conn:
            return rows.list_documents(conn)

    def count(self) -> StoreCounts:
        with self._reading() as conn:
            n_docs, n_chunks, n_vectors = conn.execute(
                "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks), "
                "(SELECT count(*) FROM vectors)").fetchone()
        return StoreCounts(documents=n_docs, chunks=n_chunks, vectors=n_vectors)

    def cached_vectors(self, embed_hashes: Sequence[str], tenant: str | None = None) -> set[str]:
        """Which hashes have a vector in the cache ``tenant``'s documents may use (the shared
        one; or, under ``index.tenancy: isolated``, the tenant's own)."""
        with self._reading() as conn:
            return writes.cached_hashes(conn, embed_hashes, tenant)

    # -- writes ------------------------------------------------------------------------------

    def write(self, batch: Sequence[DocumentWrite]) -> None:
        """Upsert documents with all their chunks and new vectors, in one transaction."""
        if not batch:
            return
        with self._writing() as conn:
            replaced = writes.write_batch(conn, batch, self._dim(conn))
        self._purger.removed(replaced)  # a changed document's old text leaves the file

    def delete(self, doc_ids: Sequence[str]) -> int:
        ids = delete_ids(doc_ids)
        tables: set[str] = set()
        with self._writing() as conn:
            count = writes.delete_documents(conn, ids, tables)
        self._purger.removed(tables)
        return count

    def set_acl(self, doc_id: str, groups: Sequence[str], tenant: str | None = None) -> None:
        """New groups (and tenant) for one document. Its old FTS rows held the same text: no
        purge (they only say which groups could read it), but BM25's counts, which kept them,
        are set right after the write (:mod:`~citewise.index.sqlite.fts_stats`). Moved to
        another tenant's table (isolated tenancy), its words leave the old one: a security
        review's moved and then deleted document kept them there."""
        names = acl_groups(doc_id, groups)
        with self._writing() as conn:
            tables = writes.set_document_acl(conn, doc_id, names, tenant)
        if len(tables) > 1:
            self._purger.removed(tables)  # purges and recounts
        else:
            self._purger.recount(tables)

    def purging_once(self) -> AbstractContextManager[None]:
        """Purge removed text once when the block ends, not after each write in it (an
        ingest's batches): :class:`~citewise.index.sqlite.cleanup.Purger`."""
        return self._purger.once()

    # -- search --------------------------------------------------------------------------------

    def search_sparse(self, query: str, top_k: int, principal: Principal,
                      title_weight: float = 1.0) -> list[ScoredId]:
        """BM25 over title + heading path + text, among chunks ``principal`` may read (with
        the statistics of the principal's tenant alone under isolated tenancy)."""
        check_search_args(top_k, title_weight)
        terms = query_terms(query)
        if not terms:
            return []
        with self._reading() as conn:
            resolved = resolve_principal(conn, principal)
            stats = None if resolved is None else self._stats_for(conn, resolved)
            if resolved is None or stats is None:
                return []
            return search_sparse_pruned(conn, stats, terms, resolved.tokens, top_k,
                                        title_weight)

    def _stats_for(self, conn: Any, resolved: ResolvedPrincipal) -> TermStats | None:
        """The term statistics of the FTS table ``resolved``'s tenant is searched in (``None``
        when that tenant has no table yet: nothing to find)."""
        table = layout_of(conn).fts_table(resolved.tenant_id)
        stats = self._term_stats.get(table)
        if stats is None:
            if not fts_table_exists(conn, table):
                return None
            stats = self._term_stats.setdefault(table, TermStats(table, resolved.tokens.tenant))
        return stats

    def build_sparse_sql(self, query: str, top_k: int, principal: Principal,
                         title_weight: float = 1.0) -> tuple[str, dict[str, Any]] | None:
        """The SQL :meth:`search_sparse` runs, with the ACL tokens (and a tenant's table) shown
        by the principal's own names, or ``None`` when it has no terms or no groups. What is
        shown never depends on which tenant or group names exist in the index."""
        terms = query_terms(query)
        if not terms or not principal.groups:
            return None
        with self._reading() as conn:
            isolated = layout_of(conn).isolated
        table = f"chunks_fts_<id of tenant {principal.tenant!r}>" if isolated else "chunks_fts"
        return fts.build_sparse_sql(terms, display_tokens(principal), top_k, title_weight,
                                    table)

    def search_dense(self, vector: np.ndarray, top_k: int,
                     principal: Principal) -> list[ScoredId]:
        """Exact cosine top-k among chunks ``principal`` may read. A stale matrix is brought
        up to date after the store's lock is released (:mod:`.vectors`), so other threads'
        reads do not wait for it."""
        check_search_args(top_k)
        with self._reading() as conn:
            dim = self._dim(conn)
            if dim is None:
                return []
            query = check_query(vector, dim)
            resolved = resolve_principal(conn, principal)
            if resolved is None:
                return []
            key = resolved.tenant_id if layout_of(conn).isolated else None
            generation = conn.execute(GENERATION_SQL).fetchone()[0]
            state = self._dense.current(key, generation)
            if state is None and not self._dense.off_lock:
                state = self._dense.refresh(conn, dim, key, generation)
        if state is None:
            try:
                state = self._dense.refresh(None, dim, key, generation)
            except sqlite3.Error as exc:
                raise self._error(exc, "read") from exc
        return self._dense.search(state, query, top_k, resolved)

    def get_chunks(self, chunk_ids: Sequence[str],
                   principal: Principal) -> dict[str, tuple[Chunk, Document]]:
        """The chunks among ``chunk_ids`` that ``principal`` may read, with their documents."""
        if isinstance(chunk_ids, str):
            chunk_ids = [chunk_ids]
        with self._reading() as conn:
            return rows.visible_chunks(conn, list(chunk_ids), resolve_principal(conn, principal))

    def describe_filter(self, principal: Principal) -> str:
        """The predicate as applied, from the principal's own names only (never which names
        the index holds: see :func:`~citewise.index.sqlite.acl.describe_principal`)."""
        with self._reading() as conn:
            return describe_principal(principal, layout_of(conn).name)


def read_only(path: str | Path, exc: Exception) -> StoreError:
    """The error of a write to an index file (or its folder) that may not be written: a
    security review's `chattr +i` index was told to "retry when other writers finish"."""
    return StoreError(f"index {path} cannot be written: {exc}. Fix: make the file and its "
                      "folder writable by this user (`ls -l` shows who may write; `chmod u+w`), "
                      "or copy it elsewhere and pass --db COPY.")
