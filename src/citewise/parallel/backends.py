"""Where workers run: a local process pool, or Ray actors. Both hand back
:class:`concurrent.futures.Future` objects, so the pipeline does not care which.

Local: ``ProcessPoolExecutor`` with the *forkserver* start method (onnxruntime's thread pools
do not survive ``fork``); each worker process builds its embedder once. Ray: one actor per
worker, each holding one embedder; tasks go to the actor with the fewest in flight.
A worker that dies (segfault, OOM kill, ``os._exit``) becomes :class:`WorkerError`.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from citewise.config import ChunkSettings
from citewise.errors import BackendUnavailable, ConfigError, WorkerError
from citewise.indexing import Pending
from citewise.parallel import worker
from citewise.parallel.worker import EmbedderFactory

_CRASH_FIX = ("Batches before it are committed; the batch in progress was rolled back. "
              "Fix: rerun the same ingest (unchanged files are skipped); if it dies again, "
              "rerun with --workers 1 to see which file or model call fails.")


class Backend(Protocol):
    workers: int

    def prepare(self, item: Pending, chunking: ChunkSettings) -> Future: ...

    def embed(self, texts: Sequence[str]) -> Future: ...

    def result(self, future: Future) -> Any:
        """The future's value; a dead worker raises :class:`WorkerError`."""
        ...

    def close(self) -> None: ...


class LocalPool:
    """``workers`` local processes (forkserver start method)."""

    def __init__(self, factory: EmbedderFactory, workers: int) -> None:
        if workers < 1:
            raise ConfigError(f"--workers must be 1 or more, got {workers}. Fix: pass "
                              "--workers N with N >= 1.")
        self.workers = workers
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() \
            else "spawn"
        self._pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context(method),
            initializer=worker.init_worker, initargs=(factory,))

    def prepare(self, item: Pending, chunking: ChunkSettings) -> Future:
        return self._submit(worker.prepare, item, chunking)

    def embed(self, texts: Sequence[str]) -> Future:
        return self._submit(worker.embed, list(texts))

    def _submit(self, fn: Any, *args: Any) -> Future:
        try:
            return self._pool.submit(fn, *args)
        except BrokenProcessPool as exc:  # a worker died since the last result was read
            raise _died(exc) from exc

    def result(self, future: Future) -> Any:
        try:
            return future.result()
        except BrokenProcessPool as exc:
            raise _died(exc) from exc

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _died(exc: BaseException) -> WorkerError:
    return WorkerError(f"an ingest worker process died unexpectedly ({_first_line(exc)}). "
                       f"{_CRASH_FIX}")


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise BackendUnavailable("--ray needs the Ray package, which is not installed. "
                                 "Fix: pip install 'citewise[ray]'") from exc
    return ray


class _Actor:
    """Ray actor body: one embedder per actor, built on first use."""

    def __init__(self, factory: EmbedderFactory) -> None:
        worker.init_worker(factory)

    def prepare(self, item: Pending, chunking: ChunkSettings) -> Any:
        return worker.prepare(item, chunking)

    def embed(self, texts: Sequence[str]) -> Any:
        return worker.embed(texts)


class RayPool:
    """Ray actors on the cluster at ``address``: ``auto`` (a running cluster), ``local``
    (start a runtime in this process) or ``ray://host:port`` (Ray Client). Files are read by
    the actors, so on a multi-node cluster the paths must exist on every node (shared disk)."""

    def __init__(self, factory_for: Any, address: str, workers: int | None) -> None:
        if address not in ("auto", "local") and not address.startswith("ray://"):
            raise ConfigError(f"--ray {address!r}: expected auto, local or ray://host:port. "
                              "Fix: pass one of those.")
        ray = self._ray = _import_ray()
        self._started = not ray.is_initialized()
        if self._started:  # else: the caller's ray.init() decides where we run
            local = {"include_dashboard": False} if address == "local" else {}
            ray.init(address=address, log_to_driver=False, **local)
        self._actors: list[Any] = []
        try:
            cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
            self.workers = workers or cpus
            actor = ray.remote(num_cpus=min(1, cpus / self.workers))(_Actor)
            factory = factory_for(max(1, cpus // self.workers))
            self._actors = [actor.remote(factory) for _ in range(self.workers)]
        except BaseException:
            self.close()
            raise
        self._load = [0] * self.workers  # tasks in flight per actor
        self._lock = threading.Lock()  # done-callbacks run on Ray's threads

    def _count(self, i: int, delta: int) -> None:
        with self._lock:
            self._load[i] += delta

    def _submit(self, method: str, *args: Any) -> Future:
        with self._lock:
            i = min(range(self.workers), key=self._load.__getitem__)
        self._count(i, 1)
        future = getattr(self._actors[i], method).remote(*args).future()
        future.add_done_callback(lambda _f, i=i: self._count(i, -1))
        return future

    def prepare(self, item: Pending, chunking: ChunkSettings) -> Future:
        return self._submit("prepare", item, chunking)

    def embed(self, texts: Sequence[str]) -> Future:
        return self._submit("embed", list(texts))

    def result(self, future: Future) -> Any:
        from ray.exceptions import RayActorError, RayTaskError, WorkerCrashedError

        try:
            return future.result()
        except (RayActorError, WorkerCrashedError) as exc:
            raise WorkerError(f"a Ray ingest actor died ({_first_line(exc)}). "
                              f"{_CRASH_FIX}") from exc
        except RayTaskError as exc:  # the actor raised: surface its own exception, as locally
            raise exc.cause from exc

    def close(self) -> None:
        for a in self._actors:
            self._ray.kill(a)
        if self._started:
            self._ray.shutdown()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
