"""Every REST refusal in the one documented body, ``{"error": {"code", "message"}}``.

docs/protocol.md "REST errors" is the contract: a client reads ``error.code`` whatever refused
the request (a route, FastAPI's parsing, the router, a per-address limit), never FastAPI's
``{"detail": ...}``. An unexpected exception is not handled here but by
:class:`duyun.server.middleware.HttpGuard` (``500 internal``, no traceback): Starlette runs an
``Exception`` handler outside the user middleware and re-raises after answering, which would
drop the kept-alive connection the guard keeps.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from duyun.server.limits import LimitExceeded

#: seconds a ``429`` without a more precise figure tells the client to wait
DEFAULT_RETRY_AFTER = 60.0


class ApiError(Exception):
    """A REST refusal: HTTP status, protocol error code and a message naming the problem.

    ``retry_after`` (seconds) becomes the ``Retry-After`` header of a ``429`` (default
    :data:`DEFAULT_RETRY_AFTER`) and of any other refusal that gives one (a ``503`` of a full
    queue says when to come back; one of a server still starting does not know).
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        retry_after: float | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        if retry_after is None and status == 429:
            retry_after = DEFAULT_RETRY_AFTER
        self.retry_after = retry_after
        #: more fields of the error body, e.g. ``next`` of a bonus refused (issue 32)
        self.extra = extra or {}


def error_response(
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message, **(extra or {})}},
        status_code=status,
        headers=headers,
    )


async def api_error(request: Request, error: ApiError) -> JSONResponse:
    headers = {}
    if error.retry_after is not None:
        headers["Retry-After"] = str(max(1, int(error.retry_after + 0.999)))
    return error_response(error.status, error.code, error.message, headers, error.extra)


async def limit_exceeded(request: Request, error: LimitExceeded) -> JSONResponse:
    return error_response(
        429, "rate_limited", str(error), {"Retry-After": str(error.retry_seconds)}
    )


async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
    """Routing and parsing refusals in the documented error body, not ``{"detail"}``."""
    code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "bad_request")
    message = {
        404: f"no such endpoint: {request.method} {request.url.path}",
        405: f"{request.method} is not allowed on {request.url.path}",
    }.get(error.status_code, str(error.detail))
    return error_response(error.status_code, code, message, getattr(error, "headers", None))


def _problem(error: Any) -> str:
    if error.get("type") == "json_invalid":  # its loc is a character offset, not a field
        return f"body: not valid JSON ({error.get('ctx', {}).get('error', 'decode error')})"
    return f"{'.'.join(str(p) for p in error['loc'][1:]) or 'body'}: {error['msg']}"


async def bad_request(request: Request, error: RequestValidationError) -> JSONResponse:
    """A parameter or body FastAPI refused: ``400 bad_request`` naming the first three fields."""
    problems = "; ".join(_problem(e) for e in error.errors()[:3])
    return error_response(400, "bad_request", problems)


def install_error_handlers(app: FastAPI) -> None:
    app.exception_handler(ApiError)(api_error)
    app.exception_handler(LimitExceeded)(limit_exceeded)
    app.exception_handler(StarletteHTTPException)(http_error)
    app.exception_handler(RequestValidationError)(bad_request)


__all__ = ["ApiError", "error_response", "install_error_handlers"]
