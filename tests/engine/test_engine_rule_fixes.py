"""Rule fixes of issue 8: R19 last-four tiles wherever they go, 七對 shanten with four alike
(R10), an escape during a 搶槓 window (R13, R45) and the scenario runner's implicit passes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.analysis import is_win, shanten, useful_tiles
from duyun.bots.evaluation import HandEvaluator
from duyun.engine import Action
from duyun.engine.round import Phase
from duyun.hand import Hand
from duyun.tiles import tile_from_str as T
from scenario_helpers import payments, play, setup_game


def _wins(result: dict[str, Any]) -> list[tuple[int, str, str, bool]]:
    return [
        (e["seat"], e["how"], e["tile"], e["auto"]) for e in result["events"] if e["type"] == "win"
    ]


# ---------------------------------------------------------------- R19: the last four


def test_r19_a_last_four_tile_kept_and_discarded_after_a_pong_forces_the_win() -> None:
    # seat 1 draws 5p as one of the last four, keeps it, pongs 9p and then discards the 5p
    _, result = play(
        [None, "123456789m11p99p", None, "111222333s55p77s"],
        ["1 discard 1p", "2 discard 9p", "1 pong", "1 discard 5p"],
        wall="5p9p8s8s",
        turn=1,
        fill=False,
    )
    assert _wins(result) == [(3, "discard", "5p", True)]


def test_r19_a_last_four_tile_discarded_after_a_concealed_kong_forces_the_win() -> None:
    _, result = play(
        [None, "4444s123456789m", None, "111222333s55p77s"],
        ["1 concealed_kong 4s", "1 discard 5p"],
        wall="5p8s8s",
        wall_back="6s",
        turn=1,
        fill=False,
    )
    assert _wins(result) == [(3, "discard", "5p", True)]
    assert next(row for row in payments(result) if row[3] == "R28")[:2] == (1, 3)


def test_r19_a_last_four_tile_added_to_a_pong_after_a_kong_is_robbed_automatically() -> None:
    _, result = play(
        [None, "4444s123456m [555p]", None, "111222333s46p77s"],
        ["1 concealed_kong 4s", "1 added_kong 5p"],
        wall="5p8s8s",
        wall_back="6s",
        turn=1,
        fill=False,
    )
    assert _wins(result) == [(3, "rob_kong", "5p", True)]


def test_r19_a_tile_drawn_before_the_last_four_stays_a_free_choice() -> None:
    _, result = play(
        [None, "123456789m11p99p", None, "111222333s55p77s"],
        ["1 discard 1p", "2 discard 9p", "1 pong", "1 discard 5p"],
        wall="5p9p8s8s8s",
        turn=1,
        fill=False,
    )
    # 5p was drawn with five tiles in the wall: seat 3 is asked (the script's end passes)
    assert _wins(result) == []
    asked = [e for e in result["events"] if e["type"] == "act" and e["seat"] == 3]
    assert [e["action"] for e in asked] == ["pass"]


# ---------------------------------------------------------------- R10: 七對 with four alike


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_r10_a_winning_hand_has_shanten_minus_one_on_every_path(data: st.DataObject) -> None:
    pool = [t for t in range(27) for _ in range(4)]
    tiles = data.draw(st.permutations(pool).map(lambda p: p[:14]))
    counts = [0] * 27
    for tile in tiles:
        counts[tile] += 1
    value = shanten(counts)
    assert (value == -1) == is_win(counts)
    assert HandEvaluator(counts).shanten() == value


def test_r10_dragon_seven_pairs_are_complete_with_shanten_minus_one() -> None:
    for text in ("2244552299m1199p", "11112222m334455p", "1111222233m4455p", "11224444557799m"):
        counts = Hand.parse(text).counts()
        assert is_win(counts)
        assert shanten(counts) == -1
        assert HandEvaluator(counts).shanten() == -1


def test_r10_the_tile_completing_a_dragon_seven_pairs_is_useful() -> None:
    counts = Hand.parse("224455229m1199p").counts()  # 13 tiles: waiting 9m for 龍七對
    assert T("9m") in useful_tiles(counts)
    assert T("9m") in HandEvaluator(counts).useful_tiles([4] * 27)


# ---------------------------------------------------------------- R13, R45: escape and 搶槓

ROB_HANDS: list[str | None] = [None, "123456789m1s [555p]", None, "111222333s46p77s"]


def test_r13_r45_an_escape_during_a_rob_window_keeps_the_added_tile() -> None:
    game = setup_game(ROB_HANDS, wall="5p", turn=1)
    game.apply(Action.parse("1 added_kong 5p"))
    assert game.phase is Phase.CLAIMS and game.to_act == (3,)
    game.escape(2)
    assert game.tile_total() == 108
    assert game.hand_of(1).counts()[T("5p")] == 1
    assert [m.kind.value for m in game.melds[1]] == ["pong"]  # the kong did not happen
    assert not any(row.rule == "R12" for row in game.ledger)  # and paid no bean
    assert game.result is not None and sum(game.result.totals) == 0


def test_r13_r45_the_kong_player_escaping_during_the_rob_window_keeps_its_tile() -> None:
    game = setup_game(ROB_HANDS, wall="5p", turn=1)
    game.apply(Action.parse("1 added_kong 5p"))
    game.escape(1)
    assert game.tile_total() == 108
    assert game.hand_of(1).counts()[T("5p")] == 1
    assert game.result is not None and game.result.result == "escape"


# ---------------------------------------------------------------- scenarios: implicit passes


def test_scenario_unlisted_claims_pass_only_the_window_open_now() -> None:
    # seat 2 could pong 1m (not listed: a pass); then 報聽 seat 1 discards 9s by itself (R26)
    # and the listed pong of seat 3 answers that new window
    _, result = play(
        [None, "123456789m1134p", "11m2569p23568s47s", "99s258m7p369p2447s"],
        ["0 discard 1m", "3 pong", "3 discard 2m"],
        wall="1m9s",
        turn=0,
        baoting=[False, True, False, False],
        discards=["", "7m", "", ""],
    )
    pongs = [(e["seat"], e["tile"], e["from"]) for e in result["events"] if e["type"] == "pong"]
    assert pongs == [(3, "9s", 1)]


def test_r19_r9_a_blocked_player_may_rob_a_last_four_kong_but_is_not_forced() -> None:
    # seat 3 (清一色 waiting 3p 6p) passes 3p; seat 1 then adds the 6p it drew as one of the
    # last four to its pong
    hands: list[str | None] = [None, "123456789m1s [666p]", None, "1112224578999p"]
    outcomes = {}
    for block in (True, False):
        game = setup_game(
            hands, wall="3p6p1s2s3s", turn=0, fill=False, rules={"pass_blocks_ron": block}
        )
        for text in ("0 discard 3p", "3 pass", "1 added_kong 6p"):
            game.apply(Action.parse(text))
        outcomes[block] = game
    blocked, free = outcomes[True], outcomes[False]
    # under the R9 block the robbing stays a choice (R9: a blocked player is not forced) ...
    assert blocked.phase is Phase.CLAIMS and blocked.to_act == (3,)
    assert [str(a) for a in blocked.legal_actions(3)] == ["3 hu", "3 pass"]
    # ... without it the last-four tile is robbed automatically (R19)
    assert free.result is not None and free.result.winners == (3,)
    assert [e["auto"] for e in free.events if e["type"] == "win"] == [True]
