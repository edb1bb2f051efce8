"""Self-play: many hands or matches between bots, in worker processes or on a Ray cluster.

Reproducibility is the design constraint. The work is cut into *units* (one hand, or one
match), and every random choice of a unit -- its wall and its bots' seeds -- is derived from
``(seed, unit index)`` alone. Units are computed independently and handed back in index order,
so the results are identical whatever the number of workers, local or on Ray.

Duplicate mode (``duplicate=True``) plays every unit four times with the lineup rotated one
seat further each time over the same wall(s), so each player meets the same tiles from every
seat and the luck of the deal cancels out of the comparison.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from duyun.bots import BOT_NAMES, Bot, make_bot
from duyun.engine import Match, Round, deal_setup
from duyun.rules import DUYUN, RuleSet
from duyun.sim.records import SEATS, HandRecord, summarise_events

Mode = Literal["hands", "matches"]


class SimConfigError(ValueError):
    """A self-play configuration that cannot run; the message says what to change."""


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts, stable across processes, machines and Python versions.

    (``hash()`` is salted per process, so it cannot be used for this.)
    """
    text = ":".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


@dataclass(frozen=True, slots=True)
class SimConfig:
    """What to play. ``units`` counts hands (``mode="hands"``) or matches."""

    bots: tuple[str, ...]
    units: int
    seed: int = 0
    mode: Mode = "hands"
    hands_per_match: int = 8
    duplicate: bool = False
    rules: RuleSet = field(default=DUYUN)
    keep_events: bool = False

    def __post_init__(self) -> None:
        if len(self.bots) != SEATS:
            raise SimConfigError(f"need exactly 4 bots, one per seat, got {len(self.bots)}")
        unknown = [name for name in self.bots if name not in BOT_NAMES]
        if unknown:
            raise SimConfigError(
                f"unknown bot(s) {', '.join(unknown)}; known bots: {', '.join(BOT_NAMES)}"
            )
        if self.units < 1:
            raise SimConfigError(f"need at least one {self.mode[:-1]}, got {self.units}")
        if self.mode not in ("hands", "matches"):
            raise SimConfigError(f"mode must be 'hands' or 'matches', not {self.mode!r}")
        if self.hands_per_match < 1:
            raise SimConfigError(f"a match needs at least one hand, got {self.hands_per_match}")

    @property
    def rotations(self) -> int:
        return SEATS if self.duplicate else 1

    @property
    def hands_per_unit(self) -> int:
        per_play = self.hands_per_match if self.mode == "matches" else 1
        return per_play * self.rotations


def seating(rotation: int) -> tuple[int, ...]:
    """seat_of[player] in a rotation: player p sits at seat (p + rotation) % 4."""
    return tuple((player + rotation) % SEATS for player in range(SEATS))


def _bots_for(config: SimConfig, unit: int, rotation: int) -> list[Bot]:
    """Bots by seat, each seeded from (seed, unit, rotation, player)."""
    seat_of = seating(rotation)
    by_seat: list[Bot | None] = [None] * SEATS
    for player, name in enumerate(config.bots):
        by_seat[seat_of[player]] = make_bot(
            name, derive_seed(config.seed, "bot", unit, rotation, player), config.rules
        )
    return [bot for bot in by_seat if bot is not None]


def play_round(game: Round, bots: Sequence[Bot]) -> None:
    """Drive one hand to its end: ask whichever seat must decide (claims one seat at a time)."""
    while not game.is_over:
        seat = game.to_act[0]
        game.apply(bots[seat].choose(game.view(seat)))


def _played_hands(config: SimConfig, unit: int, bots: Sequence[Bot]) -> Iterator[tuple[int, Round]]:
    """The unit's hands, each played to its end: one hand, or a match's hands in order."""
    if config.mode == "hands":
        # The dealer moves with the unit index so that, outside duplicate mode, every
        # player deals equally often (R3 does not favour a seat across many hands).
        setup = deal_setup(derive_seed(config.seed, "wall", unit), dealer=unit % SEATS)
        game = Round(setup, config.rules)
        play_round(game, bots)
        yield 0, game
        return
    match = Match(
        hands=config.hands_per_match,
        seed=derive_seed(config.seed, "match", unit),
        rules=config.rules,
    )
    for hand in range(config.hands_per_match):
        game = match.next_hand()
        play_round(game, bots)
        match.record(game)
        yield hand, game


def play_unit(config: SimConfig, unit: int) -> list[HandRecord]:
    """Every hand of one unit (all rotations), in play order."""
    records: list[HandRecord] = []
    for rotation in range(config.rotations):
        bots = _bots_for(config, unit, rotation)
        seat_of = seating(rotation)
        for hand, game in _played_hands(config, unit, bots):
            records.append(
                summarise_events(
                    game.events,
                    seat_of,
                    unit=unit,
                    rotation=rotation,
                    hand=hand,
                    keep_events=config.keep_events,
                )
            )
    return records


def play_units(config: SimConfig, start: int, stop: int) -> list[list[HandRecord]]:
    """Units ``start..stop-1``: the task a worker process or a Ray task runs."""
    return [play_unit(config, unit) for unit in range(start, stop)]


def chunk_bounds(units: int, workers: int) -> list[tuple[int, int]]:
    """Contiguous chunks: a few per worker for load balance, small enough for a live progress
    bar, large enough that the per-task overhead stays negligible."""
    size = max(1, min(200, units // max(1, workers * 8)))
    return [(start, min(units, start + size)) for start in range(0, units, size)]


def default_workers() -> int:
    return os.cpu_count() or 1


def run(
    config: SimConfig,
    *,
    workers: int | None = None,
    ray_address: str | None = None,
    use_ray: bool = False,
) -> Iterator[list[HandRecord]]:
    """Yield each unit's records in unit order.

    ``workers=1`` plays in this process; more use a local process pool; ``use_ray`` (or a
    ``ray_address``) sends the same chunks to Ray as tasks. The order of results never depends
    on which finished first.
    """
    count = default_workers() if workers is None else workers
    if count < 1:
        raise SimConfigError(f"workers must be at least 1, got {count}")
    chunks = chunk_bounds(config.units, count)
    if use_ray or ray_address is not None:
        yield from _run_ray(config, chunks, ray_address)
        return
    if count == 1:
        for start, stop in chunks:
            yield from play_units(config, start, stop)
        return
    with ProcessPoolExecutor(max_workers=count) as pool:
        futures = [pool.submit(play_units, config, start, stop) for start, stop in chunks]
        for future in futures:
            yield from future.result()


def _run_ray(
    config: SimConfig, chunks: list[tuple[int, int]], address: str | None
) -> Iterator[list[HandRecord]]:
    """The same chunks as Ray tasks. Connects to ``address`` (or starts a local Ray) unless
    Ray is already initialised, e.g. by a test or a notebook."""
    try:
        import ray
    except ImportError as error:  # pragma: no cover - ray is in the sim extra
        raise SimConfigError("--ray needs the 'ray' package: pip install 'duyun[sim]'") from error
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    remote_play: Any = ray.remote(play_units)
    config_ref = ray.put(config)
    refs = [remote_play.remote(config_ref, start, stop) for start, stop in chunks]
    for ref in refs:
        yield from ray.get(ref)
