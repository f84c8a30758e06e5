"""One error shape for the whole API: ``application/problem+json`` (RFC 9457) with the same
one-line message the CLI prints, and its "Fix:" hint split out into ``fix``."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from citewise import errors
from citewise.serve.scrub import for_asker, store_error_text

PROBLEM = "application/problem+json"

_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (errors.NotFoundError, 404), (errors.VersionError, 409), (errors.IndexMismatchError, 409),
    (errors.LimitExceededError, 413), (errors.IngestError, 422), (errors.ConfigError, 400),
    (errors.BackendUnavailable, 501), (errors.GenerationError, 502),
    (errors.ModelError, 503), (errors.StoreError, 503),
)


class ApiError(Exception):
    """An HTTP-level refusal (auth, role, rate, size) with its fix."""

    def __init__(self, status: int, detail: str, fix: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.fix, self.headers = status, detail, fix, headers or {}


def problem(status: int, detail: str, fix: str | None = None,
            headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    from http import HTTPStatus

    body: dict[str, Any] = {"type": "about:blank", "title": HTTPStatus(status).phrase,
                            "status": status, "detail": detail}
    if fix:
        body["fix"] = fix
    body.update(extra)
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=headers)


def split_fix(message: str) -> tuple[str, str | None]:
    """``(the whole one-line message, the text after "Fix:" or None)``."""
    text = " ".join(message.split())
    _, sep, fix = text.partition("Fix:")
    return text, (fix.strip() if sep else None)


def status_of(exc: Exception) -> int:
    for cls, status in _STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api(request: Request, exc: ApiError) -> JSONResponse:
        return problem(exc.status, f"{exc.detail} Fix: {exc.fix}", exc.fix, exc.headers)

    @app.exception_handler(errors.CitewiseError)
    async def _citewise(request: Request, exc: errors.CitewiseError) -> JSONResponse:
        st = getattr(request.app.state, "citewise", None)  # the ServerState
        detail, fix = split_fix(store_error_text(exc, str(exc),
                                                 st.engine.db if st is not None else ""))
        shown = for_asker({"detail": detail, "fix": fix}, getattr(request.state, "who", None))
        return problem(status_of(exc), shown["detail"], shown["fix"])

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(p) for p in first.get("loc", ()))
        fix = "see the request schema at /openapi.json"
        return problem(422, f"{where}: {first.get('msg')}. Fix: {fix}", fix,
                       errors=[{"loc": list(e.get("loc", ())), "msg": e.get("msg")}
                               for e in exc.errors()])

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        fix = "see the API at /openapi.json"
        return problem(exc.status_code, f"{exc.detail}. Fix: {fix}", fix,
                       getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        import logging

        logging.getLogger("citewise.serve").exception("unhandled error")
        fix = "retry; if it persists, report it with the server log"
        return problem(500, f"internal error ({type(exc).__name__}). Fix: {fix}", fix)
