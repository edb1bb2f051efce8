"""The strong bot (issue 11): decisions by expected value, defence, difficulty levels.

Positions are set up through the engine's scenarios (:mod:`scenario_helpers`), so the bot sees
exactly the :class:`SeatView` a game would give it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from duyun.bots import (
    BOT_NAMES,
    DIFFICULTIES,
    DIFFICULTY_LEVELS,
    bot_for_difficulty,
    make_bot,
)
from duyun.bots.evaluation import HandEvaluator, unseen_counts
from duyun.bots.expectation import bean_chances
from duyun.bots.strong import StrongBot
from duyun.engine import Action, ActionKind, SeatView
from duyun.hand import Meld, MeldKind
from duyun.tiles import parse_tiles, to_counts
from scenario_helpers import play


def view_of(hands: list[str | None], actions: list[str] | None = None, **options: Any) -> SeatView:
    game, _ = play(hands, actions or [], **options)
    return game.view(game.to_act[0])


def tile(text: str) -> int:
    return parse_tiles(text)[0]


# ---------------------------------------------------------------------- difficulty levels


def test_difficulties_map_levels_to_bots_in_increasing_strength() -> None:
    assert DIFFICULTIES == {
        "easy": "random",
        "normal": "efficient",
        "hard": "heuristic",
        "expert": "strong",
        "master": "search",
    }
    labels = [level.label_zh for level in DIFFICULTY_LEVELS]
    assert labels == ["簡單", "普通", "困難", "高手", "大師"]
    assert set(DIFFICULTIES.values()) == set(BOT_NAMES)
    assert bot_for_difficulty("expert", seed=3).name == "strong"  # the old level still works
    assert bot_for_difficulty("master", seed=3).name == "search"
    with pytest.raises(ValueError, match="known levels: easy, normal, hard, expert, master"):
        bot_for_difficulty("grandmaster")


# ---------------------------------------------------------------------- expected value


def test_one_shanten_discard_by_exact_two_draw_value() -> None:
    """One step from ready, the bot weighs each discard by the ready hands its useful draws
    lead to. Its choice is never worse, by its own exact reading, than the efficient bot's."""
    view = view_of(
        ["1123m45p789p23467s", None, None, None], drawn=True, discards=["9s", "", "", ""]
    )
    bot = StrongBot()
    counts = to_counts(view.hand)
    evaluator = HandEvaluator(counts)
    after = evaluator.discard_shanten()
    assert min(after.values()) == 1
    unseen = unseen_counts(view.visible_counts())
    threats = bot._threats(view, unseen)
    table = bot._table(view, unseen, threats)

    def value(discard: int) -> float:
        counts[discard] -= 1
        outcome = bot._hand_value(table, counts, (), unseen, {})
        counts[discard] += 1
        return outcome.value - bot._feed_cost(view, discard, threats, unseen, outcome.value)

    chosen = bot.choose(view)
    efficient = make_bot("efficient").choose(view)
    assert chosen.tile is not None and efficient.tile is not None
    assert value(chosen.tile) >= value(efficient.tile)
    assert after[chosen.tile] <= 2


def test_prefers_the_pattern_wait_that_wins_on_discards_r17_r20() -> None:
    """111m222p333s55667m without a bean: waiting 5m/8m (平胡) can only be self-drawn (R17);
    discarding 7m waits on 5m/6m as 對對胡 (3 fan, wins off any discard). The strong bot's
    values say so and it takes the pattern wait; the efficient bot does not."""
    view = view_of(
        ["111m222p333s55667m", None, None, None], drawn=True, discards=["9s", "", "", ""]
    )
    assert not view.has_bean[0]
    action = make_bot("strong").choose(view)
    assert action.tile == tile("7m")
    assert make_bot("efficient").choose(view).tile != action.tile


BAOTING_HAND = "13m456p789p234s55s9s"  # discard 9s: ready on the 2m kanchan


def test_baoting_by_expected_value_r21_r25_r26() -> None:
    """Four live 2m: +6 fan on every payment is worth the frozen hand. With three 2m gone the
    same declaration would mostly pay +6 on others' wins (R21) with a hand that can no longer
    change (R26): the bot does not declare (the efficient bot does)."""
    live = view_of([BAOTING_HAND, None, None, None], dealer=3, turn=0, drawn=True)
    assert make_bot("strong").choose(live) == Action(0, ActionKind.BAOTING, tile("9s"))
    dead = view_of(
        [BAOTING_HAND, None, None, None],
        dealer=3,
        turn=0,
        drawn=True,
        discards=["", "2m", "2m", "2m"],
    )
    assert make_bot("efficient").choose(dead).kind is ActionKind.BAOTING
    assert make_bot("strong").choose(dead).kind is ActionKind.DISCARD


KONG_HAND = "34555567m19p1357s"  # 5555m: the kong breaks the 345/567 runs


def test_kong_bean_is_discounted_by_huangdou_risk_r12_r14() -> None:
    """A concealed kong pays 2 fan by each of three players (R12), returned if the hand ends
    in a draw not ready (黃豆, R14). Early the bean is worth the slower hand and the bot
    kongs. With four tiles left the same kong is valued below its full income on top of the
    hand after it: the chain's chance of reaching the draw not ready takes its share."""
    early = view_of([KONG_HAND, None, None, None], drawn=True, discards=["2s", "", "", ""])
    assert make_bot("strong").choose(early).kind is ActionKind.CONCEALED_KONG

    late = view_of(
        [KONG_HAND, None, None, None],
        wall="1p2p3p4p",
        fill=False,
        drawn=True,
        discards=["2s", "", "", ""],
    )
    assert late.wall_remaining == 4
    bot = StrongBot()
    unseen = unseen_counts(late.visible_counts())
    threats = bot._threats(late, unseen)
    table = bot._table(late, unseen, threats)
    counts = to_counts(late.hand)
    counts[tile("5m")] -= 4
    melds = (Meld(MeldKind.CONCEALED_KONG, tile("5m")),)
    income = 6.0
    with_kong = bot._kong_ev(late, counts, melds, unseen, threats, table, income)
    no_income = bot._kong_ev(late, counts, melds, unseen, threats, table, 0.0)
    assert 0.0 < with_kong - no_income < income


TRIPLET_HAND = "22466m6688p11147s"  # 111s or the 2m/4m/6m shape: equally fast discards


class _NoKongsToCome(StrongBot):
    KONG_POTENTIAL = False


def test_keeps_a_triplet_whose_fourth_tile_is_live_r12_r15_r17() -> None:
    """Two steps from ready, discarding a 1s (111s becomes a pair) or the 4m is equally fast.
    By its wins alone the chain prefers giving up the triplet; the kong it may become (暗槓:
    6 fan, 直槓: 1, R12, and a bean that lets 平胡 win on discards, R15, R17) makes the bot
    keep it. When the fourth 1s is visible no kong can come, and the bot plays as before."""
    live = view_of([TRIPLET_HAND, None, None, None], drawn=True, discards=["9s", "", "", ""])
    assert _NoKongsToCome().choose(live).tile == tile("1s")
    assert StrongBot().choose(live) == Action(0, ActionKind.DISCARD, tile("4m"))
    dead = view_of([TRIPLET_HAND, None, None, None], drawn=True, discards=["9s", "1s", "", ""])
    assert StrongBot().choose(dead).tile == _NoKongsToCome().choose(dead).tile == tile("1s")


def test_hand_value_adds_the_kongs_to_come_r12_r14() -> None:
    """The value of a hand holding 111s with the fourth live is its routes' value plus the
    expected bean income kept at the draw (黃豆 R14 takes it back when not ready) plus half
    of what a bean adds to the hand, per expected kong (R15, R17)."""
    view = view_of([TRIPLET_HAND, None, None, None], drawn=True, discards=["9s", "", "", ""])
    bot = StrongBot()
    unseen = unseen_counts(view.visible_counts())
    table = bot._table(view, unseen, bot._threats(view, unseen))
    counts = to_counts(view.hand)
    counts[tile("4m")] -= 1
    routes = bot._routes_value(table, counts, (), unseen, {})
    beans = bean_chances(table, counts, (), unseen, routes.draws)
    assert beans.chance > 0.0
    bean_table = replace(table, has_bean=True)
    unlock = bot._routes_value(bean_table, counts, (), unseen, {}).value - routes.value
    expected = routes.value + beans.income * (1.0 - routes.p_unready_at_draw)
    expected += min(1.0, beans.chance) * max(0.0, unlock) * bot.KONG_UNLOCK_SHARE
    assert bot._hand_value(table, counts, (), unseen, {}).value == pytest.approx(expected)
    declared = replace(table, baoting=True)  # R26: no kongs after 報聽
    frozen = bot._routes_value(declared, counts, (), unseen, {}).value
    assert bot._hand_value(declared, counts, (), unseen, {}).value == frozen


# ---------------------------------------------------------------------- defence


DEFENCE: dict[str, Any] = {
    "turn": 0,
    "drawn": True,
    "discards": ["1p1p2p", "1s6s3p3p", "7s7s1m6s4p", "8p8p7m7m3m"],
}
DEFENCE_HANDS: list[str | None] = ["1468m25579p23689s", "123m456m789m123p4s", None, None]


def test_a_baoting_player_raises_the_feeding_cost_except_on_its_later_discards_r26() -> None:
    """報聽 tells the table the player is ready: every tile it could wait on costs more to
    discard, by +6 fan (R21) on top; its discards after declaring cannot be waits (R26), so
    they cost nothing on its account."""
    calm = view_of(DEFENCE_HANDS, **DEFENCE)
    alarmed = view_of(DEFENCE_HANDS, baoting=[False, True, False, False], **DEFENCE)
    bot = StrongBot()
    unseen = unseen_counts(alarmed.visible_counts())
    calm_threats = bot._threats(calm, unseen)
    alarmed_threats = bot._threats(alarmed, unseen)
    assert alarmed_threats[0].ready == 1.0 > calm_threats[0].ready
    assert alarmed_threats[0].cost >= calm_threats[0].cost + 6
    live = tile("5p")
    assert bot._feed_cost(alarmed, live, alarmed_threats[:1], unseen, 0.0) > bot._feed_cost(
        calm, live, calm_threats[:1], unseen, 0.0
    )
    for safe in alarmed.rivers[1][1:]:
        assert bot._feed_cost(alarmed, safe, alarmed_threats[:1], unseen, 0.0) == 0.0


class _Blind(StrongBot):
    """The strong bot with its defence switched off: no tile is a wait of anybody's."""

    WAIT_SHARE = 0.0


def test_defence_changes_the_discard_against_a_ready_bean_holder_r17() -> None:
    """Mid-hand, far from ready, against an opponent whose kongs (a bean: its 平胡 may win on
    any discard, R17) and pong show a hand close to ready: weighing the cost of feeding moves
    the bot off the tile its hand value alone prefers, to one that costs less to throw."""
    hands: list[str | None] = [
        "1468m25579p23689s",
        "5p1m7s8m [2222m] [4444s] [333p]",
        None,
        None,
    ]
    view = view_of(
        hands,
        turn=0,
        drawn=True,
        discards=["1p1p2p9m1p", "1s3s9m9s", "7s7s1m4p9m9s", "8p8p7m7m3m9m8p"],
    )
    assert view.has_bean[1] and view.wall_remaining < 40
    bot = StrongBot()
    unseen = unseen_counts(view.visible_counts())
    careful = bot.choose(view)
    threats = bot._threats(view, unseen)  # after choose: it has seen the fresh pong
    assert max(t.ready * t.allowed for t in threats) >= bot.FOLD_THREAT
    blind = _Blind().choose(view)
    assert careful.tile is not None and blind.tile is not None
    assert careful.tile != blind.tile
    cost = bot._feed_cost(view, careful.tile, threats, unseen, 0.0)
    assert cost < bot._feed_cost(view, blind.tile, threats, unseen, 0.0)


def test_without_a_bean_a_pung_hand_is_a_small_threat_on_discards_r15_r17() -> None:
    """The same opponent with pongs instead of kongs has no bean (R15): its 平胡 waits cannot
    win on our discard (R17), only a 對對胡 could. Such melds are mostly chance, not a pattern
    being built (measured: benchmarks/calibrate_strong.py), so the permission read for it is
    a small fraction of a bean holder's and feeding it costs as much less."""
    discards = ["1p1p2p9m1p", "1s3s9m9s", "7s7s1m4p9m9s", "8p8p7m7m3m9m8p"]
    beans: list[str | None] = ["1468m25579p23689s", "5p1m7s8m [2222m] [4444s] [333p]", None, None]
    pungs: list[str | None] = ["1468m25579p23689s", "5p1m7s8m [222m] [444s] [333p]", None, None]
    with_bean = view_of(beans, turn=0, drawn=True, discards=discards)
    without = view_of(pungs, turn=0, drawn=True, discards=discards)
    assert with_bean.has_bean[1] and not without.has_bean[1]
    bot = StrongBot()
    bean_threat = bot._threats(with_bean, unseen_counts(with_bean.visible_counts()))[0]
    unseen = unseen_counts(without.visible_counts())
    pung_threat = bot._threats(without, unseen)[0]
    assert bean_threat.allowed == 1.0
    assert pung_threat.allowed == bot.ALLOWED_PUNGS < 0.2
    assert pung_threat.ready * pung_threat.allowed < bot.FOLD_THREAT
    live = tile("5p")
    cost_pungs = bot._feed_cost(without, live, [pung_threat], unseen, 0.0)
    cost_bean = bot._feed_cost(without, live, [replace(pung_threat, allowed=1.0)], unseen, 0.0)
    assert 0.0 < cost_pungs < 0.2 * cost_bean


def test_a_fresh_pong_raises_the_ponger_readiness_and_memory_resets_per_hand() -> None:
    """A pong on the tile just discarded is usually made to get ready: for two rounds after
    it, the bot reads that opponent as likelier ready than a bot that did not see it happen.
    The memory holds only what earlier views of this hand showed."""
    from duyun.engine import new_round

    bot = StrongBot()
    seen_fresh = 0
    for index in range(6):
        game = new_round(4_000 + index, dealer=index % 4)
        others = [make_bot("efficient") for _ in range(4)]
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            if seat != 0:
                game.apply(others[seat].choose(view))
                continue
            action = bot.choose(view)
            unseen = unseen_counts(view.visible_counts())
            remembered = {t.seat: t.ready for t in bot._threats(view, unseen)}
            blank = {t.seat: t.ready for t in StrongBot()._threats(view, unseen)}
            for other, wall in bot._fresh_pong.items():
                if view.wall_remaining >= wall - 8 and not view.baoting[other]:
                    seen_fresh += 1
                    # (readiness is capped at 0.97: a pong cannot raise it past that)
                    assert remembered[other] > blank[other] or blank[other] >= 0.97
                assert any(m.kind.value == "pong" for m in view.melds[other])
            game.apply(action)
    assert seen_fresh > 0
