"""牌譜解析 on the server (issue 36 item 4): 大師's reviews, computed once and never at the
tables' expense.

A review plays every option of every decision of a hand out in 48 sampled deals: seconds of
CPU per hand (docs/simulate.md). Run on the event loop, one review would stall every table of
the process for that long; run on a thread, it would still hold the interpreter's lock most of
the time. So reviews run in a small pool of worker **processes** (config ``review_workers``)
that lower their own CPU priority (``os.nice``): when the tables need the cores, the kernel
gives them the cores, and a review only takes what is left.

The work is bounded three ways, so that a crowd asking for reviews cannot take the server:

- a process accepts at most ``review_queue`` reviews at once (queued and running); more are
  refused with ``review_busy`` and a time to come back, never queued without end;
- an account may start at most ``reviews_per_hour`` new reviews an hour (reading a stored
  review, or asking again for one already under way, costs nothing);
- a review is computed once per (hand, seat) and stored (:class:`~duyun.server.store.Store`
  ``save_review``); asking for it again while it runs joins the same computation.

A hand is reviewed one decision at a time (:meth:`duyun.review.HandPlan.review`): each decision
is one job of the pool, so the page can show how far the review has come, and the parts put
together are exactly the review ``duyun review`` prints for the same log, samples and seed
(:func:`duyun.review.hand_review_json`). The hand's log is pickled once per review, and every
job carries those bytes, which cost the server a copy, not a walk through a hundred dicts; a
worker unpickles and replays the hand (with the strong bot's advice at each decision) once,
for the first of its decisions it is given, and keeps the result for the next ones
(:data:`PLANS_KEPT` hands).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import multiprocessing
import os
import pickle
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from duyun.review import HandPlan, ReviewError, decision_events, hand_review_json
from duyun.server.config import ServerConfig
from duyun.server.limits import LimitExceeded, SlidingWindow
from duyun.server.metrics import Metrics
from duyun.server.store import Store, StoredReview

log = logging.getLogger("duyun.server.reviews")

#: the seed of every server review: the stored review is what ``duyun review --seed 0`` prints
REVIEW_SEED = 0
#: how much nicer than the server the review workers run (0..19; 19 is the lowest priority)
WORKER_NICENESS = 10
#: seconds a refused review (``review_busy``) is told to wait: a review takes 5-15 s of a worker
BUSY_RETRY = 30.0
#: the window of ``reviews_per_hour``
HOUR = 3600.0
#: how long a failed review's reason is kept for the page that polls it
FAILURE_KEPT = 300.0
#: at most this many failures remembered (the oldest go first)
MAX_FAILURES = 256
#: hands a worker keeps replayed: the reviews a pool of a few workers runs side by side
PLANS_KEPT = 8


class ReviewRefused(Exception):
    """A review not started: ``code`` ``review_busy`` (the process's queue is full) or
    ``rate_limited`` (the account's hourly budget is spent); ``retry_after`` in seconds."""

    def __init__(self, code: str, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.code, self.message, self.retry_after = code, message, retry_after


@dataclass
class ReviewJob:
    """A review being computed: how many of its decisions are done."""

    hand_id: int
    seat: int
    total: int
    order: int  #: when it was accepted, among this process's reviews
    done: int = 0
    #: its decisions, one job of the pool each
    parts: list[Future[Any]] = field(default_factory=list, repr=False)
    task: asyncio.Task[StoredReview | None] | None = field(default=None, repr=False)

    @property
    def running(self) -> bool:
        """A worker has taken one of its decisions (before that it waits for the pool)."""
        return self.done > 0 or any(part.running() for part in self.parts)


def _lower_priority() -> None:
    """The workers' initializer: the tables come first on the CPU."""
    # where it is not allowed the pool still works, at the server's priority
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)


#: a worker's replayed hands, the most recently used last: (log digest, seat, seed) -> plan
_plans: OrderedDict[tuple[bytes, int, int], HandPlan] = OrderedDict()


def _plan(digest: bytes, log: bytes, seat: int, seed: int) -> HandPlan:
    """The hand replayed for ``seat``'s review, from this worker's cache when one of the
    review's decisions came here before."""
    key = (digest, seat, seed)
    plan = _plans.get(key)
    if plan is None:
        plan = HandPlan(pickle.loads(log), seat, seed=seed)
        _plans[key] = plan
        while len(_plans) > PLANS_KEPT:
            _plans.popitem(last=False)
    _plans.move_to_end(key)
    return plan


def review_part(
    digest: bytes, log: bytes, seat: int, samples: int, seed: int, event: int
) -> tuple[list[dict[str, Any]], int, float]:
    """One decision of a review, in a worker process: its JSON form (empty when the seat had a
    single option there), the seat's points in the hand, and the CPU seconds it took. ``log``
    is the hand's events pickled by the server (which made them: never data from outside),
    ``digest`` names it in the worker's cache."""
    started = time.process_time()
    plan = _plan(digest, log, seat, seed)
    decision = plan.review(event, samples)
    decisions = [] if decision is None else [decision.to_json()]
    return decisions, plan.points, time.process_time() - started


StoreCall = Callable[..., Awaitable[Any]]


class Reviewer:
    """This process's review pool and the reviews under way (module docstring)."""

    def __init__(
        self,
        config: ServerConfig,
        store: Store,
        store_call: StoreCall,
        metrics: Metrics,
        executor: Executor | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self._store = store
        self._store_call = store_call
        self._metrics = metrics
        self._executor = executor
        self._own_executor = executor is None
        self._clock = clock
        self._budget = SlidingWindow("reviews", config.reviews_per_hour, window=HOUR, clock=clock)
        self.jobs: dict[tuple[int, int], ReviewJob] = {}
        #: failed reviews' reasons, for the page polling them: (hand, seat) -> (when, reason)
        self.failures: dict[tuple[int, int], tuple[float, str]] = {}
        self._accepted = 0

    @property
    def enabled(self) -> bool:
        return self.config.review_workers > 0

    @property
    def pending(self) -> int:
        """Reviews accepted and not finished (queued and running)."""
        return len(self.jobs)

    def progress(self, hand_id: int, seat: int) -> dict[str, Any] | None:
        """Where the review of (hand, seat) stands, if this process is computing it or it
        failed lately: the ``status`` of docs/protocol.md "Reviews"."""
        job = self.jobs.get((hand_id, seat))
        if job is not None:
            ahead = sum(1 for other in self.jobs.values() if other.order < job.order)
            return {
                "status": "running" if job.running else "queued",
                "done": job.done,
                "total": job.total,
                "ahead": ahead,
            }
        failure = self.failures.get((hand_id, seat))
        if failure is not None and self._clock() - failure[0] < FAILURE_KEPT:
            return {"status": "failed", "reason": failure[1]}
        return None

    def start(
        self, account_id: int, hand_id: int, seat: int, events: list[dict[str, Any]]
    ) -> ReviewJob:
        """Accept the review of ``seat`` in the finished hand ``hand_id`` (whose log is
        ``events``), or join the one under way; :class:`ReviewRefused` when the process is
        full or the account has used its hour's budget."""
        running = self.jobs.get((hand_id, seat))
        if running is not None:
            return running
        if len(self.jobs) >= self.config.review_queue:
            self._metrics.reviews.labels("busy").inc()
            raise ReviewRefused(
                "review_busy",
                "大師 is reviewing as many hands as this server allows; try again in half a minute",
                BUSY_RETRY,
            )
        try:
            self._budget.hit(str(account_id))
        except LimitExceeded as error:  # the account's hour is spent
            self._metrics.reviews.labels("rate_limited").inc()
            retry = error.retry_after
            raise ReviewRefused(
                "rate_limited",
                f"at most {self.config.reviews_per_hour} new reviews an hour; try again in "
                f"{max(1, int(retry + 0.999))} s",
                retry,
            ) from None
        self.failures.pop((hand_id, seat), None)
        self._accepted += 1
        parts = decision_events(events, seat)
        job = ReviewJob(hand_id, seat, total=len(parts), order=self._accepted)
        self.jobs[(hand_id, seat)] = job
        job.task = asyncio.create_task(self._run(job, events, parts))
        return job

    async def _run(
        self, job: ReviewJob, events: list[dict[str, Any]], parts: list[int]
    ) -> StoredReview | None:
        key = (job.hand_id, job.seat)
        samples = self.config.review_samples
        try:
            executor = self._pool()
            blob = pickle.dumps(events, protocol=pickle.HIGHEST_PROTOCOL)
            digest = hashlib.blake2b(blob, digest_size=16).digest()
            job.parts = [
                executor.submit(review_part, digest, blob, job.seat, samples, REVIEW_SEED, event)
                for event in parts
            ]
            futures = [asyncio.wrap_future(part) for part in job.parts]
            decisions: list[dict[str, Any]] = []
            points = _points(events, job.seat)
            cpu = 0.0
            try:
                for future in asyncio.as_completed(futures):
                    found, points, seconds = await future
                    decisions.extend(found)
                    cpu += seconds
                    job.done += 1
            finally:  # a failed or cancelled review takes no more of the workers' time
                for future in futures:
                    future.cancel()
                await asyncio.gather(*futures, return_exceptions=True)
            review = hand_review_json(job.seat, samples, REVIEW_SEED, points, decisions)
            stored: StoredReview = await self._store_call(
                self._store.save_review, job.hand_id, job.seat, samples, REVIEW_SEED, review, cpu
            )
            self._metrics.reviews.labels("done").inc()
            self._metrics.review_cpu.inc(cpu)
            return stored
        except ReviewError as error:
            self._fail(key, f"this hand cannot be reviewed: {error}")
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the review of hand %d seat %d failed", job.hand_id, job.seat)
            self._fail(key, "the review failed on the server; try again")
        finally:
            self.jobs.pop(key, None)
        return None

    def _fail(self, key: tuple[int, int], reason: str) -> None:
        self._metrics.reviews.labels("failed").inc()
        if len(self.failures) >= MAX_FAILURES:
            del self.failures[next(iter(self.failures))]
        self.failures[key] = (self._clock(), reason)

    def _pool(self) -> Executor:
        """The worker processes, started at the first review (a server nobody asks for a
        review never starts them). ``spawn``: a fork would copy the server's threads' locks."""
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self.config.review_workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_lower_priority,
            )
        return self._executor

    async def close(self) -> None:
        """Stop the reviews under way (they are not stored; a page asks again) and the pool."""
        for job in list(self.jobs.values()):
            if job.task is not None:
                job.task.cancel()
        if self._executor is not None and self._own_executor:
            executor, self._executor = self._executor, None
            await asyncio.to_thread(executor.shutdown, True, cancel_futures=True)


def _points(events: list[dict[str, Any]], seat: int) -> int:
    """The seat's points in the hand from its ``end`` event (a review with no decision at all
    still reports them)."""
    for event in reversed(events):
        if event.get("type") == "end":
            totals = event.get("totals") or [0, 0, 0, 0]
            try:
                return int(totals[seat])
            except (IndexError, TypeError, ValueError):
                return 0
    return 0


__all__ = ["REVIEW_SEED", "ReviewJob", "ReviewRefused", "Reviewer", "review_part"]
