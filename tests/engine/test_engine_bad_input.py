"""Bad input to the engine's API gets a clear ValueError or TypeError and changes nothing.

Integers of other types that implement ``__index__`` (numpy's, as the RL environment passes
them) are accepted as the plain ints they stand for; ``bool`` is refused.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.engine import (
    Action,
    ActionKind,
    Match,
    Round,
    deal_setup,
    new_round,
)
from duyun.engine.round import Phase
from duyun.rules import DUYUN
from duyun.tiles import full_set


class Index:
    """An integer type that is not ``int`` but has ``__index__``, like ``numpy.int64``."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


BAD_SEATS: list[Any] = [-1, 4, 99, 2**70, 1.0, 0.5, "1", None, True, False, [1], (), Index(4)]
BAD_TILES: list[Any] = [-1, 27, 1.5, "5p", None, True, [3], Index(27)]
NOT_ACTIONS: list[Any] = [None, 0, "0 discard 5p", {"seat": 0, "action": "discard"}, ("0", "hu")]


def _state(game: Round) -> str:
    return json.dumps([game.snapshot(), game.events, [p.to_json() for p in game.ledger]])


def _position(seed: int, steps: int) -> Round:
    """A hand after ``steps`` random legal decisions (a turn or a claim window)."""
    rng = random.Random(seed)
    game = new_round(seed)
    for _ in range(steps):
        if game.is_over:
            break
        seat = game.to_act[0]
        game.apply(rng.choice(list(game.legal_actions(seat))))
    return game


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 60),
    bad=st.sampled_from(
        [("apply", x) for x in NOT_ACTIONS]
        + [(name, s) for name in ("escape", "view", "legal_actions") for s in BAD_SEATS]
    ),
)
def test_invalid_calls_raise_clear_errors_and_change_nothing(
    seed: int, steps: int, bad: tuple[str, Any]
) -> None:
    game = _position(seed, steps)
    before = _state(game)
    method, argument = bad
    with pytest.raises((ValueError, TypeError)) as caught:
        getattr(game, method)(argument)
    assert type(caught.value) not in (AttributeError, IndexError, KeyError)
    assert str(caught.value)  # a message naming the problem
    assert _state(game) == before


@pytest.mark.parametrize("seat", BAD_SEATS)
def test_an_action_with_a_bad_seat_cannot_be_made(seat: Any) -> None:
    with pytest.raises((ValueError, TypeError), match="seat"):
        Action(seat, ActionKind.PASS)


@pytest.mark.parametrize("tile", BAD_TILES)
def test_an_action_with_a_bad_tile_cannot_be_made(tile: Any) -> None:
    with pytest.raises((ValueError, TypeError), match="tile"):
        Action(0, ActionKind.DISCARD, tile)


@pytest.mark.parametrize("kind", ["discard", None, 3])
def test_an_action_with_a_bad_kind_cannot_be_made(kind: Any) -> None:
    with pytest.raises(TypeError, match="ActionKind"):
        Action(0, kind)


def test_index_integers_are_accepted_as_plain_ints() -> None:
    game = new_round(5)
    tile = next(t for t in range(27) if game.counts[0][t])
    action = Action(Index(0), ActionKind.DISCARD, Index(tile))  # type: ignore[arg-type]
    assert type(action.seat) is int and type(action.tile) is int
    assert action in game.legal_actions(Index(0))  # type: ignore[arg-type]
    events = game.apply(action)
    json.dumps(events)  # plain ints only: the log serialises
    assert game.view(Index(1)).seat == 1  # type: ignore[arg-type]
    game.escape(Index(2))  # type: ignore[arg-type]
    assert game.result is not None and game.result.loser == 2
    json.dumps(game.events)


def test_escape_with_a_float_seat_writes_nothing() -> None:
    game = new_round(1)
    before = _state(game)
    with pytest.raises(TypeError, match="seat"):
        game.escape(1.0)  # type: ignore[arg-type]
    assert _state(game) == before and not game.is_over


def test_view_of_an_invalid_seat_is_an_error_not_another_seats_hand() -> None:
    game = new_round(1)
    with pytest.raises(ValueError, match="out of range"):
        game.view(-1)


# ---------------------------------------------------------------- Match, new_round, deal_setup


def _finish(game: Round) -> None:
    rng = random.Random(0)
    while not game.is_over:
        game.apply(rng.choice(list(game.legal_actions(game.to_act[0]))))


def test_match_records_a_hand_once() -> None:
    match = Match(hands=2, seed=3)
    game = match.next_hand()
    _finish(game)
    match.record(game)
    totals = list(match.totals)
    with pytest.raises(ValueError, match="already recorded"):
        match.record(game)
    assert match.totals == totals and match.hands_played == 1


def test_match_refuses_an_unfinished_hand_and_another_matchs_hand() -> None:
    match, other = Match(hands=2, seed=3), Match(hands=2, seed=4)
    game = match.next_hand()
    with pytest.raises(ValueError, match="not over"):
        match.record(game)
    stranger = other.next_hand()
    _finish(stranger)
    with pytest.raises(ValueError, match="dealt last"):
        match.record(stranger)
    with pytest.raises(TypeError, match="Round"):
        match.record("hand 1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="still being played"):
        match.next_hand()
    assert match.hands_played == 0 and match.totals == [0, 0, 0, 0]


def test_match_deals_the_next_hand_only_after_recording() -> None:
    match = Match(hands=2, seed=3)
    game = match.next_hand()
    _finish(game)
    with pytest.raises(ValueError, match="record"):
        match.next_hand()


@pytest.mark.parametrize(
    "options",
    [
        {"hands": 0},
        {"hands": "3"},
        {"hands": 2.5},
        {"hands": True},
        {"stake": -1},
        {"stake": 1.5},
        {"seed": "x"},
        {"first_dealer": 4},
        {"first_dealer": -1},
        {"first_dealer": 1.0},
        {"rules": "duyun"},
        {"match_id": ""},
    ],
)
def test_bad_match_arguments(options: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError)):
        Match(**options)


@pytest.mark.parametrize(
    "options",
    [
        {"seed": "x"},
        {"seed": 1.5},
        {"dealer": 4},
        {"dealer": -1},
        {"dealer": 1.0},
        {"dealer": None},
        {"streak": -1},
        {"streak": 0.5},
        {"wall_order": "123m"},
        {"wall_order": list(range(27)) * 4 + [0]},
        {"wall_order": [*full_set()[:-1], "5p"]},
        {"wall_order": [*full_set()[:-1], 27]},
        {"wall_order": [*full_set()[:-2], 0, 0]},
    ],
)
def test_bad_new_round_and_deal_setup_arguments(options: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError)):
        deal_setup(**{k: v for k, v in options.items() if k != "rules"})
    with pytest.raises((ValueError, TypeError)):
        new_round(**options)


def test_round_needs_a_setup_and_a_ruleset() -> None:
    with pytest.raises(TypeError, match="Setup"):
        Round("seed 1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="RuleSet"):
        Round(deal_setup(1), {"base_points": 6})  # type: ignore[arg-type]
    assert Round(deal_setup(1), DUYUN).phase is Phase.TURN


def test_new_round_accepts_index_integers() -> None:
    game = new_round(Index(3), dealer=Index(2), streak=Index(1))  # type: ignore[arg-type]
    assert (game.dealer, game.streak) == (2, 1)
    json.dumps(game.events)


@pytest.mark.parametrize("seat", [-1, 4, 1.0, "0", True])
def test_events_for_an_invalid_seat_is_an_error(seat: Any) -> None:
    from duyun.engine import events_for, redact_event

    game = new_round(2)
    with pytest.raises((ValueError, TypeError), match="seat"):
        events_for(game.events, seat)
    with pytest.raises((ValueError, TypeError), match="seat"):
        redact_event(game.events[0], seat)


@pytest.mark.parametrize("text", [None, 5, ["0", "pass"], b"0 pass"])
def test_notation_parsers_refuse_non_strings(text: Any) -> None:
    from duyun.hand import Hand, Meld
    from duyun.tiles import parse_tiles, tile_from_str

    for parse in (Action.parse, Hand.parse, Meld.parse, parse_tiles, tile_from_str):
        with pytest.raises(TypeError, match="string"):
            parse(text)
