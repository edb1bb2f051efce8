"""Issue 13 point 8: ``duyun simulate`` tables fit 100 columns without cutting a name, and the
per-player columns are filled for every event that has an actor (R18, R19/R26, R21, R28)."""

from __future__ import annotations

import io

from rich.console import Console

from duyun.cli.simulate import _events_table, _patterns_table, _players_table
from duyun.sim import RULE_EVENTS, SimConfig, Summary, play_unit

ACTOR_EVENTS = ("win", "self_draw", "discard_win", "rob_kong", "gang_shang_hua")
ACTOR_EVENTS += ("gang_shang_pao", "auto_win", "multi_win", "baoting")


def summary_of(hands: int) -> Summary:
    lineup = ("efficient", "efficient", "efficient", "random")
    config = SimConfig(bots=lineup, units=hands, seed=5, mode="hands")
    summary = Summary.empty(lineup, keep_points=False)
    for unit in range(hands):
        summary.add_unit(play_unit(config, unit))
    return summary


def test_per_player_columns_add_up_for_events_with_an_actor() -> None:
    summary = summary_of(120)
    assert summary.rule_events["win"] > 0 and summary.rule_events["auto_win"] > 0
    for key in ACTOR_EVENTS:
        per_player = sum(stats.events.get(key, 0) for stats in summary.players)
        total = summary.rule_events.get(key, 0)
        if key == "win":  # the total counts hands with a win; players count their wins
            assert per_player >= total
        else:
            assert per_player == total, key


def test_tables_fit_100_columns_with_every_name_whole() -> None:
    summary = summary_of(20)
    for table in (_players_table(summary), _patterns_table(summary), _events_table(summary)):
        console = Console(record=True, width=100, file=io.StringIO(), color_system=None)
        console.print(table)
        text = console.export_text()
        assert all(len(line) <= 100 for line in text.splitlines())
        assert "…" not in text  # nothing cut
    console = Console(record=True, width=100, file=io.StringIO(), color_system=None)
    console.print(_players_table(summary))
    players = console.export_text()
    for stats in summary.players:
        assert stats.label in players
    labels = [label for _, label in RULE_EVENTS]
    console = Console(record=True, width=100, file=io.StringIO(), color_system=None)
    console.print(_events_table(summary))
    events = console.export_text()
    assert all(label in events for label in labels)
