"""The citewise exception tree. Every message says what to do next.

::

    CitewiseError                 shown to the user as is
    ├── ConfigError               a bad setting or option
    ├── IngestError               one file could not be ingested (the batch goes on)
    │   ├── UnsupportedFormatError  its content is not a format we read
    │   └── LimitExceededError      it is larger than a configured limit
    ├── ModelError                a model (embedder, reranker, LLM) is missing, corrupt or fails
    ├── GenerationError           a generator failed or ran past its timeout
    ├── StoreError                the index cannot be opened or written
    │   ├── IndexMismatchError      the index was built with another embedder/chunker
    │   ├── NotFoundError           a document id is not in the index
    │   └── VersionError            an index version is unknown or cannot be promoted
    ├── WorkerError               a parallel-ingest worker process or Ray actor died
    └── BackendUnavailable        an optional dependency is not installed
"""

from __future__ import annotations


class CitewiseError(Exception):
    """Base of every error citewise raises on purpose; its message is meant for the user."""


class ConfigError(CitewiseError):
    """A setting, option or argument is invalid."""


class IngestError(CitewiseError):
    """One input file could not be ingested. Carries the path for the per-file report."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class UnsupportedFormatError(IngestError):
    """The file's content does not match any format citewise reads."""


class OnlyIncludesError(IngestError):
    """The file has no text of its own: it only includes others (a Reference-style
    ``index.rst`` of ``.. include::`` lines). Not a failure: the included files are read on
    their own when ingested. ``included``: the names it includes."""

    def __init__(self, message: str, included: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.included = included


class LimitExceededError(IngestError):
    """The file is over a configured limit (size, pages, blocks)."""


class ModelError(CitewiseError):
    """A model (embedder, reranker, LLM) cannot be found, fails its checksum, or fails to run."""


class GenerationError(CitewiseError):
    """A generator failed (server error, bad response) or ran past its timeout. ``partial``:
    the text it had written by then (a timeout while streaming), else empty."""

    def __init__(self, message: str, partial: str = "") -> None:
        super().__init__(message)
        self.partial = partial


class StoreError(CitewiseError):
    """The index cannot be opened, migrated or written."""


class DamagedRecordError(StoreError):
    """One stored record cannot be read (damaged, or written by a newer citewise); the index
    itself works, so an ingest or reindex fails that document alone."""


class BusyError(StoreError):
    """Another session holds a lock a write needs, past the time the write may wait."""


class IndexMismatchError(StoreError):
    """The index was built with a different embedder or chunker than the one configured."""


class ChangedSinceReadError(StoreError):
    """Documents of a write batch changed (readers, version, deleted) after the writer read
    them; nothing of the batch was written. ``doc_ids``: those documents."""

    def __init__(self, doc_ids: tuple[str, ...]) -> None:
        from citewise.text import first_few

        shown = first_few(doc_ids)
        super().__init__(f"{len(doc_ids)} document(s) changed by another command while this "
                         f"write was prepared ({shown}). Fix: run it again")
        self.doc_ids = doc_ids


class NotFoundError(StoreError):
    """A document id is not in the index."""


class VersionError(StoreError):
    """An index version is unknown, or cannot be promoted/rolled back to."""


class WorkerError(CitewiseError):
    """A worker process (or Ray actor) of a parallel ingest died; the batch in progress was
    rolled back, earlier batches stay committed."""


class BackendUnavailable(CitewiseError):
    """An optional dependency is missing; the message names the extra to install."""
