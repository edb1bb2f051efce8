"""The search bot (issue 23 item 3): determinized rollouts over the strong bot's close
options, offered as 大師. It plays legal moves to the end of hands, is deterministic given its
seed, spends no search on decisions without a choice, and runs in self-play processes."""

from __future__ import annotations

import random
from dataclasses import replace

from duyun.bots import make_bot
from duyun.bots.search import SearchBot, fast_action, rollout
from duyun.bots.strong import StrongBot
from duyun.engine import ActionKind, new_round
from duyun.sim import SimConfig, Summary, run


def play_hand(seed: int, search_seat: int = 0) -> tuple[list[str], SearchBot]:
    game = new_round(seed)
    bot = SearchBot(seed)
    others = [make_bot("efficient", seat) for seat in range(4)]
    taken = []
    while not game.is_over:
        seat = game.to_act[0]
        view = game.view(seat)
        action = (bot if seat == search_seat else others[seat]).choose(view)
        assert action in view.legal
        taken.append(str(action))
        game.apply(action)
    return taken, bot


def test_the_search_bot_plays_hands_to_the_end_and_searches_close_decisions() -> None:
    taken, bot = play_hand(3)
    assert taken and bot.searched > 0


def test_the_search_bot_is_deterministic_given_its_seed() -> None:
    assert play_hand(5)[0] == play_hand(5)[0]


def test_a_single_option_and_a_win_are_not_searched() -> None:
    game = new_round(2)
    rng = random.Random(2)
    bot = SearchBot(1)
    players = [make_bot("efficient", seat) for seat in range(4)]
    seen_win = seen_single = False
    for _ in range(1500):
        if game.is_over:
            game = new_round(rng.randrange(10**6))
        seat = game.to_act[0]
        view = game.view(seat)
        legal = view.legal
        wins = [a for a in legal if a.kind is ActionKind.HU]
        if len(legal) == 1 or wins:
            before = bot.searched
            choice = bot.choose(view)
            assert bot.searched == before
            assert choice == (wins[0] if wins else legal[0])
            seen_win |= bool(wins)
            seen_single |= len(legal) == 1
        game.apply(players[seat].choose(view))
    assert seen_win


def test_candidates_start_with_the_strong_bots_choice() -> None:
    game = new_round(8)
    view = game.view(game.to_act[0])
    advice = StrongBot(0).choose(view)
    candidates = SearchBot(0).candidates(view, advice)
    assert candidates[0] == advice
    assert len(set(candidates)) == len(candidates) and all(c in view.legal for c in candidates)


def test_the_rollout_policy_finishes_any_position_legally() -> None:
    for seed in range(20):
        game = new_round(seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(60)):
            if game.is_over:
                break
            seat = game.to_act[0]
            assert fast_action(game, seat) in game.legal_actions(seat)
            legal = game.legal_actions(seat)
            game.apply(legal[rng.randrange(len(legal))])
        if not game.is_over:
            points = rollout(game, 0)
            assert game.is_over and game.result is not None
            assert points == game.result.totals[0]


def test_self_play_runs_the_search_bot_in_worker_processes() -> None:
    config = SimConfig(bots=("search", "efficient", "efficient", "efficient"), units=2, seed=4)
    summary = Summary.empty(config.bots)
    for records in run(config, workers=2):
        summary.add_unit(records)
    assert summary.hands == 2


def test_a_search_that_cannot_sample_plays_the_strong_bots_choice() -> None:
    """A view the sampler cannot complete (here: corrupted to show five copies of a tile) must
    not stop the game: the bot plays the strong bot's choice and counts the failure."""
    game = new_round(8)
    view = game.view(game.to_act[0])
    broken = replace(view, rivers=((0, 0, 0, 0, 0), (), (), ()))
    bot = SearchBot(0)
    action = bot.choose(broken)
    assert action in view.legal and bot.failed == 1
