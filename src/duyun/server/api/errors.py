"""Every REST refusal in the one documented body, ``{"error": {"code", "message"}}``.

docs/protocol.md "REST errors" is the contract: a client reads ``error.code`` whatever refused
the request (a route, FastAPI's parsing, the router, a per-address limit), never FastAPI's
``{"detail": ...}``. An unexpected exception is not handled here but by
:class:`duyun.server.middleware.HttpGuard` (``500 internal``, no traceback): Starlette runs an
``Exception`` handler outside the user middleware and re-raises after answering, which would
drop the kept-alive connection the guard keeps.

Every route declares the refusals it can give (:func:`refusals`, from the catalog below), and
/openapi.json shows each status with a body whose ``code`` can only be one of them; the
guard's refusals of any request (:mod:`duyun.server.middleware`: a malformed or too large
body, a cross-site ``POST``) are added to every operation. FastAPI's ``422`` is never sent (a
body or parameter it refuses is ``400 bad_request``, :func:`bad_request`), so the schema does not
declare it (:func:`install_error_handlers`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, create_model
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


class ErrorDetail(BaseModel):
    """What went wrong; ``next`` only in a bonus refused (``already_claimed``,
    ``not_eligible``): when to try again (ISO time) or null."""

    model_config = ConfigDict(extra="forbid", strict=True)

    code: str
    message: str
    next: str | None = None


class ErrorBody(BaseModel):
    """The one body of every refusal (docs/protocol.md "REST errors")."""

    model_config = ConfigDict(extra="forbid", strict=True)

    error: ErrorDetail


def error_response(
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> JSONResponse:
    body = ErrorBody(error=ErrorDetail(code=code, message=message, **(extra or {})))
    return JSONResponse(body.model_dump(exclude_unset=True), status_code=status, headers=headers)


# ------------------------------------------------------------------ the refusals, declared


class Refusal(NamedTuple):
    """One refusal a route can give: its status, its ``error.code`` and when it is given (the
    words /openapi.json shows; docs/protocol.md "REST errors" is the full table)."""

    status: int
    code: str
    when: str
    #: its error body carries ``next`` (a bonus refused)
    has_next: bool = False


BAD_REQUEST = Refusal(
    400,
    "bad_request",
    "a parameter out of its range or of the wrong form, a body that is not JSON, a missing, "
    "unknown or wrongly typed field (the message names it), or a Content-Length that is not "
    "a number",
)
BAD_ACCOUNT = Refusal(
    400,
    "bad_account",
    "the name or password is not allowed, for any reason (the message says what is wrong)",
)
UNAUTHORIZED = Refusal(
    401, "unauthorized", "no 'Authorization: Bearer TOKEN', or a token forged, expired or revoked"
)
BAD_LOGIN = Refusal(401, "bad_login", "wrong name or password (the message never says which)")
BAD_ORIGIN = Refusal(403, "bad_origin", "an Origin header of a page of another site")
NOT_A_PLAYER = Refusal(403, "not_a_player", "a hand the caller did not play")
NOT_FOUND = Refusal(404, "not_found", "no such player")
TABLE_NOT_FOUND = Refusal(404, "table_not_found", "no table with that code")
HAND_NOT_FOUND = Refusal(404, "hand_not_found", "no hand with that id")
NAME_TAKEN = Refusal(409, "name_taken", "the name (compared case-insensitively) exists")
HAND_NOT_FINISHED = Refusal(409, "hand_not_finished", "the hand is still being played")
TOO_MANY_TABLES = Refusal(
    409, "too_many_tables", "the account already has open_tables_per_account open tables"
)
ALREADY_CLAIMED = Refusal(
    409, "already_claimed", "today's gift or top-ups are used up", has_next=True
)
NOT_ELIGIBLE = Refusal(409, "not_eligible", "the bonus is not for this account now", has_next=True)
TOO_LARGE = Refusal(413, "too_large", "a body over max_body_bytes (the connection is closed)")
BAD_CONTENT_TYPE = Refusal(
    415, "bad_content_type", "a body sent without 'Content-Type: application/json'"
)
RATE_LIMITED = Refusal(
    429, "rate_limited", "over a limit (the message names it); Retry-After says when to retry"
)
STARTING = Refusal(503, "starting", "the server is still starting")
DRAINING = Refusal(503, "draining", "this server process is draining; try another")
REVIEW_BUSY = Refusal(
    503, "review_busy", "the process's review queue is full; Retry-After says when to retry"
)
REVIEWS_OFF = Refusal(503, "reviews_off", "this server does not review hands")

#: the HTTP guard's refusals of any request (a malformed Content-Length, too large a body) ...
ANY_REQUEST = (BAD_REQUEST, TOO_LARGE)
#: ... and of any POST (another site's page, a body that is not JSON)
ANY_POST = (*ANY_REQUEST, BAD_ORIGIN, BAD_CONTENT_TYPE)

_RETRY_AFTER = {
    "description": "seconds to wait before trying again",
    "schema": {"type": "string", "pattern": "^[0-9]+$"},
}
_models: dict[tuple[str, ...], type[BaseModel]] = {}


def _camel(code: str) -> str:
    return "".join(part.title() for part in code.split("_"))


def refusal_model(found: tuple[Refusal, ...]) -> type[BaseModel]:
    """The error body whose ``code`` is one of ``found``'s: /openapi.json then says exactly
    which codes a status of an operation can carry (one model per set of codes)."""
    codes = tuple(sorted({r.code for r in found}))
    model = _models.get(codes)
    if model is None:
        name = "Or".join(_camel(code) for code in codes)
        fields: dict[str, Any] = {
            "code": (Literal[codes], ...),
            "message": (str, ...),
        }
        if any(r.has_next for r in found):
            fields["next"] = (str | None, ...)
        detail = create_model(
            f"{name}Detail",
            __config__=ConfigDict(extra="forbid", strict=True),
            **fields,
        )
        model = create_model(
            f"{name}Error",
            __config__=ConfigDict(extra="forbid", strict=True),
            __doc__=f"The error body of {', '.join(codes)}.",
            error=(detail, ...),
        )
        _models[codes] = model
    return model


def _responses(found: tuple[Refusal, ...]) -> dict[int | str, dict[str, Any]]:
    by_status: dict[int, list[Refusal]] = {}
    for refusal in found:
        if refusal not in by_status.setdefault(refusal.status, []):
            by_status[refusal.status].append(refusal)
    answers: dict[int | str, dict[str, Any]] = {}
    for status, these in sorted(by_status.items()):
        answer: dict[str, Any] = {
            "model": refusal_model(tuple(these)),
            "description": "; ".join(f"`{r.code}`: {r.when}" for r in these),
        }
        if status == 429:
            answer["headers"] = {"Retry-After": {**_RETRY_AFTER, "required": True}}
        elif status == 503:
            answer["headers"] = {"Retry-After": _RETRY_AFTER}
        answers[status] = answer
    return answers


def refusals(*found: Refusal) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a GET route that can refuse with ``found`` (besides the guard's)."""
    return _responses((*ANY_REQUEST, *found))


def post_refusals(*found: Refusal) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a POST route that can refuse with ``found`` (besides the guard's)."""
    return _responses((*ANY_POST, *found))


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


def without_validation_error(build: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    """``app.openapi`` without FastAPI's ``422 Validation Error``: FastAPI declares it on every
    operation that takes a parameter or a body, but :func:`bad_request` answers those refusals
    as ``400 bad_request``, which every route declares."""

    def openapi() -> dict[str, Any]:
        schema = build()  # built once and kept by FastAPI: a second pass finds nothing left
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                operation.get("responses", {}).pop("422", None)
        models = schema.get("components", {}).get("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            models.pop(name, None)
        return schema

    return openapi


def install_error_handlers(app: FastAPI) -> None:
    app.exception_handler(ApiError)(api_error)
    app.exception_handler(LimitExceeded)(limit_exceeded)
    app.exception_handler(StarletteHTTPException)(http_error)
    app.exception_handler(RequestValidationError)(bad_request)
    app.openapi = without_validation_error(app.openapi)  # type: ignore[method-assign]


__all__ = [
    "ALREADY_CLAIMED",
    "ANY_POST",
    "ANY_REQUEST",
    "BAD_ACCOUNT",
    "BAD_CONTENT_TYPE",
    "BAD_LOGIN",
    "BAD_ORIGIN",
    "BAD_REQUEST",
    "DRAINING",
    "HAND_NOT_FINISHED",
    "HAND_NOT_FOUND",
    "NAME_TAKEN",
    "NOT_A_PLAYER",
    "NOT_ELIGIBLE",
    "NOT_FOUND",
    "RATE_LIMITED",
    "REVIEWS_OFF",
    "REVIEW_BUSY",
    "STARTING",
    "TABLE_NOT_FOUND",
    "TOO_LARGE",
    "TOO_MANY_TABLES",
    "UNAUTHORIZED",
    "ApiError",
    "ErrorBody",
    "ErrorDetail",
    "Refusal",
    "error_response",
    "install_error_handlers",
    "post_refusals",
    "refusal_model",
    "refusals",
]
