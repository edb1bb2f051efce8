"""Rendering of the terminal game: pure functions of engine values, checked as plain text."""

from __future__ import annotations

import io
import re
from typing import Any

from rich.console import Console, RenderableType

from duyun.bots import make_bot
from duyun.describe import payment_reason
from duyun.engine import HandResult, Match, Payment, Round, SeatView, WinKind, parse_scenario
from duyun.tiles import tile_from_str
from duyun.tui.hints import compute_hints
from duyun.tui.render import (
    TableInfo,
    describe_event,
    render_hand,
    render_match_end,
    render_settlement,
    render_table,
    tile_text,
)

# Seat 0 (dealer, to act) may make a concealed kong of 1m; seat 1 has ponged 5p, seat 2 holds
# a concealed kong (face down to seat 0) and seat 3 has declared 報聽 with a discard of 1s.
TABLE = {
    "hands": [
        "1111m234p567s78s5p9p",
        "222m345m678p9s [555p]",
        "456m12346p66s (7777m)",
        "333s444s123p5s899m",
    ],
    "discards": ["", "", "", "1s"],
    "baoting": [False, False, False, True],
    "streak": 2,
    "wall": "",
    "fill": True,
    "seed": 1,
    "actions": [],
}
INFO = TableInfo(
    names=("You", "strong", "efficient", "random"),
    human=0,
    hand_number=2,
    hands_total=8,
    match_points=(12, -6, 0, -6),
    stake=3,
)


def text_of(renderable: RenderableType, width: int = 100) -> str:
    console = Console(record=True, width=width, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def table_view() -> SeatView:
    scenario = parse_scenario(TABLE)
    return Round(scenario.setup, scenario.rules).view(0)


def row_of(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.strip("│ ").startswith(start))


def test_table_shows_what_the_seat_sees() -> None:
    text = text_of(render_table(table_view(), INFO))
    assert "Hand 2/8" in text
    assert "wall 53" in text
    assert "streak 連莊 2" in text
    assert "莊+2" in row_of(text, "You 0")  # dealer, with the R36 bonus
    assert "[555p]" in row_of(text, "strong 1")
    assert "(暗槓 ????)" in row_of(text, "efficient 2")  # another seat's 暗槓 stays hidden
    assert "7777m" not in text
    assert "豆" in row_of(text, "efficient 2")
    random_row = row_of(text, "random 3")
    assert "報聽" in random_row and "1s" in random_row
    assert "-18" in random_row  # coins = points × stake (R41)
    assert "[k 1m] 槓 kong (暗槓) 1m" in text
    assert "[TILE or position] discard" in text


def test_hand_is_numbered_and_sorted() -> None:
    text = text_of(render_hand(table_view()))
    positions, tiles = (line.split() for line in text.splitlines()[:2])
    assert positions == [str(i) for i in range(1, 15)]
    assert " ".join(tiles) == "1m 1m 1m 1m 2p 3p 4p 5p 9p 5s 6s 7s 7s 8s"


def test_drawn_tile_is_set_apart() -> None:
    scenario = parse_scenario(TABLE)
    game = Round(scenario.setup, scenario.rules)
    game.apply(game.legal_actions(0)[-1])  # a discard nobody claims, then seat 1 draws
    while 1 not in game.to_act or game.view(1).drawn_tile is None:
        seat = game.to_act[0]
        game.apply(game.legal_actions(seat)[-1])
    view = game.view(1)
    info = TableInfo(names=("a", "You", "b", "c"), human=1)
    lines = text_of(render_hand(view)).splitlines()
    assert lines[1].split()[-2] == "│"
    assert view.drawn_tile is not None
    assert lines[1].split()[-1] == tile_text(view.drawn_tile).plain
    table = text_of(render_table(view, info))
    assert lines[1] in table  # the hand as drawn is part of the table


def test_hints_show_shanten_and_discards() -> None:
    view = table_view()
    text = text_of(render_table(view, INFO, compute_hints(view)))
    assert "shanten 向聽 1" in text
    assert "best discards: 1m (" in text


def test_hints_for_a_ready_hand_list_waits_with_fan() -> None:
    data = {**TABLE, "hands": ["111m234p567s78s99p5p", *TABLE["hands"][1:]]}
    scenario = parse_scenario(data)
    view = Round(scenario.setup, scenario.rules).view(0)
    text = text_of(render_table(view, INFO, compute_hints(view)), width=120)
    assert "5p → waits 6s 平胡1 9s 平胡1" in text
    assert "[b TILE] 報聽 baoting with a discard of: 2p 5p" in text


def test_chinese_tiles_and_suit_colours() -> None:
    assert tile_text(tile_from_str("5p"), chinese=True).plain == "五筒"
    assert tile_text(tile_from_str("1m")).style == "bold red"
    assert tile_text(tile_from_str("1p")).style == "bold blue"
    assert tile_text(tile_from_str("1s")).style == "bold green"
    text = text_of(render_table(table_view(), TableInfo(**{**_info_fields(), "chinese": True})))
    assert "一萬" in text and "碰五筒" in text


def _info_fields() -> dict[str, Any]:
    return {name: getattr(INFO, name) for name in INFO.__slots__}


def test_log_lines() -> None:
    info = INFO
    assert (
        describe_event({"type": "discard", "seat": 2, "tile": "5p", "auto": False}, info).plain
        == "efficient 2 discards 5p"
    )
    assert (
        describe_event({"type": "discard", "seat": 0, "tile": "5p", "auto": False}, info).plain
        == "You discard 5p"
    )
    assert describe_event({"type": "draw", "seat": 1, "tile": "?"}, info) is None
    assert describe_event({"type": "draw", "seat": 0, "tile": "3s"}, info).plain == "You draw 3s"
    pong = describe_event({"type": "pong", "seat": 3, "tile": "9m", "from": 0}, info)
    assert pong is not None and pong.plain == "random 3 pongs 碰 9m from You"
    kong = describe_event({"type": "kong", "seat": 1, "kind": "concealed_kong", "tile": "?"}, info)
    assert kong is not None and kong.plain == "strong 1 makes 暗槓 concealed kong ?"
    win = describe_event(
        {
            "type": "win",
            "seat": 1,
            "how": "discard",
            "from": 0,
            "tile": "2p",
            "pattern": "對對胡",
            "fan": 3,
            "auto": False,
            "hand": "",
        },
        info,
    )
    assert win is not None
    assert win.plain == "strong 1 wins 胡 by 點炮 on a discard from You on 2p: 對對胡 3 fan"
    assert describe_event({"type": "act", "seat": 1, "action": "pass"}, info) is None


def sample_result() -> tuple[HandResult, Match]:
    match = Match(hands=1, seed=11, stake=5)
    bots = [make_bot("efficient", seat) for seat in range(4)]
    game = match.next_hand()
    while not game.is_over:
        seat = game.to_act[0]
        game.apply(bots[seat].choose(game.view(seat)))
    return match.record(game), match


def test_settlement_table() -> None:
    result, match = sample_result()
    info = TableInfo(names=("You", "a", "b", "c"), human=0, stake=5)
    text = text_of(render_settlement(result, info, match_points=match.totals), width=120)
    assert "Settlement of hand 1/1" in text
    for row in result.payments:
        assert payment_reason(row.rule, row.reason) in text
        assert f"{row.points * 5}" in text
    for seat, points in enumerate(result.totals):
        assert f"{points:+d}" in text and f"{points * 5:+d}" in text, seat


def test_settlement_of_a_win_names_pattern_and_extras() -> None:
    rows = (
        Payment(0, 1, 9, 54, "R28", "點炮: 對對胡 3 + 報聽 6"),
        Payment(2, 1, 1, 6, "R12", "直槓 銀豆"),
    )
    result = HandResult("win", (1,), WinKind.DISCARD, 0, rows, (-54, 60, -6, 0), 1, 0)
    text = text_of(render_settlement(result, INFO), width=120)
    assert "strong 1 won by 點炮 on a discard, paid by You" in text
    # each row's why in words, without the rule numbers players do not read
    assert "點炮 win on a discard (對對胡 3 + 報聽 6 fan)" in text
    assert "bean 豆 for a 直槓 direct kong (銀豆)" in text
    assert not re.search(r"R[0-9]", text)
    assert "162" in text  # 54 points × stake 3


def test_match_end_orders_by_points() -> None:
    text = text_of(render_match_end([-30, 50, 0, -20], INFO, hands_played=8))
    lines = [
        line
        for line in text.splitlines()
        if line.strip().startswith(("You", "strong", "efficient", "random"))
    ]
    assert [line.split()[0] for line in lines] == ["strong", "efficient", "random", "You"]
    assert "+150" in text  # coins: 50 × 3


def test_hint_wording_follows_the_legal_actions() -> None:
    from duyun.tui.hints import Hints
    from duyun.tui.render import render_hints

    win = render_hints(Hints(-1, (), (), can_win=True)).plain
    assert "you can win: h 胡" in win
    after_pong = render_hints(Hints(-1, (), (), can_win=False)).plain
    assert "no win now" in after_pong
    ready = render_hints(Hints(0, ((tile_from_str("3m"), "平胡", 1),), ())).plain
    # R17 told in words, never by its number
    assert "ready 聽; waits 3m 平胡1" in ready and "only with a bean 豆" in ready
    assert not re.search(r"R[0-9]", ready)
    with_bean = render_hints(Hints(0, ((tile_from_str("3m"), "平胡", 1),), (), has_bean=True))
    assert "only with a bean" not in with_bean.plain
