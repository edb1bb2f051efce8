"""Independent hand-worked rule scenarios (QA), written from docs/rules.md only.

Every expected payment below was computed by hand from docs/rules.md (base 6 points per
fan, R40); the arithmetic is in the comments.  Payments are compared as sorted tuples
``(payer, payee, fan, points)``; ``fan`` is the row's number of base units (README).

Seats that play no part are "fillers": 13 distinct tile kinds (no pair) at least three
exchanges from ready, taken from the tiles the scenario leaves free, so they cannot become
ready within the few draws of a scenario.  Only the fillers are generated; every hand that
matters is written out, and its waits and fan were worked out by hand.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from duyun.analysis import shanten
from duyun.engine import (
    IllegalActionError,
    ScenarioError,
    parse_scenario,
    run_scenario,
    scenario_result,
)
from duyun.tiles import format_tiles, parse_tiles

BASE = 6
SUITS = "mps"

# ----------------------------------------------------------------------------- helpers


def _kinds(text: str) -> list[str]:
    """Tile kinds ('5p', ...) in a notation string with melds; brackets and '+' ignored."""
    out: list[str] = []
    digits = ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        elif ch in SUITS:
            out.extend(d + ch for d in digits)
            digits = ""
    assert not digits, f"dangling digits in {text!r}"
    return out


def _filler(used: dict[str, int], size: int, avoid: set[str]) -> str:
    """``size`` distinct kinds from the tiles left, at least 3 exchanges from ready
    (duyun.analysis.shanten >= 3 counting the 14th tile too); kinds not yet in play first."""
    rng = random.Random(size * 1000 + sum(used.values()))
    kinds = [f"{r}{s}" for s in SUITS for r in range(1, 10)]
    for attempt in range(4000):
        spare = attempt < 2000
        pool = [
            k
            for k in kinds
            if k not in avoid and (used.get(k, 0) == 0 if spare else used.get(k, 0) < 4)
        ]
        if len(pool) < size:
            continue
        picked = rng.sample(pool, size)
        counts = [0] * 27
        for tile in parse_tiles("".join(picked)):
            counts[tile] += 1
        if shanten(counts) >= 3:
            for kind in picked:
                used[kind] = used.get(kind, 0) + 1
            return format_tiles(parse_tiles("".join(picked)))
    raise AssertionError("no filler hand")


def scenario(hands: list[str | None], **kw: Any) -> dict[str, Any]:
    """Build scenario data.  A hand ``None`` is a 13-tile filler; ``"F+5p"`` a 13-tile filler
    plus the listed tiles (a 14-tile turn seat holding them)."""
    used: dict[str, int] = {}
    fixed = [h for h in hands if h is not None and not h.startswith("F+")]
    extras = [h[2:] for h in hands if h is not None and h.startswith("F+")]
    pieces = fixed + extras + list(kw.get("discards", [])) + [kw.get("wall", "")]
    pieces.append(kw.get("wall_back", ""))
    for text in pieces:
        for kind in _kinds(text):
            used[kind] = used.get(kind, 0) + 1
    assert all(n <= 4 for n in used.values()), used
    built: list[str] = []
    for h in hands:
        if h is None:
            built.append(_filler(used, 13, set()))
        elif h.startswith("F+"):
            extra = h[2:]
            built.append(_filler(used, 14 - len(_kinds(extra)), set(_kinds(extra))) + extra)
        else:
            built.append(h)
    data: dict[str, Any] = {"dealer": 0, "streak": 0, "wall": "", "actions": []}
    data.update(kw)
    data["hands"] = built
    return data


def run(data: dict[str, Any]) -> dict[str, Any]:
    return scenario_result(run_scenario(parse_scenario(data)))


def pays(res: dict[str, Any]) -> list[tuple[int, int, int, int]]:
    return sorted((p["payer"], p["payee"], p["fan"], p["points"]) for p in res["payments"])


def rows(*items: tuple[int, int, int]) -> list[tuple[int, int, int, int]]:
    """(payer, payee, fan) -> (payer, payee, fan, fan * BASE), sorted."""
    return sorted((a, b, f, f * BASE) for a, b, f in items)


def end(res: dict[str, Any]) -> dict[str, Any]:
    ends = [e for e in res["events"] if e["type"] == "end"]
    assert len(ends) == 1, res["result"]
    return ends[0]


def wins(res: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in res["events"] if e["type"] == "win"]


def expect_illegal(data: dict[str, Any], action: str) -> None:
    """The set-up without ``action`` runs; adding it is refused as illegal."""
    run(data)
    bad = dict(data, actions=[*data["actions"], action])
    with pytest.raises((IllegalActionError, ScenarioError)):
        run(bad)


# Hands used in several scenarios (13 tiles, hand-checked waits).
PINGHU_5P = "234m567m789s46p11s"  # waits 5p only: 234m 567m 789s 456p 11s -> 平胡 1
PINGHU_5P_KONG = "234m678m46p11s (9999m)"  # waits 5p; 平胡 with a bean (concealed kong)
DUIDUI_3S_5P = "111m222p33s55p444s"  # shanpon 3s / 5p -> 對對胡 3
QIDUI_5P = "2244m1166p7788s5p"  # 七對 waiting 5p -> 6
JIANGDUI = "222555888s8855m"  # waits 5m, 8m -> 將對 9 either way
QING7DUI = "1122334455667p"  # 7p -> 清七對 12 (4p, 1p -> 清一色 6): 大叫 12
QINGLONG = "1122444455779m"  # 9m only -> 青龍七對 18


# ----------------------------------------------------------------------------- R12 beans


def test_r12_direct_kong_discarder_pays_one_no_streak_bonus():
    # dealer 0 streak 3 discards 5p, seat 1 holds 555p and kongs: 0 pays 1 unit = 6 (R36: no
    # bonus on beans).
    data = scenario(
        ["F+5p", "555p2468m19p2468s", None, None],
        streak=3,
        discards=["1m", "", "", ""],
        actions=["0 discard 5p", "1 kong"],
    )
    res = run(data)
    assert pays(res) == rows((0, 1, 1))
    assert res["totals"] == [-6, 6, 0, 0]


def test_r12_added_kong_every_other_player_pays_one():
    # seat 1 adds 5p to its pong: 0, 2, 3 each pay 1 unit = 6 -> +18; streak 3 adds nothing.
    data = scenario(
        [None, "13579m9p2468s5p [555p]", None, None],
        streak=3,
        turn=1,
        drawn=True,
        discards=["1m", "2m", "", ""],
        actions=["1 added_kong 5p"],
    )
    res = run(data)
    assert pays(res) == rows((0, 1, 1), (2, 1, 1), (3, 1, 1))
    assert res["totals"] == [-6, 18, -6, -6]


def test_r12_concealed_kong_every_other_player_pays_two():
    # seat 2 concealed kong 5p: each other pays 2 units = 12 -> +36.
    data = scenario(
        [None, None, "5555p13579m9p2468s", None],
        streak=3,
        turn=2,
        drawn=True,
        discards=["1m", "2m", "3m", ""],
        actions=["2 concealed_kong 5p"],
    )
    res = run(data)
    assert pays(res) == rows((0, 2, 2), (1, 2, 2), (3, 2, 2))
    assert res["totals"] == [-12, -12, 36, -12]


# ----------------------------------------------------------------------------- R13 搶槓


def test_r13_r17_robbing_kong_voids_bean_pinghu_without_bean_allowed():
    # seat 1 adds 5p; seat 2 (平胡, no bean) robs it (R17: 搶槓 always allowed). No R12 bean;
    # settled like 點炮 with the kong player: 1 pays 平胡 1 = 6. Next dealer: winner 2.
    data = scenario(
        [None, "13579m9p2468s5p [555p]", PINGHU_5P, None],
        turn=1,
        drawn=True,
        discards=["1m", "2m", "", ""],
        actions=["1 added_kong 5p", "2 hu"],
    )
    res = run(data)
    assert pays(res) == rows((1, 2, 1))
    assert res["totals"] == [0, -6, 6, 0]
    assert not [e for e in res["events"] if e["type"] == "kong"]
    assert end(res)["next_dealer"] == 2 and end(res)["next_streak"] == 0


def test_r18_r13_two_players_rob_the_same_kong_kong_player_becomes_dealer():
    # seat 3 adds 5p; dealer 0 (streak 1) and seat 1 both rob with 平胡.
    # 3 -> 0: 1 + streak 1 = 2 fan = 12; 3 -> 1: 1 fan = 6. Multiple win: next dealer 3.
    data = scenario(
        [PINGHU_5P, "123m456m789m46p99s", None, "F+5p [555p]"],
        streak=1,
        turn=3,
        drawn=True,
        discards=["1m", "2m", "3m", "4m"],
        actions=["3 added_kong 5p", "0 hu", "1 hu"],
    )
    res = run(data)
    assert sorted(res["winners"]) == [0, 1]
    assert pays(res) == rows((3, 0, 2), (3, 1, 1))
    assert res["totals"] == [12, 6, 0, -18]
    assert end(res)["next_dealer"] == 3 and end(res)["next_streak"] == 0


# ----------------------------------------------------------------------------- R17 平胡


def test_r17_pinghu_without_bean_cannot_win_on_plain_discard():
    data = scenario(
        [None, "F+5p", PINGHU_5P, None],
        turn=1,
        drawn=True,
        discards=["1m", "2m", "", ""],
        actions=["1 discard 5p"],
    )
    expect_illegal(data, "2 hu")


def test_r17_pinghu_with_bean_wins_on_discard():
    # seat 2 holds a concealed kong (a bean, R15): 1 pays 平胡 1 = 6.
    data = scenario(
        [None, "F+5p", PINGHU_5P_KONG, None],
        turn=1,
        drawn=True,
        discards=["1m", "2m", "3m", ""],
        actions=["1 discard 5p", "2 hu"],
    )
    res = run(data)
    assert pays(res) == rows((1, 2, 1))
    assert res["totals"] == [0, -6, 6, 0]


def test_r17_r12_bean_made_in_this_hand_allows_pinghu_on_later_discard():
    # 0 discards 9m, seat 2 direct-kongs (0 pays 1 = 6), replacement 1p discarded, seat 3
    # draws 5p and discards it, seat 2 wins 平胡 1 = 6 from seat 3 (not 槓上炮: 3 did not kong).
    data = scenario(
        ["F+9m", None, "234m678m46p11s999m", None],
        turn=0,
        discards=["1m", "", "", ""],
        wall="5p",
        wall_back="1p",
        actions=["0 discard 9m", "2 kong", "2 discard 1p", "3 discard 5p", "2 hu"],
    )
    res = run(data)
    assert pays(res) == rows((0, 2, 1), (3, 2, 1))
    assert res["totals"] == [-6, 0, 12, -6]


def test_r17_r27_pinghu_without_bean_on_baoting_discard_plus_six():
    # seat 1 (報聽, waits 9p) draws 5p, discards it automatically (R26); seat 2 wins 平胡 with no
    # bean (R27): fan 1 + 報聽 6 (the payer declared) = 7 -> 42.
    data = scenario(
        [None, "111m222m333m444p9p", PINGHU_5P, None],
        turn=1,
        baoting=[False, True, False, False],
        discards=["1s", "3p", "", ""],
        wall="5p",
        actions=["2 hu"],
    )
    res = run(data)
    assert pays(res) == rows((1, 2, 7))
    assert res["totals"] == [0, -42, 42, 0]


def test_r17_r26_baoting_pinghu_without_bean_does_not_win_on_plain_discard():
    # the 報聽 winner's own declaration does not lift R17: seat 2 (報聽, 平胡, no bean) cannot
    # win on seat 1's ordinary discard; the hand goes on.
    data = scenario(
        [None, "F+5p", PINGHU_5P, None],
        turn=1,
        drawn=True,
        baoting=[False, False, True, False],
        discards=["1m", "2m", "3m", ""],
        wall="9s",
        actions=["1 discard 5p"],
    )
    res = run(data)
    assert res["result"] == "in_progress"
    assert res["payments"] == [] and wins(res) == []
    with pytest.raises((IllegalActionError, ScenarioError)):
        run(dict(data, actions=["1 discard 5p", "2 hu"]))


# ----------------------------------------------------------------------------- R18 一炮多響


def test_r18_r35_multiple_win_each_one_to_one_discarder_becomes_dealer():
    # seat 3 discards 5p; dealer 0 (streak 2) wins 對對胡: 3 + 2 = 5 -> 30; seat 1 wins 七對 6
    # -> 36. Seat 3 pays 66. Next dealer: the discarder 3, streak 0.
    data = scenario(
        [DUIDUI_3S_5P, QIDUI_5P, None, "F+5p"],
        streak=2,
        turn=3,
        drawn=True,
        discards=["1p", "9p", "9m", "9s"],
        actions=["3 discard 5p", "0 hu", "1 hu"],
    )
    res = run(data)
    assert sorted(res["winners"]) == [0, 1]
    assert pays(res) == rows((3, 0, 5), (3, 1, 6))
    assert res["totals"] == [30, 36, 0, -66]
    assert end(res)["next_dealer"] == 3 and end(res)["next_streak"] == 0


def test_r6_win_beats_pong():
    # seat 1 claims pong, seat 3 claims hu (對對胡 tanki 5p) on dealer's 5p: the win happens.
    data = scenario(
        ["F+5p", "55p13579m2468s79p", None, "111m222p333s444s5p"],
        turn=0,
        discards=["1p", "", "", ""],
        actions=["0 discard 5p", "1 pong", "3 hu"],
    )
    res = run(data)
    assert res["winners"] == [3]
    assert pays(res) == rows((0, 3, 3))  # 對對胡 3, dealer streak 0


# ----------------------------------------------------------------------------- R19 last four


def test_r19_last_four_self_draw_is_automatic():
    # exact wall of 4: seat 1 draws 5p (one of the last four) and wins by itself, no action.
    # 自摸 平胡 1: each other pays 6.
    data = scenario(
        [None, PINGHU_5P, None, None],
        turn=1,
        fill=False,
        discards=["1p", "3p", "", ""],
        wall="5p7p8p9p",
    )
    res = run(data)
    assert res["winners"] == [1]
    assert wins(res)[0]["auto"] is True and wins(res)[0]["how"] == "self_draw"
    assert pays(res) == rows((0, 1, 1), (2, 1, 1), (3, 1, 1))
    assert res["totals"] == [-6, 18, -6, -6]


def test_r19_last_four_discard_win_is_automatic_with_bean():
    # dealer 0 (streak 1) draws 5p with 4 tiles left and discards it; seat 2 (平胡 + bean)
    # wins without choosing: 1 + streak 1 = 2 fan = 12.
    data = scenario(
        [None, None, PINGHU_5P_KONG, None],
        streak=1,
        turn=0,
        fill=False,
        discards=["1p", "3p", "", ""],
        wall="5p7p8p9p",
        actions=["0 discard 5p"],
    )
    res = run(data)
    assert res["winners"] == [2]
    assert wins(res)[0]["auto"] is True
    assert pays(res) == rows((0, 2, 2))
    assert res["totals"] == [-12, 0, 12, 0]


def test_r19_r17_last_four_pinghu_without_bean_is_not_a_win():
    # same, but seat 2 has no bean: the win is not allowed, so nothing happens automatically.
    data = scenario(
        [None, None, "234m678m46p11s999m", None],
        turn=0,
        fill=False,
        discards=["1p", "3p", "", ""],
        wall="5p7p8p9p",
        actions=["0 discard 5p"],
    )
    res = run(data)
    assert res["result"] == "in_progress" and wins(res) == []
    assert res["payments"] == []


def test_r19_last_four_robbing_is_automatic_and_voids_bean():
    # seat 3 draws 5p among the last four and adds it to [555p]; dealer 0 robs automatically:
    # 3 pays 平胡 1 = 6, no bean.
    data = scenario(
        [PINGHU_5P, None, None, "13579m2468s9p [555p]"],
        turn=3,
        fill=False,
        discards=["1p", "3p", "7p", "8p"],
        wall="5p4s6s9s",
        actions=["3 added_kong 5p"],
    )
    res = run(data)
    assert res["winners"] == [0]
    assert wins(res)[0]["auto"] is True
    assert pays(res) == rows((3, 0, 1))
    assert res["totals"] == [6, 0, 0, -6]


def test_r19_kept_tile_discarded_late_is_not_one_of_the_last_four():
    # README reading of R19: dealer draws 7p among the last four but discards 5p held from
    # before. Seat 2 (bean) may choose: passing is allowed, no automatic win.
    data = scenario(
        ["1357m124689s358p", None, PINGHU_5P_KONG, None],
        turn=0,
        fill=False,
        discards=["1p", "3p", "", ""],
        wall="7p8p9p",
        actions=["0 discard 5p", "2 pass"],
    )
    res = run(data)
    assert wins(res) == [] and res["payments"] == []


# ----------------------------------------------------------------------------- R20 天胡 地胡


def test_r20_r36_tianhu_dealer_wins_on_dealt_tiles():
    # dealer 0 (streak 1), 14 dealt tiles, no discard yet: 天胡 18 + 1 = 19 -> 114 from each.
    data = scenario(
        ["234m567m789s456p11s", None, None, None],
        streak=1,
        actions=["0 hu"],
    )
    res = run(data)
    assert wins(res)[0]["pattern"] == "天胡"
    assert pays(res) == rows((1, 0, 19), (2, 0, 19), (3, 0, 19))
    assert res["totals"] == [342, -114, -114, -114]
    assert end(res)["next_dealer"] == 0 and end(res)["next_streak"] == 2


def test_r20_tianhu_not_after_a_kong_gang_shang_hua_instead():
    # dealer konged first: no 天胡. Beans 2 units x 3 = +36; win 平胡 1 + 槓上花 1 = 2 -> 12
    # from each: dealer +72, others -24.
    data = scenario(
        ["1111s234m567m99p46p", None, None, None],
        wall_back="5p",
        actions=["0 concealed_kong 1s", "0 hu"],
    )
    res = run(data)
    assert wins(res)[0]["pattern"] != "天胡"
    assert pays(res) == rows((1, 0, 2), (2, 0, 2), (3, 0, 2), (1, 0, 2), (2, 0, 2), (3, 0, 2))
    assert res["totals"] == [72, -24, -24, -24]


def test_r20_dihu_non_dealer_self_draws_on_first_draw():
    # seat 1 has not drawn yet (empty river, no melds anywhere); draws 5p and wins: 地胡 18.
    # dealer (streak 1) pays 18 + 1 = 19 -> 114; seats 2, 3 pay 18 -> 108.
    data = scenario(
        [None, PINGHU_5P, None, None],
        streak=1,
        turn=1,
        discards=["1p", "", "", ""],
        wall="5p",
        actions=["1 hu"],
    )
    res = run(data)
    assert wins(res)[0]["pattern"] == "地胡"
    assert pays(res) == rows((0, 1, 19), (2, 1, 18), (3, 1, 18))
    assert res["totals"] == [-114, 330, -108, -108]


def test_r20_no_dihu_after_a_pong():
    # dealer discards 7m, seat 2 pongs and discards 1p; seat 3's first draw 5p completes 平胡,
    # but a pong happened before: 平胡 self-draw 1 -> 6 from each.
    data = scenario(
        ["F+7m", None, "77m13579p124689s", PINGHU_5P],
        wall="5p",
        actions=["0 discard 7m", "2 pong", "2 discard 1p", "3 hu"],
    )
    res = run(data)
    assert wins(res)[0]["pattern"] == "平胡"
    assert pays(res) == rows((0, 3, 1), (1, 3, 1), (2, 3, 1))
    assert res["totals"] == [-6, -6, -6, 18]


@pytest.mark.parametrize(("on", "fan"), [(False, 3), (True, 18)])
def test_r20_dihu_on_discard_option(on, fan):
    # dealer's first discard 3s; seat 1 (no draw yet) wins 對對胡: off -> 3 (18 pts),
    # on -> 地胡 18 (108 pts).
    data = scenario(
        ["F+3s", DUIDUI_3S_5P, None, None],
        rules={"dihu_on_discard": on},
        actions=["0 discard 3s", "1 hu"],
    )
    res = run(data)
    assert pays(res) == rows((0, 1, fan))


# ----------------------------------------------------------------------------- R21 extras


def test_r21_r26_baoting_winner_wins_automatically_plus_six():
    # seat 2 (報聽, 對對胡 3s/5p) wins on seat 1's 3s with no action: 3 + 6 = 9 -> 54.
    data = scenario(
        [None, "F+3s", DUIDUI_3S_5P, None],
        turn=1,
        drawn=True,
        baoting=[False, False, True, False],
        discards=["1p", "9p", "7m", ""],
        actions=["1 discard 3s"],
    )
    res = run(data)
    assert res["winners"] == [2] and wins(res)[0]["auto"] is True
    assert pays(res) == rows((1, 2, 9))


def test_r21_r36_baoting_on_both_sides_and_dealer_streak():
    # seed example: 對對胡 won on a 報聽 player's discard costs 3 + 6 (+R36). Dealer 1 (streak
    # 2, 報聽, waits 9p) draws 3s and discards it automatically; seat 2 (報聽) wins
    # automatically: 3 + 6 (winner 報聽) + 6 (payer 報聽) + 2 (payer dealer) = 17 -> 102.
    data = scenario(
        [None, "111m222m333m444p9p", "555p666p33s44s999s", None],
        dealer=1,
        streak=2,
        turn=1,
        baoting=[False, True, True, False],
        discards=["1p", "9m", "7m", ""],
        wall="3s",
    )
    res = run(data)
    assert res["winners"] == [2]
    assert pays(res) == rows((1, 2, 17))
    assert res["totals"] == [0, -102, 102, 0]


def test_r21_r29_baoting_self_draw_per_payer():
    # seat 2 (報聽) self-draws 平胡 automatically. Per payer: dealer 0 (streak 2): 1 + 6 + 2 = 9
    # -> 54; seat 1 (報聽 too): 1 + 6 + 6 = 13 -> 78; seat 3: 1 + 6 = 7 -> 42. Total 174.
    data = scenario(
        [None, "111p222p333p999s7s", PINGHU_5P, None],
        streak=2,
        turn=2,
        baoting=[False, True, True, False],
        discards=["1m", "9m", "7m", ""],
        wall="5p",
    )
    res = run(data)
    assert res["winners"] == [2] and wins(res)[0]["auto"] is True
    assert pays(res) == rows((0, 2, 9), (1, 2, 13), (3, 2, 7))
    assert res["totals"] == [-54, -78, 174, -42]


def test_r21_r12_gang_shang_hua_after_concealed_kong():
    # seat 1 concealed kong 1s (each pays 2 units = 12), replacement 5p completes 平胡:
    # 1 + 槓上花 1 = 2; dealer 0 (streak 1) pays 3 -> 18, seats 2, 3 pay 2 -> 12.
    # seat 1: 36 + 42 = 78; seat 0: -12 - 18 = -30; seats 2, 3: -24.
    data = scenario(
        [None, "1111s234m567m99p46p", None, None],
        streak=1,
        turn=1,
        drawn=True,
        discards=["1p", "9m", "", ""],
        wall_back="5p",
        actions=["1 concealed_kong 1s", "1 hu"],
    )
    res = run(data)
    assert pays(res) == rows((0, 1, 2), (2, 1, 2), (3, 1, 2), (0, 1, 3), (2, 1, 2), (3, 1, 2))
    assert res["totals"] == [-30, 78, -24, -24]


def test_r21_r28_gang_shang_pao_two_winners_each_get_the_kong_income():
    # dealer 0 (streak 2) concealed kong 9s: 1, 2, 3 pay 12 each (36 = 6 units). Replacement
    # 8m, dealer discards 5p: seat 1 七對 6 + 1 + 2 = 9 -> 54; seat 2 對對胡 3 + 1 + 2 = 6 -> 36.
    # Transfer: 6 units (36) to each winner, one share each.
    # seat 0: 36 - 54 - 36 - 36 - 36 = -126; seat 1: -12 + 54 + 36 = 78;
    # seat 2: -12 + 36 + 36 = 60; seat 3: -12. Multiple win: dealer 0 keeps the seat, streak 3.
    data = scenario(
        ["9999s13579m2468p5p", QIDUI_5P, DUIDUI_3S_5P, None],
        streak=2,
        discards=["1s", "", "", ""],
        wall_back="8m",
        actions=["0 concealed_kong 9s", "0 discard 5p", "1 hu", "2 hu"],
    )
    res = run(data)
    assert pays(res) == rows(
        (1, 0, 2), (2, 0, 2), (3, 0, 2), (0, 1, 9), (0, 2, 6), (0, 1, 6), (0, 2, 6)
    )
    assert res["totals"] == [-126, 78, 60, -12]
    assert end(res)["next_dealer"] == 0 and end(res)["next_streak"] == 3


def test_r21_r28_gang_shang_pao_after_direct_kong_transfers_one_unit():
    # seat 3 discards 5p, seat 1 direct-kongs (3 pays 1 = 6), draws 9m, discards it; seat 2
    # wins 對對胡 3 + 槓上炮 1 = 4 -> 24, plus the kong's income 1 unit -> 6.
    # seat 3: -6; seat 1: 6 - 24 - 6 = -24; seat 2: +30.
    data = scenario(
        [None, "555p2468m1357s9m7p", "111p222s444s33s99m", "F+5p"],
        turn=3,
        drawn=True,
        discards=["1m", "3m", "5m", "7m"],
        wall_back="9m",
        actions=["3 discard 5p", "1 kong", "1 discard 9m", "2 hu"],
    )
    res = run(data)
    assert pays(res) == rows((3, 1, 1), (1, 2, 4), (1, 2, 1))
    assert res["totals"] == [0, -24, 30, -6]


# ----------------------------------------------------------------------------- R22 / R36


def test_r36_seed_dealer_feeds_qingyise_with_streak_five():
    # seed: streak 5, dealer feeds 清一色 -> 5 + 6 = 11 fan = 66.
    data = scenario(
        ["F+4s", None, "1133322256999s", None],
        streak=5,
        discards=["1p", "", "", ""],
        actions=["0 discard 4s", "2 hu"],
    )
    res = run(data)
    assert pays(res) == rows((0, 2, 11))
    assert res["totals"] == [-66, 0, 66, 0]


def test_r36_r35_seed_dealer_self_draws_pinghu_with_streak_five():
    # seed: streak 5, dealer self-draws 平胡 -> each pays 1 + 5 = 6 fan = 36. Dealer keeps the
    # seat: streak 6.
    data = scenario(
        [PINGHU_5P, None, None, None],
        streak=5,
        discards=["1p", "3p", "", ""],
        wall="5p",
        actions=["0 hu"],
    )
    res = run(data)
    assert pays(res) == rows((1, 0, 6), (2, 0, 6), (3, 0, 6))
    assert res["totals"] == [108, -36, -36, -36]
    assert end(res)["next_dealer"] == 0 and end(res)["next_streak"] == 6


# ----------------------------------------------------------------------------- R25 / R26 報聽


def _baoting_setup(**kw: Any) -> dict[str, Any]:
    # seat 1 to act with 14 tiles, first discard (empty river, no melds)
    base: dict[str, Any] = {"turn": 1, "drawn": True, "discards": ["1m", "", "", ""]}
    base.update(kw)
    return scenario([None, PINGHU_5P + "9p", None, None], **base)


def test_r25_baoting_with_first_discard_when_ready():
    res = run(_baoting_setup(actions=["1 baoting 9p"]))
    ev = [e for e in res["events"] if e["type"] == "discard" and e["seat"] == 1]
    assert ev and ev[0]["baoting"] is True and ev[0]["tile"] == "9p"


def test_r25_baoting_refused_when_not_ready_after_the_discard():
    expect_illegal(_baoting_setup(), "1 baoting 4p")


def test_r25_baoting_refused_after_first_discard():
    expect_illegal(_baoting_setup(discards=["1m", "1s", "", ""]), "1 baoting 9p")


def test_r25_baoting_refused_after_a_pong():
    data = scenario(
        [None, "234m567m46p11s9p [888s]", None, None],
        turn=1,
        drawn=True,
        discards=["1m", "", "", ""],
    )
    expect_illegal(data, "1 baoting 9p")


def test_r26_frozen_hand_cannot_pong_and_discards_automatically():
    # seat 2 (報聽, waits 5p) holds 11s; seat 1 discards 1s: pong refused. Then, when seat 2
    # draws 9p (no win), it is discarded automatically.
    data = scenario(
        [None, "F+1s", PINGHU_5P, None],
        turn=1,
        drawn=True,
        baoting=[False, False, True, False],
        discards=["1m", "3m", "5m", ""],
        wall="9p",
        actions=["1 discard 1s"],
    )
    expect_illegal(data, "2 pong")
    res = run(data)
    auto = [e for e in res["events"] if e["type"] == "discard" and e["seat"] == 2]
    assert auto and auto[0]["tile"] == "9p" and auto[0]["auto"] is True


# ----------------------------------------------------------------------------- R9 過水


@pytest.mark.parametrize("on", [False, True])
def test_r9_pass_blocks_ron_option(on):
    # seat 2 (對對胡 3s/5p) passes dealer's 3s; seat 1 then draws and discards 5p before seat
    # 2 draws again. Off: seat 2 wins 3 fan = 18 from seat 1. On: the win is refused.
    data = scenario(
        ["F+3s", None, DUIDUI_3S_5P, None],
        rules={"pass_blocks_ron": on},
        discards=["1p", "", "", ""],
        wall="5p",
        actions=["0 discard 3s", "2 pass", "1 discard 5p"],
    )
    if on:
        expect_illegal(data, "2 hu")
    else:
        res = run(dict(data, actions=[*data["actions"], "2 hu"]))
        assert pays(res) == rows((1, 2, 3))


# ----------------------------------------------------------------------------- R30 查大叫


def test_r30_r14_r36_chadajiao_with_baoting_dealer_and_bean_refund():
    # exact wall: one replacement tile. Seat 3 (not ready) concealed kong 9s: 0, 1, 2 pay 12.
    # It discards the replacement 1s; seat 0 must draw from an empty wall: draw.
    # ready: dealer 0 (streak 1) 將對 9 -> +1 = 10; seat 1 (報聽) 清七對 12 -> +6 = 18.
    # not ready 2, 3 each pay 60 to seat 0 and 108 to seat 1. 黃豆: seat 3 returns 12 to each.
    # seat 0: -12 + 120 + 12 = 120; seat 1: -12 + 216 + 12 = 216;
    # seat 2: -12 - 168 + 12 = -168; seat 3: 36 - 168 - 36 = -168.
    data = scenario(
        [JIANGDUI, QING7DUI, "2468m13579p1467s", "9999s3s13579m2468p"],
        streak=1,
        turn=3,
        drawn=True,
        fill=False,
        baoting=[False, True, False, False],
        discards=["9p", "8p", "1p", "9m"],
        wall_back="1s",
        actions=["3 concealed_kong 9s", "3 discard 1s"],
    )
    res = run(data)
    assert res["result"] == "draw"
    assert pays(res) == rows(
        (0, 3, 2), (1, 3, 2), (2, 3, 2),
        (2, 0, 10), (3, 0, 10), (2, 1, 18), (3, 1, 18),
        (3, 0, 2), (3, 1, 2), (3, 2, 2),
    )  # fmt: skip
    assert res["totals"] == [120, 216, -168, -168]
    assert end(res)["next_dealer"] == 0 and end(res)["next_streak"] == 2


def test_r30_r14_ready_player_keeps_bean_dealer_pays_streak():
    # seat 1 (ready after) concealed kong 7s: 0, 2, 3 pay 12. Replacement 9m discarded; draw.
    # ready: seat 1 對對胡 3s/4s -> 3; seat 2 平胡 5p -> 1 (R17 ignored). Not ready: dealer 0
    # (streak 2) and seat 3. 0 -> 1: 3 + 2 = 5 (30); 0 -> 2: 1 + 2 = 3 (18); 3 -> 1: 3 (18);
    # 3 -> 2: 1 (6). No refunds (seat 1 is ready).
    # seat 0: -12 - 30 - 18 = -60; seat 1: 36 + 30 + 18 = 84; seat 2: -12 + 18 + 6 = 12;
    # seat 3: -12 - 18 - 6 = -36.
    data = scenario(
        [None, "7777s111m222p33s44s", "234m567m789p46p11s", None],
        streak=2,
        turn=1,
        drawn=True,
        fill=False,
        discards=["1p", "2p", "3p", "5p"],
        wall_back="9m",
        actions=["1 concealed_kong 7s", "1 discard 9m"],
    )
    res = run(data)
    assert res["result"] == "draw"
    assert pays(res) == rows(
        (0, 1, 2), (2, 1, 2), (3, 1, 2), (0, 1, 5), (0, 2, 3), (3, 1, 3), (3, 2, 1)
    )
    assert res["totals"] == [-60, 84, 12, -36]


def test_r11_r30_holding_all_four_of_the_only_wait_is_not_ready():
    # seat 1 "1111m234p567p789s" could only wait on a fifth 1m: not ready, so it pays seat 2's
    # 大叫 (平胡 1) like the fillers: three rows of 6.
    data = scenario(
        [None, "1111m234p567p789s", "234m567m46p11s999s", None],
        turn=0,
        fill=False,
        discards=["1p", "3p", "", ""],
    )
    res = run(data)
    assert res["result"] == "draw"
    assert pays(res) == rows((0, 2, 1), (1, 2, 1), (3, 2, 1))
    assert res["totals"] == [-6, -6, 18, -6]


@pytest.mark.parametrize("dead_counts", [True, False])
def test_r11_dead_waits_count_option(dead_counts):
    # seat 1 waits only on 9p; the other three 9p lie in rivers. Seat 2 ready 將對 9.
    # on (default): seat 1 ready (大叫 平胡 1): 0, 3 pay 6 to seat 1 and 54 to seat 2.
    # off: seat 1 is not ready: 0, 1, 3 each pay 54 to seat 2.
    data = scenario(
        [None, "234m567m789s111p9p", JIANGDUI, None],
        rules={"dead_waits_count": dead_counts},
        turn=0,
        fill=False,
        discards=["9p", "", "9p", "9p"],
    )
    res = run(data)
    assert res["result"] == "draw"
    if dead_counts:
        assert pays(res) == rows((0, 1, 1), (3, 1, 1), (0, 2, 9), (3, 2, 9))
        assert res["totals"] == [-60, 12, 108, -60]
    else:
        assert pays(res) == rows((0, 2, 9), (1, 2, 9), (3, 2, 9))
        assert res["totals"] == [-54, -54, 162, -54]


# ----------------------------------------------------------------------------- R45 escape


def test_r45_escape_penalty_a_beans_stand_dealer_keeps_seat():
    # seat 1 concealed kong 5p (0, 2, 3 pay 12), discards the replacement 9m; seat 2 draws and
    # quits with a full wall: (a) 16 x 6 = 96 to each of 0, 1, 3 (288). Beans stand (no 黃豆).
    # seat 0: -12 + 96 = 84; seat 1: 36 + 96 = 132; seat 2: -12 - 288 = -300; seat 3: 84.
    data = scenario(
        [None, "5555p13579m2468s9p", None, None],
        turn=1,
        drawn=True,
        discards=["1m", "3m", "", ""],
        wall_back="9m",
        actions=["1 concealed_kong 5p", "1 discard 9m", "2 quit"],
    )
    res = run(data)
    assert res["result"] == "escape"
    assert pays(res) == rows((0, 1, 2), (2, 1, 2), (3, 1, 2), (2, 0, 16), (2, 1, 16), (2, 3, 16))
    assert res["totals"] == [84, 132, -300, 84]
    assert end(res)["next_dealer"] == 0 and end(res)["next_streak"] == 1


def _escape_last_four(streak: int, fill: bool) -> dict[str, Any]:
    # seat 2 (filler, not ready) draws 3s and quits; ready: dealer 0 將對 9, seat 1 (報聽)
    # 清七對 12, seat 3 青龍七對 18.
    return scenario(
        [JIANGDUI, QING7DUI, None, QINGLONG],
        streak=streak,
        turn=2,
        fill=fill,
        baoting=[False, True, False, False],
        discards=["1p", "9p", "1s", "9s"],
        wall="3s6s9s1s",
        actions=["2 quit"],
    )


def test_r45_escape_last_four_chadajiao_larger_than_a():
    # wall holds 3 after seat 2's draw. (b): 0: 9 + 4 = 13 (78); 1: 12 + 6 = 18 (108);
    # 3: 18 (108) -> 49 fan = 294 > (a) 288: (b) is paid.
    res = run(_escape_last_four(4, False))
    assert pays(res) == rows((2, 0, 13), (2, 1, 18), (2, 3, 18))
    assert res["totals"] == [78, 108, -294, 108]


def test_r45_escape_tie_takes_a():
    # streak 3: (b) = 12 + 18 + 18 = 48 fan = 288 = (a); README: a tie takes (a), 96 each.
    res = run(_escape_last_four(3, False))
    assert pays(res) == rows((2, 0, 16), (2, 1, 16), (2, 3, 16))


def test_r45_escape_with_full_wall_only_a():
    # same ready opponents but the wall holds far more than four: only (a), 96 each.
    res = run(_escape_last_four(4, True))
    assert pays(res) == rows((2, 0, 16), (2, 1, 16), (2, 3, 16))
    assert res["totals"] == [96, 96, -288, 96]


def test_r45_r35_dealer_escapes_ready_and_baoting_pays_b_next_seat_deals():
    # dealer 0 (streak 2, 報聽, ready) quits while seat 3 holds 14 tiles, 3 tiles left.
    # (b) regardless of the escapee being ready: seat 1 (報聽) 12 + 6 + 6 + 2 = 26 (156);
    # seat 3 (best discard 3s -> 青龍七對 18) 18 + 6 + 2 = 26 (156); seat 2 not ready: 0.
    # 52 fan = 312 > 288. Next dealer: seat 1, streak 0.
    data = scenario(
        [JIANGDUI, QING7DUI, None, QINGLONG],
        streak=2,
        turn=3,
        fill=False,
        baoting=[True, True, False, False],
        discards=["1p", "9p", "1s", "9s"],
        wall="3s6s9s1s",
        actions=["0 quit"],
    )
    res = run(data)
    assert pays(res) == rows((0, 1, 26), (0, 3, 26))
    assert res["totals"] == [-312, 156, 0, 156]
    assert end(res)["next_dealer"] == 1 and end(res)["next_streak"] == 0


# ----------------------------------------------------------------------------- R7


def test_r7_no_kong_with_an_empty_wall():
    data = scenario(
        [None, "5555p13579m2468s7p", None, None],
        turn=1,
        drawn=True,
        fill=False,
        discards=["1m", "3m", "", ""],
    )
    with pytest.raises((IllegalActionError, ScenarioError)):
        run(dict(data, actions=["1 concealed_kong 5p"]))


# ----------------------------------------------------------------------------- more edges


def test_r21_r28_gang_shang_pao_after_added_kong_transfers_three_units():
    # seat 1 adds 5p (0, 2, 3 pay 1 = 6 each), draws 3s, discards it; seat 2 對對胡 3s/9m:
    # 3 + 槓上炮 1 = 4 -> 24, plus the kong's whole income 3 units -> 18.
    # seat 1: 18 - 24 - 18 = -24; seat 2: -6 + 24 + 18 = 36; seats 0, 3: -6.
    data = scenario(
        [None, "13579m9p2468s5p [555p]", "111m222p33s444s99m", None],
        turn=1,
        drawn=True,
        discards=["1p", "3p", "", ""],
        wall_back="3s",
        actions=["1 added_kong 5p", "1 discard 3s", "2 hu"],
    )
    res = run(data)
    assert pays(res) == rows((0, 1, 1), (2, 1, 1), (3, 1, 1), (1, 2, 4), (1, 2, 3))
    assert res["totals"] == [-6, -24, 36, -6]


def test_r21_r29_gang_shang_hua_after_direct_kong():
    # seat 3 discards 5p, seat 1 direct-kongs (3 pays 1 = 6) and draws 2s: 123s completes
    # 平胡 1 + 槓上花 1 = 2, 12 from each. seat 1: 6 + 36 = 42; seat 3: -18; 0, 2: -12.
    data = scenario(
        [None, "555p234m678m99s13s", None, "F+5p"],
        turn=3,
        drawn=True,
        discards=["1p", "3p", "7p", "9p"],
        wall_back="2s",
        actions=["3 discard 5p", "1 kong", "1 hu"],
    )
    res = run(data)
    assert pays(res) == rows((3, 1, 1), (0, 1, 2), (2, 1, 2), (3, 1, 2))
    assert res["totals"] == [-12, 42, -12, -18]


@pytest.mark.parametrize("seat1_claims", [True, False])
def test_r18_r26_automatic_baoting_win_and_a_claimed_win_together(seat1_claims):
    # seat 3 discards 5p: seat 2 (報聽, 對對胡) wins by itself: 3 + 6 = 9 -> 54; seat 1 (七對)
    # wins only if it claims: 6 -> 36. Two winners: next dealer 3 (discarder).
    data = scenario(
        [None, QIDUI_5P, DUIDUI_3S_5P, "F+5p"],
        turn=3,
        drawn=True,
        baoting=[False, False, True, False],
        discards=["1p", "9p", "9m", "9s"],
        actions=["3 discard 5p"] + (["1 hu"] if seat1_claims else []),
    )
    res = run(data)
    if seat1_claims:
        assert sorted(res["winners"]) == [1, 2]
        assert pays(res) == rows((3, 2, 9), (3, 1, 6))
        assert end(res)["next_dealer"] == 3
    else:
        assert res["winners"] == [2]
        assert pays(res) == rows((3, 2, 9))
        assert end(res)["next_dealer"] == 2


def test_r20_dihu_for_the_third_seat_after_two_plain_discards():
    # dealer discards 9s, seat 1 draws 9m and discards it, seat 2's first draw 5p completes:
    # no pong or kong before -> 地胡 18 from each (108).
    data = scenario(
        ["F+9s", None, PINGHU_5P, None],
        wall="9m5p",
        actions=["0 discard 9s", "1 discard 9m", "2 hu"],
    )
    res = run(data)
    assert wins(res)[0]["pattern"] == "地胡"
    assert pays(res) == rows((0, 2, 18), (1, 2, 18), (3, 2, 18))


def test_r20_no_dihu_after_the_dealers_concealed_kong():
    # dealer concealed kong 5s (1, 2, 3 pay 12), discards the replacement 9m; seat 1's first
    # draw 5p completes 平胡, but a kong came before: 自摸 平胡 1 -> 6 from each.
    # seat 0: 36 - 6 = 30; seat 1: -12 + 18 = 6; seats 2, 3: -12 - 6 = -18.
    data = scenario(
        ["F+5555s", PINGHU_5P, None, None],
        wall="5p",
        wall_back="9m",
        actions=["0 concealed_kong 5s", "0 discard 9m", "1 hu"],
    )
    res = run(data)
    assert wins(res)[0]["pattern"] == "平胡"
    assert pays(res) == rows((1, 0, 2), (2, 0, 2), (3, 0, 2), (0, 1, 1), (2, 1, 1), (3, 1, 1))
    assert res["totals"] == [30, 6, -18, -18]


@pytest.mark.parametrize("on", [False, True])
def test_r20_r17_dihu_on_discard_makes_a_pinghu_hand_a_larger_pattern(on):
    # seat 1 (no draw yet, 平胡 shape, no bean) on the dealer's first discard 5p.
    # off: only 平胡 -> no bean, refused (R17). on: the basic pattern is 地胡 18 (R20), not
    # "only 平胡", so the win is allowed: 18 -> 108.
    data = scenario(
        ["F+5p", PINGHU_5P, None, None],
        rules={"dihu_on_discard": on},
        actions=["0 discard 5p"],
    )
    if on:
        res = run(dict(data, actions=["0 discard 5p", "1 hu"]))
        assert pays(res) == rows((0, 1, 18))
    else:
        expect_illegal(data, "1 hu")


def test_r25_dealer_may_declare_baoting():
    data = scenario([PINGHU_5P + "9p", None, None, None], actions=["0 baoting 9p"])
    res = run(data)
    ev = [e for e in res["events"] if e["type"] == "discard" and e["seat"] == 0]
    assert ev[0]["baoting"] is True


def test_r13_concealed_kong_cannot_be_robbed():
    # seat 2 (bean, waits 5p) cannot win on seat 1's concealed kong of 5p; beans paid: 12 x 3.
    data = scenario(
        [None, "5555p1357m2468s79p", PINGHU_5P_KONG, None],
        turn=1,
        drawn=True,
        discards=["1p", "3p", "7p", ""],
        actions=["1 concealed_kong 5p"],
    )
    res = run(data)
    assert pays(res) == rows((0, 1, 2), (2, 1, 2), (3, 1, 2))
    expect_illegal(data, "2 hu")


def test_r12_r21_direct_kong_on_baoting_discard_is_one_unit_no_baoting_extra():
    # seat 1 (報聽) draws 5p and discards it automatically; seat 2 kongs with 555p:
    # a bean is 1 unit = 6 whatever the 報聽 (R21 extras are for wins).
    data = scenario(
        [None, "111m222m333m444p9p", "555p579m7p12468s9s", None],
        turn=1,
        baoting=[False, True, False, False],
        discards=["1s", "3p", "", ""],
        wall="5p",
        actions=["2 kong"],
    )
    res = run(data)
    assert pays(res) == rows((1, 2, 1))


def test_r9_block_lifts_after_own_draw():
    # option on: seat 2 passes 3s, then draws (9m) and discards; seat 3's 5p may be won: 18.
    data = scenario(
        ["F+3s", None, DUIDUI_3S_5P, None],
        rules={"pass_blocks_ron": True},
        discards=["1p", "", "", ""],
        wall="9s9m5p",
        actions=["0 discard 3s", "2 pass", "1 discard 9s", "2 discard 9m", "3 discard 5p", "2 hu"],
    )
    res = run(data)
    assert pays(res) == rows((3, 2, 3))


@pytest.mark.parametrize(("wall", "penalty_b"), [("3s6s9s1s7s", True), ("3s6s9s1s7s4s", False)])
def test_r45_four_tiles_or_fewer_boundary(wall, penalty_b):
    # after seat 2's draw the wall holds 4 (b applies: 294 > 288) or 5 (only a: 96 each).
    data = _escape_last_four(4, False)
    data["wall"] = wall
    res = run(data)
    if penalty_b:
        assert pays(res) == rows((2, 0, 13), (2, 1, 18), (2, 3, 18))
    else:
        assert pays(res) == rows((2, 0, 16), (2, 1, 16), (2, 3, 16))


def test_r19_boundary_fifth_last_tile_is_not_automatic():
    # the wall holds 5: the draw is not one of the last four, so seat 1 must choose to win.
    data = scenario(
        [None, PINGHU_5P, None, None],
        turn=1,
        fill=False,
        discards=["1p", "3p", "", ""],
        wall="5p7p8p9p6s",
    )
    res = run(data)
    assert wins(res) == [] and res["result"] == "in_progress"
    res = run(dict(data, actions=["1 hu"]))
    assert pays(res) == rows((0, 1, 1), (2, 1, 1), (3, 1, 1))


def test_r19_r27_last_four_baoting_discarder_pinghu_without_bean_is_automatic():
    # seat 1 (報聽) draws 5p as one of the last four and discards it automatically; seat 2
    # (平胡, no bean) must win: 1 + 6 = 7 -> 42.
    data = scenario(
        [None, "111m222m333m444p9p", PINGHU_5P, None],
        turn=1,
        fill=False,
        baoting=[False, True, False, False],
        discards=["1s", "3p", "", ""],
        wall="5p7p8p6s",
    )
    res = run(data)
    assert res["winners"] == [2] and wins(res)[0]["auto"] is True
    assert pays(res) == rows((1, 2, 7))


def test_r14_r30_direct_kong_refund_goes_back_to_the_discarder_only():
    # dealer discards 5p, seat 1 kongs (0 pays 6), draws the last tile 9s, discards it; seat 2
    # cannot draw: draw. Seat 3 ready (平胡 5p, 大叫 1): 0, 1, 2 pay 6. Seat 1 not ready:
    # returns 6 to seat 0. seat 0: -6 - 6 + 6 = -6; seat 1: 6 - 6 - 6 = -6; seat 2: -6;
    # seat 3: +18.
    data = scenario(
        ["F+5p", "555p13579m2468s7p", None, PINGHU_5P],
        fill=False,
        discards=["1p", "", "", ""],
        wall_back="9s",
        actions=["0 discard 5p", "1 kong", "1 discard 9s"],
    )
    res = run(data)
    assert res["result"] == "draw"
    assert pays(res) == rows((0, 1, 1), (1, 0, 1), (0, 3, 1), (1, 3, 1), (2, 3, 1))
    assert res["totals"] == [-6, -6, -6, 18]


def test_r19_r21_last_four_kong_replacement_wins_automatically_gang_shang_hua():
    # the only tile left is the replacement 5p: seat 1 concealed kong 1s (12 from each), the
    # replacement completes 平胡 and wins with no action: 1 + 槓上花 1 = 2 -> 12 from each.
    data = scenario(
        [None, "1111s234m567m99p46p", None, None],
        turn=1,
        drawn=True,
        fill=False,
        discards=["1p", "9m", "", ""],
        wall_back="5p",
        actions=["1 concealed_kong 1s"],
    )
    res = run(data)
    assert res["winners"] == [1] and wins(res)[0]["auto"] is True
    assert pays(res) == rows((0, 1, 2), (2, 1, 2), (3, 1, 2), (0, 1, 2), (2, 1, 2), (3, 1, 2))
    assert res["totals"] == [-24, 72, -24, -24]
