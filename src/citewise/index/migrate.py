"""Copy a SQLite index into another store (PostgreSQL): ``citewise migrate``.

Everything is copied as stored, nothing is re-embedded or re-chunked: the manifest (so the
target has the same identity), documents with their ACLs, chunks, vectors, parsed bodies and
index metadata. Documents go in batches of ``batch_docs``, each batch one atomic
:meth:`~citewise.protocols.Store.write`, so an interrupted migration can simply be rerun
(writes are upserts).

Then :func:`migrate_index` verifies:

* counts: documents, chunks and vectors are equal in source and target;
* searches: for ``sample`` chunks spread over the index, a dense search with the chunk's own
  stored vector, as a principal of its document's tenant and groups, must return the same top
  score on both stores, and the top-10 SCORES (as a multiset, rounded to 1e-4) must overlap
  by at least ``min_overlap``. Scores, not ids: chunks with equal vectors tie, and the two
  backends break ties differently; a target's HNSW index may also be approximate.
  Lexical results are not compared: SQLite ranks with BM25, PostgreSQL with ``ts_rank``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np

from citewise.errors import ConfigError, StoreError
from citewise.index.checks import finite_number
from citewise.index.meta_keys import gate_name
from citewise.index.serialize import parsed_from_bytes
from citewise.index.sqlite import SQLiteStore
from citewise.index.sqlite.rows import CHUNK_COLUMNS, chunk_from_row
from citewise.protocols import DocumentWrite, Store
from citewise.types import Principal

VERIFY_TOP_K = 10


@dataclass(frozen=True)
class MigrationReport:
    documents: int
    chunks: int
    vectors: int
    meta_keys: int
    batches: int
    seconds: float
    checked_searches: int
    mean_overlap: float  # mean top-10 score overlap of the verification searches (1.0 = same)


def migrate_index(source: Store, target: Store, *, batch_docs: int = 200, sample: int = 20,
                  min_overlap: float = 0.9,
                  on_progress: Callable[[int], None] | None = None) -> MigrationReport:
    """Copy ``source`` (a :class:`SQLiteStore`) into ``target``, then verify; raises
    :class:`StoreError` when a count differs or a search check fails."""
    source = getattr(source, "current", lambda: source)()  # a LiveStore: its live version
    if not isinstance(source, SQLiteStore):
        raise ConfigError(f"migrate reads SQLite indexes only, got {source!r}. Fix: pass "
                          "--from sqlite:///path/to/index.db.")
    if batch_docs < 1:
        raise ConfigError(f"batch_docs must be >= 1, got {batch_docs}. Fix: use e.g. 200.")
    manifest = source.manifest()
    if manifest is None:
        raise StoreError(f"{source!r} has no manifest (an empty index?). Fix: ingest into it "
                         "first, or check the --from path.")
    started = time.perf_counter()
    refuse_others(source, target)  # before anything is written, the manifest included
    meta = read_meta(source)
    check_source_acls(source)
    target.ensure_manifest(manifest)
    batches = 0
    bulk = getattr(target, "bulk_load", None)  # PostgresStore: build the ANN index once
    with bulk() if bulk is not None else nullcontext():
        for batch in read_batches(source, batch_docs):
            target.write(batch)
            batches += 1
            if on_progress is not None:
                on_progress(len(batch))
    for key, value in meta.items():
        target.set_meta(key, value)
    try:
        check_counts(source, target)
        checked, overlap = check_searches(source, target, sample, min_overlap)
    except StoreError as exc:
        raise StoreError(f"{exc} The target was written and does not match the source: "
                         "delete it (or drop its schema) before migrating again") from None
    counts = target.count()
    return MigrationReport(documents=counts.documents, chunks=counts.chunks,
                           vectors=counts.vectors, meta_keys=len(meta), batches=batches,
                           seconds=round(time.perf_counter() - started, 3),
                           checked_searches=checked, mean_overlap=overlap)


def read_batches(source: SQLiteStore, batch_docs: int) -> Iterator[list[DocumentWrite]]:
    """The source's documents as :class:`DocumentWrite` batches (chunks, vectors, bodies)."""
    documents = source.list_documents()
    for start in range(0, len(documents), batch_docs):
        docs = documents[start:start + batch_docs]
        with source._reading("read") as conn:  # the stored rows themselves: no Store API
            batch = [_document_write(conn, doc) for doc in docs]
        yield batch


def _document_write(conn: Any, doc: Any) -> DocumentWrite:
    rows = conn.execute(
        f"SELECT {CHUNK_COLUMNS} FROM chunks AS c JOIN documents AS d ON d.id = c.doc_rowid "
        "WHERE d.doc_id = ? ORDER BY c.ordinal, c.id", (doc.doc_id,)).fetchall()
    chunks = tuple(chunk_from_row(row, doc.doc_id) for row in rows)
    vectors = read_vectors(conn, [c.embed_hash for c in chunks])
    body = conn.execute("SELECT s.body FROM doc_sources AS s JOIN documents AS d "
                        "ON d.id = s.doc_rowid WHERE d.doc_id = ?", (doc.doc_id,)).fetchone()
    parsed = None if body is None else parsed_from_bytes(body[0])
    return DocumentWrite(document=doc, chunks=chunks, vectors=vectors, parsed=parsed)


def read_vectors(conn: Any, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """Stored float32 vectors of ``hashes`` (SQLite ``vectors`` table)."""
    wanted = sorted(set(hashes))
    out: dict[str, np.ndarray] = {}
    for i in range(0, len(wanted), 500):
        part = wanted[i:i + 500]
        marks = ",".join("?" * len(part))
        for h, blob in conn.execute(
                f"SELECT embed_hash, vec FROM vectors WHERE embed_hash IN ({marks})", part):
            out[h] = np.frombuffer(blob, dtype="<f4").astype(np.float32)
    return out


def read_meta(source: SQLiteStore) -> dict[str, str]:
    """The source's calibration keys (:func:`citewise.index.meta_keys.gate_name`: index-wide
    and per tenant), the only keys copied, checked (a threshold must be a finite number);
    raises :class:`StoreError` before anything is written. A security review's source
    planted ``gate.threshold = nan`` (no score is below it: the gate declined nothing) and a
    key of its own, both copied as they were."""
    with source._reading("read") as conn:
        meta = {k: str(v) for k, v in conn.execute("SELECT key, value FROM index_meta")
                if gate_name(k) is not None}
    for key, value in meta.items():
        if "\x00" in key or "\x00" in value:  # PostgreSQL refuses NUL in text: after the
            raise StoreError(f"the source's index metadata key {key[:60]!r} holds a NUL "  # docs
                             "character (an edited index file); nothing was written. Fix: "
                             "run `citewise calibrate` on the source, then migrate")
        if gate_name(key) == "threshold" and finite_number(value) is None:
            raise StoreError(f"the source's {key[:60]} is {value[:40]!r}, not a finite "
                             "number; nothing was written. Fix: run `citewise calibrate` on "
                             "the source, then migrate")
    return meta


def check_source_acls(source: SQLiteStore) -> None:
    """Refuse, before anything is written, a source whose documents' ACL (the JSON copied)
    differs from the group rows its searches filter by (a file edited by hand or by an
    attacker: copying the JSON gave staff an hr document the source's searches hid)."""
    sql = ("SELECT d.doc_id, d.acl, d.tenant, t.name, (SELECT json_group_array(g.name) FROM "
           "doc_groups AS dg JOIN groups AS g ON g.id = dg.group_id WHERE dg.doc_rowid = d.id)"
           " FROM documents AS d LEFT JOIN tenants AS t ON t.id = d.tenant_id")
    with source._reading("read") as conn:
        for doc_id, acl, tenant, tenant_name, rows in conn.execute(sql):
            try:
                same = sorted(json.loads(acl)) == sorted(json.loads(rows))
            except (TypeError, ValueError):
                same = False
            if not same or tenant != tenant_name:
                raise StoreError(
                    f"the source's document {str(doc_id)[:60]!r} has an ACL that disagrees "
                    "with its group rows (a damaged or edited index file); nothing was "
                    "written. Fix: run `citewise acl` on that document in the source (or "
                    "re-ingest it), then migrate")


def refuse_others(source: Store, target: Store) -> None:
    """Refuse, before writing anything, a target holding documents the source does not (a
    rerun's own are fine: writes are upserts) or one of its ids in another tenant. A review
    migrated into a database holding another tenant's ``shared/x.md``: it was replaced
    silently; with only extra documents, every batch was written, then the count check
    failed, leaving the two indexes merged."""
    mine = {d.doc_id: d.tenant for d in source.list_documents()}
    other = sorted(d.doc_id for d in target.list_documents()
                   if mine.get(d.doc_id) != d.tenant)
    if other:
        raise StoreError(f"the target already holds {len(other)} document(s) the source does "
                         f"not, or in another tenant (first: {other[0]!r}); nothing was "
                         "written. Fix: migrate into an empty database (or `?schema=NAME` "
                         "on the --to URL), or delete those documents from the target.")


def check_counts(source: Store, target: Store) -> None:
    have, want = target.count(), source.count()
    if have != want:
        raise StoreError(f"after migrating, the target holds {have} but the source {want}. "
                         "Fix: the target already held other documents; migrate into an empty "
                         "database (or schema), or delete the extra documents.")


def check_searches(source: SQLiteStore, target: Store, sample: int,
                   min_overlap: float) -> tuple[int, float]:
    """``(searches checked, mean top-10 overlap)``; raises when one check fails."""
    overlaps: list[float] = []
    for doc, chunk_hash in _sample_chunks(source, sample):
        with source._reading("read") as conn:
            vector = read_vectors(conn, [chunk_hash])[chunk_hash]
        principal = Principal(tenant=doc.tenant, groups=frozenset(doc.acl_groups))
        want = source.search_dense(vector, VERIFY_TOP_K, principal)
        got = target.search_dense(vector, VERIFY_TOP_K, principal)
        overlap = score_overlap([r.score for r in want], [r.score for r in got])
        if not got or abs(got[0].score - want[0].score) > 1e-4 or overlap < min_overlap:
            raise StoreError(
                f"verification search for a chunk of {doc.doc_id!r} differs: source top ids "
                f"{[r.chunk_id for r in want[:3]]}, target {[r.chunk_id for r in got[:3]]} "
                f"(overlap {overlap:.2f}). Fix: rerun the migration into an empty target; if it "
                "persists, report it with both stores' `citewise status --json`.")
        overlaps.append(overlap)
    return len(overlaps), (round(float(np.mean(overlaps)), 4) if overlaps else 1.0)


def score_overlap(want: Sequence[float], got: Sequence[float]) -> float:
    """Share of ``want``'s scores also in ``got`` (multisets, rounded to 4 decimals).

    >>> score_overlap([0.9, 0.5, 0.5], [0.9, 0.5, 0.4])
    0.6666666666666666
    """
    have = Counter(round(x, 4) for x in got)
    hits = sum((Counter(round(x, 4) for x in want) & have).values())
    return hits / max(1, len(want))


def _sample_chunks(source: SQLiteStore, sample: int) -> list[tuple[Any, str]]:
    """Up to ``sample`` (document, embed_hash) pairs spread evenly over the chunks."""
    with source._reading("read") as conn:
        n = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        step = max(1, n // max(1, sample))
        rows = conn.execute("SELECT d.doc_id, c.embed_hash FROM chunks AS c JOIN documents AS d "
                            "ON d.id = c.doc_rowid WHERE (c.id % ?) = 0 AND d.acl != '[]' "
                            "ORDER BY c.id LIMIT ?", (step, sample)).fetchall()
    docs = {d.doc_id: d for d in source.list_documents()}
    return [(docs[doc_id], h) for doc_id, h in rows]
