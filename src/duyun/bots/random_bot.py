"""The random bot: a uniformly random legal action (the baseline and the engine's fuzzer)."""

from __future__ import annotations

import random

from duyun.engine.actions import Action
from duyun.engine.view import SeatView


class RandomBot:
    """Picks uniformly among ``view.legal``; its own ``random.Random`` makes it replayable."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: SeatView) -> Action:
        return self._rng.choice(view.legal)
