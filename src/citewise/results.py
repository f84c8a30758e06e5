"""Typed results of the :class:`~citewise.engine.Engine` verbs that have no result type of their
own elsewhere. Each is a frozen dataclass with one ``to_dict()`` (the JSON the CLI prints with
``--json`` and the HTTP API returns), so no caller reads a dict by key across modules."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from citewise.types import Answer, Block, Document, Manifest, Principal


@dataclass(frozen=True)
class DocumentInfo:
    """A stored document as a reader of the catalog sees it (no text, no vectors)."""

    doc_id: str
    title: str
    version: int
    tenant: str
    groups: tuple[str, ...]
    updated_at: str | None = None
    source_url: str | None = None
    owner: str | None = None

    @classmethod
    def of(cls, d: Document, reader: Principal | None = None) -> DocumentInfo:
        """``d`` as listed; a ``reader`` sees only those of its groups that may read it:
        a reader learnt the names of groups it is not in ("hr-layoffs") from the API."""
        groups = d.acl_groups if reader is None else d.acl_groups & reader.groups
        return cls(d.doc_id, d.title, d.version, d.tenant, tuple(sorted(groups)),
                   d.updated_at, d.source_url, d.owner)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["groups"] = list(self.groups)
        return out


@dataclass(frozen=True)
class DocumentSection:
    """What a citation opens: the blocks of the section around ``anchor`` (:mod:`citewise.
    section`), or the whole document without one or when no block has it (``found``
    false); ``first_block`` and ``total_blocks`` say where the blocks sit."""

    document: DocumentInfo
    blocks: tuple[Block, ...]
    first_block: int
    total_blocks: int
    anchor: str | None = None
    found: bool = True

    def to_dict(self) -> dict[str, Any]:
        blocks = [{"kind": b.kind, "text": b.text, "anchor": b.anchor, "level": b.level,
                   "heading_path": list(b.heading_path)} for b in self.blocks]
        return {"document": self.document.to_dict(), "blocks": blocks,
                "first_block": self.first_block, "total_blocks": self.total_blocks,
                "anchor": self.anchor, "found": self.found}


@dataclass(frozen=True)
class StatusReport:
    """Counts, manifest and (when asked) the document list of the live index."""

    db: str
    documents: int
    chunks: int
    vectors: int
    manifest: Manifest | None
    document_list: tuple[DocumentInfo, ...] | None = None
    version: int = 1  # the live version's number (`citewise versions` lists them all)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"db": self.db, "version": self.version,
                               "documents": self.documents,
                               "chunks": self.chunks, "vectors": self.vectors,
                               "manifest": asdict(self.manifest) if self.manifest else None}
        if self.document_list is not None:
            out["document_list"] = [d.to_dict() for d in self.document_list]
        return out


@dataclass(frozen=True)
class DeleteResult:
    doc_ids: tuple[str, ...]
    removed: int

    def to_dict(self) -> dict[str, Any]:
        return {"doc_ids": list(self.doc_ids), "removed": self.removed}


@dataclass(frozen=True)
class AclResult:
    doc_id: str
    groups: tuple[str, ...]
    tenant: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"doc_id": self.doc_id, "groups": list(self.groups), "tenant": self.tenant}


@dataclass(frozen=True)
class IngestResult:
    """What an ingest did: counts by outcome, failures (path, one-line error) and the
    documents written without any ACL group (nobody can read them)."""

    summary: Mapping[str, Any]
    failures: tuple[tuple[str, str], ...] = ()
    no_groups: tuple[str, ...] = ()
    redirects: tuple[tuple[str, str], ...] = ()  # (redirect stub page, its target)
    warnings: tuple[str, ...] = ()  # skipped symlinks, ignored file ACLs, unmatched sidecar lines
    skipped_files: tuple[str, ...] = ()  # files of an ingested folder citewise does not read
    source_copies: tuple[tuple[str, str], ...] = ()  # (a page's source copy, the page)
    noindex: tuple[str, ...] = ()  # pages marked noindex (robots meta), 404s, single-page copies
    duplicates: tuple[tuple[str, str], ...] = ()  # (a page, the page with its text, indexed)
    includes_only: tuple[tuple[str, str], ...] = ()  # (a file with no text of its own, what
    # it includes): left out, not failed
    deleted: tuple[str, ...] = ()  # files whose documents were deleted with `citewise
    # delete`: left out unless --undelete
    own_links: tuple[tuple[str, str], ...] = ()  # (file, the link its own text gave it)
    relinked: tuple[tuple[str, str, str], ...] = ()  # (doc_id, web link before, link now)
    gone: tuple[str, ...] = ()  # documents whose files left a walked folder (--prune deletes)

    @classmethod
    def of(cls, report: Any) -> IngestResult:
        failed = tuple((o.label, o.error or "") for o in report.outcomes if o.status == "failed")
        return cls(report.summary(), failed, tuple(report.unreadable),
                   tuple(report.redirects), tuple(report.warnings), tuple(report.skipped),
                   tuple(report.copies), tuple(report.noindex), tuple(report.duplicates),
                   tuple((o.label, o.error or "") for o in report.includes_only),
                   tuple(o.label for o in report.deleted), tuple(report.own_links),
                   tuple(report.relinked), tuple(report.gone))

    def to_dict(self) -> dict[str, Any]:
        return {**dict(self.summary),
                "failures": [{"path": p, "error": e} for p, e in self.failures],
                "no_groups": list(self.no_groups),
                "redirects": [{"path": p, "to": t} for p, t in self.redirects],
                "warnings": list(self.warnings), "skipped_files": list(self.skipped_files),
                "source_copies": [{"path": p, "page": t} for p, t in self.source_copies],
                "noindex": list(self.noindex),
                "duplicates": [{"path": p, "page": t} for p, t in self.duplicates],
                "includes_only": [{"path": p, "note": n} for p, n in self.includes_only],
                "deleted": list(self.deleted),
                "own_links": [{"path": p, "link": u} for p, u in self.own_links],
                "relinked": [{"doc_id": d, "from": a, "to": b} for d, a, b in self.relinked],
                "gone": list(self.gone)}


@dataclass(frozen=True)
class VersionInfo:
    """One index version: its catalog row, plus manifest summary and counts when readable
    (``error`` says why not)."""

    number: int
    location: str
    state: str
    created_at: str
    note: str = ""
    documents: int | None = None
    chunks: int | None = None
    vectors: int | None = None
    embedder: str | None = None
    dim: int | None = None
    chunker: Mapping[str, Any] | None = None
    chunker_hash: str | None = None
    error: str | None = None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> VersionInfo:
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in row.items() if k in known})

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.error is None:
            out.pop("error")
        return out


@dataclass(frozen=True)
class RollbackResult:
    before: int
    now: int
    lost: tuple[str, ...] = ()  # documents of ``before`` that ``now`` does not hold
    uploads: tuple[str, ...] = ()  # those of them that were uploaded: no file brings them back

    def to_dict(self) -> dict[str, Any]:
        return {"before": self.before, "now": self.now, "lost": list(self.lost),
                "uploads": list(self.uploads)}


@dataclass(frozen=True)
class BackupResult:
    """What ``citewise backup`` copied: each version's ``(number, state, path, bytes)``."""

    source: str
    dest: str
    versions: tuple[tuple[int, str, str, int], ...]
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "dest": self.dest, "seconds": round(self.seconds, 3),
                "versions": [{"number": n, "state": s, "path": p, "bytes": b}
                             for n, s, p, b in self.versions]}


@dataclass(frozen=True)
class ReindexResult:
    """A reindex's report (:class:`citewise.reindex.ReindexReport`) as a typed result."""

    report: Any

    @property
    def promoted(self) -> bool:
        return bool(self.report.promoted)

    def to_dict(self) -> dict[str, Any]:
        return self.report.as_dict()


@dataclass(frozen=True)
class EvalResult:
    """An eval run: its figures with intervals (``summary``), the run itself, warnings, and
    the files written (when an output folder was given)."""

    summary: Mapping[str, Any]
    run: Any
    written: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {**dict(self.summary), "written": list(self.written),
                "warnings": list(self.warnings)}


@dataclass(frozen=True)
class CalibrationResult:
    """The gate calibration (:class:`citewise.answer.calibrate.Calibration`) and whether it
    was stored in the index."""

    calibration: Any
    stored: bool = False

    def to_dict(self) -> dict[str, Any]:
        c = self.calibration
        return {"tenant": c.tenant, "signal": c.signal, "threshold": c.threshold,
                "max_false_decline": c.max_false_decline, "n_dev": c.n_dev,
                "n_test": c.n_test, "dev": asdict(c.dev),
                "test": asdict(c.test) if c.test else None, "auc": dict(c.auc),
                "auc_interval": {k: list(v) for k, v in c.auc_interval.items()},
                "intervals": {"dev": c.dev.intervals(),
                              "test": c.test.intervals() if c.test else None},
                "warning": c.warning, "refusal": c.refusal,
                "in_force": asdict(c.in_force) if getattr(c, "in_force", None) else None,
                "curve": [asdict(p) for p in c.curves[c.signal]], "stored": self.stored,
                "reader": _reader_dict(getattr(c, "reader", None))}


def _reader_dict(fit: Any) -> dict[str, Any] | None:
    """The fitted answerability reader (:mod:`citewise.answer.reader_fit`), if any."""
    if fit is None:
        return None
    return {"model": asdict(fit.model), "n_fit": fit.n_fit, "dev": asdict(fit.dev),
            "test": asdict(fit.test) if fit.test else None,
            "intervals": {"dev": fit.dev.intervals(),
                          "test": fit.test.intervals() if fit.test else None}}


@dataclass(frozen=True)
class MigrationResult:
    report: Any

    def to_dict(self) -> dict[str, Any]:
        return asdict(self.report)


@dataclass(frozen=True)
class StreamEvent:
    """One event of :meth:`Engine.ask_stream`: ``token`` pieces as the generator writes
    them (the sentences the citation check kept), ``held`` when it wrote text the check holds
    back (nothing to show: a server writes a comment, which is how it notices a client that
    went away), then exactly one ``answer`` (validated, with citations)."""

    kind: str  # "token" | "held" | "answer"
    text: str = ""
    answer: Answer | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.answer is not None:
            return {"kind": self.kind, "answer": self.answer.to_dict()}
        return {"kind": self.kind, "text": self.text}

