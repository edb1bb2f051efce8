"""``duyun scenario`` and ``duyun replay`` as a user runs them (R3-R45 through the CLI)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from duyun.cli.main import app
from duyun.engine import dump_events, new_round

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


def test_r21_r28_scenario_json_contract_for_gang_shang_pao() -> None:
    result = runner.invoke(app, ["scenario", str(EXAMPLES / "gang-shang-pao.json"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"result", "winners", "payments", "totals", "events"}
    assert data["result"] == "win" and sorted(data["winners"]) == [1, 3]
    assert data["totals"] == [-102, 66, -12, 48]
    assert set(data["payments"][0]) == {"payer", "payee", "fan", "points", "rule", "reason"}
    assert data["events"][0]["type"] == "start"


def test_r21_scenario_for_people_prints_events_and_settlement() -> None:
    result = runner.invoke(app, ["scenario", str(EXAMPLES / "baoting-discard.json")])
    assert result.exit_code == 0, result.output
    assert "discards 9p (automatic" in result.stdout
    assert "Settlement" in result.stdout and "54" in result.stdout


def test_scenario_illegal_action_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps(
            {
                "hands": [
                    "123456789m12345p",
                    "111222444s3355p",
                    "13579m2468p3579s",
                    "2468m1379p3578s9s",
                ],
                "wall": "",
                "actions": ["0 discard 9s"],
            }
        )
    )
    result = runner.invoke(app, ["scenario", str(path)])
    assert result.exit_code == 2
    assert "action 1 '0 discard 9s' is illegal" in result.stderr
    assert "holds no 9s" in result.stderr


def test_scenario_bad_json_and_missing_fields(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    result = runner.invoke(app, ["scenario", str(path)])
    assert result.exit_code == 2 and "not valid JSON" in result.stderr
    path.write_text(json.dumps({"hands": ["1m", "", "", ""], "actions": []}))
    result = runner.invoke(app, ["scenario", str(path)])
    assert result.exit_code == 2 and "missing required field 'wall'" in result.stderr
    result = runner.invoke(app, ["scenario", str(tmp_path / "nope.json")])
    assert result.exit_code == 2 and "cannot read" in result.stderr


def _random_log(tmp_path: Path, seed: int, hands: int = 1) -> tuple[Path, list]:
    games = []
    path = tmp_path / "hand.jsonl"
    with path.open("w", encoding="utf-8") as stream:
        for index in range(hands):
            rng = random.Random(seed + index)
            game = new_round(seed + index)
            while not game.is_over:
                seat = game.to_act[0]
                game.apply(rng.choice(list(game.legal_actions(seat))))
            dump_events(game.events, stream)
            games.append(game)
    return path, games


def test_replay_shows_a_hand_step_by_step(tmp_path: Path) -> None:
    path, _ = _random_log(tmp_path, 3)
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "Hand starts" in result.stdout and "Hands at the end" in result.stdout
    assert "Hand ends" in result.stdout


def test_replay_json_prints_the_final_state_of_each_hand(tmp_path: Path) -> None:
    path, games = _random_log(tmp_path, 8, hands=2)
    result = runner.invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 2
    for line, game in zip(lines, games, strict=True):
        assert line["hands"] == game.snapshot()["hands"]
        assert line["result"] == game.snapshot()["result"]
    single = runner.invoke(app, ["replay", str(path), "--json", "--hand", "2"])
    assert json.loads(single.stdout)["ledger"] == games[1].snapshot()["ledger"]


def test_replay_detects_a_tampered_log(tmp_path: Path) -> None:
    path, _ = _random_log(tmp_path, 5)
    events = [json.loads(line) for line in path.read_text().splitlines()]
    draw = next(e for e in events if e["type"] == "draw")
    draw["tile"] = "9s" if draw["tile"] != "9s" else "1m"
    path.write_text("\n".join(json.dumps(e, ensure_ascii=False) for e in events))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2
    assert "differs on replay" in result.stderr


def test_replay_rejects_garbage_with_the_line_number(tmp_path: Path) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_text('{"type": "start", "version": 1}\nnot json\n')
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2 and "line 2" in result.stderr
    path.write_text('{"type": "start", "version": 99}\n')
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2 and "version 99" in result.stderr


def test_replay_step_shows_every_seats_hand_after_each_decision(tmp_path: Path) -> None:
    path, games = _random_log(tmp_path, 4, hands=2)
    result = runner.invoke(app, ["replay", str(path), "--step"])
    assert result.exit_code == 0, result.output
    decisions = sum(1 for game in games for e in game.events if e["type"] == "act")
    assert result.stdout.count("after step ") == decisions + 2  # + each hand's deal
    assert result.stdout.count("Settlement") == 2


def test_replay_step_stops_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    import duyun.cli.replay as replay_cli

    path, _ = _random_log(tmp_path, 6)
    events = [json.loads(line) for line in path.read_text().splitlines()]
    answers = iter(["", "q"])
    monkeypatch.setattr(replay_cli.typer, "prompt", lambda *a, **k: next(answers))
    console = Console(record=True, width=100)
    with pytest.raises(typer.Exit):
        replay_cli._step_through(console, events, pause=True)
    assert console.export_text().count("after step ") == 2
