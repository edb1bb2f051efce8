"""Rule scenarios: each test sets up a table from notation and checks exact payments.

Points use the default base score of 6 per fan (R40) unless a test says otherwise.
"""

from __future__ import annotations

import pytest

from duyun.engine import Action, ActionKind, IllegalActionError, Match, new_round
from duyun.engine.round import Phase
from duyun.tiles import tile_from_str as T
from scenario_helpers import payments, play, setup_game

FILLER_2 = None
FILLER_3 = None


# ---------------------------------------------------------------- R4, R5: dealing and turns


def test_r3_first_dealer_is_seat_0_and_play_passes_in_seat_order() -> None:
    match = Match(hands=1, seed=1)
    game = match.next_hand()
    assert game.dealer == 0
    drawers = []
    while not game.is_over and len(drawers) < 12:
        seat = game.to_act[0]
        legal = game.legal_actions(seat)
        passing = [a for a in legal if a.kind is ActionKind.PASS]
        discards = [a for a in legal if a.kind is ActionKind.DISCARD]
        for event in game.apply(passing[0] if passing else discards[0]):
            if event["type"] == "draw" and not event["replacement"]:
                drawers.append(event["seat"])
    assert drawers[:8] == [1, 2, 3, 0, 1, 2, 3, 0][: len(drawers[:8])]


def test_r4_deal_gives_dealer_14_others_13_and_wall_55() -> None:
    game = new_round(seed=7, dealer=2)
    sizes = [sum(game.counts[s]) for s in range(4)]
    assert sizes == [13, 13, 14, 13]
    assert game.wall_remaining == 55
    assert game.tile_total() == 108


def test_r4_same_seed_same_hand() -> None:
    first, second = new_round(seed=42), new_round(seed=42)
    assert first.snapshot() == second.snapshot()
    assert new_round(seed=43).snapshot() != first.snapshot()


def test_r5_dealer_acts_first_without_drawing_then_next_seat_draws() -> None:
    game = new_round(seed=3)
    assert game.to_act == (0,)
    assert not any(e["type"] == "draw" for e in game.events)
    tile = next(t for t in range(27) if game.counts[0][t])
    events = game.apply(Action(0, ActionKind.DISCARD, tile))
    while game.phase is Phase.CLAIMS:
        events += game.apply(Action(game.to_act[0], ActionKind.PASS))
    draws = [e for e in events if e["type"] == "draw"]
    assert draws[0]["seat"] == 1 and not draws[0]["replacement"]


# ---------------------------------------------------------------- R6-R8: claims


def test_r6_r28_pung_hand_wins_on_dealers_discard() -> None:
    _, result = play(
        ["123456789m12345p", "111222444s3355p", FILLER_2, FILLER_3],
        ["0 discard 5p", "1 hu"],
    )
    assert result["result"] == "win" and result["winners"] == [1]
    assert payments(result) == [(0, 1, 18, "R28")]  # 對對胡 3 fan × 6
    assert result["totals"] == [-18, 18, 0, 0]


def test_r6_win_beats_pong() -> None:
    game, result = play(
        ["123456789m12345p", "2244m11566p7799s", "55p113355779m24s", FILLER_3],
        ["0 discard 5p", "2 pong", "1 hu"],
    )
    assert result["winners"] == [1]
    assert all(not m for m in game.melds)


def test_r7_after_pong_only_discards() -> None:
    game, _ = play(
        ["123456789m12345p", "111222444s3369p", "55p113355779m24s", FILLER_3],
        ["0 discard 5p", "2 pong"],
    )
    assert game.current == 2 and game.phase is Phase.TURN
    kinds = {a.kind for a in game.legal_actions(2)}
    assert kinds == {ActionKind.DISCARD}


def test_r7_r8_kong_replacement_from_back_then_play_passes_after_claimer() -> None:
    _game, result = play(
        ["123456789m12345p", "111222444s3369p", "555p113355779m2s", FILLER_3],
        ["0 discard 5p", "2 kong", "2 discard 2s"],
        wall="8s",
        wall_back="9s",
    )
    draws = [e for e in result["events"] if e["type"] == "draw"]
    assert draws[0] == {
        "type": "draw",
        "seat": 2,
        "tile": "9s",
        "replacement": True,
        "last_four": False,
    }
    assert draws[1]["seat"] == 3 and draws[1]["tile"] == "8s"  # R8: after the claimer


def test_r7_no_kong_when_wall_is_empty() -> None:
    hands = ["123456789m12345p", "111222444s3369p", "555p113355779m2s", FILLER_3]
    empty = setup_game(hands, wall="", fill=False)
    empty.apply(Action(0, ActionKind.DISCARD, T("5p")))
    assert {a.kind for a in empty.legal_actions(2)} == {ActionKind.PONG, ActionKind.PASS}
    with pytest.raises(IllegalActionError, match=r"R7|pong, pass"):
        empty.apply(Action(2, ActionKind.KONG))
    one_left = setup_game(hands, wall="2m", fill=False)
    one_left.apply(Action(0, ActionKind.DISCARD, T("5p")))
    assert ActionKind.KONG in {a.kind for a in one_left.legal_actions(2)}


def test_r8_exhaustive_draw_when_wall_is_empty() -> None:
    _, result = play(
        ["123456789m12345p", "111222444s3369p", FILLER_2, FILLER_3],
        ["0 discard 5p", "1 discard 9p"],
        wall="2m",
        fill=False,
    )
    assert result["result"] == "draw"


# ---------------------------------------------------------------- R9: 過水不胡

R9_HANDS = ["123456789m1234p", "111222444s3355p", FILLER_2, "2468m13579p1357s5p"]
R9_ACTIONS = ["3 discard 5p", "1 pass", "0 discard 3p", "1 hu"]


def test_r9_default_a_passed_win_may_be_taken_on_the_next_discard() -> None:
    _, result = play(R9_HANDS, R9_ACTIONS, wall="9s", turn=3, drawn=True)
    assert result["winners"] == [1]


def test_r9_pass_blocks_ron_until_own_next_draw() -> None:
    from duyun.engine import ScenarioError

    with pytest.raises(ScenarioError, match="1 hu"):
        play(R9_HANDS, R9_ACTIONS, wall="9s", turn=3, drawn=True, rules={"pass_blocks_ron": True})


# ---------------------------------------------------------------- R10, R11: winning and ready


def test_r10_seven_pairs_with_four_identical_tiles_wins_on_discard() -> None:
    _, result = play(
        ["23456789m12345p6s", "1111m2233p4455s6s", "9m666777888999p", "2233m1122s77889s"],
        ["0 discard 6s", "1 hu"],
    )
    win = next(e for e in result["events"] if e["type"] == "win")
    assert (win["pattern"], win["fan"]) == ("龍七對", 12)
    assert payments(result) == [(0, 1, 72, "R28")]


DRAW_HANDS = [
    "1479m258p369s2468m",  # dealer, 14 tiles, discards 8m: not ready
    "1112345678999p",  # 清一色, waits 1p-9p
    "123m456m789s23s55p",  # 平胡, waits 1s 4s
    "1357m1357s2469p",  # not ready... (13 tiles)
]


def test_r11_a_wait_on_a_tile_held_four_times_is_no_wait() -> None:
    _game, result = play(
        ["479m2468m258p369s5p", "1111m234p567s789s", "234m456m789s23s55p", None],
        ["0 discard 8m"],
        wall="",
        fill=False,
    )
    assert result["result"] == "draw"
    ready = next(e for e in result["events"] if e["type"] == "exhaustive_draw")["ready"]
    assert ready == [False, False, True, False]


def test_r11_dead_waits_count_by_default_and_not_when_the_option_is_off() -> None:
    hands = ["1478m258p369s2468m", "123456789m567s9p", "123m456m789s23s55p", None]
    common = {"discards": ["", "", "", "999p"], "wall": "", "fill": False}
    _, on = play(hands, ["0 discard 8m"], **common)
    _, off = play(hands, ["0 discard 8m"], rules={"dead_waits_count": False}, **common)
    ready_on = next(e for e in on["events"] if e["type"] == "exhaustive_draw")["ready"]
    ready_off = next(e for e in off["events"] if e["type"] == "exhaustive_draw")["ready"]
    assert ready_on[1] is True and ready_off[1] is False  # waits only on 9p, all four seen


# ---------------------------------------------------------------- R12-R15: beans


def test_r12_direct_kong_paid_by_the_discarder() -> None:
    _, result = play(
        ["123456789m12345p", "111222444s3369p", "555p113355779m2s", FILLER_3],
        ["0 discard 5p", "2 kong"],
    )
    assert payments(result)[0] == (0, 2, 6, "R12")
    assert result["totals"] == [-6, 0, 6, 0]


def test_r12_concealed_kong_paid_twice_by_every_other_player() -> None:
    _, result = play(
        ["9999s123456789m1p", "111222444s3369p", FILLER_2, "2468m1379p13557p"],
        ["0 concealed_kong 9s"],
    )
    assert payments(result) == [(1, 0, 12, "R12"), (2, 0, 12, "R12"), (3, 0, 12, "R12")]
    assert result["totals"] == [36, -12, -12, -12]


ADDED_KONG_HANDS = ["123456789m1234p9s", "12345m678s99p [555p]", "123m789m46p789s99s", FILLER_3]


def test_r12_added_kong_paid_once_by_every_other_player() -> None:
    hands = list(ADDED_KONG_HANDS)
    hands[2] = "123m789m47p789s99s"  # cannot rob 5p
    _, result = play(hands, ["0 discard 9s", "1 added_kong 5p"], wall="5p")
    assert payments(result) == [(2, 1, 6, "R12"), (3, 1, 6, "R12"), (0, 1, 6, "R12")]


def test_r13_robbing_the_kong_voids_the_bean_and_the_pong_stays() -> None:
    game, result = play(ADDED_KONG_HANDS, ["0 discard 9s", "1 added_kong 5p", "2 hu"], wall="5p")
    assert result["winners"] == [2]
    assert [r for r in payments(result) if r[3] == "R12"] == []
    assert payments(result) == [(1, 2, 6, "R29")]  # 平胡 by 搶槓: allowed without a bean (R17)
    assert str(game.melds[1][0]) == "[555p]"
    assert game.result is not None and game.result.next_dealer == 2


def test_r14_r31_not_ready_seat_returns_its_bean_income_at_a_draw() -> None:
    _, result = play(
        ["9999s1479m258p36s1m", "1112345678999p", "234m456m678s23s55p", None],
        ["0 concealed_kong 9s", "0 discard 1m"],
        wall="",
        wall_back="7m",
        fill=False,
    )
    assert result["result"] == "draw"
    refunds = [r for r in payments(result) if r[3] == "R14"]
    assert refunds == [(0, 1, 12, "R14"), (0, 2, 12, "R14"), (0, 3, 12, "R14")]


def test_r14_ready_seat_keeps_its_beans() -> None:
    _, result = play(
        ["9999s123m456m78m55p", "1112345678999p", None, None],
        ["0 concealed_kong 9s", "0 discard 1s"],
        wall="",
        wall_back="1s",
        fill=False,
    )
    assert result["result"] == "draw"
    assert [r for r in payments(result) if r[3] == "R14"] == []


# ---------------------------------------------------------------- R16, R17, R27: may it win?


def test_r16_a_win_by_self_draw_by_discard_and_by_robbing_a_kong() -> None:
    _, by_discard = play(
        ["123456789m12345p", "111222444s3355p", FILLER_2, FILLER_3], ["0 discard 5p", "1 hu"]
    )
    _, by_robbing = play(ADDED_KONG_HANDS, ["0 discard 9s", "1 added_kong 5p", "2 hu"], wall="5p")
    _, by_self_draw = play(
        ["123456789m12346p", "111222444s3369p", "123m456m789s23s55p", FILLER_3],
        ["0 discard 2p", "1 discard 9p", "2 hu"],
        wall="8s4s",
        discards=["", "", "9m", ""],
    )
    hows = [
        next(e for e in r["events"] if e["type"] == "win")["how"]
        for r in (by_discard, by_robbing, by_self_draw)
    ]
    assert hows == ["discard", "rob_kong", "self_draw"]


PINGHU_HANDS = ["123456789m12345p", "111222444s3369p", "123m456m789s23s55p", FILLER_3]


def test_r17_pinghu_without_a_bean_cannot_win_on_a_discard() -> None:
    game, _ = play(
        ["123456789m1234p1s", "111222444s3369p", "12m456m789s23s55p3m", FILLER_3],
        ["0 discard 1s"],
    )
    from duyun.engine import ScenarioError

    with pytest.raises(ScenarioError, match="illegal"):
        play(
            ["123456789m1234p1s", "111222444s3369p", "12m456m789s23s55p3m", FILLER_3],
            ["0 discard 1s", "2 hu"],
        )
    assert game.result is None or 2 not in game.result.winners


def test_r15_r17_pinghu_with_a_bean_wins_on_a_discard() -> None:
    _, result = play(
        ["123456789m1234p4s", "111222444s3369p", "456m789s23s55p (7777p)", FILLER_3],
        ["0 discard 4s", "2 hu"],
    )
    assert result["winners"] == [2]
    assert payments(result) == [(0, 2, 6, "R28")]


def test_r17_pinghu_may_always_win_by_self_draw() -> None:
    _, result = play(
        ["123456789m12346p", "111222444s3369p", "123m456m789s23s55p", FILLER_3],
        ["0 discard 2p", "1 discard 9p", "2 hu"],
        wall="8s4s",
        discards=["", "", "9m", ""],  # not seat 2's first draw: no 地胡
    )
    assert result["winners"] == [2]
    assert payments(result) == [(3, 2, 6, "R29"), (0, 2, 6, "R29"), (1, 2, 6, "R29")]


def test_r27_pinghu_wins_without_a_bean_on_a_baoting_players_discard() -> None:
    _, result = play(
        [FILLER_2, "111222444m3399p", "123456789s1134p", "123m456m789m23p55s"],
        ["3 hu"],
        wall="4p",
        turn=2,
        baoting=[False, False, True, False],
        discards=["", "", "7m", ""],
    )
    assert result["winners"] == [3]
    assert payments(result) == [(2, 3, 42, "R28")]  # 平胡 1 + 報聽 6


# ---------------------------------------------------------------- R18: 一炮多響


def test_r18_multiple_winners_each_paid_and_discarder_deals_next() -> None:
    _, result = play(
        [FILLER_2, "2244m11566p7799s", "123456789m12345p", "111222444s3355p"],
        ["2 discard 5p", "3 hu", "1 hu"],
        turn=2,
        drawn=True,
    )
    assert sorted(result["winners"]) == [1, 3]
    assert sorted(payments(result)) == [(2, 1, 36, "R28"), (2, 3, 18, "R28")]
    assert result["events"][-1]["next_dealer"] == 2


# ---------------------------------------------------------------- R19: the last four tiles


def test_r19_last_four_self_draw_wins_automatically() -> None:
    _game, result = play(
        ["123456789m1234p1s", "111222444s3355p", None, None],
        ["0 discard 1s"],
        wall="3p8p8p8p",
        fill=False,
        discards=["", "9m", "", ""],  # not seat 1's first draw: no 地胡
    )
    win = next(e for e in result["events"] if e["type"] == "win")
    assert win["seat"] == 1 and win["auto"] is True and win["how"] == "self_draw"
    assert payments(result) == [(2, 1, 18, "R29"), (3, 1, 18, "R29"), (0, 1, 18, "R29")]


def test_r19_a_scenario_seat_holding_a_last_four_draw_wins_automatically() -> None:
    _, result = play(
        [None, "111222444s33355p", None, None],
        [],
        wall="8p8p8p",
        fill=False,
        turn=1,
        drawn=True,
        discards=["", "9m", "", ""],
    )
    win = next(e for e in result["events"] if e["type"] == "win")
    assert (win["seat"], win["how"], win["auto"]) == (1, "self_draw", True)


def test_r19_last_four_discard_wins_automatically_without_a_pass() -> None:
    _game, result = play(
        ["123456789m1234p", "111222444s3355p", None, None],
        ["0 discard 3p"],
        wall="3p8p8p8p",
        fill=False,
        turn=0,
    )
    win = next(e for e in result["events"] if e["type"] == "win")
    assert (win["seat"], win["how"], win["auto"]) == (1, "discard", True)
    assert not any(e["type"] == "act" and e["seat"] == 1 for e in result["events"])


def test_r19_before_the_last_four_the_player_may_pass() -> None:
    game, _ = play(
        ["123456789m1234p", "111222444s3355p", None, None],
        ["0 discard 3p"],
        wall="3p8p8p8p8s",
        fill=False,
        turn=0,
    )
    # seat 1 was asked (the scenario passes unlisted claims): it had the choice
    asked = [e for e in game.events if e["type"] == "act" and e["seat"] == 1]
    assert asked and asked[0]["action"] == "pass"
    assert not any(e["type"] == "win" for e in game.events)


# ---------------------------------------------------------------- R20: 天胡 and 地胡


def test_r20_tianhu_dealer_wins_on_the_dealt_tiles() -> None:
    _, result = play(["123456789m23455p", "111222444s3369p", FILLER_2, FILLER_3], ["0 hu"])
    win = next(e for e in result["events"] if e["type"] == "win")
    assert (win["pattern"], win["fan"]) == ("天胡", 18)
    assert result["totals"] == [324, -108, -108, -108]


def test_r20_dihu_non_dealer_self_draws_on_first_draw() -> None:
    _, result = play(
        ["123456789m1234p9s", "123m456m789s23s55p", FILLER_2, FILLER_3],
        ["0 discard 9s", "1 hu"],
        wall="1s",
    )
    win = next(e for e in result["events"] if e["type"] == "win")
    assert (win["pattern"], win["fan"]) == ("地胡", 18)


def test_r20_no_dihu_after_a_pong() -> None:
    _, result = play(
        ["123456789m12344p", "123m456m789s23s55p", "44p1357m2468s79p9s", "258m369p11357s77s"],
        ["0 discard 4p", "2 pong", "2 discard 9s", "3 discard 2m", "0 discard 1m", "1 hu"],
        wall="6p6p1s",
    )
    win = next(e for e in result["events"] if e["type"] == "win")
    assert win["pattern"] == "平胡"


def test_r20_dihu_on_discard_is_an_option() -> None:
    hands = ["123456789m1234p9s", "111222444m3399s", FILLER_2, FILLER_3]
    _, default = play(hands, ["0 discard 9s", "1 hu"])
    _, option = play(hands, ["0 discard 9s", "1 hu"], rules={"dihu_on_discard": True})
    assert next(e for e in default["events"] if e["type"] == "win")["pattern"] == "對對胡"
    assert next(e for e in option["events"] if e["type"] == "win")["pattern"] == "地胡"


# ---------------------------------------------------------------- R21: extras


def test_r21_seed_pung_hand_on_a_baoting_discard_costs_3_plus_6() -> None:
    _, result = play(
        [FILLER_2, "111222444m3399p", "123456789s1134p", FILLER_3],
        ["1 hu"],
        wall="9p",
        turn=2,
        baoting=[False, False, True, False],
        discards=["", "", "7m", ""],
    )
    discard = next(e for e in result["events"] if e["type"] == "discard")
    assert discard["auto"] is True  # R26
    assert payments(result) == [(2, 1, 54, "R28")]  # (3 + 6) × 6


def test_r21_gang_shang_hua_adds_one_fan() -> None:
    _, result = play(
        ["9999s123456789m1p", "111222444s3369p", FILLER_2, "2468m1379p13557p"],
        ["0 concealed_kong 9s", "0 hu"],
        wall_back="1p",
    )
    rows = [r for r in payments(result) if r[3] == "R29"]
    assert rows == [(1, 0, 12, "R29"), (2, 0, 12, "R29"), (3, 0, 12, "R29")]  # 平胡 1 + 1
    win = next(e for e in result["events"] if e["type"] == "win")
    assert win["extras"] == ["槓上花"]


def test_r21_r28_gang_shang_pao_with_two_winners_one_share_each() -> None:
    _, result = play(
        ["9999s123456789m5p", "2244m11566p7788s", FILLER_2, "111222444s3355p"],
        ["0 concealed_kong 9s", "0 discard 5p", "1 hu", "3 hu"],
        wall_back="1m",
    )
    assert sorted(result["winners"]) == [1, 3]
    wins = [e for e in result["events"] if e["type"] == "win"]
    assert [w["extras"] for w in wins] == [["槓上炮"], ["槓上炮"]]
    rows = payments(result)
    beans = [r for r in rows if r[3] == "R12"]
    assert beans == [(1, 0, 12, "R12"), (2, 0, 12, "R12"), (3, 0, 12, "R12")]
    wins = sorted(r for r in rows if r[3] == "R28")
    # 七對 6 + 1 = 42, transfer 36; 對對胡 3 + 1 = 24, transfer 36
    assert wins == [(0, 1, 36, "R28"), (0, 1, 42, "R28"), (0, 3, 24, "R28"), (0, 3, 36, "R28")]
    assert sum(result["totals"]) == 0
    assert result["totals"] == [36 - 42 - 36 - 24 - 36, -12 + 42 + 36, -12, -12 + 24 + 36]
    assert result["events"][-1]["next_dealer"] == 0


# ---------------------------------------------------------------- R22, R36: dealer streak


def test_r36_seed_dealer_with_streak_5_feeds_a_flush_for_11_fan() -> None:
    _, result = play(
        ["123456789m12345p", "1112345678999p", FILLER_2, FILLER_3],
        ["0 discard 5p", "1 hu"],
        streak=5,
    )
    assert payments(result) == [(0, 1, 66, "R28")]  # (6 + 5) × 6


def test_r36_seed_dealer_with_streak_5_self_draws_pinghu_each_pays_6_fan() -> None:
    _, result = play(
        ["123456789m23455p", None, None, None],
        ["0 hu"],
        streak=5,
        drawn=True,
        discards=["1s", "", "", ""],
    )
    assert payments(result) == [(1, 0, 36, "R29"), (2, 0, 36, "R29"), (3, 0, 36, "R29")]


def test_r36_beans_get_no_dealer_bonus() -> None:
    _, result = play(
        ["9999s123456789m1p", None, None, None],
        ["0 concealed_kong 9s"],
        streak=4,
    )
    assert payments(result) == [(1, 0, 12, "R12"), (2, 0, 12, "R12"), (3, 0, 12, "R12")]


def test_r22_bonus_only_when_the_dealer_is_a_party() -> None:
    _, result = play(
        [None, "111222444m3399p", "123456789s11349p", None],
        ["2 discard 9p", "1 hu"],
        turn=2,
        drawn=True,
        streak=3,
        discards=["1m", "", "", ""],
        wall="",
    )
    assert payments(result) == [(2, 1, 18, "R28")]  # 對對胡 3, neither party is the dealer


# ---------------------------------------------------------------- R25, R26: 報聽


def test_r25_baoting_offered_with_the_first_discard_only_when_ready_after_it() -> None:
    game, _ = play(["123456789m1134p9s", None, None, None], [])
    declarations = {a.tile for a in game.legal_actions(0) if a.kind is ActionKind.BAOTING}
    assert declarations == {T("9s")}  # 9s leaves 123 456 789m 11p 34p, waiting 2p 5p


def test_r25_no_baoting_after_a_pong() -> None:
    game, _ = play(
        ["123456789m12344p", None, "44p123456789s9m9p", None],
        ["0 discard 4p", "2 pong"],
    )
    assert not any(a.kind is ActionKind.BAOTING for a in game.legal_actions(2))


def test_r25_no_baoting_after_the_first_discard() -> None:
    game, _ = play(
        [None, None, None, "123456789m1134p"],
        [],
        turn=3,
        wall="9s",
        discards=["", "", "", "1s"],
    )
    assert not any(a.kind is ActionKind.BAOTING for a in game.legal_actions(3))


def test_r26_baoting_hand_is_frozen_and_discards_automatically() -> None:
    game, result = play(
        ["123456789m1134p9s", "111222444s3399p", None, None],
        ["0 baoting 9s", "1 discard 7s", "2 discard 8s", "3 discard 1s"],
        wall="7s8s1s6s",
    )
    assert game.baoting[0]
    events = result["events"]
    assert any(e["type"] == "baoting" and e["seat"] == 0 for e in events)
    # seats 2 and 3 drew 8s and 1s; seat 0's draw of 6s does not win and goes out by itself
    own = [e for e in events if e["type"] == "discard" and e["seat"] == 0]
    assert [(e["tile"], e["auto"]) for e in own] == [("9s", False), ("6s", True)]


def test_r26_baoting_player_cannot_pong_and_wins_automatically() -> None:
    _game, result = play(
        ["123456789m12344p", "111222333s1144p", None, None],
        ["0 discard 4p"],
        baoting=[False, True, False, False],
        discards=["", "7m", "", ""],
    )
    # seat 1 holds 44p but is frozen: it is never asked to pong; 4p wins 對對胡 by itself
    assert not any(e["type"] == "act" and e["seat"] == 1 for e in result["events"])
    win = next(e for e in result["events"] if e["type"] == "win")
    assert (win["seat"], win["auto"], win["pattern"]) == (1, True, "對對胡")
    assert payments(result) == [(0, 1, 54, "R28")]  # 對對胡 3 + 報聽 6 (the winner's)


def test_r26_r17_baoting_pinghu_does_not_win_on_a_discard_without_a_bean() -> None:
    _game, result = play(
        ["123456789m12344p", "123456789s1144p", None, None],
        ["0 discard 4p"],
        baoting=[False, True, False, False],
        discards=["", "7m", "", ""],
    )
    assert not any(e["type"] == "win" for e in result["events"])
    assert not any(e["type"] == "pong" for e in result["events"])


def test_r26_r29_baoting_self_draw_costs_each_payer_plus_6() -> None:
    _, result = play(
        [None, "123456789s1134p", None, None],
        ["0 discard 9m"] if False else [],
        turn=1,
        wall="2p",
        baoting=[False, True, False, False],
        discards=["", "7m", "", ""],
    )
    win = next(e for e in result["events"] if e["type"] == "win")
    assert (win["seat"], win["how"], win["auto"]) == (1, "self_draw", True)
    assert payments(result) == [(2, 1, 42, "R29"), (3, 1, 42, "R29"), (0, 1, 42, "R29")]


# ---------------------------------------------------------------- R29: self-draw per payer


def test_r29_self_draw_fan_is_computed_per_payer() -> None:
    _, result = play(
        [None, "111222444m3399p", "123456789s1134p", None],
        ["1 hu"],
        turn=1,
        wall="9p",
        streak=1,
        baoting=[False, False, True, False],
        discards=["", "7m", "6m", ""],
    )
    # 對對胡 3; seat 2 declared 報聽 (+6); the dealer (seat 0) adds the streak (+1)
    assert payments(result) == [(2, 1, 54, "R29"), (3, 1, 18, "R29"), (0, 1, 24, "R29")]


# ---------------------------------------------------------------- R30: 查大叫


def test_r30_not_ready_players_pay_each_ready_player_their_da_jiao() -> None:
    _, result = play(
        ["1478m258p369s2468m", "1112345678999p", "123m456m789s23s55p", None],
        ["0 discard 8m"],
        wall="",
        fill=False,
        streak=2,
    )
    assert result["result"] == "draw"
    assert payments(result) == [
        (0, 1, 48, "R30"),  # 清一色 6 + streak 2
        (0, 2, 18, "R30"),  # 平胡 1 + streak 2
        (3, 1, 36, "R30"),
        (3, 2, 6, "R30"),
    ]
    assert result["events"][-1]["next_dealer"] == 0
    assert result["events"][-1]["next_streak"] == 3


def test_r30_da_jiao_is_the_largest_pattern_over_the_waits() -> None:
    _, result = play(
        ["1478m258p369s2468m", "11223344m55667p", None, None],
        ["0 discard 8m"],
        wall="",
        fill=False,
    )
    # the only wait 7p reads as 平胡 (123 123 567 567 44) or 七對: 七對 6 counts
    assert {r[:3] for r in payments(result)} == {(0, 1, 36), (2, 1, 36), (3, 1, 36)}


# ---------------------------------------------------------------- R35: next dealer


def test_r35_winner_deals_next_and_streak_resets() -> None:
    game, _ = play(
        ["123456789m12345p", "111222444s3355p", None, None], ["0 discard 5p", "1 hu"], streak=3
    )
    assert game.result is not None
    assert (game.result.next_dealer, game.result.next_streak) == (1, 0)


def test_r35_dealer_who_wins_keeps_the_seat_and_streak_grows() -> None:
    game, _ = play(["123456789m23455p", None, None, None], ["0 hu"], streak=2)
    assert game.result is not None
    assert (game.result.next_dealer, game.result.next_streak) == (0, 3)


# ---------------------------------------------------------------- R40, R41: points and coins


def test_r40_base_points_is_a_rule_option() -> None:
    _, result = play(
        ["123456789m12345p", "111222444s3355p", None, None],
        ["0 discard 5p", "1 hu"],
        rules={"base_points": 10},
    )
    assert payments(result) == [(0, 1, 30, "R28")]


def test_r41_match_coins_are_points_times_stake_and_totals_sum_to_zero() -> None:
    import random

    match = Match(hands=3, seed=5, stake=7)
    rng = random.Random(0)
    while not match.is_over:
        game = match.next_hand()
        while not game.is_over:
            seat = game.to_act[0]
            game.apply(rng.choice(list(game.legal_actions(seat))))
        match.record(game)
    assert sum(match.totals) == 0
    assert match.coins == [points * 7 for points in match.totals]
    assert match.hands_played == 3


# ---------------------------------------------------------------- R45: escape


def test_r45_escape_pays_16_base_to_each_other_player() -> None:
    _, result = play(["123456789m12345p", None, None, None], ["2 quit"])
    assert result["result"] == "escape"
    assert payments(result) == [(2, 3, 96, "R45"), (2, 0, 96, "R45"), (2, 1, 96, "R45")]


def test_r45_escape_keeps_payments_already_made() -> None:
    _, result = play(
        ["9999s123456789m1p", None, None, None],
        ["0 concealed_kong 9s", "1 quit"],
    )
    assert payments(result)[:3] == [(1, 0, 12, "R12"), (2, 0, 12, "R12"), (3, 0, 12, "R12")]
    assert payments(result)[3:] == [(1, 2, 96, "R45"), (1, 3, 96, "R45"), (1, 0, 96, "R45")]


def test_r45_escape_in_the_last_four_takes_the_larger_da_jiao() -> None:
    hands = ["1111223344556m", "1111223344556p", "1111223344556s", None]
    _, result = play(
        hands,
        ["3 quit"],
        wall="7m7p7s",
        fill=False,
        turn=1,
        dealer=1,
        discards=["5m", "5p", "5s", "9m"],
    )
    # three 青龍七對 waits at 18 fan each: 3 × 108 = 324 > 3 × 96
    assert payments(result) == [(3, 0, 108, "R45"), (3, 1, 108, "R45"), (3, 2, 108, "R45")]


def test_r45_escape_outside_the_last_four_is_always_the_flat_penalty() -> None:
    hands = ["1111223344556m", "1111223344556p", "1111223344556s", None]
    _, result = play(
        hands,
        ["3 quit"],
        wall="7m7p7s8s8s8p",
        fill=False,
        turn=1,
        dealer=1,
        discards=["5m", "5p", "5s", "9m"],
    )
    assert {r[2] for r in payments(result)} == {96}


def test_r35_escape_by_the_dealer_passes_the_deal_on() -> None:
    game, _ = play(["123456789m12345p", None, None, None], ["0 quit"], streak=2)
    assert game.result is not None
    assert (game.result.next_dealer, game.result.next_streak) == (1, 0)
    other, _ = play(["123456789m12345p", None, None, None], ["2 quit"], streak=2)
    assert other.result is not None
    assert (other.result.next_dealer, other.result.next_streak) == (0, 3)


# ---------------------------------------------------------------- R32: not in Duyun rules


@pytest.mark.parametrize("option", ["flower_pig"])
def test_r32_unimplemented_options_raise_when_switched_on(option: str) -> None:
    from duyun.engine import ScenarioError

    with pytest.raises(ScenarioError, match=option):
        play(["123456789m12345p", None, None, None], [], rules={option: True})
