"""What the server's log may hold: no session token at any level, and one line per resource
failure per interval instead of one traceback per attempt (issue 20 items 10 and 15).

Tokens reach log records by several roads that the server does not write itself: uvicorn logs
every websocket handshake with its path and query (``"WebSocket /ws?token=..." [accepted]``),
its trace level logs each ASGI scope with its headers (``Authorization: Bearer ...``), and the
websockets library logs every frame at debug level, a ``hello`` with its token among them. So
the redaction is done where every record is made (the log record factory), whatever logger or
level made it, rather than in a filter on the loggers we happen to know today.

When the process runs out of file descriptors, asyncio logs ``socket.accept() out of system
resource`` with a traceback on every retry, once per listening socket per second, and uvicorn
one ``Exception in ASGI application`` per request that could not open a file: hundreds of
megabytes in a minute of attack. :class:`ResourceErrorThrottle` lets the first such record of an
interval through and counts the rest, saying how many were left out in the next one it lets
through.
"""

from __future__ import annotations

import errno
import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Any

#: a token in a query string, a JSON ``"token"`` field (to the end of the text: the websockets
#: library cuts long frames in the middle, leaving the token's tail after an ellipsis), or an
#: ``Authorization`` header
_TOKEN_PATTERNS = (
    (re.compile(r"(token=)[^&\s\"'\\]*", re.IGNORECASE), r"\1[redacted]"),
    (re.compile(r"(\\?[\"']token\\?[\"']\s*:).*", re.IGNORECASE | re.DOTALL), r"\1 [redacted]"),
    (re.compile(r"(bearer\s+)[^\s\"',)\]]+", re.IGNORECASE), r"\1[redacted]"),
)
_HINTS = ("token", "bearer")

#: errno values of a process or system that has run out of descriptors, buffers or memory
RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: seconds between two log records about the same kind of resource failure
RESOURCE_LOG_INTERVAL = 60.0


def redact(text: str) -> str:
    """``text`` with every session token it holds replaced by ``[redacted]``."""
    lowered = text.lower()
    if not any(hint in lowered for hint in _HINTS):
        return text
    for pattern, replacement in _TOKEN_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def _redact_record(record: logging.LogRecord) -> None:
    """Rewrite a record whose message holds a token; others are left exactly as they were."""
    try:
        message = record.getMessage()
    except Exception:  # a malformed record is the logging module's to report, not ours
        return
    cleaned = redact(message)
    if cleaned != message:
        record.msg, record.args = cleaned, None


_installed_lock = threading.Lock()
_installed = False


def install_token_redaction() -> None:
    """Make every log record of the process pass :func:`redact` (idempotent)."""
    global _installed
    with _installed_lock:
        if _installed:
            return
        previous: Callable[..., logging.LogRecord] = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            _redact_record(record)
            return record

        logging.setLogRecordFactory(factory)
        _installed = True


def _resource_failure(record: logging.LogRecord) -> bool:
    exc = record.exc_info[1] if record.exc_info else None
    if isinstance(exc, OSError) and exc.errno in RESOURCE_ERRNOS:
        return True
    try:
        return "out of system resource" in record.getMessage()
    except Exception:
        return False


class ResourceErrorThrottle(logging.Filter):
    """Let through one resource-failure record per ``interval`` seconds; count the others."""

    def __init__(
        self, interval: float = RESOURCE_LOG_INTERVAL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.interval = interval
        self.clock = clock
        self.suppressed = 0
        self._last: float | None = None
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if not _resource_failure(record):
            return True
        with self._lock:
            now = self.clock()
            if self._last is not None and now - self._last < self.interval:
                self.suppressed += 1
                return False
            self._last = now
            left_out, self.suppressed = self.suppressed, 0
        if left_out:
            record.msg = (
                f"{record.getMessage()} ({left_out} more resource errors left out of the log "
                f"since the last one; one is logged per {self.interval:g} s)"
            )
            record.args = None
        return True


#: the loggers that report accept() and per-request failures
THROTTLED_LOGGERS = ("asyncio", "uvicorn.error")


def install_resource_throttle(interval: float = RESOURCE_LOG_INTERVAL) -> None:
    """Add one :class:`ResourceErrorThrottle` to each of :data:`THROTTLED_LOGGERS` (idempotent:
    a logger that has one keeps it)."""
    for name in THROTTLED_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, ResourceErrorThrottle) for f in logger.filters):
            logger.addFilter(ResourceErrorThrottle(interval))


def install_log_safety() -> None:
    """Everything above, for a server process."""
    install_token_redaction()
    install_resource_throttle()


__all__ = [
    "RESOURCE_ERRNOS",
    "RESOURCE_LOG_INTERVAL",
    "ResourceErrorThrottle",
    "install_log_safety",
    "install_resource_throttle",
    "install_token_redaction",
    "redact",
]
