"""The Engine verbs of index versions and copies: ``versions``, ``collect_garbage``
(``versions --gc``), ``backup``, ``rollback`` and ``reindex`` (mixed into
:class:`~citewise.engine.Engine` through :class:`~citewise.facade.EngineVerbs`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.errors import ConfigError
from citewise.index.location import is_postgres, shown
from citewise.results import BackupResult, ReindexResult, RollbackResult, VersionInfo

if TYPE_CHECKING:
    from citewise.engine import Engine


class VersionVerbs:
    def versions(self: Engine) -> list[VersionInfo]:
        from citewise.index.versions import describe_version, open_catalog

        catalog = open_catalog(self.db)
        return [VersionInfo.of(describe_version(catalog, v)) for v in catalog.versions()]

    def collect_garbage(self: Engine, *, retired: bool = False) -> list[tuple[int, str]]:
        """Remove refused versions and abandoned shadows (``retired``: retired ones too) and
        deleted documents' leftovers in the rest; returns ``(number, state)`` of each removed."""
        from citewise.index.versions import gc_versions, open_catalog, purge_versions

        catalog = open_catalog(self.db)
        removed = gc_versions(catalog, retired=retired)
        purge_versions(catalog)
        self.close()
        return [(v.number, v.state) for v in removed]

    def backup(self: Engine, dest: str | Path) -> BackupResult:
        """Copy the index, every version but shadows, to a new index at ``dest`` while it
        serves (:mod:`citewise.index.sqlite.backup`); PostgreSQL's is ``pg_dump``'s."""
        target = str(self.db)
        if is_postgres(target):
            raise ConfigError("a PostgreSQL index is backed up with PostgreSQL's tools. Fix: "
                              "`pg_dump --format=custom --schema 'citewise*' URL > "
                              "citewise.dump` (README: Backups).")
        from citewise.index.sqlite.backup import backup

        home = target.removeprefix("sqlite:///")
        if home in ("", ":memory:"):
            raise ConfigError("an in-memory index has no file to back up. Fix: pass --db PATH.")
        started = time.perf_counter()
        copied = backup(home, str(dest))
        return BackupResult(shown(self.db), str(Path(dest).absolute()),
                            tuple((c.number, c.state, c.path, c.size) for c in copied),
                            time.perf_counter() - started)

    def rollback(self: Engine, version: int | None = None) -> RollbackResult:
        """Make a retired version live again; the result names the documents of the version
        that was live which the new one lacks (an operator's trial: an upload made since
        vanished with only "version 3 is live" said), uploads apart: no file brings them
        back."""
        from citewise.index.versions import open_catalog
        from citewise.index.versions import rollback as roll_back
        from citewise.ingest.ownership import UPLOADED

        was = {d.doc_id: bool(d.metadata.get(UPLOADED)) for d in self.store.list_documents()}
        before, now = roll_back(open_catalog(self.db), version)
        self.close()  # the next call opens the version now live
        lost = sorted(set(was) - {d.doc_id for d in self.store.list_documents()})
        return RollbackResult(before, now, tuple(lost), tuple(d for d in lost if was[d]))

    def reindex(self: Engine, *, embedder: str | None = None, chunk_tokens: int | None = None,
                mode: str | None = None, questions: str | None = None,
                personas: str | None = None, tolerance: float | None = None,
                force: bool = False,
                on_progress: Callable[[int], None] | None = None,
                on_embedded: Callable[[int], None] | None = None,
                before_promotion: Callable[[], None] | None = None) -> ReindexResult:
        """Build a shadow version with this engine's settings plus the options given, gate it
        on the eval set against the live version, promote it if it passes (or ``force``). An
        embedder given to :func:`citewise.connect` builds it too, unless ``embedder`` names
        another (it built a version with the default model, which this engine then refused).
        ``before_promotion``: see :func:`citewise.reindex.reindex`."""
        from citewise.facade import with_overrides
        from citewise.index.versions import open_catalog
        from citewise.reindex import eval_gate, settings_for_manifest
        from citewise.reindex import reindex as run_reindex

        base = with_overrides(self.settings, **{"retrieve.mode": mode,
                                                "eval.questions": questions,
                                                "eval.personas": personas,
                                                "eval.tolerance": tolerance})
        new = with_overrides(self.settings, **{"retrieve.mode": mode, "embed.model": embedder,
                                               "chunk.chunk_tokens": chunk_tokens})
        ev = base.eval
        gate = None if ev.questions is None else eval_gate(
            ev.questions, ev.personas, k=ev.k, tolerance=ev.tolerance,
            samples=ev.bootstrap_samples, seed=ev.seed, metrics=ev.metrics)
        catalog = open_catalog(self.db)
        live_store = catalog.open(catalog.live().number)
        try:
            live_settings = settings_for_manifest(base, live_store.manifest())
        finally:
            live_store.close()
        given = None if self._owns_embedder else self._embedder  # connect(embedder=...)
        report = run_reindex(catalog, new, gate, live_settings=live_settings, force=force,
                             embedder=given if embedder is None else None,
                             live_embedder=given,
                             on_progress=on_progress, on_embedded=on_embedded,
                             before_promotion=before_promotion)
        if report.promoted:
            self.close()
        return ReindexResult(report)
