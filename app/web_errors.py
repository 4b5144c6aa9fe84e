"""Every HTTP error in the one shape ``{"error": {"code", "message", ...}}``: ``install(app)``.

The handlers cover the app's own refusals (``AppError``), the framework's request validation (422),
its routing errors (404 unknown path, 405 wrong method, 400), the database out of reach (503
``unavailable`` with ``Retry-After``: :mod:`app.repository.outage`) and anything unexpected (500, with
no traceback and no detail leaked). On a page path (a GET or HEAD outside the protocol's paths, see
:func:`wants_page`) 404s and 500s answer the HTML page ``templates/error.html`` instead, with the same
status and a way home. The OpenAPI document is made to say the same: the framework's
``{"detail": ...}`` 422 is removed, and each route lists its error statuses itself.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException

from app.errors import EXCERPT_LENGTH, AppError, ErrorCode, bounded
from app.repository.outage import database_unavailable, unavailable
from app.templating import templates

log = logging.getLogger("hexmoot")

_HTTP_CODES = {
    400: ErrorCode.BAD_REQUEST,
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
}
# Paths that speak the protocol (docs/protocol.md): their errors stay JSON whatever the client accepts.
_JSON_PREFIXES = ("/api/", "/ws/", "/static/")
_JSON_PATHS = ("/api", "/ws", "/healthz", "/openapi.json", "/docs", "/redoc")
_PAGE_STATUSES = (404, 500, 503)
_PAGE_TEXT = {
    404: (
        "Page not found",
        "There is nothing here. The link may be mistyped, or the game may be "
        "private and the link lacks its token.",
    ),
    500: ("Something went wrong", "The server failed to show this page. Try again in a moment."),
    503: ("Back in a moment", "The site cannot reach its database just now. Try again shortly."),
}
_FRAMEWORK_422 = "#/components/schemas/HTTPValidationError"
_ERROR_OUT = "#/components/schemas/ErrorOut"


def error_response(error: AppError, headers: dict[str, str] | None = None) -> JSONResponse:
    """The HTTP answer for ``error``."""
    return JSONResponse({"error": error.to_json()}, status_code=error.status, headers=headers)


def wants_page(request: Request, status: int) -> bool:
    """Whether the error ``status`` answers ``request`` with the HTML page rather than JSON.

    Decided by the path, not by ``Accept``: every path outside the protocol's (``/api/``, ``/ws/``,
    ``/static/``, ``/healthz``, ``/openapi.json``, a game's ``record.json``,
    ``abstractplay.json`` and ``card.png``) is a page path, so one URL always answers in one format (no ``Vary:
    Accept``, nothing for a cache to mix up), and a program reading the API never gets HTML. Only a 404, 500 or 503 of a GET or HEAD is a page: a
    browser navigates with GET, and a wrong method or a bad body is a program's mistake.
    """
    path = request.url.path
    return (
        status in _PAGE_STATUSES
        and request.method in ("GET", "HEAD")
        and not path.startswith(_JSON_PREFIXES)
        and path not in _JSON_PATHS
        and not path.startswith(tuple(f"{p}/" for p in _JSON_PATHS))
        and not path.endswith(("/record.json", "/abstractplay.json", "/card.png"))
    )


def error_page(
    request: Request, status: int, headers: Mapping[str, str] | None = None
) -> HTMLResponse:
    """The HTML error page for ``status`` (404, 500 or 503): what happened, and links home."""
    heading, text = _PAGE_TEXT[status]
    context = {"status": status, "heading": heading, "text": text}
    page = templates.TemplateResponse(request, "error.html", context, status_code=status)
    for name, value in (headers or {}).items():
        page.headers[name] = value
    return page


async def app_error(request: Request, exc: Exception) -> Response:
    """A refusal of the app: its code, message and status."""
    assert isinstance(exc, AppError)
    headers = None
    if exc.retry_after is not None:  # whole seconds, rounded up: never "retry now" too early
        headers = {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}
    if wants_page(request, exc.status):
        return error_page(request, exc.status, headers)
    return error_response(exc, headers)


async def invalid_request(_request: Request, exc: Exception) -> Response:
    """The framework's validation of a body or parameter: ``bad_json`` or ``invalid_request``.

    Only the first error's place and message go back, never its ``input`` (the client's value), and
    a place named by the client (an unknown key) is cut to an excerpt.
    """
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": "invalid", "type": ""}
    loc = [
        _cut(str(p)) for p in first.get("loc", ()) if p not in ("body", "query", "path", "header")
    ]
    field = ".".join(loc) or None
    if first.get("type") == "json_invalid":
        return error_response(AppError(ErrorCode.BAD_JSON, "the body is not valid JSON"))
    where = f"{field}: " if field else ""
    message = f"{where}{first.get('msg')}"
    return error_response(AppError(ErrorCode.INVALID_REQUEST, message, field=field))


async def http_error(request: Request, exc: Exception) -> Response:
    """A routing error of the framework (unknown path, wrong method, ...) in the one shape."""
    assert isinstance(exc, HTTPException)
    status = exc.status_code
    cause = exc.__cause__
    if status == 400 and _unreadable_json(cause):
        return error_response(AppError(ErrorCode.BAD_JSON, f"the body is not JSON: {_why(cause)}"))
    if wants_page(request, status):
        return error_page(request, status, exc.headers)
    code = _HTTP_CODES.get(status)
    if code is None:
        code = ErrorCode.INTERNAL_ERROR if status >= 500 else ErrorCode.BAD_REQUEST
    path = _cut(request.url.path)
    if status == 404 and exc.detail == "Not Found":
        message = f"there is nothing at {path}"
    elif status == 405:
        message = f"{path} does not take {request.method}"
    else:
        message = str(exc.detail)
    body = {"error": {"code": code.value, "message": bounded(message)}}
    return JSONResponse(body, status_code=status, headers=exc.headers)


def _cut(text: str) -> str:
    """``text`` (a path, a key: the client's) cut to its start and end if it is long."""
    if len(text) <= EXCERPT_LENGTH:
        return text
    half = (EXCERPT_LENGTH - 3) // 2
    return f"{text[:half]}...{text[-half:]}"


def _unreadable_json(cause: BaseException | None) -> bool:
    """Whether the framework failed to parse a body that is UTF-8 but no JSON Python reads: nested
    too deeply (RecursionError), or an integer of over 4,300 digits. (A body that is not UTF-8
    stays ``bad_request``.)"""
    return isinstance(cause, RecursionError) or (
        isinstance(cause, ValueError) and not isinstance(cause, UnicodeDecodeError)
    )


def _why(cause: BaseException | None) -> str:
    return (
        "it is nested too deeply" if isinstance(cause, RecursionError) else "a number is too long"
    )


async def database_error(request: Request, exc: Exception) -> Response:
    """A failure of the database layer: 503 ``unavailable`` (with ``Retry-After``) when the
    database is out of reach, a moment's trouble the client retries; any other is a bug (500)."""
    if database_unavailable(exc):
        log.warning(
            "%s %s: the database is out of reach (%r)", request.method, request.url.path, exc
        )
        return await app_error(request, unavailable())
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return await unexpected(request, exc)


async def unexpected(request: Request, exc: Exception) -> Response:
    """A bug: 500 with a generic message. The server still logs the traceback (Starlette re-raises
    the exception once this answer is sent); the client never sees it."""
    if wants_page(request, 500):
        try:
            return error_page(request, 500)
        except Exception:  # the page itself failed: the JSON answer still goes out
            pass
    error = AppError(ErrorCode.INTERNAL_ERROR, "the server failed to answer this request")
    return error_response(error)


def _documented_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document without the framework's ``{"detail": ...}`` 422 answers, with the 503
    of a database out of reach on every route, and the 413 of ``app/http_limits.py`` on every
    route that takes a body."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.get("responses", {})
            answer = responses.get("422", {}).get("content", {}).get("application/json", {})
            if answer.get("schema", {}).get("$ref") == _FRAMEWORK_422:
                del responses["422"]
            page = "text/html" in responses.get("200", {}).get("content", {})
            if "503" not in responses and not page:  # the database may be out of reach
                responses["503"] = {
                    "description": "The database is out of reach (`unavailable`):"
                    " nothing changed; retry after `Retry-After` seconds",
                    "content": {"application/json": {"schema": {"$ref": _ERROR_OUT}}},
                }
            if "requestBody" in operation and "413" not in responses:
                responses["413"] = {
                    "description": "The body is over this route's cap",
                    "content": {"application/json": {"schema": {"$ref": _ERROR_OUT}}},
                }
    components = schema.get("components", {}).get("schemas", {})
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    return schema


def install(app: FastAPI) -> None:
    """Register the error handlers on ``app`` and make its OpenAPI document show the one shape."""
    app.add_exception_handler(AppError, app_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(HTTPException, http_error)
    # The exceptions a database out of reach raises, answered here (not re-raised as a bug).
    for kind in (SQLAlchemyError, OSError):
        app.add_exception_handler(kind, database_error)
    app.add_exception_handler(Exception, unexpected)
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _documented_errors(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
