"""Bots (issue #4): the protocol, legality over many hands, determinism, the fast evaluator."""

from __future__ import annotations

import random

import pytest

from duyun.analysis import shanten, useful_tiles
from duyun.bots import BOT_NAMES, Bot, make_bot
from duyun.bots.evaluation import HandEvaluator, unseen_counts
from duyun.engine import Action, ActionKind, Round, new_round
from duyun.hand import Hand
from duyun.tiles import full_set, to_counts


def play(game: Round, bots: list[Bot]) -> list[Action]:
    """Drive a hand, checking every chosen action is legal and that bots only get views."""
    chosen: list[Action] = []
    while not game.is_over:
        seat = game.to_act[0]
        view = game.view(seat)
        action = bots[seat].choose(view)
        assert action in view.legal, f"{bots[seat].name} chose illegal {action}"
        chosen.append(action)
        game.apply(action)
    return chosen


def test_make_bot_knows_every_name_and_rejects_others() -> None:
    for name in BOT_NAMES:
        bot = make_bot(name, seed=3)
        assert isinstance(bot, Bot)
        assert bot.name == name
    with pytest.raises(ValueError, match="known bots: random, efficient, heuristic, strong"):
        make_bot("alphazero")


@pytest.mark.parametrize("name", BOT_NAMES)
def test_every_action_is_legal_over_many_hands(name: str) -> None:
    """Each bot at every seat against the random fuzzer, so odd positions come up (R5-R26).
    The search bot (a few hundred rollouts a decision) plays a third of the hands."""
    for index in range(4 if name == "search" else 12):
        names = ["random"] * 4
        names[index % 4] = name
        names[(index + 1) % 4] = name
        bots = [make_bot(n, seed=index * 4 + seat) for seat, n in enumerate(names)]
        game = new_round(1000 + index, dealer=index % 4, streak=index % 3)
        play(game, bots)
        assert game.result is not None
        assert sum(game.result.totals) == 0  # R41


@pytest.mark.parametrize("name", BOT_NAMES)
def test_bots_are_deterministic_given_a_seed(name: str) -> None:
    def actions(seed: int) -> list[Action]:
        bots = [make_bot(name, seed=seed + seat) for seat in range(4)]
        return play(new_round(77), bots)

    assert actions(5) == actions(5)


def test_random_bot_seed_changes_its_play() -> None:
    def actions(seed: int) -> list[Action]:
        return play(new_round(77), [make_bot("random", seed=seed + s) for s in range(4)])

    assert actions(1) != actions(2)


def test_efficient_bot_wins_when_offered() -> None:
    """R16: the engine offers HU only when allowed; both real bots take it."""
    for name in ("efficient", "heuristic", "strong"):
        bots = [make_bot(name) for _ in range(4)]
        for seed in range(6):
            game = new_round(seed)
            while not game.is_over:
                seat = game.to_act[0]
                view = game.view(seat)
                action = bots[seat].choose(view)
                if Action(seat, ActionKind.HU) in view.legal:
                    assert action.kind is ActionKind.HU
                game.apply(action)


def test_efficient_discard_keeps_the_hand_ready() -> None:
    """Holding the ready 2344567p345789s plus 1m, discarding the lone 1m keeps it ready."""
    hand = Hand.parse("1m2344567p345789s")
    counts = hand.counts()
    evaluator = HandEvaluator(counts)
    after = evaluator.discard_shanten()
    assert after[0] == 0  # R11: 2344567p345789s waits on 1p, 4p, 7p
    assert min(after.values()) == 0


def _random_hand(rng: random.Random, size: int) -> list[int]:
    tiles = full_set()
    rng.shuffle(tiles)
    return to_counts(tiles[:size])


@pytest.mark.parametrize("size", [13, 10, 7, 4])
def test_evaluator_matches_analysis_shanten_and_useful_tiles(size: int) -> None:
    """The bots' one-suit evaluator agrees exactly with duyun.analysis (R10, R11)."""
    rng = random.Random(size)
    for _ in range(150):
        counts = _random_hand(rng, size + 1)
        evaluator = HandEvaluator(counts)
        assert evaluator.shanten() == shanten(counts)
        visible = [min(4, c + rng.randrange(2)) for c in counts]
        unseen = unseen_counts(visible)
        for tile, value in evaluator.discard_shanten().items():
            counts[tile] -= 1
            assert value == shanten(counts)
            expected = useful_tiles(counts, visible)
            base, live = evaluator.useful_after_discard(tile, unseen)
            assert base == value
            assert live == sum(expected.values())
            assert HandEvaluator(counts).useful_tiles(unseen) == expected
            counts[tile] += 1


def test_strong_bot_declares_baoting_on_a_live_ready_first_discard() -> None:
    """R25: the dealer is dealt 2344567p345789s + 1m, ready after 1m: strong declares 報聽."""
    from duyun.engine import Round, deal_setup

    hand = Hand.parse("1m2344567p345789s")
    rest = list(full_set())
    for tile in hand.concealed:
        rest.remove(tile)
    rng = random.Random(0)
    rng.shuffle(rest)
    game = Round(deal_setup(wall_order=[*hand.concealed, *rest]))
    view = game.view(0)
    action = make_bot("strong").choose(view)
    assert action.kind is ActionKind.BAOTING
    counts = to_counts(view.hand)
    assert action.tile is not None
    counts[action.tile] -= 1
    assert shanten(counts) == 0
