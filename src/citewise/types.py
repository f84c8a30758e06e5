"""Value types shared by every stage. All frozen: a value never changes after it is made.

Offsets (``start``/``end``) are character offsets into :attr:`ParsedDocument.text`, the
normalized text a loader produces, so ``parsed.text[block.start:block.end] == block.text``
and the same holds for chunks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args
from urllib.parse import quote

from citewise.trace import AnswerTrace

#: What a link's ``#anchor`` keeps as written (RFC 3986's fragment characters but ``'``);
#: the rest is percent-encoded: a page's ``id='a"><img src=x onerror=…>'`` went into every
#: citation's link as written (a security review). Browsers decode it to find the element.
FRAGMENT_SAFE = "!$&()*+,;=:@/?-._~"


def linked(base: str, anchor: str | None) -> str:
    """``base#anchor`` (the anchor percent-encoded as a fragment), or ``base``: also when
    ``base`` has a fragment already, as a hash-routed site's pages do (a new user's
    ``--base-url 'https://undici.nodejs.org/#/{path}'`` gave links with two ``#``, which open
    no section), since a link has one fragment."""
    return f"{base}#{quote(anchor, safe=FRAGMENT_SAFE)}" if anchor and "#" not in base \
        else base


BlockKind = Literal["heading", "text", "table", "code", "list"]
SearchMode = Literal["bm25", "dense", "hybrid"]
SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)


@dataclass(frozen=True)
class Block:
    """One structural unit of a parsed document.

    ``heading_path`` is the chain of enclosing headings (outermost first); for a heading block
    it includes the heading itself. ``anchor`` is the id of the nearest enclosing element that
    has one (HTML ``id``, Markdown heading slug, ``page=N`` for PDF, the standard open
    parameter), for ``source#anchor``.
    Tables are rendered one row per line, cells separated by `` | ``; the first
    ``header_lines`` lines are the header, repeated when a table is split.
    """

    kind: BlockKind
    text: str
    start: int
    end: int
    heading_path: tuple[str, ...] = ()
    anchor: str | None = None
    level: int = 0
    page: int | None = None
    header_lines: int = 0


@dataclass(frozen=True)
class ParsedDocument:
    """What a :class:`~citewise.protocols.Loader` returns: text, structure and file metadata.

    ``metadata`` holds what the file itself says (front matter, ``<meta>``, PDF info), e.g.
    ``title``, ``owner``, ``groups``, ``tenant``, ``source_url``, ``updated_at``.
    """

    title: str
    text: str
    blocks: tuple[Block, ...]
    metadata: Mapping[str, Any] = field(default_factory=dict)
    pages: int | None = None
    format: str = "text"


@dataclass(frozen=True)
class Document:
    """A governed document as the index stores it (without its text).

    ``version`` starts at 1 and grows each time the content hash changes.
    ``content_hash`` is the sha256 of the normalized text plus title.
    ``acl_groups`` are the groups allowed to read it; an empty set means nobody can.
    """

    doc_id: str
    title: str
    content_hash: str
    tenant: str
    acl_groups: frozenset[str]
    version: int = 1
    source_url: str | None = None
    owner: str | None = None
    updated_at: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ingest_groups(self) -> list[str] | None:
        """The groups its last ingest or upload gave it, sorted (:data:`INGEST_READERS`;
        None for a document indexed before that was recorded): readers that differ were set
        by hand since (:mod:`citewise.ingest.hand_readers`)."""
        given = self.metadata.get(INGEST_READERS)
        return [str(g) for g in given] if isinstance(given, list) else None


INGEST_READERS = "_ingest_groups"
"""The metadata key of the groups a document's last ingest (or upload) gave it, sorted."""


@dataclass(frozen=True)
class SectionMark:
    """Where a chunk's text is in one section: from ``offset`` (into ``Chunk.text``) on, the
    text is under ``heading_path`` and a link to it ends in ``#anchor``."""

    offset: int
    anchor: str | None
    heading_path: tuple[str, ...]


@dataclass(frozen=True)
class Chunk:
    """A retrievable passage.

    ``chunk_id`` is derived from doc_id, offsets and text hash (stable across re-ingest of the
    same content). ``text_for_embedding`` is title + heading path + text; ``embed_hash`` is the
    sha256 of it, the key of the embedding cache. ``section_id`` identifies the parent section
    (for small-to-large expansion). ``sections`` is empty when the whole text is under one
    heading and anchor (``heading_path``, ``anchor``); a chunk that merged small sibling
    sections (a glossary's entries) or a heading with its first subsection has one mark per
    part, the first at offset 0, so a citation of text further down opens its own section.
    """

    chunk_id: str
    doc_id: str
    ordinal: int
    text: str
    text_for_embedding: str
    embed_hash: str
    start: int
    end: int
    heading_path: tuple[str, ...] = ()
    anchor: str | None = None
    section_id: str | None = None
    token_count: int = 0
    kind: BlockKind = "text"
    page: int | None = None
    sections: tuple[SectionMark, ...] = ()

    def section_at(self, offset: int) -> SectionMark:
        """The section that holds ``self.text[offset]``; the chunk's own heading path and
        anchor when it has no marks or ``offset`` is negative (a text not found in it)."""
        marks = [m for m in self.sections if m.offset <= offset]
        return marks[-1] if marks else SectionMark(0, self.anchor, self.heading_path)


@dataclass(frozen=True)
class Principal:
    """Who is asking. A chunk is visible only if its document is in ``tenant`` and shares at
    least one group with ``groups``. No groups means nothing is visible."""

    tenant: str = "default"
    groups: frozenset[str] = frozenset()
    name: str | None = None

    @classmethod
    def of(cls, groups: str | list[str] | tuple[str, ...] | frozenset[str] | None,
           tenant: str = "default", name: str | None = None) -> Principal:
        """Build from a comma-separated string or a list of group names."""
        if groups is None:
            items: list[str] = []
        elif isinstance(groups, str):
            items = [g.strip() for g in groups.split(",")]
        else:
            items = [str(g).strip() for g in groups]
        return cls(tenant=tenant, groups=frozenset(g for g in items if g), name=name)

    def may_read(self, document: Document | None) -> bool:
        """The visibility rule in Python (stores apply it inside their queries): same tenant
        and at least one shared group. ``None`` (no such document) is not readable."""
        return document is not None and document.tenant == self.tenant and bool(
            document.acl_groups & self.groups)


@dataclass(frozen=True)
class ScoredId:
    """One entry of a ranked list from a single signal: 1-based rank and raw score."""

    chunk_id: str
    score: float
    rank: int


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk with its document and how each signal ranked it.

    ``signals`` maps a signal name (``bm25``, ``dense``) to its :class:`ScoredId`; a signal
    missing from the map did not return the chunk in its top-N.
    """

    rank: int
    score: float
    chunk: Chunk
    document: Document
    signals: Mapping[str, ScoredId] = field(default_factory=dict)

    @property
    def source(self) -> str:
        """``source_url#anchor`` (or doc_id when the document has no URL)."""
        return self.link(self.chunk.anchor)

    def link(self, anchor: str | None) -> str:
        """``source_url#anchor`` for another anchor of the same document."""
        return linked(self.document.source_url or self.document.doc_id, anchor)

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "score": round(self.score, 6),
                "doc_id": self.document.doc_id, "chunk_id": self.chunk.chunk_id,
                "title": self.document.title, "heading_path": list(self.chunk.heading_path),
                "anchor": self.chunk.anchor, "source": self.source,
                "updated_at": self.document.updated_at, "version": self.document.version,
                "text": self.chunk.text,
                "signals": {n: {"rank": s.rank, "score": round(s.score, 6)}
                            for n, s in self.signals.items()}}


@dataclass(frozen=True)
class SearchResult:
    """Hits plus what the search did, for ``--explain``."""

    hits: tuple[Hit, ...]
    mode: str
    filter: str | None  # the ACL predicate as applied; only described when explain is asked
    candidates: Mapping[str, int] = field(default_factory=dict)
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"hits": [h.to_dict() for h in self.hits], "mode": self.mode,
                "filter": self.filter, "candidates": dict(self.candidates),
                "timings_ms": dict(self.timings_ms), "dropped": list(self.notes)}


@dataclass(frozen=True)
class Manifest:
    """The identity of an index: what built it. A query with another embedder is refused.
    ``tenancy`` is fixed when the index is created (see :mod:`citewise.index.tenancy`)."""

    schema_version: int
    embedder_id: str
    embedder_dim: int
    chunker_hash: str
    chunker_params: Mapping[str, Any]
    created_at: str
    package_version: str
    tenancy: str | None = "shared"  # "shared" | "isolated" (index.tenancy); older indexes:
    # shared. None only in a WANTED manifest: "whatever the index has" (new index: shared)


# -- index versions ---------------------------------------------------------------------------

VersionState = Literal["live", "shadow", "retired", "refused"]


@dataclass(frozen=True)
class IndexVersion:
    """One physical index (a complete :class:`~citewise.protocols.Store` with its own
    manifest) registered in a :class:`~citewise.protocols.VersionCatalog`.

    ``location`` is backend-specific (a SQLite file path, a PostgreSQL schema name); ``note``
    says why the version is in its state (e.g. the evaluation that promoted or refused it).
    """

    number: int
    location: str
    state: VersionState
    created_at: str
    note: str = ""


# -- answers ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContextPassage:
    """One passage placed in a prompt. ``sid`` (``S1``…) is the only id the model sees; it
    maps back to ``hit`` (chunk + document) for citations. No ACL or storage data is in it."""

    sid: str
    hit: Hit
    text: str
    tokens: int

    @property
    def chunk_id(self) -> str:
        return self.hit.chunk.chunk_id


@dataclass(frozen=True)
class Prompt:
    """What a :class:`~citewise.protocols.Generator` receives: chat ``messages`` (system +
    user, passages fenced as data) plus the question and passages themselves, so a generator
    without an LLM (``extractive``) works from the same request."""

    messages: tuple[Mapping[str, str], ...]
    question: str
    passages: tuple[ContextPassage, ...]


@dataclass(frozen=True)
class Generation:
    """A generator's output with its accounting."""

    text: str
    model_id: str
    tokens_in: int = 0
    tokens_out: int = 0
    finish_reason: str = "stop"
    seconds: float = 0.0


@dataclass(frozen=True)
class SentenceIssue:
    """A sentence of an answer that failed a citation check; ``ids`` are the ids it cites,
    ``score`` the support score (when computed)."""

    sentence: str
    ids: tuple[str, ...] = ()
    score: float | None = None


@dataclass(frozen=True)
class ValidationReport:
    """Citation validation of one answer: ``fabricated`` ids not in the context (never dropped
    silently), claims ``unsupported`` by the passages they cite, claims ``uncited``;
    ``cited`` the valid ids in order of first use."""

    cited: tuple[str, ...] = ()
    fabricated: tuple[str, ...] = ()
    unsupported: tuple[SentenceIssue, ...] = ()
    uncited: tuple[SentenceIssue, ...] = ()

    @property
    def ok(self) -> bool:
        return not (self.fabricated or self.unsupported or self.uncited)


@dataclass(frozen=True)
class Citation:
    """A passage an answer cites, with what a reader needs to check it."""

    id: str  # the number shown to the reader ("1", "2", …)
    sid: str  # the prompt id (S3)
    chunk_id: str
    doc_id: str
    title: str
    heading_path: tuple[str, ...]
    anchor: str | None
    source: str
    updated_at: str | None
    quote: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "chunk_id": self.chunk_id, "doc_id": self.doc_id,
                "title": self.title, "heading_path": list(self.heading_path),
                "anchor": self.anchor, "source": self.source, "updated_at": self.updated_at,
                "quote": self.quote}


@dataclass(frozen=True)
class Answer:
    """The result of ``Engine.ask``. When ``declined`` is true, ``answer`` is the
    insufficient-evidence message and ``reason`` says which check declined.

    ``outcome`` says what the reader gets: ``answered`` (the generator's answer, every
    sentence supported), ``pruned`` (the same with unsupported sentences removed),
    ``extractive`` (the generator's answer had no supported sentence, or the generator
    failed: source sentences instead), ``raw`` (``cite.policy: flag``: unchecked model
    output), ``declined``. ``notes`` are one-line statements of every fallback taken.
    ``trace`` is what the pipeline decided (:class:`~citewise.trace.AnswerTrace`)."""

    question: str
    answer: str
    declined: bool
    reason: str | None
    citations: tuple[Citation, ...] = ()
    validation: ValidationReport = field(default_factory=ValidationReport)
    trace: AnswerTrace = field(default_factory=AnswerTrace)
    outcome: str = "answered"
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        v = self.validation
        return {
            "question": self.question, "answer": self.answer, "declined": self.declined,
            "reason": self.reason, "outcome": self.outcome,
            "notes": list(self.notes), "citations": [c.to_dict() for c in self.citations],
            "validation": {"ok": v.ok, "cited": list(v.cited), "fabricated": list(v.fabricated),
                           "unsupported": [{"sentence": i.sentence, "ids": list(i.ids),
                                            "score": i.score} for i in v.unsupported],
                           "uncited": [{"sentence": i.sentence} for i in v.uncited]},
            "trace": self.trace.to_dict()}
