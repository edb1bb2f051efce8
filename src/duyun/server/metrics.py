"""What an operator watches (issue 24 item 4): ``GET /metrics`` in the Prometheus text format,
and log records as one JSON object per line (``duyun serve --log-format json``).

Each app has its own registry, so several apps in one interpreter (the tests) never share
counts; what a scrape must see at that moment (tables, connections) is read from the live
objects when it is scraped, not kept up to date on every change.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

#: seconds; a decision's server time and a store call are both expected well under 100 ms
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class _Live(Collector):
    """Gauges read from the process at scrape time."""

    def __init__(self, read: Callable[[], dict[str, Any]]) -> None:
        self._read = read

    def collect(self) -> Iterator[GaugeMetricFamily]:
        now = self._read()
        tables = GaugeMetricFamily(
            "duyun_tables", "Tables this process holds, by status", labels=["status"]
        )
        for status, count in sorted(now.get("tables", {}).items()):
            tables.add_metric([status], count)
        yield tables
        yield GaugeMetricFamily(
            "duyun_connections",
            "Authenticated websocket connections",
            value=now.get("connections", 0),
        )
        yield GaugeMetricFamily(
            "duyun_players_seated",
            "Human players seated at this process's tables",
            value=now.get("seated", 0),
        )
        yield GaugeMetricFamily(
            "duyun_tables_stalled",
            "Tables in play that nothing will move on (no timer, no message queued or being "
            "handled): always 0; the log names each one found",
            value=now.get("stalled", 0),
        )
        yield GaugeMetricFamily(
            "duyun_reviews_pending",
            "Reviews accepted and not finished (queued and running); at most review_queue",
            value=now.get("reviews_pending", 0),
        )
        yield GaugeMetricFamily(
            "duyun_draining",
            "1 while this process takes no new tables",
            value=now.get("draining", 0),
        )

    def describe(self) -> Iterable[GaugeMetricFamily]:
        return []


class Metrics:
    """The counters and histograms of one server process."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        # process_open_fds / process_max_fds (and CPU, memory): descriptors running out show
        # here before accept() fails for everyone (docs/deploy.md, "Connection limits and the
        # log"); on uvloop, should an operator install it, that failure is never logged
        ProcessCollector(registry=self.registry)
        self.decisions = Counter(
            "duyun_decisions",
            "Players' decisions (act messages) a table has handled; rate() is decisions/second",
            registry=self.registry,
        )
        self.decision_seconds = Histogram(
            "duyun_decision_seconds",
            "Server side of a decision's round trip: from the table taking the act off its queue "
            "to the events batch that carries it being sent (its store write included)",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.store_seconds = Histogram(
            "duyun_store_seconds",
            "Store calls of the tables (kind=moves: the event writer's batches; leases: the "
            "renewals of this process's leases and its heartbeat; other: the rest)",
            ["kind"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.event_batches = Counter(
            "duyun_event_batches",
            "Transactions of the event writer (group commit): each stores the moves of one or "
            "more tables",
            registry=self.registry,
        )
        self.event_appends = Counter(
            "duyun_event_appends",
            "Tables' moves stored by the event writer (divided by duyun_event_batches: the "
            "moves per commit)",
            registry=self.registry,
        )
        self.commit_wait = Counter(
            "duyun_commit_wait_seconds",
            "Seconds the event writer's batches were held by commit_wait for more moves to "
            "share their commit (each move waits at most commit_wait; 0 when it is off)",
            registry=self.registry,
        )
        self.errors = Counter(
            "duyun_errors",
            "Error messages sent to clients, by code, and unexpected exceptions (code=internal)",
            ["code"],
            registry=self.registry,
        )
        self.redirects = Counter(
            "duyun_redirects",
            "Clients told that their table lives on another process",
            registry=self.registry,
        )
        self.late_thoughts = Counter(
            "duyun_late_thoughts",
            "Search bots' (大師) turn moves not ready when their think time ended, so played "
            "late: the search stops before then, so a count that grows means a starved CPU",
            registry=self.registry,
        )

        self.reviews = Counter(
            "duyun_reviews",
            "大師's reviews (牌譜解析) by outcome: done (stored), failed, and refused because the "
            "process's queue was full (busy) or the account's hourly budget was spent "
            "(rate_limited)",
            ["outcome"],
            registry=self.registry,
        )
        self.review_cpu = Counter(
            "duyun_review_cpu_seconds",
            "CPU seconds the review workers spent on stored reviews (at a lower priority than "
            "the tables)",
            registry=self.registry,
        )

    def watch(self, read: Callable[[], dict[str, Any]]) -> None:
        """Publish the live gauges that ``read`` returns at every scrape."""
        self.registry.register(_Live(read))

    def decision(self, started: float) -> None:
        self.decisions.inc()
        self.decision_seconds.observe(time.monotonic() - started)

    def store_call(self, kind: str, started: float) -> None:
        self.store_seconds.labels(kind).observe(time.monotonic() - started)

    def event_batch(self, appends: int, held: float) -> None:
        self.event_batches.inc()
        self.event_appends.inc(appends)
        if held:
            self.commit_wait.inc(held)

    def error(self, code: str) -> None:
        self.errors.labels(code).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)


#: LogRecord attributes that are not extra fields given by the caller
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, message, the process
    owner, an exception's traceback as ``exc``, and any ``extra=`` fields. Log shippers read it
    without a parsing rule; the message has passed the token redaction like any other."""

    def __init__(self, owner: str | None = None) -> None:
        super().__init__()
        self.owner = owner

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if self.owner:
            data["owner"] = self.owner
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                data[key] = value
        return json.dumps(data, ensure_ascii=False, default=str)


def use_json_logs(owner: str | None = None) -> None:
    """Route every logger (uvicorn's too) through one JSON handler on stderr."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter(owner))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True


__all__ = ["CONTENT_TYPE", "JsonFormatter", "Metrics", "use_json_logs"]
