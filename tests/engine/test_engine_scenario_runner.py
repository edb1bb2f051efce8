"""The scenario runner passes unlisted claims window by window until the listed action is legal,
also windows opened by a forced move (a 報聽 seat's automatic discard, R26) after the one open
when the action was reached (issue 23 item 4).

The property: the decisions of any self-played hand, written as a scenario author writes them
(only the acts of non-pass decisions), replay from the same starting position to the same end.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.engine import ActionKind, Round, Scenario, Setup, deal_setup, run_scenario
from duyun.engine.scenario import ScenarioError, parse_scenario
from duyun.hand import Hand
from duyun.rules import RuleSet
from duyun.tiles import NUM_KINDS, full_set
from scenario_helpers import play

# seat 0 discards 8m, which seat 3 may pong (an unlisted claim: passed); seat 1, 報聽 on 5p,
# draws 8s and must discard it (R26), which seat 2 may pong (unlisted too); seat 2 then draws
# 1p and discards it
FORCED_WINDOW = {
    "hands": ["189m2468p1345679s", "123456789m1235p", "2356m3679p22788s", "44788m1478p2369s"],
    "discards": ["", "9p", "", ""],
    "baoting": [False, True, False, False],
    "wall": "8s1p",
}


def test_r26_a_forced_discards_window_is_passed_when_the_next_action_comes() -> None:
    game, result = play(
        FORCED_WINDOW["hands"],  # type: ignore[arg-type]
        ["0 discard 8m", "2 discard 1p"],
        FORCED_WINDOW["wall"],  # type: ignore[arg-type]
        discards=FORCED_WINDOW["discards"],
        baoting=FORCED_WINDOW["baoting"],
    )
    discards = [
        (e["seat"], e["tile"], e["auto"]) for e in result["events"] if e["type"] == "discard"
    ]
    assert discards == [(0, "8m", False), (1, "8s", True), (2, "1p", False)]
    passes = [e["seat"] for e in result["events"] if e.get("action") == "pass"]
    assert passes == [3, 2]  # seat 3 on 8m, then seat 2 on 8s
    assert game.current == 3 and result["result"] == "in_progress"  # seat 3 drew next


def test_r26_the_seat_asked_in_the_forced_window_may_still_claim_in_it() -> None:
    """A claim in the later window is listed as such, and answers it."""
    _, result = play(
        FORCED_WINDOW["hands"],  # type: ignore[arg-type]
        ["0 discard 8m", "2 pong", "2 discard 2m"],
        FORCED_WINDOW["wall"],  # type: ignore[arg-type]
        discards=FORCED_WINDOW["discards"],
        baoting=FORCED_WINDOW["baoting"],
    )
    pongs = [(e["seat"], e["tile"], e["from"]) for e in result["events"] if e["type"] == "pong"]
    assert pongs == [(2, "8s", 1)]


def test_an_action_never_legal_is_explained_as_it_was_when_reached() -> None:
    data = {**FORCED_WINDOW, "actions": ["0 discard 8m", "3 kong"]}
    try:
        run_scenario(parse_scenario(data))
    except ScenarioError as error:
        message = str(error)
    else:  # pragma: no cover - the kong is never legal
        raise AssertionError("3 kong was accepted")
    assert "action 2 '3 kong' is illegal" in message
    assert "when it was reached" in message and "may only answer pong, pass on 8m" in message


def _ready_hand(pool: list[int], rng: random.Random) -> list[int] | None:
    """13 tiles from ``pool`` one tile short of four sets and a pair (ready, R10, R11)."""
    counts = [pool.count(tile) for tile in range(NUM_KINDS)]
    tiles: list[int] = []
    for _ in range(200):
        if len(tiles) == 12:
            break
        start = rng.randrange(NUM_KINDS)
        if rng.random() < 0.7 and start % 9 <= 6:
            group = [start, start + 1, start + 2]
        else:
            group = [start] * 3
        if all(counts[t] >= group.count(t) for t in group):
            for tile in group:
                counts[tile] -= 1
            tiles += group
    pairs = [t for t in range(NUM_KINDS) if counts[t] >= 2]
    if len(tiles) != 12 or not pairs:
        return None
    tiles += [rng.choice(pairs)] * 2
    tiles.remove(rng.choice(tiles))
    for tile in tiles:
        pool.remove(tile)
    return tiles


def _starting_position(seed: int) -> Setup:
    """A fresh deal, or (odd seeds) a position where some seats have declared 報聽 (R25), so
    that their forced discards (R26) and the claim windows these open are common."""
    if seed % 2 == 0:
        return deal_setup(seed)
    rng = random.Random(seed)
    pool = full_set()
    rng.shuffle(pool)
    baoting = [False] + [rng.random() < 0.6 for _ in range(3)]
    hands: list[Hand] = []
    for seat in range(4):
        ready = _ready_hand(pool, rng) if baoting[seat] else None
        baoting[seat] = ready is not None
        tiles = ready if ready is not None else [pool.pop() for _ in range(14 if seat == 0 else 13)]
        hands.append(Hand(tuple(tiles)))
    discards = tuple((pool.pop(),) for _ in range(4))
    return Setup(tuple(hands), tuple(pool), discards=discards, baoting=tuple(baoting))


def _self_play(seed: int, rules: RuleSet) -> tuple[Round, list[str]]:
    """A hand of uniformly random legal decisions, and its script as an author writes it."""
    rng = random.Random(seed)
    game = Round(_starting_position(seed), rules)
    decisions: list[tuple[int, ActionKind, str]] = []
    while not game.is_over:
        seat = game.to_act[0]
        legal = game.legal_actions(seat)
        action = legal[rng.randrange(len(legal))]
        decisions.append((action.seat, action.kind, str(action)))
        game.apply(action)
    return game, _script(decisions)


def _script(decisions: list[tuple[int, ActionKind, str]]) -> list[str]:
    """The non-pass decisions, and the passes an author must list: those of a seat whose next
    listed decision is a claim (pong, kong or hu) -- without them that claim would be legal,
    and taken, in the window the seat passed."""
    claims = (ActionKind.PONG, ActionKind.KONG, ActionKind.HU)
    script: list[str] = []
    for index, (seat, kind, text) in enumerate(decisions):
        if kind is not ActionKind.PASS:
            script.append(text)
            continue
        following = next((d for d in decisions[index + 1 :] if d[1] is not ActionKind.PASS), None)
        if following is not None and following[0] == seat and following[1] in claims:
            script.append(text)
    return script


def _without_answers(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log without claim answers, whose order among the seats asked is the driver's."""
    return [e for e in events if not (e["type"] == "act" and e["action"] == "pass")]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**40), bloody=st.booleans())
def test_a_self_played_hand_replays_as_a_scenario_of_its_decisions(seed: int, bloody: bool) -> None:
    rules = RuleSet(bloody_battle=bloody)
    played, script = _self_play(seed, rules)
    replayed = run_scenario(Scenario(_starting_position(seed), rules, tuple(script)))
    assert replayed.snapshot() == played.snapshot()
    assert _without_answers(replayed.events) == _without_answers(played.events)


def test_forced_windows_occur_in_the_replayed_hands() -> None:
    """The property above meets the case it is about: a 報聽 seat's automatic discard opens a
    claim window right after another window was passed, with no decision between."""
    found = 0
    for seed in range(1, 200, 2):
        played, _ = _self_play(seed, RuleSet())
        acts = [(i, e) for i, e in enumerate(played.events) if e["type"] == "act"]
        for (start, first), (end, second) in itertools.pairwise(acts):
            forced = [e for e in played.events[start + 1 : end] if e["type"] == "discard"]
            if first["action"] == "pass" and second["action"] == "pass" and forced:
                found += forced[0]["auto"]
    assert found > 0
