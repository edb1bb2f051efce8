"""血戰 rooms (R52-R57) through the commands: ``duyun scenario``, ``duyun replay``,
``duyun simulate --rules bloody_battle`` / ``--bloody-battle``, the self-play records and the
terminal game's rendering."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from duyun.cli.main import app
from duyun.engine import Action, run_scenario
from duyun.engine.scenario import parse_scenario
from duyun.rules import RuleSet
from duyun.sim.records import summarise_events
from duyun.sim.runner import SimConfig, play_unit
from duyun.tui.render import TableInfo, render_seats, render_settlement
from scenario_helpers import setup_game

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bloody-battle.json"
runner = CliRunner()


def test_r53_scenario_json_takes_the_bloody_battle_rule() -> None:
    result = runner.invoke(app, ["scenario", str(EXAMPLE), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["result"] == "win" and data["winners"] == [0, 2, 1]
    assert data["totals"] == [18, -18, 12, -12]
    assert data["events"][0]["rules"]["bloody_battle"] is True


def test_r53_replay_shows_each_win_as_it_happens(tmp_path: Path) -> None:
    game = run_scenario(parse_scenario(json.loads(EXAMPLE.read_text("utf-8"))))
    log = tmp_path / "bloody.jsonl"
    log.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in game.events))
    result = runner.invoke(app, ["replay", str(log)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    first, second, third = (out.index(f"seat {s} wins by") for s in (0, 2, 1))
    assert first < out.index("seat 1 discards 5m") < second < third
    assert "seat 0 has won and leaves the table (R57)" in out
    assert "Winners in order: 0, 2, 1" in out


def _simulate(*args: str) -> dict[str, object]:
    result = runner.invoke(
        app,
        ["simulate", "--hands", "6", "--workers", "1", "--no-progress", "--json", *args],
    )
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_simulate_rules_option_and_bloody_battle_flag_play_bloody_rooms() -> None:
    by_rules = _simulate("--rules", "bloody_battle")
    by_flag = _simulate("--bloody-battle")
    normal = _simulate()
    config = by_rules["config"]
    assert isinstance(config, dict) and config["rules"]["bloody_battle"] is True
    assert by_rules["players"] == by_flag["players"]
    assert by_rules["players"] != normal["players"]
    per_hand = by_rules["winners_per_hand"]
    assert isinstance(per_hand, dict) and sum(per_hand.values()) == 6
    assert max(map(int, per_hand)) >= 2  # several winners in some hand (R53)
    assert set(normal["winners_per_hand"]) <= {"0", "1", "2", "3"}  # type: ignore[arg-type]


def test_simulate_bad_rules_exit_2_with_a_message() -> None:
    for args, message in (
        (["--rules", "bloody"], "unknown rule option"),
        (["--rules", "base_points=six"], "integer"),
        (["--rules", "flower_pig"], "flower_pig"),
    ):
        result = runner.invoke(app, ["simulate", "--no-progress", "--hands", "1", *args])
        assert result.exit_code == 2, args
        assert message in result.stderr


def test_records_list_every_feeder_and_no_false_multiple_win() -> None:
    game = setup_game(
        ["111m333m777s999p5p", "5p2468m13579s4679p", "11p22p33s44s66m88m5p", None],
        turn=1,
        rules={"bloody_battle": True},
    )
    for text in ("1 discard 5p", "2 hu", "0 hu"):
        game.apply(Action.parse(text))
    game.escape(3)
    record = summarise_events(
        game.events, (0, 1, 2, 3), unit=0, rotation=0, hand=0, keep_events=False
    )
    assert record.winners == (2, 0) and record.feeders == (1,)
    assert record.rule_events.get("multi_win") == 1  # one discard, two winners (R18)
    three = run_scenario(parse_scenario(json.loads(EXAMPLE.read_text("utf-8"))))
    record = summarise_events(
        three.events, (0, 1, 2, 3), unit=0, rotation=0, hand=0, keep_events=False
    )
    assert record.feeders == (1, 3) and "multi_win" not in record.rule_events
    assert record.rule_events["self_draw"] == 1 and record.rule_events["rob_kong"] == 1


def test_bloody_self_play_matches_keep_streak_zero_and_zero_sum() -> None:
    config = SimConfig(
        bots=("strong", "efficient", "efficient", "random"),
        units=1,
        mode="matches",
        hands_per_match=4,
        rules=RuleSet(bloody_battle=True),
    )
    records = play_unit(config, 0)
    assert len(records) == 4
    assert all(sum(record.points) == 0 for record in records)


def test_terminal_shows_a_winners_open_hand_and_every_win() -> None:
    game = run_scenario(parse_scenario(json.loads(EXAMPLE.read_text("utf-8"))))
    info = TableInfo(
        names=("You", "a", "b", "c"),
        human=0,
        hand_number=1,
        hands_total=1,
        match_points=(0, 0, 0, 0),
        stake=1,
        chinese=False,
    )
    console = Console(width=120, record=True, color_system=None)
    console.print(render_seats(game.view(3), info))
    rows = {
        line.split()[1]: line for line in console.export_text().splitlines()[1:] if line.strip()
    }
    assert "胡 1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5p 5p" in rows["0"]  # R53: laid open
    assert "胡" not in rows["3"]  # still in the hand: concealed
    assert "4s 4s 4s +5m" in rows["2"]  # and the discard it won on
    assert game.result is not None
    console = Console(width=160, record=True, color_system=None)
    console.print(render_settlement(game.result, info))
    text = console.export_text()
    assert text.index("You won by") < text.index("b 2 won by") < text.index("a 1 won by")
