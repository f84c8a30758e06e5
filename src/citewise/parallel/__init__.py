"""Parallel batch ingestion: parse + chunk + embed in worker processes (or Ray actors), while
the main process keeps the store: skip decisions, the embedding-cache lookup and every
``Store.write`` (one transaction per batch, as the serial path).

``index_parallel(store, embedder, items, settings, workers=N)`` runs a local process pool;
``ray="auto" | "local" | "ray://host:port"`` runs Ray actors instead (``citewise[ray]``).
Items must be picklable to be loaded by a worker (:func:`citewise.sources.file_sources` items
are); other items are loaded in the main process and only chunked and embedded by the workers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from citewise.config import Settings
from citewise.indexing import IngestReport, Pending
from citewise.parallel.backends import LocalPool, RayPool
from citewise.parallel.pipeline import run_pipeline
from citewise.parallel.units import Loaded
from citewise.parallel.worker import EmbedderFactory
from citewise.protocols import Embedder, Store

__all__ = ["Loaded", "embedder_factory", "index_parallel"]


@dataclass(frozen=True)
class _Rebuild:
    """Builds a shipped/folder model in the worker with its own thread count (picklable)."""

    cls: type
    spec: object
    settings: object

    def __call__(self) -> Embedder:
        return self.cls(self.spec, self.settings)


@dataclass(frozen=True)
class _Given:
    """Any other embedder (e.g. the test FakeEmbedder): a pickled copy per worker."""

    embedder: Embedder

    def __call__(self) -> Embedder:
        return self.embedder


def embedder_factory(embedder: Embedder, settings: Settings) -> Callable[[int], EmbedderFactory]:
    """``threads -> factory``: a picklable recipe that builds ``embedder`` once in a worker.

    A model embedder (:class:`BaseEmbedder`) is rebuilt from its spec with ``threads`` model
    threads when ``embed.threads`` is 0 (auto: the cores split among the workers), else with
    the configured count. Any other embedder is pickled as is and must be picklable.
    """
    from citewise.embed.base import BaseEmbedder  # not at import: workers of a fake skip ORT

    def factory(threads: int) -> EmbedderFactory:
        if isinstance(embedder, BaseEmbedder):
            chosen = settings.embed.threads or threads
            return _Rebuild(type(embedder), embedder.spec,
                            settings.embed.model_copy(update={"threads": chosen}))
        return _Given(embedder)
    return factory


def index_parallel(store: Store, embedder: Embedder, items: Iterable[Pending],
                   settings: Settings, *, workers: int | None = None, ray: str | None = None,
                   batch_docs: int = 64,
                   on_progress: Callable[[int], None] | None = None) -> IngestReport:
    """Index ``items`` with ``workers`` processes (default 2), or with Ray actors at ``ray``
    (default: one per CPU of the cluster). The report means what the serial one means;
    ``model_seconds`` is summed over workers."""
    from citewise.embed.base import available_cpus

    recipe = embedder_factory(embedder, settings)
    if ray:
        backend: LocalPool | RayPool = RayPool(recipe, ray, workers)
    else:
        n = workers or 2
        backend = LocalPool(recipe(max(1, available_cpus() // n)), n)
    try:
        return run_pipeline(store, backend, items, settings, batch_docs=batch_docs,
                            on_progress=on_progress)
    finally:
        backend.close()
