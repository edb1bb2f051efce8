"""`duyun analyze`: the JSON contract, batch mode and bad input (R2, R10, R11, R20)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from duyun.cli import analyze as analyze_module

runner = CliRunner()


def make_app() -> typer.Typer:
    """The command alone, so these tests do not depend on the other sub-commands."""
    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """test root"""

    analyze_module.register(app)
    return app


APP = make_app()


def run_json(hand: str) -> dict[str, object]:
    result = runner.invoke(APP, ["analyze", hand, "--json"])
    assert result.exit_code == 0, result.output
    obj: dict[str, object] = json.loads(result.stdout)
    return obj


def test_r20_winning_14_tile_hand_json() -> None:
    assert run_json("23445677p345789s") == {
        "hand": "23445677p345789s",
        "tiles": 14,
        "shanten": -1,
        "winning": True,
        "pattern": "平胡",
        "fan": 1,
        "discards": [],
    }


def test_r20_14_tile_hand_with_kongs_counts_them_as_three() -> None:
    obj = run_json("11m222p [333s] [4444m] (5555p)")
    assert obj["tiles"] == 14
    assert obj["hand"] == "11m222p [333s] [4444m] (5555p)"
    assert (obj["pattern"], obj["fan"]) == ("對對胡", 3)


def test_r11_14_tile_not_winning_lists_discards_best_first() -> None:
    obj = run_json("3p1112345678999m")
    assert obj["hand"] == "1112345678999m3p"
    assert obj["winning"] is False and obj["pattern"] is None and obj["fan"] is None
    discards = obj["discards"]
    assert isinstance(discards, list)
    nine = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"]
    waits = discards[0].pop("waits")
    assert discards[0] == {"discard": "3p", "shanten": 0, "useful": nine, "useful_count": 23}
    # issue 13: each discard that leaves the hand ready names its waits with their fan
    assert list(waits) == nine
    assert {won["pattern"] for won in waits.values()} == {"清一色"}
    assert all(option["waits"] == {} for option in discards if option["shanten"] > 0)


def test_r11_14_tiles_one_discard_from_ready_is_not_called_ready() -> None:
    result = runner.invoke(APP, ["analyze", "3p1112345678999m"])
    assert result.exit_code == 0
    assert "one discard from ready" in result.stdout
    assert "ready (聽牌)" not in result.stdout
    # the discards table shows the waits of the best discard and their fan
    assert "清一色" in result.stdout


def test_r11_r30_13_tile_ready_hand_json() -> None:
    obj = run_json("1122m [333p] [555s] [777s]")
    assert obj == {
        "hand": "1122m [333p] [555s] [777s]",
        "tiles": 13,
        "shanten": 0,
        "ready": True,
        "waits": ["1m", "2m"],
        "waits_fan": {
            "1m": {"pattern": "對對胡", "fan": 3},
            "2m": {"pattern": "對對胡", "fan": 3},
        },
        "max_fan": 3,
        "useful": ["1m", "2m"],
        "useful_count": 4,
    }


def test_r11_fifth_copy_wait_is_not_ready() -> None:
    obj = run_json("5m234p567p789p [555m]")
    assert obj["ready"] is False
    assert obj["waits"] == [] and obj["waits_fan"] == {} and obj["max_fan"] is None


def test_r11_waits_sorted_m_p_s() -> None:
    obj = run_json("55s11m123456789p")
    assert obj["waits"] == ["1m", "5s"]


def test_r20_human_report_mentions_pattern_and_waits() -> None:
    result = runner.invoke(APP, ["analyze", "11224444557799m"])
    assert result.exit_code == 0
    assert "青龍七對" in result.stdout and "18" in result.stdout
    result = runner.invoke(APP, ["analyze", "1112345678999m"])
    assert "清一色" in result.stdout and "大叫" in result.stdout


@pytest.mark.parametrize(
    ("hand", "named"),
    [
        ("11x", "'x' at position 2"),
        ("11m", "2 tiles"),
        ("11111m22223333p", "5 copies of 1m"),
        ("23445677p345789s [111m]", "17 tiles"),
    ],
)
def test_r2_bad_input_exits_2_naming_the_problem(hand: str, named: str) -> None:
    result = runner.invoke(APP, ["analyze", hand])
    assert result.exit_code == 2
    assert named in result.stderr
    assert "Traceback" not in result.output


def test_r2_batch_mode_one_object_per_line_and_errors_inline() -> None:
    lines = "23445677p345789s\n\n11x\n1112345678999m\n"
    result = runner.invoke(APP, ["analyze", "-"], input=lines)
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(out) == 3  # the blank line is skipped
    assert out[0]["pattern"] == "平胡"
    assert out[1]["input"] == "11x" and "'x'" in out[1]["error"]
    assert out[2]["max_fan"] == 6
    assert result.exit_code == 1  # documented: 1 when any line was bad


def test_r2_batch_mode_all_good_exits_0() -> None:
    result = runner.invoke(APP, ["analyze", "-"], input="23445677p345789s\n" * 500)
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 500


def test_r2_installed_command_exit_status_and_stderr() -> None:
    """Through the real entry point, in a fresh process."""
    code = "from duyun.cli.main import main; main()"
    bad = subprocess.run(
        [sys.executable, "-c", code, "analyze", "11m2"], capture_output=True, text=True
    )
    assert bad.returncode == 2
    assert "no suit letter" in bad.stderr
    assert "Traceback" not in bad.stderr
    good = subprocess.run(
        [sys.executable, "-c", code, "analyze", "--json", "23445677p345789s"],
        capture_output=True,
        text=True,
    )
    assert good.returncode == 0
    assert json.loads(good.stdout)["fan"] == 1
