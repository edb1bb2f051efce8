"""Self-play at scale: bots against bots, locally in worker processes or on Ray.

>>> from duyun.sim import SimConfig, Summary, run
>>> config = SimConfig(bots=("efficient", "random", "random", "random"), units=4)
>>> summary = Summary.empty(config.bots)
>>> for records in run(config, workers=1):
...     summary.add_unit(records)
>>> summary.hands
4
"""

from duyun.sim.records import RULE_EVENTS, HandRecord, summarise_events
from duyun.sim.runner import (
    SimConfig,
    SimConfigError,
    chunk_bounds,
    default_workers,
    derive_seed,
    play_round,
    play_unit,
    run,
    seating,
)
from duyun.sim.stats import PlayerStats, Summary

__all__ = [
    "RULE_EVENTS",
    "HandRecord",
    "PlayerStats",
    "SimConfig",
    "SimConfigError",
    "Summary",
    "chunk_bounds",
    "default_workers",
    "derive_seed",
    "play_round",
    "play_unit",
    "run",
    "seating",
    "summarise_events",
]
