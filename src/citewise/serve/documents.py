"""``/v1/documents`` (list, get, content, upload, delete, ACL) and ``/v1/versions``
(list; reindex and rollback for admins). Writes go through the server's one-writer lock and
invalidate the caches."""

from __future__ import annotations

import json
import time
from pathlib import Path, PurePosixPath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from pydantic import BaseModel, ConfigDict, Field

from citewise.errors import ConfigError, NotFoundError
from citewise.indexing import IngestReport, Pending
from citewise.ingest.hand_readers import INDEX_OPTION
from citewise.ingest.metadata import is_web_or_relative_link, normalize_groups
from citewise.ingest.normalize import drop_controls
from citewise.ingest.ownership import UPLOAD_OVER_FILE, UPLOAD_OVER_FILE_FIX, file_of
from citewise.prime import Primed
from citewise.results import DocumentInfo
from citewise.serve.keys import ApiPrincipal
from citewise.serve.metrics import epoch
from citewise.serve.problems import ApiError
from citewise.serve.server_files import reindex_arguments
from citewise.serve.state import ADMITTED, ServerState, require_key, state_of
from citewise.sources import FileLoad

router = APIRouter(dependencies=[Depends(require_key)])


class AclBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    groups: list[str] = Field(description="Groups allowed to read it ([]: nobody).")
    tenant: str | None = Field(None, description="Move it to this tenant (admin only).")


class ReindexBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    embedder: str | None = None
    chunk_tokens: int | None = Field(None, ge=16, le=8192)
    questions: str | None = Field(None, description="Eval set: a path inside the server's "
                                  "serve.eval_dir.")
    personas: str | None = None
    tolerance: float | None = Field(None, ge=0)
    force: bool = False


class RollbackBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int | None = Field(None, ge=1)


def _managed(st: ServerState, who: ApiPrincipal, doc_id: str, *, lost: bool = False,
             retired: bool = False) -> None:
    """Editors and admins manage documents of their tenant (operators may also move them to
    another tenant); with ``lost``, also one of their tenant that only a retired version
    holds (a rollback past its ingest), which a roll forward would bring back: a security
    review's editor could neither delete nor restrict such a page. ``retired``: look for
    such a copy to name the fix (each retired version is opened: only for writes)."""
    st.require(who, "editor")
    doc = st.engine.store.get_document(doc_id)
    kept = st.engine.lost_document(doc_id) if doc is None and (lost or retired) else None
    if kept is not None and kept[1].tenant == who.tenant:
        if lost:
            return
        raise NotFoundError(f"not in the live version: {doc_id} (retired version {kept[0]} "
                            "holds it, from before a rollback). Fix: delete it with `DELETE "
                            "/v1/documents/ID` (every version), or roll forward first")
    if doc is None or doc.tenant != who.tenant:
        raise NotFoundError(f"not in the index: {doc_id}. Fix: list documents with "
                            "`GET /v1/documents` (or `citewise status --documents`)")


@router.get("/v1/documents", tags=["documents"])
def list_documents(request: Request) -> dict:
    """Documents you may read (editors and admins: every document of their tenant)."""
    st = state_of(request)
    who = st.authenticate(request)
    st.buckets.take(who.name)
    if who.can("editor"):
        docs = [d for d in st.engine.documents() if d.tenant == who.tenant]
    else:
        docs = st.engine.documents(who.principal)
    return {"documents": [d.to_dict() for d in docs]}


@router.get("/v1/documents/{doc_id:path}/content", tags=["documents"])
def document_content(doc_id: str, request: Request, anchor: str | None = None) -> dict:
    """The document's text as blocks (kind, text, heading path, anchor) for reading a cited
    passage in its section; only for principals who may read it. With ``anchor`` (a
    citation's ``#…``), only the section holding it (:mod:`citewise.section`);
    ``first_block`` and ``total_blocks`` say where that is. Rate-limited like search and ask
    (``serve.rate_per_minute``): else a reader could copy every document they may read in
    one loop."""
    st = state_of(request)
    who = st.authenticate(request)
    st.buckets.take(who.name)
    _readable(st, who, doc_id)  # the API's 404 names the API's fix
    return st.engine.section(doc_id, who.principal, anchor).to_dict()


@router.get("/v1/documents/{doc_id:path}", tags=["documents"])
def get_document(doc_id: str, request: Request) -> dict:
    st = state_of(request)
    who = st.authenticate(request)
    if who.can("editor"):
        _managed(st, who, doc_id)
        return st.engine.document(doc_id).to_dict()
    return _readable(st, who, doc_id).to_dict()


def _readable(st: ServerState, who: ApiPrincipal, doc_id: str) -> DocumentInfo:
    """``doc_id`` as ``who`` may read it, else a 404 whose fix an API user can follow (the
    engine's names a CLI command)."""
    try:
        return st.engine.document(doc_id, who.principal)
    except NotFoundError:
        raise NotFoundError(f"not in the index: {doc_id}. Fix: list the documents you may "
                            "read with `GET /v1/documents`") from None


MAX_NAME_BYTES = 200
"""Longest upload file name (bytes): a file system refuses names over 255 bytes, and a
security review's 300-byte name was a bare 500."""


@router.post("/v1/documents", tags=["documents"], status_code=201)
async def upload(request: Request, file: Annotated[UploadFile, File()],
                 doc_id: Annotated[str | None, Form()] = None,
                 groups: Annotated[str, Form()] = "",
                 title: Annotated[str | None, Form()] = None,
                 source_url: Annotated[str | None, Form()] = None,
                 updated_at: Annotated[str | None, Form()] = None,
                 tenant: Annotated[str | None, Form()] = None,
                 metadata: Annotated[str | None, Form(description="More metadata (JSON).")]
                 = None) -> dict:
    """Upload (or replace) one document with its metadata (editor/admin). ``groups``:
    comma-separated readers; ``doc_id`` defaults to the file name."""
    st = state_of(request)
    who = st.authenticate(request)
    st.require(who, "editor")  # KeyFirst checked it before the body, where it saw the route;
    admitted = getattr(request.state, ADMITTED, False)  # elsewhere (a root path it did not
    release = None if admitted else st.admit_upload(who)  # know): token and slot here
    try:
        return await _upload(st, request, who, file, {
            "doc_id": doc_id, "groups": groups, "title": title, "source_url": source_url,
            "updated_at": updated_at, "tenant": tenant, "metadata": metadata})
    finally:
        if release is not None:
            release()


async def _upload(st: ServerState, request: Request, who: ApiPrincipal, file: UploadFile,
                  form: dict[str, Any]) -> dict:
    """The upload route's work, once the upload is admitted: its metadata checked, then the
    file parsed outside the write lock and written under it."""
    name, doc_id, side = _upload_metadata(st, who, file, form)
    data = await file.read()
    received = time.time()

    def parse() -> Primed:  # outside the write lock: deletes and ACL changes need not wait
        item = Pending(label=doc_id, doc_id=doc_id,
                       load=FileLoad(Path(name), st.engine.settings.limits, {}, side,
                                     local=False, data=data))  # in memory, no copy on disk
        with st.upload_lock:  # one upload parses and embeds at a time, a bounded number
            return st.engine.prime(item, st.engine.settings.serve.max_upload_chunks)

    from starlette.concurrency import run_in_threadpool

    primed = await run_in_threadpool(parse)

    def write() -> IngestReport:
        return st.engine.ingest([primed.item], primed=primed)

    report = await run_in_threadpool(st.write, write, request, who)
    report.model_seconds += primed.model_seconds  # the write embedded none of those
    return _uploaded(st, name, doc_id, report, received)


def _check_prefix(st: ServerState, doc_id: str, tenant: str) -> None:
    """Refuse an upload into ``tenant`` whose id starts with another tenant's name and a
    slash: the README has each tenant's ids start so (``acme/handbook.md``), and a security
    review's editor of one tenant uploaded ``acme/roadmap-2027.md`` first, so acme's own
    ingest of it failed ("another tenant's document"). Tenants are those the server's keys
    name."""
    head, sep, _ = doc_id.partition("/")
    tenants = {entry.tenant for entry in st.keys.entries}
    if sep and head != tenant and head in tenants:
        raise ConfigError(f"the id {doc_id} starts with another tenant's name; ids so are "
                          f"that tenant's. Fix: pass a doc_id of your own, e.g. "
                          f"{tenant}/{doc_id.rsplit('/', 1)[-1]}")


def _upload_metadata(st: ServerState, who: ApiPrincipal, file: UploadFile,
                     form: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """``(file name, doc_id, metadata)`` of an upload, or a one-line :class:`ConfigError`."""
    doc_id, groups, title, tenant = form["doc_id"], form["groups"], form["title"], form["tenant"]
    source_url, updated_at, metadata = form["source_url"], form["updated_at"], form["metadata"]
    if tenant and tenant != who.tenant and not who.can("operator"):
        raise ConfigError("only an operator may write to another tenant. Fix: leave tenant "
                          "empty, or use a key made with `citewise keys add NAME --role "
                          "operator`")
    if tenant:
        _check_tenant(tenant)
    name = PurePosixPath(file.filename or "upload.txt").name
    if name in ("", ".", "..") or any(ord(c) < 32 or c == "\x7f" for c in name):
        raise ConfigError(f"file name {(file.filename or '')[:60]!r} names no file (empty, "
                          "dots or control characters). Fix: send the file with its name, "
                          "e.g. guide.md")
    if len(name.encode()) > MAX_NAME_BYTES:  # the temp copy needs a name the OS accepts
        raise ConfigError(f"file name {name[:40]!r}… is over {MAX_NAME_BYTES} bytes. Fix: "
                          "send a shorter file name (and a doc_id, if the id must be long)")
    fields = _form_fields({"doc_id": doc_id or name, "title": title, "updated_at": updated_at,
                           "source_url": source_url})
    doc_id = fields["doc_id"]
    _check_prefix(st, doc_id, tenant or who.tenant)
    existing = st.engine.store.get_document(doc_id)
    if existing is not None and existing.tenant != who.tenant:  # admins too: as _managed
        raise ConfigError(f"the id {doc_id} is taken. Fix: pass another doc_id")
    if existing is not None and file_of(existing) is not None:  # before its body is parsed
        raise ApiError(409, UPLOAD_OVER_FILE.format(doc_id=doc_id), UPLOAD_OVER_FILE_FIX)
    side = _metadata(metadata)
    link = fields.get("source_url") or doc_id  # the link defaults to the id
    if not is_web_or_relative_link(link):  # file: or a path would name server files
        raise ConfigError(f"{'source_url' if source_url else 'doc_id'} "
                          f"{(source_url or doc_id)[:60]!r} is not a link a reader can open "
                          "safely. Fix: send source_url as an http(s):// URL or a relative "
                          "link")
    side.update({"source_url": doc_id, **fields})
    side["groups"] = sorted(normalize_groups(groups))
    side["tenant"] = tenant or who.tenant
    side.setdefault("owner", who.name)
    return name, doc_id, side


def _uploaded(st: ServerState, name: str, doc_id: str, report: IngestReport,
              received: float) -> dict:
    """The upload's response (or its one-line error), its index lag observed."""
    failed = [o for o in report.outcomes if o.status == "failed"]
    if failed or report.includes_only:
        from citewise.errors import IngestError

        error = (str(failed[0].error) if failed else
                 f"{report.includes_only[0].error}. Fix: upload the files it includes")
        raise IngestError(f"{name}: {error}" + ("" if "Fix:" in error else
                          ". Fix: upload it as a type citewise reads (.md, .html, .txt, .rst, "
                          ".pdf, .docx, .info, each also .gz), or correct the file"))
    info = st.engine.document(doc_id)
    searchable = time.time()
    report.seconds = searchable - received  # parse, embed, wait and write (an operator's
    # trial: the report gave the write's time alone, the embedding done before it)
    st.metrics.index_lag.labels("upload").observe(searchable - received)
    updated = epoch(info.updated_at)
    if updated is not None and updated <= searchable:
        st.metrics.index_lag.labels("updated_at").observe(searchable - updated)
    warnings = [w.replace(" " + INDEX_OPTION, "")  # the server's own index (the CLI names
                for w in report.warnings]  # its --db); the file's tenant/groups ignored…
    if not info.groups:
        warnings.append(f"nobody can read {doc_id}: it has no groups. Fix: PUT "
                        f'/v1/documents/{doc_id}/acl with {{"groups": ["staff"]}}, or upload '
                        "it again with groups")
    return {"document": info.to_dict(), "ingest": report.summary(), "warnings": warnings}


def _check_tenant(tenant: str) -> None:
    """A tenant name an operator sends is stored as sent or refused: one with a NUL was
    stored without it ("xy") while the response said "x\\u0000y" (security review)."""
    if drop_controls(tenant).strip() != tenant:
        raise ConfigError(f"tenant {tenant[:40]!r} has control characters or edge spaces. "
                          "Fix: send the tenant's name as `citewise keys list` shows it")


def _form_fields(raw: dict[str, str | None]) -> dict[str, Any]:
    """The upload's own form fields normalised like the ``metadata`` field and a sidecar line
    (control characters dropped, ``updated_at`` checked): they were stored as sent, so a
    ``doc_id`` with escape sequences or ``updated_at=not-a-date`` went in unchecked."""
    from citewise.errors import IngestError
    from citewise.ingest.metadata import normalize_metadata

    try:
        fields = normalize_metadata({k: v for k, v in raw.items() if v})
    except IngestError as exc:
        raise ConfigError(f"{exc}. Fix: correct that form field") from None
    if not fields.get("doc_id"):
        raise ConfigError("doc_id is empty once control characters are dropped. Fix: send a "
                          "doc_id, or a file name, made of printable characters")
    return fields


def _metadata(text: str | None) -> dict[str, Any]:
    """The ``metadata`` form field: a JSON object, bounded and normalised like a sidecar line
    (malformed or absurdly nested input is a one-line 400, not a 500)."""
    from citewise.errors import IngestError
    from citewise.ingest.metadata import check_depth, normalize_metadata
    from citewise.text import json_problem

    fix = "Fix: send a JSON object, e.g. {\"owner\": \"hr\"}"
    try:
        side = json.loads(text) if text else {}
    except ValueError as exc:  # a 5,000-digit number too (not a JSONDecodeError)
        raise ConfigError(f"metadata: not valid JSON: {json_problem(exc)}. {fix}") from None
    except RecursionError:
        raise ConfigError(f"metadata: JSON nested too deeply. {fix}") from None
    if not isinstance(side, dict):
        raise ConfigError(f"metadata must be a JSON object. {fix}")
    internal = sorted(str(k) for k in side if str(k).startswith("_"))
    if internal:
        raise ConfigError(f"metadata key {internal[0]!r}: keys starting with _ are citewise's "
                          f"own. {fix}")
    try:
        check_depth(side)
        return normalize_metadata(side, access_keys=True)
    except IngestError as exc:
        raise ConfigError(f"metadata: {exc}. {fix}") from None


@router.delete("/v1/documents/{doc_id:path}", tags=["documents"])
def delete_document(doc_id: str, request: Request) -> dict:
    """Delete a document (editor/admin): unretrievable, and out of every cache, when this
    returns."""
    st = state_of(request)
    who = st.authenticate(request)
    _managed(st, who, doc_id, lost=True)
    removed = st.write(lambda: st.engine.delete([doc_id]), request, who)
    return {"doc_ids": [doc_id], "removed": removed}


@router.put("/v1/documents/{doc_id:path}/acl", tags=["documents"])
def set_acl(doc_id: str, body: AclBody, request: Request) -> dict:
    """Change who may read a document (editor/admin); nothing is re-embedded."""
    st = state_of(request)
    who = st.authenticate(request)
    _managed(st, who, doc_id, retired=True)
    if body.tenant and body.tenant != who.tenant:
        st.require(who, "operator")
        _check_tenant(body.tenant)
    groups = sorted(normalize_groups(body.groups))
    st.write(lambda: st.engine.set_acl(doc_id, groups, body.tenant), request, who)
    cleaned = sorted({g for g in body.groups if g not in groups})
    warnings = [f"group names cleaned (control characters and spaces dropped, empty names "
                f"left out): {', '.join(map(repr, cleaned))[:200]}"] if cleaned else []
    if not groups:
        warnings.append(f"nobody can read {doc_id} now: it has no groups. Fix: PUT this "
                        'route again with {"groups": ["staff"]}')
    return {"doc_id": doc_id, "groups": groups, "tenant": body.tenant or who.tenant,
            "warnings": warnings}


@router.get("/v1/versions", tags=["versions"])
def versions(request: Request) -> dict:
    """Index versions (operator: their counts and locations are index-wide)."""
    st = state_of(request)
    who = st.authenticate(request)
    st.require(who, "operator")
    return {"versions": [v.to_dict() for v in st.engine.versions()]}


@router.post("/v1/versions/reindex", tags=["versions"])
def reindex(body: ReindexBody, request: Request) -> dict:
    """Build, evaluate and (if it passes) promote a new version (operator: it changes every
    tenant's index). Slow: it re-embeds every chunk when the embedder or chunking changes."""
    st = state_of(request)
    who = st.authenticate(request)
    st.require(who, "operator")
    arguments = reindex_arguments(st.engine.settings, body.model_dump())
    result = st.rebuild(lambda: st.engine.reindex(
        **arguments, before_promotion=lambda: st.still_holds(
            request, who, "the version it built was refused, not promoted")))
    return result.to_dict()


@router.post("/v1/versions/rollback", tags=["versions"])
def rollback(body: RollbackBody, request: Request) -> dict:
    """Make a retired version live again (operator: it changes every tenant's index)."""
    st = state_of(request)
    who = st.authenticate(request)
    st.require(who, "operator")
    return st.write(lambda: st.engine.rollback(body.version), request, who).to_dict()
