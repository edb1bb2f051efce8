"""The bot measurement tools in benchmarks/ (issue 11): paired comparison and calibration.

They print numbers rather than assert them, but what they print must mean what the docs say:
a bot compared with itself differs by nothing, and recording the strong bot's beliefs does
not change a single decision.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from duyun.bots import make_bot
from duyun.engine import Round, deal_setup
from duyun.rules import DUYUN
from duyun.sim.runner import play_round

ROOT = Path(__file__).resolve().parents[2]


def load_tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_a_bot_paired_with_itself_differs_on_no_wall() -> None:
    result = run_tool(
        "benchmarks/paired_bots.py", "strong", "strong", "--walls", "3", "--workers", "1"
    )
    assert result.returncode == 0, result.stderr
    assert "difference +0.000 ± 0.000 per hand (0 walls played differently)" in result.stdout


def test_paired_bots_names_an_unknown_bot() -> None:
    result = run_tool("benchmarks/paired_bots.py", "strongest", "--walls", "3")
    assert result.returncode != 0
    assert "unknown bot 'strongest'" in result.stderr
    assert "Traceback" not in result.stderr


def test_recording_the_strong_bots_beliefs_changes_no_decision() -> None:
    tool = load_tool("calibrate_strong")
    for unit in range(3):
        logs = []
        for recording in (False, True):
            bots = [make_bot("efficient", 10 * unit + seat) for seat in range(4)]
            bots[0] = tool.RecordingStrongBot(7) if recording else make_bot("strong", 7)
            game = Round(deal_setup(5_000 + unit, dealer=unit % 4), DUYUN)
            play_round(game, bots)
            logs.append(game.events)
            if recording:
                turns = bots[0].turns
                assert turns, "the recording bot noted no discard"
                assert all(len(turn.feeds) == 3 for turn in turns)
                assert all(0.0 <= chance <= 1.0 for t in turns for _, _, _, chance in t.feeds)
        assert logs[0] == logs[1]


def test_calibration_prints_both_tables() -> None:
    result = run_tool("benchmarks/calibrate_strong.py", "8", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "feeding: per opponent" in result.stdout
    assert "hazard: another player wins before the next turn" in result.stdout


def test_oracle_search_samples_the_real_hands_with_only_the_wall_shuffled() -> None:
    """benchmarks/oracle_search.py's ceiling (issue 35) is only a ceiling if its samples are
    the real hand: every other seat's tiles as they are, the live wall's tiles in some order."""
    load_tool("paired_bots")  # imported by the tool as a sibling script
    tool = load_tool("oracle_search")
    game = Round(deal_setup(35_002, dealer=0), DUYUN)
    bots = [make_bot("efficient", seat) for seat in range(4)]
    while game.wall_remaining > 40:  # well into the hand, melds and rivers in place
        seat = game.to_act[0]
        game.apply(bots[seat].choose(game.view(seat)))
    seat = game.to_act[0]
    view = game.view(seat)
    real_wall = list(game.wall[game.front : game.back])
    oracle = tool.OracleHandsSearch(3)
    oracle.game = game
    orders = set()
    for _ in range(4):
        world = oracle.sample_world(view, DUYUN, None)
        assert world.counts == game.counts
        assert world.melds == game.melds
        live = list(world.wall[world.front : world.back])
        assert sorted(live) == sorted(real_wall)
        orders.add(tuple(live))
        assert world.view(seat) == view
    assert len(orders) > 1, "the wall was never shuffled"
    assert list(game.wall[game.front : game.back]) == real_wall, "the real hand was changed"
