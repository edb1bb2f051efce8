"""Scenarios: set up any situation from notation and play it out (README: "Scenarios").

The JSON input (a fixed contract)::

    {"dealer": 0, "streak": 0, "rules": {"option": value},
     "hands": ["<seat 0 notation with melds>", "...", "...", "..."],
     "discards": ["", "", "", ""], "baoting": [false, false, false, false],
     "turn": 0, "drawn": false,
     "wall": "<next draws in order, front first>", "wall_back": "<kong replacements in order>",
     "fill": true, "seed": 1,
     "actions": ["0 discard 5p", "1 pong", "1 discard 3m", "2 hu"]}

Only ``hands``, ``wall`` and ``actions`` are required. With ``fill`` the tiles in no hand,
meld, discard or listed wall complete the wall after ``wall``, shuffled by ``seed``; without
it the wall is exactly ``wall`` + ``wall_back``. Draws and forced moves happen by themselves;
a claim that is not listed is a pass, window after window, until the next listed action is
legal (also windows opened by a forced move, such as a 報聽 player's automatic discard).
``"SEAT quit"`` is an escape (R45, R57) and, in a 血戰 room
(``"rules": {"bloody_battle": true}``), ``"SEAT leave"`` a winner leaving the table (R57).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from duyun.engine.actions import Action, ActionKind, EngineError, IllegalActionError, SetupError
from duyun.engine.explain import why_illegal
from duyun.engine.ledger import net_points
from duyun.engine.round import Phase, Round, Setup
from duyun.hand import Hand
from duyun.rules import RuleSet
from duyun.tiles import COPIES, NUM_KINDS, NotationError, Tile, parse_tiles, tile_to_str

SEATS = 4
_KNOWN_KEYS = frozenset(
    {
        "dealer",
        "streak",
        "rules",
        "hands",
        "discards",
        "baoting",
        "turn",
        "drawn",
        "wall",
        "wall_back",
        "fill",
        "seed",
        "actions",
    }
)


class ScenarioError(EngineError):
    """A scenario that cannot be set up or played; the message names the field or action."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """A parsed scenario: the starting position, the rules and the scripted actions."""

    setup: Setup
    rules: RuleSet
    actions: tuple[str, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Scenario:
        return parse_scenario(data)


def _field(data: Mapping[str, Any], key: str, kind: type, default: Any) -> Any:
    value = data.get(key, default)
    if kind is int and (type(value) is not int):
        raise ScenarioError(f"'{key}' must be an integer, got {value!r}")
    if kind is bool and type(value) is not bool:
        raise ScenarioError(f"'{key}' must be true or false, got {value!r}")
    if kind is str and not isinstance(value, str):
        raise ScenarioError(f"'{key}' must be a string, got {value!r}")
    return value


def _four(data: Mapping[str, Any], key: str, item: type, default: list[Any]) -> list[Any]:
    value = data.get(key, default)
    if not isinstance(value, list) or len(value) != SEATS:
        raise ScenarioError(f"'{key}' must be a list of 4 entries, one per seat")
    for index, entry in enumerate(value):
        if type(entry) is not item:
            raise ScenarioError(f"'{key}'[{index}] must be a {item.__name__}, got {entry!r}")
    return value


def parse_scenario(data: Mapping[str, Any]) -> Scenario:
    """Validate and build a scenario, naming the first field that is wrong."""
    if not isinstance(data, Mapping):
        raise ScenarioError("a scenario is a JSON object")
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise ScenarioError(f"unknown field(s) {', '.join(unknown)}")
    for key in ("hands", "wall", "actions"):
        if key not in data:
            raise ScenarioError(f"missing required field '{key}'")
    dealer = _field(data, "dealer", int, 0)
    if not 0 <= dealer < SEATS:
        raise ScenarioError(f"'dealer' must be 0..3, got {dealer}")
    streak = _field(data, "streak", int, 0)
    if streak < 0:
        raise ScenarioError(f"'streak' must not be negative, got {streak}")
    turn = _field(data, "turn", int, dealer)
    if not 0 <= turn < SEATS:
        raise ScenarioError(f"'turn' must be 0..3, got {turn}")
    drawn = _field(data, "drawn", bool, False)
    fill = _field(data, "fill", bool, True)
    seed = _field(data, "seed", int, 1)
    rules_data = data.get("rules", {})
    if not isinstance(rules_data, Mapping):
        raise ScenarioError("'rules' must be an object of rule options")
    try:
        rules = RuleSet.from_mapping(rules_data)
    except ValueError as error:
        raise ScenarioError(f"'rules': {error}") from None

    hand_texts = _four(data, "hands", str, [])
    hands: list[Hand] = []
    for seat, text in enumerate(hand_texts):
        try:
            hands.append(Hand.parse(text))
        except NotationError as error:
            raise ScenarioError(f"hands[{seat}]: {error}") from None
    discard_texts = _four(data, "discards", str, ["", "", "", ""])
    discards: list[tuple[Tile, ...]] = []
    for seat, text in enumerate(discard_texts):
        try:
            discards.append(tuple(parse_tiles(text)))
        except NotationError as error:
            raise ScenarioError(f"discards[{seat}]: {error}") from None
    baoting = _four(data, "baoting", bool, [False] * SEATS)
    try:
        wall = parse_tiles(_field(data, "wall", str, ""))
    except NotationError as error:
        raise ScenarioError(f"wall: {error}") from None
    try:
        wall_back = parse_tiles(_field(data, "wall_back", str, ""))
    except NotationError as error:
        raise ScenarioError(f"wall_back: {error}") from None
    actions = data["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise ScenarioError("'actions' must be a list of strings such as \"0 discard 5p\"")

    used = [0] * NUM_KINDS
    for hand in hands:
        for tile, count in enumerate(hand.all_counts()):
            used[tile] += count
    for tile in [t for river in discards for t in river] + wall + wall_back:
        used[tile] += 1
    for tile, count in enumerate(used):
        if count > COPIES:
            raise ScenarioError(
                f"{count} copies of {tile_to_str(tile)} in hands, discards and wall: "
                "there are only 4 (R1)"
            )
    middle: list[Tile] = []
    if fill:
        middle = [t for t in range(NUM_KINDS) for _ in range(COPIES - used[t])]
        random.Random(seed).shuffle(middle)
    setup = Setup(
        hands=tuple(hands),
        wall=tuple(wall + middle + wall_back[::-1]),
        dealer=dealer,
        streak=streak,
        discards=tuple(discards),
        baoting=tuple(baoting),
        turn=turn,
        drawn=drawn,
        seed=seed if fill else None,
    )
    return Scenario(setup, rules, tuple(actions))


def _pass_until_legal(game: Round, action: Action) -> str | None:
    """An unlisted claim is a pass: answer PASS for the seats still asked, window by window,
    until ``action`` is legal or no claim window is open. The windows passed include those
    opened by a forced move after the one open when the action was reached (a 報聽 player's
    automatic discard, R26). Returns why the action was illegal when it was reached, if it was,
    so that an action that never becomes legal is explained as the author saw it."""
    first_reason: str | None = None
    while game.phase is Phase.CLAIMS and action not in game.legal_actions(action.seat):
        if first_reason is None:
            first_reason = why_illegal(game, action)
        game.apply(Action(game.to_act[0], ActionKind.PASS))
    return first_reason


def _pass_pending(game: Round) -> None:
    """At the end of the script every claim left is a pass, window after window."""
    while game.phase is Phase.CLAIMS and game.to_act:
        game.apply(Action(game.to_act[0], ActionKind.PASS))


def run_scenario(scenario: Scenario) -> Round:
    """Play the scripted actions; an illegal action stops the run with a ScenarioError."""
    try:
        game = Round(scenario.setup, scenario.rules)
    except (SetupError, ValueError) as error:
        raise ScenarioError(f"cannot set up the scenario: {error}") from None
    for number, text in enumerate(scenario.actions, start=1):
        try:
            action_text = text.strip()
            parts = action_text.split()
            if len(parts) >= 2 and parts[1] in ("quit", "leave"):
                if len(parts) != 2 or parts[0] not in ("0", "1", "2", "3"):
                    raise ScenarioError(f"action {number} {text!r}: expected 'SEAT {parts[1]}'")
                if parts[1] == "quit":
                    game.escape(int(parts[0]))
                else:
                    game.leave(int(parts[0]))
                continue
            action = Action.parse(action_text)
        except NotationError as error:
            raise ScenarioError(f"action {number}: {error}") from None
        except IllegalActionError as error:
            raise ScenarioError(f"action {number} {text!r} is illegal: {error}") from None
        if game.is_over:
            raise ScenarioError(f"action {number} {text!r}: the hand is already over")
        reached = _pass_until_legal(game, action)
        try:
            game.apply(action)
        except IllegalActionError as error:
            when = f" (when it was reached, before unlisted claims were passed: {reached})"
            raise ScenarioError(
                f"action {number} {text!r} is illegal: {error}{when if reached else ''}"
            ) from None
    _pass_pending(game)
    return game


def scenario_result(game: Round) -> dict[str, Any]:
    """The ``--json`` output of ``duyun scenario`` (a fixed contract)."""
    if game.result is None:
        result, winners = "in_progress", []
    else:
        result, winners = game.result.result, list(game.result.winners)
    return {
        "result": result,
        "winners": winners,
        "payments": [row.to_json() for row in game.ledger],
        "totals": net_points(game.ledger),
        "events": list(game.events),
    }
