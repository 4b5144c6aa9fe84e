"""Every HTTP error in the one shape ``{"error": {"code", "message", ...}}``: ``install(app)``.

The handlers cover the app's own refusals (``AppError``), the framework's request validation (422),
its routing errors (404 unknown path, 405 wrong method, 400) and anything unexpected (500, with no
traceback and no detail leaked). The OpenAPI document is made to say the same: the framework's
``{"detail": ...}`` 422 is removed, and each route lists its error statuses itself.
"""

from __future__ import annotations

import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from app.errors import EXCERPT_LENGTH, AppError, ErrorCode, bounded

_HTTP_CODES = {
    400: ErrorCode.BAD_REQUEST,
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
}
_FRAMEWORK_422 = "#/components/schemas/HTTPValidationError"
_ERROR_OUT = "#/components/schemas/ErrorOut"


def error_response(error: AppError, headers: dict[str, str] | None = None) -> JSONResponse:
    """The HTTP answer for ``error``."""
    return JSONResponse({"error": error.to_json()}, status_code=error.status, headers=headers)


async def app_error(_request: Request, exc: Exception) -> Response:
    """A refusal of the app: its code, message and status."""
    assert isinstance(exc, AppError)
    if exc.retry_after is not None:  # whole seconds, rounded up: never "retry now" too early
        return error_response(exc, {"Retry-After": str(max(1, math.ceil(exc.retry_after)))})
    return error_response(exc)


async def invalid_request(_request: Request, exc: Exception) -> Response:
    """The framework's validation of a body or parameter: ``bad_json`` or ``invalid_request``.

    Only the first error's place and message go back, never its ``input`` (the client's value), and
    a place named by the client (an unknown key) is cut to an excerpt.
    """
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first = errors[0] if errors else {"loc": (), "msg": "invalid", "type": ""}
    loc = [_cut(str(p)) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
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


async def unexpected(_request: Request, exc: Exception) -> Response:
    """A bug: 500 with a generic message. The server still logs the traceback (Starlette re-raises
    the exception once this answer is sent); the client never sees it."""
    error = AppError(ErrorCode.INTERNAL_ERROR, "the server failed to answer this request")
    return error_response(error)


def _documented_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document without the framework's ``{"detail": ...}`` 422 answers, and with the
    413 of ``app/http_limits.py`` on every route that takes a body."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.get("responses", {})
            answer = responses.get("422", {}).get("content", {}).get("application/json", {})
            if answer.get("schema", {}).get("$ref") == _FRAMEWORK_422:
                del responses["422"]
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
    app.add_exception_handler(Exception, unexpected)
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _documented_errors(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
