"""Per-address abuse limits (issue 20 item 13): account and table creation, table-code lookups.

Each limit is a sliding window of one minute per client address, kept in this process's memory
(several processes on one database each keep their own; docs/deploy.md). A refusal carries the
seconds until the oldest counted request leaves the window, which the REST layer answers as
``429`` with ``Retry-After`` and the websocket as ``error`` ``rate_limited``.

The REST routes and the websocket ``join``/``spectate`` share one :class:`Limits` object (the
app's), so probing codes through either path counts against the same budget.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from duyun.server.config import ServerConfig

#: the window every per-minute limit counts in
WINDOW = 60.0
#: addresses remembered before idle ones are swept (bounds the memory a flood of addresses takes)
SWEEP_AT = 4096


class LimitExceeded(Exception):
    """A request over a limit: ``what`` names the limit, ``retry_after`` the seconds to wait."""

    def __init__(self, what: str, limit: int, retry_after: float) -> None:
        self.what, self.limit, self.retry_after = what, limit, retry_after
        seconds = max(1, int(retry_after + 0.999))
        super().__init__(
            f"too many {what} from your address (at most {limit} a minute); "
            f"try again in {seconds} s"
        )

    @property
    def retry_seconds(self) -> int:
        """Whole seconds for a ``Retry-After`` header (at least 1)."""
        return max(1, int(self.retry_after + 0.999))


@dataclass
class SlidingWindow:
    """At most ``limit`` events per ``window`` seconds per key; ``limit`` 0 means no limit."""

    what: str
    limit: int
    window: float = WINDOW
    clock: Callable[[], float] = time.monotonic
    _seen: dict[str, deque[float]] = field(default_factory=dict, repr=False)

    def hit(self, key: str | None) -> float | None:
        """Count one event for ``key``; :class:`LimitExceeded` (and nothing counted) if the
        window is full. Refused events are not counted, so waiting always works. Returns the
        time counted (None when there is no limit), which :meth:`take_back` takes."""
        if self.limit <= 0:
            return None
        key = key or "unknown"
        now = self.clock()
        times = self._seen.get(key)
        if times is None:
            if len(self._seen) >= SWEEP_AT:
                self._sweep(now)
            times = self._seen[key] = deque()
        while times and times[0] <= now - self.window:
            times.popleft()
        if len(times) >= self.limit:
            raise LimitExceeded(self.what, self.limit, times[0] + self.window - now)
        times.append(now)
        return now

    def take_back(self, key: str | None, counted: float | None) -> None:
        """Forget an event :meth:`hit` counted at ``counted`` (if still in the window)."""
        times = self._seen.get(key or "unknown")
        if counted is not None and times is not None and counted in times:
            times.remove(counted)

    @contextlib.contextmanager
    def attempt(self, key: str | None) -> Iterator[None]:
        """Count one event for ``key`` for a request that the block may still refuse: if the
        block raises, the event is taken back (docs/protocol.md "REST and account limits": a
        refused request is not counted). It is counted before the block, not after it, so that
        requests running at the same time cannot all pass a full window."""
        counted = self.hit(key)
        try:
            yield
        except BaseException:
            self.take_back(key, counted)
            raise

    def _sweep(self, now: float) -> None:
        for key in [k for k, t in self._seen.items() if not t or t[-1] <= now - self.window]:
            del self._seen[key]

    def __len__(self) -> int:
        return len(self._seen)


class Limits:
    """The server's per-address limits, built from :class:`ServerConfig`."""

    def __init__(self, config: ServerConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.guests = SlidingWindow("guest accounts", config.guests_per_minute, clock=clock)
        self.registrations = SlidingWindow(
            "registrations", config.registrations_per_minute, clock=clock
        )
        self.tables = SlidingWindow("tables created", config.tables_per_minute, clock=clock)
        self.code_lookups = SlidingWindow(
            "table-code lookups", config.code_lookups_per_minute, clock=clock
        )
        self.renames = SlidingWindow("name changes", config.renames_per_minute, clock=clock)


__all__ = ["WINDOW", "LimitExceeded", "Limits", "SlidingWindow"]
