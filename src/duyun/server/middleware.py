"""The HTTP guard in front of every REST route and page (issue 20 items 3, 11 and 17).

It is a plain ASGI middleware rather than a FastAPI dependency because its checks must happen
before anything reads the body: a 200 MB ``POST`` used to be read whole (and grow the process by
600 MB) before validation refused it. It:

- refuses bodies over ``max_body_bytes`` with ``413 too_large``: at once when ``Content-Length``
  says so, and while a chunked body streams in, as soon as the count passes the limit;
- refuses state-changing requests (``POST``/``PUT``/``PATCH``/``DELETE``) from another site: a
  wrong ``Origin`` (the same check as ``/ws``) gets ``403 bad_origin``, and a body that is not
  ``Content-Type: application/json`` gets ``415 bad_content_type`` (a cross-site form or
  ``text/plain`` fetch can be sent without a CORS preflight; JSON cannot);
- adds the security headers to every answer (a CSP with ``frame-ancestors 'none'``, nosniff,
  a referrer policy; ``Cache-Control: no-store`` on the API, whose answers hold tokens);
- turns an unexpected exception into ``500 internal`` with the documented error body, logged
  once with its traceback on the server and never shown to the client, and without dropping a
  kept-alive connection.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

log = logging.getLogger("duyun.server")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: methods that change state and so must come from our own pages (or a non-browser client)
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_HOST = re.compile(r"^[A-Za-z0-9.\-:\[\]]{1,255}$")


def content_security_policy(host: str | None, sockets: tuple[str, ...] = ()) -> str:
    """The page's policy: only its own scripts, styles and connections, never framed.

    The client loads one module script and one stylesheet from /static and builds its markup
    with ``style="..."`` attributes (so ``style-src`` allows inline styles; scripts stay strict:
    no inline script, no eval). ``connect-src`` names the websocket of the same host for browsers
    whose ``'self'`` does not cover ``ws:``/``wss:``; ``sockets``, the websocket origins of the
    other server processes, which a ``redirect`` sends the client to (issue 24). The service
    worker (``/sw.js``) and the manifest come from the same origin (issue 31 item 7).
    """
    connect = "'self'"
    if host and _HOST.match(host):
        connect += f" ws://{host} wss://{host}"
    for origin in sockets:
        connect += f" {origin}"
    return (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        f"img-src 'self' data:; connect-src {connect}; worker-src 'self'; manifest-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


def error_body(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


class HttpGuard:
    """See the module docstring. ``origin_ok(origin, host)`` is the ``/ws`` Origin check."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        origin_ok: Callable[[str | None, str | None], bool],
        sockets: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.sockets = sockets
        self.max_body_bytes = max_body_bytes
        self.origin_ok = origin_ok

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        method = scope["method"].upper()
        path: str = scope.get("path", "")
        extra = [
            (
                b"content-security-policy",
                content_security_policy(headers.get("host"), self.sockets).encode(),
            ),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"x-frame-options", b"DENY"),
            (b"cross-origin-opener-policy", b"same-origin"),
        ]
        if path.startswith("/api/"):
            extra.append((b"cache-control", b"no-store"))
        started = False
        finished = False

        async def send_guarded(message: Message) -> None:
            nonlocal started, finished
            if finished:
                return  # we already answered (a body that turned out too large)
            if message["type"] == "http.response.start":
                started = True
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in extra if k not in present
                ]
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                finished = True
            await send(message)

        async def refuse(status: int, code: str, text: str) -> None:
            body = error_body(code, text)
            response_headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ]
            if status == 413:  # else uvicorn would read (and discard) the rest to keep alive
                response_headers.append((b"connection", b"close"))
            await send_guarded(
                {"type": "http.response.start", "status": status, "headers": response_headers}
            )
            await send_guarded({"type": "http.response.body", "body": body})

        limit = self.max_body_bytes
        length_text = headers.get("content-length")
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        if length_text is not None:
            if not length_text.isdigit():
                await refuse(400, "bad_request", "Content-Length is not a number")
                return
            if int(length_text) > limit:
                await refuse(
                    413, "too_large", f"request body of {length_text} bytes; the limit is {limit}"
                )
                return
        has_body = chunked or (length_text is not None and int(length_text) > 0)
        if method in UNSAFE_METHODS:
            origin = headers.get("origin")
            if not self.origin_ok(origin, headers.get("host")):
                await refuse(403, "bad_origin", f"origin {origin!r} may not call this API")
                return
            media = headers.get("content-type", "").split(";")[0].strip().lower()
            if has_body and media != "application/json":
                await refuse(
                    415,
                    "bad_content_type",
                    "send the body as JSON with 'Content-Type: application/json'",
                )
                return

        received = 0

        async def receive_counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    if not started:
                        await refuse(413, "too_large", f"request body over {limit} bytes; refused")
                    # the handler sees the client gone and stops; its answer is dropped
                    return {"type": "http.disconnect"}
            return message

        try:
            await self.app(scope, receive_counted, send_guarded)
        except Exception:
            log.exception("%s %s failed", method, path)
            if not started:
                await refuse(500, "internal", "the server failed to answer; try again")
                return
            raise


__all__ = ["HttpGuard", "content_security_policy", "error_body"]
