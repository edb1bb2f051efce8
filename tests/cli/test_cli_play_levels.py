"""`duyun play --bots` takes the difficulty levels the game offers (issue 11) as well as bot
names: easy/normal/hard/expert/master are random/efficient/heuristic/strong/search."""

from __future__ import annotations

import pytest
import typer

from duyun.bots import BOT_NAMES, DIFFICULTIES, DIFFICULTY_LEVELS
from duyun.cli.play import _parse_bots, level_names


def test_one_level_seats_three_bots_of_it() -> None:
    assert _parse_bots("expert", BOT_NAMES, DIFFICULTIES) == ("strong", "strong", "strong")
    assert _parse_bots("master", BOT_NAMES, DIFFICULTIES) == ("search", "search", "search")


def test_levels_and_names_mix_per_seat() -> None:
    parsed = _parse_bots("Easy, hard ,strong", BOT_NAMES, DIFFICULTIES)
    assert parsed == ("random", "heuristic", "strong")


def test_every_level_names_a_known_bot_in_increasing_strength() -> None:
    assert [level.bot for level in DIFFICULTY_LEVELS] == list(BOT_NAMES)
    for level in DIFFICULTY_LEVELS:
        assert _parse_bots(level.key, BOT_NAMES, DIFFICULTIES)[0] == level.bot


def test_an_unknown_level_is_one_line_naming_bots_and_levels(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(typer.Exit) as stopped:
        _parse_bots("grandmaster", BOT_NAMES, DIFFICULTIES)
    assert stopped.value.exit_code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "grandmaster" in error
    assert "heuristic" in error and "expert" in error


def test_the_chinese_level_names_the_help_lists_are_taken() -> None:
    """The lobby's names (簡單 .. 大師) work at the terminal too, as `--help` promises."""
    levels = level_names(DIFFICULTY_LEVELS)
    assert _parse_bots("大師", BOT_NAMES, levels) == ("search", "search", "search")
    assert _parse_bots("簡單,高手,master", BOT_NAMES, levels) == ("random", "strong", "search")
    for level in DIFFICULTY_LEVELS:
        assert level.label_zh in play_help(), level.label_zh


def play_help() -> str:
    from typer.testing import CliRunner

    from duyun.cli.main import app

    result = CliRunner().invoke(app, ["play", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output
