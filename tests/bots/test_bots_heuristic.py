"""The heuristic bot's rule-aware decisions, each on a position set up through the engine.

Every test builds a table with :func:`scenario_helpers.play` (``parse_scenario`` and
``run_scenario`` underneath; ``None`` hands are far-from-ready fillers) and asks the bot for one
decision on ``game.view(seat)``. Where it helps, the efficient bot's choice is asserted too, to
show the decision is the rule-aware one and not plain tile efficiency.
"""

from __future__ import annotations

from typing import Any

from duyun.bots import make_bot
from duyun.bots.evaluation import HandEvaluator, unseen_counts
from duyun.bots.heuristic import HeuristicBot
from duyun.bots.strong_patterns import qidui_shanten, toitoi_shanten
from duyun.engine import Action, ActionKind, SeatView
from duyun.tiles import parse_tiles, to_counts
from scenario_helpers import play


def view_of(hands: list[str | None], actions: list[str] | None = None, **options: Any) -> SeatView:
    """The view of the seat to act after setting up (and playing) a scenario."""
    game, _ = play(hands, actions or [], **options)
    return game.view(game.to_act[0])


def claim_view(hands: list[str | None], discard: str, **options: Any) -> SeatView:
    """Seat 0's view when ``discard`` (e.g. "1 discard 5p") awaits its claim.

    (A scenario's unlisted claims are passes, so the discard is applied after setting up.)
    """
    game, _ = play(hands, [], **options)
    game.apply(Action.parse(discard))
    return game.view(0)


def counts_of(text: str) -> list[int]:
    return to_counts(parse_tiles(text))


# ---------------------------------------------------------------------- pattern shanten


def test_pattern_shanten_closed_forms() -> None:
    """對對胡 / 七對 distances (R20) on hands whose answer is clear by hand."""
    assert toitoi_shanten(counts_of("111222444m3339p"), 0) == 0  # 3 pungs + 2 pairs
    assert toitoi_shanten(counts_of("1112345678999m"), 0) == 4
    assert toitoi_shanten(counts_of("55m99p"), 3) == 0  # three pongs down, two pairs
    assert toitoi_shanten(counts_of("55m9p1s"), 3) == 1
    assert qidui_shanten(counts_of("1122334455667m"), 0) == 0
    assert qidui_shanten(counts_of("1122334455667m"), 1) > 6  # no 七對 with a meld (R10)


# ---------------------------------------------------------------------- kongs: 黃豆, 槓上炮

KONG_HAND = "34555567m19p1357s"  # 5555m: the kong breaks the 345/567 runs (a step slower)


def test_declines_a_late_kong_when_far_from_ready() -> None:
    """R14 黃豆: with 4 tiles left the slower hand will hardly be ready at the draw, so the
    concealed kong's income would be returned -- not worth the step. Early it is taken."""
    late = view_of(
        [KONG_HAND, None, None, None],
        wall="1p2p3p4p",
        fill=False,
        drawn=True,
        discards=["2s", "", "", ""],
    )
    evaluator = HandEvaluator(to_counts(late.hand))
    lowest = min(evaluator.discard_shanten().values())
    assert lowest >= 1
    assert evaluator.shanten_after_removing(parse_tiles("5m")[0], 4) > lowest
    assert late.wall_remaining == 4
    assert Action(0, ActionKind.CONCEALED_KONG, parse_tiles("5m")[0]) in late.legal
    assert make_bot("heuristic").choose(late).kind is ActionKind.DISCARD

    early = view_of([KONG_HAND, None, None, None], drawn=True, discards=["2s", "", "", ""])
    assert early.wall_remaining > 40
    assert make_bot("heuristic").choose(early).kind is ActionKind.CONCEALED_KONG


def test_direct_kong_weighs_the_forced_discard_gang_shang_pao() -> None:
    """R21/R28 槓上炮: a direct kong (1 unit) is followed by a forced discard; against three
    opponents with beans and pong-only melds late in the hand every discard is dangerous, and
    losing it costs +1 fan plus the kong's income: the bot just pongs. With quiet opponents
    the same kong is taken."""
    quiet = claim_view(
        ["555p1368m247s (9999p)", "5p1m4m7m2s5s8s3p6p2p1s4s7s", None, None],
        "1 discard 5p",
        turn=1,
    )
    assert quiet.has_bean[0]
    assert Action(0, ActionKind.KONG) in quiet.legal
    assert make_bot("heuristic").choose(quiet).kind is ActionKind.KONG

    loud = claim_view(
        [
            "555p1368m247s (9999p)",
            "5p1m7s8m [2222m] [6666s] [3333p]",
            "2p8s9m3m [7777m] [1111s] [4444p]",
            "4m1p6p3m [8888p] [5555s] [9999s]",
        ],
        "1 discard 5p",
        turn=1,
        discards=["9m3s", "9m3s", "4m3s", "2s8s"],
    )
    assert loud.wall_remaining < 40
    assert Action(0, ActionKind.KONG) in loud.legal
    assert make_bot("heuristic").choose(loud).kind is not ActionKind.KONG


# ---------------------------------------------------------------------- ready discards (R17)


def test_chooses_the_ready_discard_whose_waits_win_on_discards() -> None:
    """R17: without a bean a 平胡 wait can only be self-drawn. 111m222p333s55667m can wait on
    5m/8m (平胡, 6 live) or, discarding 7m, on 5m/6m (對對胡, 3 fan, 4 live, may win off any
    discard): the heuristic bot takes the pattern wait."""
    view = view_of(
        ["111m222p333s55667m", None, None, None], drawn=True, discards=["9s", "", "", ""]
    )
    assert not view.has_bean[0]
    action = make_bot("heuristic").choose(view)
    assert action == Action(0, ActionKind.DISCARD, parse_tiles("7m")[0])
    assert make_bot("efficient").choose(view).tile != action.tile


# ---------------------------------------------------------------------- 報聽 (R21, R25-R27)

BAOTING_HAND = "13m456p789p234s55s9s"  # discard 9s: ready on the 2m kanchan


def test_declares_baoting_with_live_waits() -> None:
    """R25: ready on the first discard with all four 2m alive: +6 fan on every payment is
    worth the frozen hand."""
    view = view_of([BAOTING_HAND, None, None, None], dealer=3, turn=0, drawn=True)
    assert make_bot("heuristic").choose(view) == Action(0, ActionKind.BAOTING, parse_tiles("9s")[0])


def test_declines_baoting_on_a_nearly_dead_wait() -> None:
    """Three 2m already discarded: one live winning tile. Frozen (R26), the hand would mostly
    pay +6 on others' wins and feed 平胡 wins (R27), so the heuristic bot discards without 報聽
    (the efficient bot declares anyway)."""
    view = view_of(
        [BAOTING_HAND, None, None, None],
        dealer=3,
        turn=0,
        drawn=True,
        discards=["", "2m", "2m", "2m"],
    )
    assert make_bot("efficient").choose(view).kind is ActionKind.BAOTING
    assert make_bot("heuristic").choose(view) == Action(0, ActionKind.DISCARD, parse_tiles("9s")[0])


# ---------------------------------------------------------------------- defence


def test_far_from_ready_it_does_not_buy_live_tiles_with_a_slower_hand() -> None:
    """Defence may give up a step of shanten for safety, but never for live-tile count: a
    slower hand always has more tiles that speed it up."""
    view = view_of(
        ["1468m25579p23689s", "123m456m789m123p4s", None, None],
        turn=0,
        drawn=True,
        discards=["1p1p2p", "1s1m3p3p", "7s7s6s6s4p", "8p8p7m7m3m"],
    )
    evaluator = HandEvaluator(to_counts(view.hand))
    after = evaluator.discard_shanten()
    action = make_bot("heuristic").choose(view)
    assert action.tile is not None
    assert after[action.tile] == min(after.values())


def test_avoids_feeding_a_baoting_player_when_far_from_ready() -> None:
    """R26: a 報聽 player's discards after declaring cannot be its waits. Far from ready late
    in the hand, the heuristic bot throws such a safe tile rather than a live one it would
    otherwise choose."""
    hands: list[str | None] = ["1468m25579p23689s", "123m456m789m123p4s", None, None]
    options: dict[str, Any] = {
        "turn": 0,
        "drawn": True,
        "discards": ["1p1p2p", "1s6s3p3p", "7s7s1m6s4p", "8p8p7m7m3m"],
    }
    calm = view_of(hands, **options)
    alarmed = view_of(hands, baoting=[False, True, False, False], **options)
    bot = HeuristicBot()
    plain = bot.choose(calm)
    careful = bot.choose(alarmed)
    assert careful.tile is not None and plain.tile is not None
    river = alarmed.rivers[1]
    unseen = unseen_counts(alarmed.visible_counts())
    assert bot._danger(alarmed, careful.tile, unseen) < bot._danger(alarmed, plain.tile, unseen)
    assert careful.tile in river[1:]
    assert plain.tile != careful.tile


# ---------------------------------------------------------------------- pattern steering


def test_keeps_pairs_among_equally_fast_discards() -> None:
    """Pairs lead to pongs and kongs (R12 beans), 七對 and 對對胡 (R20: 6 and 3 fan, both may
    win on a discard without a bean, R17). 6688m234489p3489s: discarding 4p or 8p leaves the
    same shanten; the efficient bot breaks the 44p pair for a few more live tiles, the strong
    bot keeps three pairs."""
    view = view_of(["6688m234489p3489s", None, None, None])
    strong = make_bot("heuristic").choose(view)
    efficient = make_bot("efficient").choose(view)
    after = HandEvaluator(to_counts(view.hand)).discard_shanten()
    assert strong.tile is not None and efficient.tile is not None
    assert after[strong.tile] == after[efficient.tile]
    kept = to_counts(view.hand)
    kept[strong.tile] -= 1
    broken = to_counts(view.hand)
    broken[efficient.tile] -= 1
    assert qidui_shanten(kept, 0) < qidui_shanten(broken, 0)
