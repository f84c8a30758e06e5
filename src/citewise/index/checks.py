"""Checks every backend applies before writing: batch consistency, ACL values, vector shapes,
and vectors present for every chunk (given, or already cached in the store). Backend-neutral,
so SQLite and PostgreSQL refuse the same bad input with the same messages."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from citewise.errors import ChangedSinceReadError, ConfigError, StoreError
from citewise.protocols import DocumentWrite, ReadAs
from citewise.types import Document

T = TypeVar("T")


def check_vector(vec: Any, dim: int, what: str) -> np.ndarray:
    """``vec`` as a float32 array of shape ``(dim,)`` with finite values, or :class:`StoreError`
    naming the problem and the fix."""
    try:
        arr = np.asarray(vec, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} is not a float32-convertible array ({exc}). Fix: pass the "
                         "embedder's output (a numpy float32 vector).") from exc
    if arr.shape != (dim,):
        raise StoreError(
            f"{what} has shape {arr.shape}, but this index holds {dim}-d vectors. Fix: embed "
            "with the index's embedder, or re-create the index with `citewise ingest --db NEW.db`.")
    if not np.isfinite(arr).all():
        raise StoreError(f"{what} contains NaN or infinite values. Fix: check the embedder "
                         "(a corrupt model or an fp16 overflow).")
    return arr


def finite_number(value: object) -> float | None:
    """``value`` as a finite float, or None (not a number, NaN or infinite): a stored gate
    threshold of NaN declines nothing, since no score is below it (security review)."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def other_tenants(doc_id: str, tenant: str) -> StoreError:
    """The error for a write that would replace ``doc_id``, now another tenant's than
    ``tenant``: another process indexed it while this batch was being prepared."""
    return StoreError(
        f"doc_id {doc_id!r} was indexed for another tenant by another process while this "
        f"batch of tenant {tenant!r} was being prepared; this batch was not written (earlier "
        "ones were). Fix: run the ingest again (that file then fails alone, naming the "
        "tenant), or give the file its own doc_id")


def check_read_as(batch: Sequence[DocumentWrite], now: Callable[[str], ReadAs]) -> None:
    """Raise :class:`ChangedSinceReadError` naming the documents of ``batch`` whose
    ``read_as`` differs from what the store holds now (``now``: read inside the write
    transaction, under the write lock), before anything is written."""
    changed = tuple(item.document.doc_id for item in batch
                    if item.read_as is not None and now(item.document.doc_id) != item.read_as)
    if changed:
        raise ChangedSinceReadError(changed)


def read_as_row(row: tuple[Any, Any, Any] | None) -> ReadAs:
    """:class:`ReadAs` of a stored ``(version, tenant, acl)`` row (acl as JSON text or a
    list), or of no row."""
    if row is None:
        return ReadAs()
    acl = json.loads(row[2]) if isinstance(row[2], str) else row[2]
    return ReadAs(int(row[0]), str(row[1]), tuple(sorted(set(acl or ()))))


def check_batch(batch: Sequence[DocumentWrite]) -> None:
    seen_docs: set[str] = set()
    seen_chunks: set[str] = set()
    for item in batch:
        doc = item.document
        if doc.doc_id in seen_docs:
            raise StoreError(f"document {doc.doc_id!r} appears twice in one write batch. "
                             "Fix: send each document once per batch.")
        seen_docs.add(doc.doc_id)
        check_acl(doc.doc_id, tuple(doc.acl_groups), doc.tenant)
        for chunk in item.chunks:
            if chunk.doc_id != doc.doc_id:
                raise StoreError(f"chunk {chunk.chunk_id!r} has doc_id {chunk.doc_id!r} but is "
                                 f"written with document {doc.doc_id!r}. Fix: chunk each "
                                 "document separately.")
            if chunk.chunk_id in seen_chunks:
                raise StoreError(f"chunk id {chunk.chunk_id!r} appears twice in one batch. Fix: "
                                 "derive chunk ids from doc_id, offsets and text hash.")
            seen_chunks.add(chunk.chunk_id)


def check_acl(doc_id: str, groups: Sequence[str], tenant: str) -> None:
    if not isinstance(tenant, str) or not tenant:
        raise StoreError(f"document {doc_id!r} has no tenant. Fix: set a tenant name "
                         "(citewise uses 'default' when there is one tenant).")
    bad = [g for g in groups if not isinstance(g, str) or not g]
    if bad:
        raise StoreError(f"document {doc_id!r} has invalid group names {bad!r}. Fix: use "
                         "non-empty strings.")


def batch_vectors(batch: Sequence[DocumentWrite], dim: int | None,
                  cached: Callable[[set[str], Any], set[str]],
                  convert: Callable[[np.ndarray], T],
                  scope_of: Callable[[Document], Any] = lambda doc: None,
                  ) -> list[tuple[Any, str, T]]:
    """``(scope, embed_hash, vector)`` rows to store for the batch's chunks, checked and
    converted; raises when a chunk would be left without a vector (neither given nor
    ``cached(hashes, scope)``). ``scope_of(document)`` is the embedding-cache scope of a
    document (its tenant's under ``index.tenancy: isolated``, one for all otherwise); a
    vector given with any document of the batch serves every scope that needs its hash."""
    needed: dict[Any, set[str]] = {}
    for item in batch:
        needed.setdefault(scope_of(item.document), set()).update(
            c.embed_hash for c in item.chunks)
    given = {h: v for item in batch for h, v in item.vectors.items()}
    if dim is None:
        if any(needed.values()) or given:
            raise StoreError("the index has no manifest, so it cannot check vector dimensions."
                             " Fix: call ensure_manifest(make_manifest(...)) before write "
                             "(`citewise ingest` does this).")
        return []
    out = {h: convert(check_vector(v, dim, f"the vector for embed_hash {h[:12]}…"))
           for h, v in given.items()}
    rows: list[tuple[Any, str, T]] = []
    missing: set[str] = set()
    for scope, hashes in needed.items():
        rest = hashes - out.keys()
        missing |= rest - (cached(rest, scope) if rest else set())
        rows.extend((scope, h, out[h]) for h in sorted(hashes & out.keys()))
    if missing:
        example = sorted(missing)[0]
        raise StoreError(f"{len(missing)} chunk embed_hash(es) have no vector (e.g. "
                         f"{example[:12]}…). Fix: embed the hashes cached_vectors() does not "
                         "report and pass them in DocumentWrite.vectors.")
    return rows


def metadata_json(value: Mapping[str, Any]) -> str:
    """Metadata as JSON; values JSON cannot hold (dates from YAML front matter) become str."""
    return json.dumps(dict(value), sort_keys=True, ensure_ascii=False, default=jsonable)


def jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, set | frozenset | tuple):
        return sorted(value, key=str) if isinstance(value, set | frozenset) else list(value)
    return str(value)


def check_search_args(top_k: int, title_weight: float = 1.0) -> None:
    """Raise :class:`ConfigError` for a ``top_k`` < 1 or a negative/non-finite weight."""
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise ConfigError(f"top_k must be an integer >= 1, got {top_k!r}")
    if not math.isfinite(title_weight) or title_weight < 0:
        raise ConfigError(
            f"title_weight must be a finite number >= 0, got {title_weight!r} "
            "(set retrieve.title_weight, e.g. 1.0)")


def delete_ids(doc_ids: Sequence[str]) -> list[str]:
    """``Store.delete``'s argument as a list; one bare string is refused (it would iterate
    as characters)."""
    if isinstance(doc_ids, str):
        raise StoreError("delete() takes a list of document ids, not one string. "
                         f"Fix: delete([{doc_ids!r}]).")
    return list(doc_ids)


def acl_groups(doc_id: str, groups: Sequence[str]) -> list[str]:
    """``Store.set_acl``'s groups as a list; one bare string is refused."""
    if isinstance(groups, str):
        raise StoreError(f"set_acl() takes a list of group names, not one string. "
                         f"Fix: set_acl({doc_id!r}, [{groups!r}]).")
    return list(groups)
