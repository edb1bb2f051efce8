"""Input parsing of the terminal game: every short form maps onto exactly one legal action."""

from __future__ import annotations

from typing import Any

import pytest

from duyun.engine import Action, Round, SeatView, parse_scenario
from duyun.tiles import tile_from_str
from duyun.tui.commands import HandLayout, HelpRequested, InputError, parse_command

# Seat 0 (dealer) holds 14 tiles with a concealed kong of 1m; seat 1 holds three 5p, so after
# "0 discard 5p" it may pong, kong or pass.
KONG_HANDS = [
    "1111m234p567s78s5p9p",
    "555p222m345m678p9s",
    "456m789m12346p66s",
    "333s444s789m123p5s",
]
# Seat 0 is ready after discarding 5p (waits 6s, 9s): 報聽 5p is legal (R25).
BAOTING_HANDS = [
    "111m234p567s78s99p5p",
    "555p222m345m678p9s",
    "456m789m12346p66s",
    "333s444s789m123p5s",
]
# Seat 0 holds a complete hand: 胡 (天胡) is legal.
WIN_HANDS = ["111m234p567s789s99p", "555p222m345m678p9s", "456m789m12346p66s", "333s444s789m123p5s"]


def make_round(hands: list[str]) -> Round:
    data: dict[str, Any] = {"hands": hands, "wall": "", "fill": True, "seed": 1, "actions": []}
    scenario = parse_scenario(data)
    return Round(scenario.setup, scenario.rules)


def turn_view(hands: list[str]) -> SeatView:
    return make_round(hands).view(0)


def claim_view() -> SeatView:
    game = make_round(KONG_HANDS)
    game.apply(Action.parse("0 discard 5p"))
    return game.view(1)


def act(text: str) -> Action:
    return Action.parse(text)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("5p", "0 discard 5p"),
        ("  5P ", "0 discard 5p"),
        ("d 9p", "0 discard 9p"),
        ("discard 2p", "0 discard 2p"),
        ("1", "0 discard 1m"),
        ("5", "0 discard 2p"),
        ("d 14", "0 discard 8s"),
        ("k", "0 concealed_kong 1m"),
        ("kong 1m", "0 concealed_kong 1m"),
        ("槓", "0 concealed_kong 1m"),
        ("0 discard 7s", "0 discard 7s"),
        ("五筒", "0 discard 5p"),
        ("d 一萬", "0 discard 1m"),
    ],
)
def test_turn_forms(typed: str, expected: str) -> None:
    assert parse_command(typed, turn_view(KONG_HANDS)) == act(expected)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("p", "1 pong"),
        ("pong", "1 pong"),
        ("碰", "1 pong"),
        ("k", "1 kong"),
        ("g", "1 pass"),
        ("pass", "1 pass"),
        ("過", "1 pass"),
        ("1 pass", "1 pass"),
    ],
)
def test_claim_forms(typed: str, expected: str) -> None:
    assert parse_command(typed, claim_view()) == act(expected)


def test_baoting_by_tile_and_position() -> None:
    view = turn_view(BAOTING_HANDS)
    assert parse_command("b 5p", view) == act("0 baoting 5p")
    position = HandLayout.of(view).tiles.index(tile_from_str("5p")) + 1
    assert parse_command(f"b {position}", view) == act("0 baoting 5p")
    assert parse_command("報聽 5p", view) == act("0 baoting 5p")


def test_hu() -> None:
    view = turn_view(WIN_HANDS)
    assert parse_command("h", view) == act("0 hu")
    assert parse_command("胡", view) == act("0 hu")


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "type an action"),
        ("zz", "neither a tile"),
        ("0", "position 0 is not in your hand"),
        ("15", "position 15 is not in your hand"),
        ("1p", "you hold no 1p"),
        ("p", "you cannot pong now"),
        ("h", "you cannot hu now"),
        ("g", "you cannot pass now"),
        ("b 5p", "you cannot declare 報聽 now"),
        ("k 2p", "you cannot kong with 2p; possible: 槓 kong"),
        ("b", "報聽 needs the discard"),
        ("d", "discard what?"),
        ("p 5p", "takes no tile"),
        ("d 5p 6p", "too many words"),
        ("foo bar", "unknown command"),
        ("1 discard 5p", "you play seat 0"),
        ("0 discard 1p", "is not possible now"),
        ("0 fly", "unknown verb"),
    ],
)
def test_errors_say_what_is_possible(typed: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_command(typed, turn_view(KONG_HANDS))


def test_error_lists_the_legal_actions() -> None:
    with pytest.raises(InputError) as error:
        parse_command("5p", claim_view())
    assert "[p] 碰 pong" in str(error.value)
    assert "[g] 過 pass" in str(error.value)


def test_help() -> None:
    for typed in ("?", "help"):
        with pytest.raises(HelpRequested):
            parse_command(typed, claim_view())


def test_layout_puts_the_drawn_tile_last() -> None:
    game = make_round(KONG_HANDS)
    game.apply(act("0 discard 9p"))  # nobody can claim 9p: seat 1 draws
    assert game.to_act == (1,)
    view = game.view(1)
    assert view.drawn_tile is not None
    layout = HandLayout.of(view)
    assert layout.drawn == view.drawn_tile
    assert layout.tiles[-1] == view.drawn_tile
    assert sorted(layout.tiles) == sorted(view.hand)
    assert list(layout.tiles[:-1]) == sorted(layout.tiles[:-1])
    assert parse_command(str(len(view.hand)), view).tile == view.drawn_tile
