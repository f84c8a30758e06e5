"""The FastAPI app: one :class:`~citewise.engine.Engine` per process, API keys, one error
shape, size and rate limits, metrics, the request log, and the web page at ``/``.

CORS is off unless ``serve.cors_origins`` names origins. ``/healthz`` says the process is up;
``/readyz`` that the index opens and the query embedder is loaded."""

from __future__ import annotations

import logging
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from prometheus_client import CONTENT_TYPE_LATEST

from citewise import __version__
from citewise.engine import Engine
from citewise.errors import CitewiseError, StoreError
from citewise.reqlog import RequestLog
from citewise.serve import documents, problems, query
from citewise.serve.keys import KeyFile
from citewise.serve.limits import BodyLimit, route_path
from citewise.serve.problems import problem
from citewise.serve.state import KeyFirst, ServerState

STATIC = Path(__file__).parent / "static"
PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    # the pages act with the API key they keep: scripts from here only, never framed
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' "
                               "'unsafe-inline'; img-src 'self' data:; object-src 'none'; "
                               "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer"}


class _PageFiles(StaticFiles):
    """The page's files with the page's headers: ``/static/index.html`` is the same page as
    ``/``, and served bare it could be framed by another site, running with the key it keeps
    (security review)."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers.update(PAGE_HEADERS)
        return response


def create_app(engine: Engine, keys: KeyFile, log: RequestLog | None = None,
               warm: bool = True) -> FastAPI:
    """The app over ``engine`` (which it closes on shutdown). ``warm``: load the query
    embedder (and, if local, the generator) before serving, so no request pays for it."""
    state = ServerState(engine, keys, log)

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # noqa: ANN202
        if warm:  # loaded once here, not by two first requests at once
            failed = engine.warm_up()
            if failed:  # answers fall back or fail with the fix; search goes on
                logging.getLogger("citewise.serve").warning("generator not loaded: %s", failed)
        if state.log is not None:
            try:
                state.log.keep_retention()
            except StoreError as exc:  # a read-only index still serves (writes say why)
                logging.getLogger("citewise.serve").error(
                    "request log not written (its retention not kept): %s", exc)
        yield
        state.close()

    # no /docs or /redoc: FastAPI's pages load their scripts from a CDN, which would run on
    # the origin where the web page keeps the API key (and no CDN is reachable offline);
    # /openapi.json describes the API
    app = FastAPI(title="citewise", version=__version__, lifespan=lifespan, docs_url=None,
                  redoc_url=None,
                  description="Answers from governed documents, with citations anyone can "
                              "check. Every /v1 route needs `Authorization: Bearer KEY` "
                              "(`citewise keys add`).")
    app.state.citewise = state
    problems.install(app)
    app.include_router(query.router)
    app.include_router(documents.router)
    _meta_routes(app, state)
    app.mount("/static", _PageFiles(directory=STATIC), name="static")
    app.add_middleware(KeyFirst, state=state)  # inside CORS: a preflight carries no key
    origins = list(engine.settings.serve.cors_origins)
    if origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=origins, allow_methods=["*"],
                           allow_headers=["Authorization", "Content-Type", "X-API-Key"])
    app.add_middleware(BodyLimit, max_bytes=engine.settings.serve.max_body_bytes,
                       json_bytes=engine.settings.serve.max_json_bytes)
    _count_requests(app, state)
    _no_store(app)
    return app


def _no_store(app: FastAPI) -> None:
    """Every API answer says ``Cache-Control: no-store``: documents' text, answers and lists
    of what a key may read must not stay in a browser's or a proxy's cache after a delete or
    an ACL change, nor be served there to the next user (a security review)."""
    @app.middleware("http")
    async def no_store(request: Request, call_next: Any) -> Any:
        response = await call_next(request)
        if route_path(request.scope).startswith("/v1/") and \
                "cache-control" not in response.headers:  # behind a root path too (a review)
            response.headers["Cache-Control"] = "no-store"
        return response


def _count_requests(app: FastAPI, state: ServerState) -> None:
    routes = [r for r in (*query.router.routes, *documents.router.routes)
              if hasattr(r, "path_regex")]

    @app.middleware("http")
    async def count(request: Request, call_next: Any) -> Any:
        t = time.perf_counter()
        response = await call_next(request)
        endpoint = _endpoint(routes, request.scope)
        state.metrics.requests.labels(endpoint, str(response.status_code)).inc()
        if endpoint.startswith("/v1/"):
            state.metrics.stage.labels("http").observe(time.perf_counter() - t)
        return response


def _endpoint(routes: list[Any], scope: dict) -> str:
    """The route a request was for, also when it was refused before routing (a 401, an
    upload's 403 or 429 from the key check: an operator's dashboard of refused writes
    counted them under ``unmatched``); ``unmatched`` for a path no route has."""
    route = scope.get("route")
    if route is not None:
        return str(getattr(route, "path", "unmatched"))
    path = route_path(scope)
    return next((r.path for r in routes if r.path_regex.match(path)), "unmatched")


def _meta_routes(app: FastAPI, state: ServerState) -> None:
    @app.get("/healthz", tags=["meta"])
    async def healthz() -> dict:  # on the event loop: it answers while workers are busy
        return {"status": "ok", "version": __version__,
                "uptime_s": round(time.time() - state.started, 1)}

    @app.get("/readyz", tags=["meta"])
    def readyz() -> Response:
        try:
            manifest = state.engine.store.manifest()
            if manifest is None:
                return problem(503, "the index is empty. Fix: run `citewise ingest PATH "
                                    "--db DB` (or upload with POST /v1/documents)",
                               "run `citewise ingest PATH --db DB`")
            if state.engine.settings.retrieve.mode != "bm25":
                state.engine.query_embedder()
        except CitewiseError as exc:  # no key is asked for: the error stays in the server's
            # log (a review read host names, addresses, roles and databases in it)
            logging.getLogger("citewise.serve").warning("not ready: %s", exc)
            kind = type(exc).__name__
            return problem(503, f"not ready: the index cannot be read ({kind}). Fix: see the "
                                "server's log for why", "see the server's log for why")
        return JSONResponse({"status": "ready", "index": state.engine.index_info().to_dict()})

    @app.get("/metrics", tags=["meta"])
    def metrics(request: Request) -> Response:
        if state.engine.settings.serve.metrics_key:  # index-wide figures: operators only
            state.require(state.authenticate(request), "operator")
        return Response(state.metrics.scrape(state.engine), media_type=CONTENT_TYPE_LATEST)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)

    @app.get("/admin", include_in_schema=False)
    def admin() -> FileResponse:
        return FileResponse(STATIC / "admin.html", headers=PAGE_HEADERS)
