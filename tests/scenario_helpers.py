"""Helpers for rule scenarios: set up a table from notation and play it out."""

from __future__ import annotations

import random
from typing import Any

from duyun.analysis import shanten
from duyun.engine import Round, parse_scenario, run_scenario, scenario_result
from duyun.hand import Hand
from duyun.tiles import format_tiles, parse_tiles


def _filler(pool: list[int], rng: random.Random) -> str:
    """13 tiles from ``pool`` far from ready (shanten >= 2), so the seat stays out of the way."""
    for _ in range(1000):
        picked = rng.sample(pool, 13)
        counts = [0] * 27
        for tile in picked:
            counts[tile] += 1
        if shanten(counts) >= 2 and max(counts) <= 1:
            for tile in picked:
                pool.remove(tile)
            return format_tiles(picked)
    raise AssertionError("no filler hand found")


def scenario_data(
    hands: list[str | None], actions: list[str], wall: str = "", **options: Any
) -> dict[str, Any]:
    """Scenario JSON with ``None`` hands replaced by far-from-ready fillers of unused tiles."""
    used = [0] * 27
    for text in hands:
        if text is not None:
            for tile, count in enumerate(Hand.parse(text).all_counts()):
                used[tile] += count
    extra = wall + options.get("wall_back", "") + "".join(options.get("discards", []))
    for tile in parse_tiles(extra):
        used[tile] += 1
    pool = [t for t in range(27) for _ in range(4 - used[t])]
    rng = random.Random(1)
    filled = [text if text is not None else _filler(pool, rng) for text in hands]
    return {"hands": filled, "wall": wall, "actions": actions, **options}


def setup_game(hands: list[str | None], wall: str = "", **options: Any) -> Round:
    """The hand as set up, before any scripted action (its first seat is asked to act)."""
    scenario = parse_scenario(scenario_data(hands, [], wall, **options))
    return Round(scenario.setup, scenario.rules)


def play(
    hands: list[str | None],
    actions: list[str],
    wall: str = "",
    **options: Any,
) -> tuple[Round, dict[str, Any]]:
    """Run a scenario; ``None`` hands become far-from-ready fillers from the unused tiles.

    Returns the finished (or paused) hand and the ``duyun scenario --json`` result. Claims
    left unanswered at the end are passed (the scenario rule), so the hand may have moved on.
    """
    game = run_scenario(parse_scenario(scenario_data(hands, actions, wall, **options)))
    return game, scenario_result(game)


def payments(result: dict[str, Any]) -> list[tuple[int, int, int, str]]:
    """(payer, payee, points, rule) of every ledger row, in order."""
    return [(p["payer"], p["payee"], p["points"], p["rule"]) for p in result["payments"]]
