"""``reindex``: rebuild the index with new settings as a shadow version, and make it live only
when an evaluation says it is not worse.

1. **create** a ``shadow`` version in the catalog (the live version keeps serving and taking
   writes throughout), after removing the shadows of earlier builds that died (no process
   holds their build lock; :func:`~citewise.index.versions.gc_versions`); the build holds
   the new shadow's lock;
2. **copy** every live document: its stored :class:`~citewise.types.ParsedDocument` is
   re-chunked with the new chunk settings and embedded with the new embedder
   (:func:`~citewise.indexing.index_documents`), and the record written is the live one, so
   metadata, ACL, tenant, version and dates are kept exactly. A document stored without its
   body is re-read from its ``source_url`` when that is a readable local file whose content
   is unchanged; otherwise it is reported and blocks promotion;
3. **catch up**: documents deleted, changed or re-ACLed in the live version meanwhile are
   applied to the shadow until both hold the same records (again right before the decision,
   holding the index's write gate through the flip, so no write can land in between);
4. **gate**: the eval set runs on live and shadow and is compared
   (:func:`citewise.eval.compare.compare_runs`); the shadow is promoted when the comparison
   passes, or with ``force`` (said in the version note), else marked ``refused`` with the
   reasons while the live version keeps serving.

Writers that follow the live version (every ``Engine``, ``open_store``) wait for the gate and
then write to the new version; deletes and ACL changes are also logged in the catalog, so a
later ``rollback`` to the retired version applies them (:mod:`citewise.index.changelog`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from citewise.answer.gate_store import carry_calibration
from citewise.config import Settings
from citewise.engine import Engine
from citewise.errors import IngestError, VersionError
from citewise.index.manifest import tenancy_of
from citewise.index.versions import gc_versions
from citewise.indexing import Pending, index_documents
from citewise.ingest import load_file
from citewise.protocols import DocumentWrite, Embedder, Store, VersionCatalog
from citewise.records import content_hash
from citewise.reindex_gate import (
    Gate,
    GateOutcome,
    GateResult,
    comparison_summary,
    eval_gate,
    strict_verdict,
)
from citewise.types import Document, Manifest, ParsedDocument

CATCH_UP_PASSES = 5


@dataclass
class ReindexReport:
    """What a reindex did. ``decision``: ``promoted``, ``forced`` (promoted although the gate
    or the copy failed) or ``refused``."""

    live_version: int
    version: int
    decision: str = "refused"
    note: str = ""
    pipeline: str = ""
    copied: int = 0
    chunks: int = 0
    embedded: int = 0
    reread: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    deleted_during_build: int = 0
    rewritten_during_build: int = 0
    removed: list[int] = field(default_factory=list)  # abandoned shadows cleaned up first
    calibration: list[str] = field(default_factory=list)  # tenants whose gate was carried
    uncalibrated: list[str] = field(default_factory=list)  # ... not carried (scores differ)
    comparison: Any = None
    reasons: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def promoted(self) -> bool:
        return self.decision in ("promoted", "forced")

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "comparison"}
        comparison = self.comparison
        out["comparison"] = comparison.as_dict() if hasattr(comparison, "as_dict") else None
        out["seconds"] = round(self.seconds, 3)
        return out


# -- copying documents into the shadow ---------------------------------------------------------


class _LiveRecords:
    """The shadow store as :func:`index_documents` sees it: every document is new (so it is
    always written) and the record written is the live one, field for field, when the live
    version still holds that record as it was listed; a document deleted or changed since is
    left to the catch-up (a delete during the build was written into the shadow, from its
    source file, until the catch-up removed it)."""

    def __init__(self, store: Store, records: Mapping[str, Document], live: Store) -> None:
        self._store = store
        self._records = records
        self._live = live

    def get_document(self, doc_id: str) -> Document | None:
        return None

    def list_documents(self) -> list[Document]:
        return []  # nothing is stored yet: no file is indexed under another id

    def cached_vectors(self, embed_hashes: Sequence[str], tenant: str | None = None) -> set[str]:
        return self._store.cached_vectors(embed_hashes, tenant)

    def write(self, batch: Sequence[DocumentWrite]) -> None:
        current = [replace(w, document=self._records[w.document.doc_id], same_tenant=False,
                           read_as=None)  # a copy of the live record, as it is (what it
                   for w in batch]  # replaces in the shadow is no reader's record)
        self._store.write([w for w in current
                           if self._live.get_document(w.document.doc_id) == w.document])


def _from_source(doc: Document, settings: Settings) -> ParsedDocument:
    """The document re-read from its ``source_url`` (a local path or ``file://`` URL), only if
    its content is what the index holds; raises :class:`IngestError` otherwise."""
    url = doc.source_url or ""
    path = Path(url[len("file://"):] if url.startswith("file://") else url)
    if not url or "://" in str(path) or not path.is_file():
        raise IngestError(f"no stored body and no readable source file ({url or 'no URL'}). "
                          f"Fix: re-ingest {doc.doc_id} from its file with `citewise ingest`.")
    parsed = load_file(path, settings.limits)
    if content_hash(parsed) != doc.content_hash:
        raise IngestError(f"no stored body, and its source {path} changed since it was "
                          f"indexed. Fix: re-ingest {doc.doc_id} with `citewise ingest`.")
    return parsed


class _Copier:
    """Copies live documents into the shadow engine's store, recording what happened."""

    def __init__(self, live: Store, shadow: Engine, report: ReindexReport,
                 on_progress: Callable[[int], None] | None = None,
                 on_embedded: Callable[[int], None] | None = None) -> None:
        self.live, self.shadow, self.report = live, shadow, report
        self.on_progress, self.on_embedded = on_progress, on_embedded
        self.given_up: dict[str, Document] = {}  # record that could not be copied

    def _pending(self, doc: Document) -> Pending:
        def load() -> ParsedDocument:
            parsed = self.live.get_parsed(doc.doc_id)
            if parsed is None and self.live.get_document(doc.doc_id) is None:
                raise IngestError(f"{doc.doc_id} was deleted during the build")
            if parsed is None:
                try:
                    parsed = _from_source(doc, self.shadow.settings)
                except IngestError:
                    self.report.missing.append(doc.doc_id)
                    raise
                self.report.reread.append(doc.doc_id)
            return replace(parsed, metadata={**parsed.metadata, "doc_id": doc.doc_id})
        return Pending(label=doc.doc_id, doc_id=doc.doc_id, load=load)

    def copy(self, docs: Iterable[Document]) -> None:
        records = {d.doc_id: d for d in docs}
        if not records:
            return
        target = cast(Store, _LiveRecords(self.shadow.store, records, self.live))
        result = index_documents(target, self.shadow.embedder,
                                 [self._pending(d) for d in records.values()],
                                 self.shadow.settings, on_progress=self.on_progress,
                                 on_embedded=self.on_embedded)
        for outcome in result.outcomes:
            if outcome.status == "failed" and self.live.get_document(outcome.doc_id) is None:
                self.report.failed.pop(outcome.doc_id, None)  # deleted meanwhile: nothing
                self.given_up.pop(outcome.doc_id, None)  # to copy, nothing that failed
            elif outcome.status == "failed":
                self.report.failed[outcome.doc_id] = outcome.error or "failed"
                self.given_up[outcome.doc_id] = records[outcome.doc_id]
            else:
                self.report.failed.pop(outcome.doc_id, None)
                self.given_up.pop(outcome.doc_id, None)
        self.report.chunks += result.chunks
        self.report.embedded += result.embedded

    def catch_up(self) -> bool:
        """Apply the live version's changes to the shadow until both hold the same records;
        ``False`` when the live version was still changing after :data:`CATCH_UP_PASSES`."""
        for _ in range(CATCH_UP_PASSES):
            now = {d.doc_id: d for d in self.live.list_documents()}
            have = {d.doc_id: d for d in self.shadow.store.list_documents()}
            gone = sorted(set(have) - set(now))
            stale = [d for i, d in now.items() if have.get(i) != d and self.given_up.get(i) != d]
            if not gone and not stale:
                return True
            if gone:
                self.shadow.store.delete(gone)
                self.report.deleted_during_build += len(gone)
            for doc_id in gone:
                self.report.failed.pop(doc_id, None)
                self.given_up.pop(doc_id, None)
            self.copy(stale)
            self.report.rewritten_during_build += len(stale)
        return False


# -- the whole flow ----------------------------------------------------------------------------


def _describe(settings: Settings, embedder: Embedder) -> str:
    chunk = settings.chunk
    return (f"embedder {embedder.model_id}, chunk_tokens {chunk.chunk_tokens}, overlap "
            f"{chunk.overlap_tokens}, min_tokens {chunk.min_tokens}")


def settings_for_manifest(settings: Settings, manifest: Manifest | None) -> Settings:
    """``settings`` with ``embed.model`` set to the shipped model that built ``manifest`` when
    another one is configured (so the live version is queried with its own model); settings
    naming a model folder, or a manifest from an unknown model, are returned unchanged."""
    from citewise.embed.models import SHIPPED_MODELS

    if manifest is None:
        return settings
    configured = SHIPPED_MODELS.get(settings.embed.model)
    if configured is None or configured.model_id == manifest.embedder_id:
        return settings
    for name, spec in SHIPPED_MODELS.items():
        if spec.model_id == manifest.embedder_id:
            embed = settings.embed.model_copy(update={"model": name})
            return settings.model_copy(update={"embed": embed})
    return settings


def keep_tenancy(settings: Settings, manifest: Manifest | None) -> Settings:
    """``settings`` whose ``index.tenancy`` is the live index's when unset: a rebuild keeps
    the tenancy unless the settings name another (that is how tenancy is changed)."""
    if settings.index.tenancy is not None:
        return settings
    index = settings.index.model_copy(update={"tenancy": tenancy_of(manifest)})
    return settings.model_copy(update={"index": index})


def reindex(catalog: VersionCatalog, settings: Settings, gate: Gate | None, *,
            live_settings: Settings | None = None, embedder: Embedder | None = None,
            live_embedder: Embedder | None = None, force: bool = False,
            on_progress: Callable[[int], None] | None = None,
            on_embedded: Callable[[int], None] | None = None,
            before_promotion: Callable[[], None] | None = None) -> ReindexReport:
    """Build a shadow version with ``settings`` (and ``embedder``, default: the one
    ``settings.embed`` names), gate it against the live version (which is evaluated with
    ``live_settings``/``live_embedder``, default: the same) and promote or refuse it.

    ``gate=None`` means there is nothing to compare with: the shadow is refused unless
    ``force``. An exception while building marks the shadow ``refused`` and propagates.
    ``on_progress`` hears how many documents were copied, ``on_embedded`` how many texts
    were embedded (see :func:`~citewise.indexing.index_documents`). ``before_promotion`` runs
    under the write gate just before the decision; what it raises refuses the shadow (a
    server re-checks the operator's key there: a security review's reindex was promoted
    246 s after the key that asked for it was removed)."""
    started = time.perf_counter()
    removed = [v.number for v in gc_versions(catalog, refused=False)]  # killed builds' shadows
    live_version = catalog.live()
    live = Engine(live_version.location, live_settings or settings, live_embedder,
                  store=catalog.open(live_version.number))
    try:
        if live.store.manifest() is None:
            raise VersionError(f"the live index ({live_version.location}) is empty: nothing to "
                               "reindex. Fix: ingest documents with `citewise ingest` first.")
        settings = keep_tenancy(settings, live.store.manifest())
        shadow_version = catalog.create(note=f"building from version {live_version.number}")
        report = ReindexReport(live_version=live_version.number, version=shadow_version.number,
                               removed=removed)
        shadow = Engine(shadow_version.location, settings, embedder,
                        store=catalog.open(shadow_version.number))
        try:
            with catalog.building(shadow_version.number):
                _build_and_decide(catalog, live, shadow, gate, force, report,
                                  _Copier(live.store, shadow, report, on_progress, on_embedded),
                                  before_promotion)
        except BaseException as exc:
            catalog.set_state(report.version, "refused", note=_one_line(
                f"reindex failed: {type(exc).__name__}: {exc}"))
            raise
        finally:
            shadow.close()
    finally:
        live.close()
    report.seconds = time.perf_counter() - started
    return report


def _build_and_decide(catalog: VersionCatalog, live: Engine, shadow: Engine,
                      gate: Gate | None, force: bool, report: ReindexReport,
                      copier: _Copier, before_promotion: Callable[[], None] | None) -> None:
    shadow.store.ensure_manifest(shadow.expected_manifest())
    report.pipeline = _describe(shadow.settings, shadow.embedder)
    documents = live.store.list_documents()
    copier.copy(documents)
    reasons = [] if copier.catch_up() else [
        "the live index kept changing while the shadow caught up. Fix: run reindex again "
        "when ingestion is quiet."]
    if gate is None:
        reasons.append("no eval set to compare the versions on. Fix: pass --questions FILE "
                       "(or set eval.questions), or --force to promote without evaluating.")
    else:
        report.comparison = gate(live, shadow)
        reasons.extend(report.comparison.reasons)
    with _write_gate(catalog):  # no write lands between the last catch-up and the flip
        if not copier.catch_up():  # writes made while the gate ran
            reasons.append("the live index kept changing before promotion. Fix: run reindex "
                           "again when ingestion is quiet.")
        report.copied = shadow.store.count().documents
        now_live = catalog.live().number
        if now_live != report.live_version:
            reasons.append(f"version {now_live} was made live while this reindex ran (it "
                           f"started from version {report.live_version}), so its writes are "
                           "not in the shadow. Fix: run reindex again.")
        if report.failed:
            shown = ", ".join(f"{d} ({e})" for d, e in sorted(report.failed.items())[:5])
            reasons.append(f"{len(report.failed)} document(s) could not be copied: {shown}. "
                           "Fix: re-ingest them from their files, then run reindex again.")
        report.reasons = reasons
        report.calibration, report.uncalibrated = carry_calibration(
            live.store, shadow.store, {d.tenant for d in documents})
        if before_promotion is not None:
            before_promotion()
        _decide(catalog, shadow, force, report)


def _write_gate(catalog: VersionCatalog) -> AbstractContextManager[Any]:
    """The catalog's write gate (writers wait while it is held), when it has one."""
    gate = getattr(catalog, "gate", None)
    return gate() if callable(gate) else nullcontext()


def _decide(catalog: VersionCatalog, shadow: Engine, force: bool,
            report: ReindexReport) -> None:
    built = (f"from version {report.live_version}: {report.pipeline}; {report.copied} "
             f"documents, {report.chunks} chunks")
    scores = comparison_summary(report.comparison)
    scores = f"; eval ({shadow.settings.retrieve.mode}): {scores}" if scores else ""
    if not report.reasons:
        report.decision = "promoted"
        report.note = _one_line(f"promoted {built}{scores}")
        catalog.promote(report.version, note=report.note)
    elif force:
        report.decision = "forced"
        report.note = _one_line(f"FORCED promotion {built}{scores}; despite: "
                                f"{' | '.join(report.reasons)}")
        catalog.promote(report.version, note=report.note)
    else:
        report.decision = "refused"
        report.note = _one_line(f"refused {built}{scores}; {' | '.join(report.reasons)}")
        catalog.set_state(report.version, "refused", note=report.note)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


__all__ = ["Gate", "GateOutcome", "GateResult", "ReindexReport", "comparison_summary",
           "eval_gate", "reindex", "settings_for_manifest", "strict_verdict"]
