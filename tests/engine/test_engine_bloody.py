"""血戰到底 rooms (R52-R57), hand-worked: winners leave play and the others play on.

Every figure below is worked out by hand from docs/rules.md: base 6 points per fan (R40), streak 0
(R55), so the dealer bonus (R36) adds nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from duyun.engine import (
    Action,
    IllegalActionError,
    Match,
    Phase,
    ScenarioError,
    SetupError,
    WinKind,
    events_for,
    replay,
)
from duyun.engine.round import Round, Win, deal_setup
from duyun.rules import RuleSet
from duyun.tiles import parse_tiles, tile_from_str
from scenario_helpers import payments, play, setup_game

BLOODY = {"bloody_battle": True}


def _check_whole(game: Round) -> None:
    """R1, R41 and the log: what every 血戰 hand keeps."""
    assert game.result is not None
    assert sum(game.result.totals) == 0
    again = replay(game.events)
    assert again.snapshot() == game.snapshot() and again.events == game.events


# ---------------------------------------------------------------- R53: three wins of each kind

THREE_WINS_HANDS: list[str | None] = [
    "123456789m123p5p",  # seat 0 (dealer) waits on 5p
    "234p567p234s66s8s5m",  # seat 1: draws 7s, lets 5m go, then waits on 6s / 9s
    "111s444s777p222m5m",  # seat 2: 對對胡 on 5m
    "1369m189p358s [999s]",  # seat 3: a pong of 9s, adds the fourth
]


def test_r53_self_draw_then_discard_then_rob_kong_three_wins_end_the_hand() -> None:
    game, result = play(
        THREE_WINS_HANDS,
        ["0 hu", "1 discard 5m", "2 hu", "3 added_kong 9s", "1 hu"],
        wall="5p7s9s",
        turn=0,
        rules=BLOODY,
    )
    wins = [
        (e["seat"], e["how"], e["from"], e["pattern"]) for e in game.events if e["type"] == "win"
    ]
    assert wins == [
        (0, "self_draw", None, "平胡"),
        (2, "discard", 1, "對對胡"),
        (1, "rob_kong", 3, "平胡"),
    ]
    # R54: each win is paid at once, only by the players still in the hand
    assert payments(result) == [
        (1, 0, 6, "R29"),
        (2, 0, 6, "R29"),
        (3, 0, 6, "R29"),
        (1, 2, 18, "R28"),
        (3, 1, 6, "R29"),  # 搶槓: the kong player alone pays (R13, R29)
    ]
    assert result["result"] == "win" and result["winners"] == [0, 2, 1]
    assert result["totals"] == [18, -18, 12, -12]
    # R13: the robbed kong did not happen; its tile is the third win's
    assert [m.kind.value for m in game.melds[3]] == ["pong"]
    assert game.tile_total() == 108  # R1: the robbed tile is the last win's, off the table
    assert game.result is not None
    assert game.result.wins == (
        Win((0,), WinKind.SELF_DRAW, None),
        Win((2,), WinKind.DISCARD, 1),
        Win((1,), WinKind.ROB_KONG, 3),
    )
    # R55: the first winner deals next, streak 0
    assert (game.result.next_dealer, game.result.next_streak) == (0, 0)
    end = game.events[-1]
    assert end["type"] == "end" and end["wins"][1] == {"seats": [2], "how": "discard", "from": 1}
    _check_whole(game)


def test_r53_after_a_win_the_winner_is_skipped_and_never_asked() -> None:
    game = setup_game(THREE_WINS_HANDS, wall="5p7s9s", turn=0, rules=BLOODY)
    game.apply(Action.parse("0 hu"))
    assert game.won == [True, False, False, False] and not game.is_over
    assert game.to_act == (1,) and game.current == 1  # the next seat after the winner draws
    assert not game.in_hand(0) and game.in_hand(1)
    assert not game.legal_actions(0)
    game.apply(Action.parse("1 discard 5m"))
    # seat 0 waits on nothing now; it is not asked even about a tile it could pong
    assert game.claims is not None and 0 not in game.claims.options
    game.apply(Action.parse("2 hu"))
    assert game.current == 3  # after seat 2, the next seat still in the hand
    view = game.view(3)
    assert view.won == (True, False, True, False) and view.in_hand == (1, 3)
    assert view.opponents() == (1,)


def test_r53_a_winners_laid_open_hand_is_public_in_views_and_events() -> None:
    game = setup_game(THREE_WINS_HANDS, wall="5p7s9s", turn=0, rules=BLOODY)
    game.apply(Action.parse("0 hu"))
    for seat in range(4):
        view = game.view(seat)
        assert view.open_hands[0] == tuple(parse_tiles("123456789m1235p5p"))
        assert view.win_tiles[0] == tile_from_str("5p")
        assert all(view.open_hands[s] == () for s in (1, 2, 3))  # still concealed
        win = [e for e in events_for(game.events, seat) if e["type"] == "win"]
        assert win[0]["hand"] == "123456789m12355p"
    # the laid-open tiles count as seen (a bot's live-tile counts, R11 dead waits)
    assert game.view(1).visible_counts()[tile_from_str("5p")] >= 2


def test_r53_a_discard_win_keeps_the_tiles_counted() -> None:
    game = setup_game(THREE_WINS_HANDS, wall="5p7s9s", turn=0, rules=BLOODY)
    for text in ("0 hu", "1 discard 5m", "2 hu"):
        assert game.tile_total() == 108
        game.apply(Action.parse(text))
    assert game.tile_total() == 108 and game.off_table == [tile_from_str("5m")]
    assert game.view(3).off_table == (tile_from_str("5m"),)


# ---------------------------------------------------------------- R18 + R53: 一炮多響 first

MULTI_HANDS: list[str | None] = [
    "111m333m777s999p5p",  # seat 0 (dealer): 對對胡 on 5p
    "5p2468m13579s4679p",  # seat 1 (14 tiles) lets 5p go
    "11p22p33s44s66m88m5p",  # seat 2: 七對 on 5p
    None,
]


def test_r18_r53_multiple_first_win_both_leave_play_then_an_escape_r55_r57() -> None:
    game, result = play(
        MULTI_HANDS, ["1 discard 5p", "2 hu", "0 hu", "3 quit"], turn=1, rules=BLOODY
    )
    assert [e["seat"] for e in game.events if e["type"] == "win"] == [2, 0]
    # after a 一炮多響, play goes on after the winner furthest from the discarder (seat 0):
    # the next seat still in the hand is the discarder itself
    draws = [e["seat"] for e in game.events if e["type"] == "draw"]
    assert draws == [1]
    assert payments(result) == [
        (1, 2, 36, "R28"),  # 七對 6
        (1, 0, 18, "R28"),  # 對對胡 3 (+ streak 0)
        (3, 1, 96, "R45"),  # R57 (a): 16 × base to the one other player still in the hand
    ]
    assert result["result"] == "escape" and result["winners"] == [2, 0]
    assert result["totals"] == [18, 42, 36, -96]
    assert game.result is not None and game.result.loser == 3
    # R55: after a 一炮多響 first win the discarder deals next, also when an escape ends it
    assert (game.result.next_dealer, game.result.next_streak) == (1, 0)
    _check_whole(game)


def test_r53_multiple_win_then_the_two_left_play_on() -> None:
    game = setup_game(MULTI_HANDS, turn=1, rules=BLOODY)
    for text in ("1 discard 5p", "2 hu", "0 hu"):
        game.apply(Action.parse(text))
    assert game.won == [True, False, True, False] and game.current == 1
    # both winners are skipped from now on: seat 1 and seat 3 alternate
    seats = []
    while not game.is_over and len(seats) < 6:
        seat = game.to_act[0]
        seats.append(seat)
        assert seat in (1, 3)
        legal = game.legal_actions(seat)
        game.apply(next(a for a in legal if a.kind.value in ("discard", "pass")))
    assert len(seats) == 6 and seats[0] == 1


# ---------------------------------------------------------------- R54: beans after a win


def test_r12_r54_a_kong_after_a_win_is_paid_only_by_players_still_in_the_hand() -> None:
    _, result = play(
        ["123456789m123p5p", "7777s147p259s369m", None, None],
        ["0 hu", "1 concealed_kong 7s", "1 discard 3s"],
        wall="5p2m",
        wall_back="3s",
        turn=0,
        rules=BLOODY,
    )
    rows = payments(result)
    assert rows[:3] == [(1, 0, 6, "R29"), (2, 0, 6, "R29"), (3, 0, 6, "R29")]
    assert rows[3:] == [(2, 1, 12, "R12"), (3, 1, 12, "R12")]  # 暗槓 金豆: not the winner
    assert result["result"] == "in_progress"


# ---------------------------------------------------------------- R56, R57: the draw, leaving

DRAW_HANDS: list[str | None] = [
    "9999m147m1258p369s",  # seat 0 (dealer, 14): 暗槓 of 9m, then never ready
    "123m456p789p234s5m",  # seat 1: self-draws 5m
    "234m567m678p567s8m",  # seat 2: self-draws 8m
    "111p333p222s888s7m",  # seat 3: ready on 7m (no 7m left): 大叫 對對胡 3
]
DRAW_ACTIONS = [
    "0 concealed_kong 9m",
    "0 discard 4s",
    "1 hu",
    "2 hu",
    "3 discard 9s",
    "0 discard 6p",
    "3 discard 7s",
    "0 discard 4p",
    "3 discard 1s",
    "0 discard 5s",
]


def _draw_game(actions: list[str]) -> tuple[Round, dict[str, Any]]:
    return play(
        DRAW_HANDS,
        actions,
        wall="5m8m9s6p7s4p1s5s",
        wall_back="4s",
        turn=0,
        fill=False,
        rules=BLOODY,
    )


def test_r56_draw_with_two_players_left_cha_da_jiao_and_bean_refunds_to_winners() -> None:
    game, result = _draw_game(DRAW_ACTIONS)
    beans = [(s, 0, 12, "R12") for s in (1, 2, 3)]
    assert payments(result) == [
        *beans,
        (2, 1, 6, "R29"),  # seat 1's 自摸: everyone else is still in the hand
        (3, 1, 6, "R29"),
        (0, 1, 6, "R29"),
        (3, 2, 6, "R29"),  # seat 2's 自摸: seat 1 has won, it pays no more (R54)
        (0, 2, 6, "R29"),
        (0, 3, 18, "R30"),  # R56: the not-ready seat pays the ready one its 大叫 對對胡 3
        (0, 1, 12, "R14"),  # 黃豆: the bean income goes back to whoever paid, winners too
        (0, 2, 12, "R14"),
        (0, 3, 12, "R14"),
    ]
    draw = next(e for e in game.events if e["type"] == "exhaustive_draw")
    assert draw["ready"] == [False, None, None, True]  # winners are not judged
    assert result["result"] == "win" and result["winners"] == [1, 2]  # R53
    assert result["totals"] == [-30, 18, 6, 6]
    assert game.result is not None
    assert (game.result.next_dealer, game.result.next_streak) == (1, 0)  # R55
    _check_whole(game)


def test_r57_a_winner_who_left_the_table_is_owed_no_refund() -> None:
    actions = [*DRAW_ACTIONS[:4], "1 leave", *DRAW_ACTIONS[4:]]
    game, result = _draw_game(actions)
    refunds = [row for row in payments(result) if row[3] == "R14"]
    assert refunds == [(0, 2, 12, "R14"), (0, 3, 12, "R14")]  # none to seat 1
    assert result["totals"] == [-18, 6, 6, 6]
    assert [e for e in game.events if e["type"] == "leave"] == [{"type": "leave", "seat": 1}]
    assert game.result is not None and game.events[-1]["left"] == [False, True, False, False]
    assert game.view(2).left == (False, True, False, False)
    _check_whole(game)  # the replay reproduces the leave


def test_r57_leave_is_only_for_winners_and_only_once() -> None:
    game = setup_game(
        DRAW_HANDS, wall="5m8m9s6p7s4p1s5s", wall_back="4s", turn=0, fill=False, rules=BLOODY
    )
    with pytest.raises(IllegalActionError, match="R57"):
        game.leave(1)
    for text in DRAW_ACTIONS[:3]:
        game.apply(Action.parse(text))
    before = len(game.events)
    game.leave(1)
    assert len(game.events) == before + 2 and not game.is_over
    with pytest.raises(IllegalActionError, match="already left"):
        game.leave(1)
    with pytest.raises(IllegalActionError, match="already left"):
        game.escape(1)  # a winner who quits only leaves (R57)
    with pytest.raises(ValueError):
        game.leave(7)


def test_r57_a_winner_who_quits_leaves_without_penalty_and_the_hand_goes_on() -> None:
    game = setup_game(
        DRAW_HANDS, wall="5m8m9s6p7s4p1s5s", wall_back="4s", turn=0, fill=False, rules=BLOODY
    )
    for text in DRAW_ACTIONS[:3]:
        game.apply(Action.parse(text))
    rows = len(game.ledger)
    events = game.escape(1)
    assert [e["type"] for e in events] == ["act", "leave"] and events[0]["action"] == "leave"
    assert len(game.ledger) == rows and not game.is_over and game.left[1]


def test_r57_escape_of_a_player_still_in_the_hand_ends_it() -> None:
    actions = [*DRAW_ACTIONS[:4], "3 quit"]
    game, result = _draw_game(actions)
    escape_rows = [row for row in payments(result) if row[3] == "R45"]
    # (a) 16 × base to each other player still in the hand: seat 0 only; the wall holds more
    # than four tiles, so (b) does not apply
    assert escape_rows == [(3, 0, 96, "R45")]
    assert result["result"] == "escape" and result["winners"] == [1, 2]
    assert game.result is not None and game.result.loser == 3
    assert (game.result.next_dealer, game.result.next_streak) == (1, 0)  # R55: first winner
    _check_whole(game)


def test_r57_escape_late_takes_da_jiao_among_players_still_in_the_hand() -> None:
    # seat 0 quits holding 14 tiles with the wall empty: (b) 查大叫 would pay the ready seat 3
    # its 大叫 (對對胡 3 → 18), less than (a) 16 × base, so (a) to seat 3 alone: the winners
    # are not in the hand any more
    actions = [*DRAW_ACTIONS[:9], "0 quit"]
    game, result = _draw_game(actions)
    assert game.wall_remaining == 0
    assert [row for row in payments(result) if row[3] == "R45"] == [(0, 3, 96, "R45")]
    assert next(e for e in game.events if e["type"] == "escape")["penalty"] == "flat"
    assert game.result is not None and game.result.next_dealer == 1


# ---------------------------------------------------------------- R55: no winner


def test_r55_a_hand_without_winner_keeps_r35_and_streak_zero() -> None:
    draw_only = RuleSet(bloody_battle=True)
    game = Round(deal_setup(3, dealer=2), draw_only)
    game.escape(2)  # the dealer escapes: the next seat deals
    assert game.result is not None and game.result.result == "escape"
    assert (game.result.next_dealer, game.result.next_streak) == (3, 0)
    other = Round(deal_setup(3, dealer=2), draw_only)
    other.escape(0)  # another seat escapes: the same dealer, still streak 0
    assert other.result is not None
    assert (other.result.next_dealer, other.result.next_streak) == (2, 0)


def test_r55_a_streak_is_refused_in_a_bloody_room() -> None:
    with pytest.raises(SetupError, match="R55"):
        Round(deal_setup(1, streak=2), RuleSet(bloody_battle=True))
    with pytest.raises(ScenarioError, match="R55"):
        play(["123456789m12345p", None, None, None], [], streak=1, rules=BLOODY)


def test_r55_match_dealers_follow_the_first_win() -> None:
    from duyun.bots import make_bot

    match = Match(hands=12, seed=5, rules=RuleSet(bloody_battle=True))
    kinds = set()
    while not match.is_over:
        game = match.next_hand()
        assert game.streak == 0
        bots = [make_bot("efficient", seat) for seat in range(4)]
        while not game.is_over:
            seat = game.to_act[0]
            game.apply(bots[seat].choose(game.view(seat)))
        dealer = game.dealer
        result = match.record(game)
        if result.wins:
            first = result.wins[0]
            expected = first.seats[0] if len(first.seats) == 1 else first.from_seat
            kinds.add("multi" if len(first.seats) > 1 else "single")
        else:
            expected = dealer
            kinds.add("none")
        assert result.next_dealer == expected and result.next_streak == 0
        assert match.dealer == expected and match.streak == 0
        assert list(result.winners) == [s for w in result.wins for s in w.seats]
    assert "single" in kinds


def test_r52_the_normal_room_still_ends_at_the_first_win() -> None:
    game, result = play(THREE_WINS_HANDS, ["0 hu"], wall="5p7s9s", turn=0)
    assert game.is_over and result["winners"] == [0] and "wins" not in game.events[-1]
    assert "won" not in game.snapshot()


def test_r13_r53_double_rob_kong_play_goes_on_after_the_furthest_robber() -> None:
    game, result = play(
        ["123456789m46p11s", "2468m1357s39p [555p]", "123s789s345m46p99m", None],
        ["1 added_kong 5p", "2 hu", "0 hu"],
        wall="5p",
        turn=1,
        rules=BLOODY,
    )
    assert payments(result)[:2] == [(1, 2, 6, "R29"), (1, 0, 6, "R29")]  # 搶槓 平胡 each
    assert game.won == [True, False, True, False]
    # from the kong player, seat 0 is the furthest robber: the next seat in the hand after it
    # is the kong player itself, who draws (its pong stays a pong, no bean: R13)
    assert game.current == 1 and game.phase is Phase.TURN
    assert [m.kind.value for m in game.melds[1]] == ["pong"]
    assert not [row for row in game.ledger if row.rule == "R12"]
    assert game.tile_total() == 108
    game.escape(3)
    assert game.result is not None and game.result.winners == (2, 0)
    assert (game.result.next_dealer, game.result.next_streak) == (1, 0)  # R55: the kong player


def test_r55_a_draw_without_winner_keeps_the_dealer_streak_zero() -> None:
    game, result = play([None, None, None, None], [], wall="", fill=False, dealer=2, rules=BLOODY)
    assert result["result"] == "draw" and result["winners"] == []
    assert game.result is not None
    assert (game.result.next_dealer, game.result.next_streak) == (2, 0)
