"""What an ingest reports: one :class:`Outcome` per file (written, unchanged, failed, or left
out: :data:`INCLUDES`, :data:`DELETED`) in an :class:`IngestReport`, and the :class:`Pending`
document each comes from (:mod:`citewise.indexing` makes them; its names stay importable
from there)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from citewise.types import ParsedDocument

STATUSES = ("new", "changed", "updated", "unchanged", "failed")
INCLUDES = "includes"
"""The status of a file left out because it only includes other files (no text of its own:
:class:`~citewise.errors.OnlyIncludesError`); reported apart, neither written nor failed. A
new user's Sphinx tree had its include-only ``index.rst`` reported as a failure, and
``--strict`` exit 1 for it."""
DELETED = "deleted"
"""The status of a file whose document someone deleted (``citewise delete``), left out
unless the ingest is told ``--undelete`` (:mod:`citewise.source_claims`); reported apart,
neither written nor failed: a routine re-ingest of its folder brought it back."""
OWN_LINK = "_own_link"
"""The metadata key of a link a file's own text gave its citations (front matter
``source_url``, ``<link rel=canonical>``) with no ``--base-url`` or sidecar line to say
otherwise (:class:`citewise.sources.FileLoad`): the ingest names such files in one line
(``own_links``; a security review's page sent its citations to ``https://evil.example/login``
under its real title)."""


@dataclass(frozen=True)
class Pending:
    """One document waiting to be indexed: ``load`` is called lazily, inside error handling,
    and returns the document with ALL its metadata merged (see :mod:`citewise.sources`)."""

    label: str
    doc_id: str
    load: Callable[[], ParsedDocument]


@dataclass(frozen=True)
class Outcome:
    label: str
    doc_id: str
    status: str
    chunks: int = 0
    embedded: int = 0
    error: str | None = None
    no_groups: bool = False  # an unchanged document that nobody can read (no ACL group)
    note: str | None = None  # an unchanged document's warning (it keeps readers set by hand)

    @property
    def indexed(self) -> bool:
        """Whether the document is in the index after this ingest (written or unchanged)."""
        return self.status not in ("failed", INCLUDES, DELETED)


@dataclass
class IngestReport:
    outcomes: list[Outcome] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # in the index with no ACL group at all
    redirects: list[tuple[str, str]] = field(default_factory=list)  # (stub page, target)
    copies: list[tuple[str, str]] = field(default_factory=list)  # (source copy, its page)
    noindex: list[str] = field(default_factory=list)  # pages marked noindex, 404 pages
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (page, the same text's
    # page that was indexed)
    warnings: list[str] = field(default_factory=list)  # one line each: skipped symlinks,
    # ACL values in files that were ignored, sidecar lines that matched no document
    sidecar_problems: list[str] = field(default_factory=list)  # also in warnings
    skipped: list[str] = field(default_factory=list)  # files not read: unsupported suffix
    includes_only: list[Outcome] = field(default_factory=list)  # files with no text of
    # their own, left out (INCLUDES; ``error``: what each includes)
    deleted: list[Outcome] = field(default_factory=list)  # files whose documents were
    # deleted by hand, left out (DELETED; ``error``: the fix)
    own_links: list[tuple[str, str]] = field(default_factory=list)  # (file, the link its
    # own text gave its citations: OWN_LINK)
    relinked: list[tuple[str, str, str]] = field(default_factory=list)  # (doc_id, its web
    # link before, its link now): a re-ingest under another --base-url (relinked())
    gone: list[str] = field(default_factory=list)  # documents whose files left a folder the
    # ingest walked (deleted under --prune; batch_checks.gone)
    seconds: float = 0.0
    model_seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def embedded(self) -> int:
        return sum(o.embedded for o in self.outcomes)

    @property
    def chunks(self) -> int:
        return sum(o.chunks for o in self.outcomes if o.status != "failed")

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {s: self.count(s) for s in STATUSES}
        out.update(skipped=len(self.skipped), chunks=self.chunks, chunks_embedded=self.embedded,
                   seconds=round(self.seconds, 3), model_seconds=round(self.model_seconds, 3))
        return out
