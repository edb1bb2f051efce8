"""No leaks around claim windows: a pending forced win (R19, R26) is hidden from the other
claimants until the window resolves, they keep every option, and nobody can corrupt the log
through the events it is handed."""

from __future__ import annotations

import random

from duyun.analysis import shanten
from duyun.engine import Action, ActionKind, events_for, new_round, replay
from duyun.engine.round import Phase, Round
from duyun.engine.view import copy_event
from scenario_helpers import setup_game

# seat 1 declared 報聽 on a 七對 waiting 7p (R26: it must win on it); seat 2 holds 77p
SEAT_0, SEAT_2, SEAT_3 = "123456789m2345p7p", "577p258m1369s147s", "34679m689p23589s"
FORCED: list[str | None] = [SEAT_0, "1122m3344p5566s7p", SEAT_2, SEAT_3]
# the same table, but seat 1's 報聽 hand waits on 9p: it cannot win on 7p
FREE: list[str | None] = [SEAT_0, "1122m3344p5566s9p", SEAT_2, SEAT_3]


def _table(hands: list[str | None]) -> Round:
    game = setup_game(
        hands, baoting=[False, True, False, False], discards=["", "9s", "", ""], seed=3
    )
    game.apply(Action.parse("0 discard 7p"))
    return game


def test_r26_a_pending_forced_win_is_not_shown_before_the_window_resolves() -> None:
    game = _table(FORCED)
    assert game.phase is Phase.CLAIMS
    for seat in (0, 2, 3, None):
        assert not any(e["type"] in ("claim", "win") for e in events_for(game.events, seat))
    assert not any(e["type"] == "claim" for e in game.events)


def test_r6_r26_other_claimants_keep_pong_while_a_forced_win_is_pending() -> None:
    forced = _table(FORCED)
    free = _table(FREE)
    # seat 2 is asked the same question in both positions: pong or pass
    assert forced.to_act == free.to_act == (2,)
    assert list(forced.legal_actions(2)) == list(free.legal_actions(2))
    assert Action(2, ActionKind.PONG) in forced.legal_actions(2)
    for seat in (0, 2, 3):
        mine, theirs = forced.view(seat), free.view(seat)
        assert (mine.phase, mine.to_act, mine.claim_tile, mine.legal) == (
            theirs.phase,
            theirs.to_act,
            theirs.claim_tile,
            theirs.legal,
        )
        assert events_for(forced.events, seat) == events_for(free.events, seat)


def test_r6_r26_the_forced_win_beats_the_pong_and_is_announced_at_resolution() -> None:
    game = _table(FORCED)
    events = game.apply(Action(2, ActionKind.PONG))
    kinds = [e["type"] for e in events]
    assert kinds[:3] == ["act", "claim", "win"]
    assert "pong" not in kinds
    assert game.result is not None and game.result.winners == (1,)
    assert replay(game.events).snapshot() == game.snapshot()


def test_a_claim_window_view_shows_only_the_own_question() -> None:
    game = _table(FREE)
    assert game.view(2).to_act == (2,)
    for seat in (0, 1, 3):
        view = game.view(seat)
        assert view.to_act == () and len(view.legal) == 0


def test_events_handed_out_are_copies_of_the_log() -> None:
    game = setup_game(FREE, baoting=[False, False, False, False], discards=["", "9s", "", ""])
    before = [dict(e) for e in game.events]
    returned = game.apply(Action.parse("0 discard 7p"))
    logged = game.events[len(before) :]
    assert returned == logged
    for event in returned:
        event["type"] = "edited"
        event.clear()
    for event in events_for(game.events, 0):
        for value in event.values():
            if isinstance(value, list):
                value.append("edited")
        event["seat"] = 99
    start = events_for(game.events, 2)[0]
    start["hands"][2] = "edited"
    start["discards"][1].append("edited")
    assert game.events[: len(before)] == before
    assert all(e.get("type") != "edited" and e.get("seat") != 99 for e in game.events)
    again = replay(game.events, verify=False)  # the hand goes on: an unfinished log
    assert again.events == game.events and again.snapshot() == game.snapshot()


def test_escape_returns_copies_too() -> None:
    game = setup_game(FREE)
    returned = game.escape(3)
    for event in returned:
        event.clear()
    assert game.events[-1]["type"] == "end"
    assert replay(game.events).snapshot() == game.snapshot()


def test_copies_share_no_list_or_dict_with_the_log() -> None:
    seen: set[str] = set()
    for seed in range(12):
        game = new_round(seed)
        rng = random.Random(seed)
        while not game.is_over:  # win when possible, else keep the hand close to ready
            seat = game.to_act[0]
            legal = list(game.legal_actions(seat))
            wins = [a for a in legal if a.kind is ActionKind.HU]
            discards = [a for a in legal if a.kind is ActionKind.DISCARD]
            if wins or not discards:
                game.apply(wins[0] if wins else rng.choice(legal))
                continue
            counts = game.counts[seat]

            def after(action: Action, counts: list[int] = counts) -> int:
                assert action.tile is not None
                counts[action.tile] -= 1
                value = shanten(counts)
                counts[action.tile] += 1
                return value

            game.apply(min(discards, key=after))
        for event in game.events:
            seen.add(event["type"])
            copied = copy_event(event)
            assert copied == event and copied is not event
            for key, value in event.items():
                if isinstance(value, (list, dict)):
                    assert copied[key] is not value
                if isinstance(value, list):
                    for mine, theirs in zip(copied[key], value, strict=True):
                        assert not isinstance(theirs, (list, dict)) or mine is not theirs
    assert {"start", "win", "end", "payment", "draw", "discard"} <= seen
