"""The search bot (issue 23 item 3): determinized rollouts over the strong bot's close
options, offered as 大師. It plays legal moves to the end of hands, is deterministic given its
seed, spends no search on decisions without a choice, and runs in self-play processes."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from duyun.analysis.shanten import shanten_standard
from duyun.bots import bot_for_difficulty, make_bot
from duyun.bots.rollout import (
    ROUTE_FAST,
    ROUTE_FLUSH,
    ROUTE_PAIRS,
    ROUTE_PUNGS,
    fast_action,
    hand_route,
    keep_score,
    pungs_shanten,
    rollout,
    unseen_by,
)
from duyun.bots.search import SearchBot
from duyun.bots.strong import StrongBot
from duyun.engine import ActionKind, SeatView, new_round, sample_round
from duyun.rules import DUYUN
from duyun.sim import SimConfig, Summary, run
from duyun.sim.runner import _bots_for
from duyun.tiles import full_set, parse_tiles, to_counts
from scenario_helpers import setup_game


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


def test_the_bot_reads_only_its_view_not_the_hidden_tiles() -> None:
    """Two hands that look the same from the bot's seat (the second dealt by the sampler from
    the first one's view: other hands and wall differ) get the same choices from bots with
    the same seed, searched decisions included: nothing behind the view reaches the bot."""
    rng = random.Random(11)
    searched = 0
    for seed in range(6):
        game = new_round(seed)
        others = [make_bot("efficient", seat) for seat in range(4)]
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            if seat == 0 and len(view.legal) > 1:
                twin = sample_round(view, rng=rng)
                assert twin.view(0) == view
                first, second = SearchBot(seed), SearchBot(seed)
                assert first.choose(view) == second.choose(twin.view(0))
                searched += first.searched
            game.apply(others[seat].choose(view))
        if searched >= 3:
            break
    assert searched >= 3


def test_the_race_stays_within_its_budget_and_stops_early_when_the_advice_dominates() -> None:
    """No searched decision plays more than BUDGET rollouts; decisions where the strong
    bot's choice is clearly best leave the race after a batch or two, so the mean is well
    below it (the unused budget is what the close decisions get)."""
    _, bot = play_hand(3)
    assert bot.searched > 0
    assert bot.rollouts <= bot.searched * SearchBot.BUDGET
    assert bot.rollouts < 0.8 * bot.searched * SearchBot.BUDGET


def test_the_rooms_rules_reach_the_search_bot() -> None:
    """make_bot passes the room's RuleSet to the search bot (a 血戰 room, R52-R53: its
    rollouts must go on after the first win), and self-play passes its configuration's."""
    bloody = replace(DUYUN, bloody_battle=True)
    bot = make_bot("search", 1, bloody)
    assert isinstance(bot, SearchBot) and bot.rules is bloody
    master = bot_for_difficulty("master", 1, bloody)
    assert isinstance(master, SearchBot) and master.rules is bloody
    assert make_bot("strong", 1, bloody).name == "strong"  # the others ignore it
    config = SimConfig(("search", "efficient", "efficient", "efficient"), 1, rules=bloody)
    searchers = [b for b in _bots_for(config, 0, 0) if isinstance(b, SearchBot)]
    assert len(searchers) == 1 and searchers[0].rules is bloody


def close_decisions(count: int) -> list[tuple[SeatView, SearchBot]]:
    """Views of seat 0 that a search bot searches, each with a fresh bot of the same seed
    that has seen the hand's earlier views (the strong bot keeps a memory of the hand)."""
    found: list[tuple[SeatView, SearchBot]] = []
    for seed in range(20):
        game = new_round(seed)
        others = [make_bot("efficient", seat) for seat in range(4)]
        while not game.is_over and len(found) < count:
            seat = game.to_act[0]
            view = game.view(seat)
            if seat == 0:
                probe = SearchBot(seed)
                advice = probe.strong.choose(view)
                no_win = all(a.kind is not ActionKind.HU for a in view.legal)
                if no_win and len(probe.candidates(view, advice)) >= 2:
                    found.append((view, SearchBot(seed)))
            game.apply(others[seat].choose(view))
        if len(found) >= count:
            break
    return found


def test_without_discard_search_only_kongs_baoting_and_claims_are_weighed() -> None:
    """SEARCH_DISCARDS off (an experiment's switch): a turn's candidates are the strong bot's
    choice, declining its 報聽 (R25) and the legal kongs and 報聽; no other plain discard."""
    for view, bot in close_decisions(8):
        bot.SEARCH_DISCARDS = False
        advice = bot.strong.choose(view)
        candidates = bot.candidates(view, advice)
        assert candidates[0] == advice
        if view.claim_tile is not None:
            assert set(candidates) == set(view.legal)
            continue
        for action in candidates[1:]:
            declined = advice.kind is ActionKind.BAOTING and action.tile == advice.tile
            assert action.kind is not ActionKind.DISCARD or declined


class TickingClock:
    """A clock that moves on by one each time it is read: a deadline of N lets the search
    read it N times, whatever the machine's speed."""

    def __init__(self) -> None:
        self.now = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += 1.0
        return self.now


def test_a_search_stops_at_its_deadline_and_decides_on_the_samples_it_has() -> None:
    """Issue 23 (the timing tell): at a table the search must end by the end of the bot's
    think time. With a deadline the race stops before the first sampled hand after it, so
    each search plays out at most the hands started before the deadline; a deadline already
    past plays none and the strong bot's choice stands."""
    for view, bot in close_decisions(6):
        clock = TickingClock()
        bot.clock = clock
        advice = StrongBot(bot.seed).choose(view)
        # deadline 3: the clock reads 1 and 2 before two samples, 3 stops the race
        choice = bot.choose(view, deadline=3.0)
        assert choice in view.legal
        assert bot.cut == 1 and clock.reads == 3
        candidates = len(bot.candidates(view, advice))
        assert 0 < bot.rollouts <= 2 * candidates
        late = SearchBot(bot.seed)
        late.clock = TickingClock()
        assert late.choose(view, deadline=0.0) == advice
        assert late.rollouts == 0 and late.cut == 1


def test_a_far_deadline_changes_nothing() -> None:
    """A deadline the search never reaches gives the same choices and rollouts as none: the
    deterministic bot of self-play is the table's bot when the machine keeps up."""
    for view, bot in close_decisions(4):
        twin = SearchBot(bot.seed)
        assert bot.choose(view, deadline=float("inf")) == twin.choose(view)
        assert bot.rollouts == twin.rollouts > 0 and bot.cut == 0


def test_a_twin_plays_as_its_bot_and_keeps_what_it_sees_to_itself() -> None:
    """SearchBot.fork (a table's search begun before it knows the turn comes): a twin taken
    mid-hand chooses as its bot would from there on, and what a twin is shown (here a view
    of another hand, which resets the strong bot's memory and moves its random numbers)
    never reaches the bot: it plays on exactly as a bot of its seed that was never forked."""
    game = new_round(11)
    bot, never_forked = SearchBot(11), SearchBot(11)
    bot.BUDGET = never_forked.BUDGET = 48  # (a twin takes its bot's; a short test)
    others = [make_bot("efficient", seat) for seat in range(4)]
    stray = next(
        view
        for view in (new_round(12).view(seat) for seat in range(4))
        if len(bot.candidates(view, StrongBot(12).choose(view))) >= 2
    )
    turns = 0
    twin: SearchBot | None = None
    while not game.is_over:
        seat = game.to_act[0]
        view = game.view(seat)
        if seat != 0:
            game.apply(others[seat].choose(view))
            continue
        turns += 1
        if turns == 4:
            twin = bot.fork()
            bot.fork().choose(stray)  # a hypothesis that failed
        chosen = bot.choose(view)
        assert never_forked.choose(view) == chosen
        if twin is not None:
            assert twin.choose(view) == chosen
        game.apply(chosen)
    assert twin is not None and bot.searched > 0 and twin.searched > 0
    assert bot.rollouts == never_forked.rollouts
    assert bot.rng.getstate() == never_forked.rng.getstate()


def test_a_stopped_search_ends_at_once_with_the_strong_bots_choice() -> None:
    """SearchBot.stop (a twin thinking for a turn that did not come, in a thread the table
    wants back): the race ends before its next sampled hand, as at a deadline, and the strong
    bot's choice stands."""
    for view, bot in close_decisions(3):
        bot.stop()
        advice = StrongBot(bot.seed).choose(view)
        assert bot.choose(view, deadline=float("inf")) == advice
        assert bot.rollouts == 0 and bot.cut == 1


# ---------------------------------------------------------------------- the rollout policy


def test_keep_score_values_pairs_and_neighbours_over_isolated_tiles() -> None:
    counts = to_counts(parse_tiles("1m55m78p9s"))
    one_m, five_m, seven_p, nine_s = parse_tiles("1m5m7p9s")
    assert keep_score(counts, five_m, -1) > keep_score(counts, one_m, -1)
    assert keep_score(counts, seven_p, -1) > keep_score(counts, nine_s, -1)
    assert keep_score(counts, one_m, -1) == keep_score(counts, nine_s, -1) == 0
    assert keep_score(counts, seven_p, 0) < keep_score(counts, one_m, 0)  # off a manzu flush


def test_the_value_aware_rollout_keeps_a_flush_suit_r20() -> None:
    """Ten manzu of fourteen: among the discards that keep the shanten, the value-aware
    policy lets an off-suit tile go (清一色, 6 fan), where plain efficiency breaks the suit."""
    game = setup_game(["1455578999m8p457s", None, None, None], dealer=0, drawn=True)
    assert fast_action(game, 0).tile == parse_tiles("1m")[0]
    assert fast_action(game, 0, value_aware=True).tile == parse_tiles("8p")[0]


def test_the_value_aware_rollout_stays_off_a_baoting_hand_when_far_from_ready_r26() -> None:
    """Seat 1 declared 報聽 and then let 9s pass (R26: not among its waits). Seat 0, two or
    more steps from ready, discards that safe 9s rather than its least useful tile."""
    game = setup_game(
        ["1357m24689p13579s", "123m456m789m123p5p", None, None],
        dealer=0,
        drawn=True,
        baoting=[False, True, False, False],
        discards=["", "1s9s", "", ""],
    )
    nine_s = parse_tiles("9s")[0]
    assert fast_action(game, 0).tile != nine_s
    assert fast_action(game, 0, value_aware=True).tile == nine_s


def test_the_sharp_rollout_makes_a_kong_that_costs_one_step_but_not_two_r12_r15() -> None:
    """A bean is paid at once (R12) and lets a 平胡 win on a discard (R15, R17): the sharp
    own seat makes a concealed kong that leaves its hand one step further from ready, where
    the efficient rules make a kong only when it costs nothing; a kong that costs two steps
    it leaves too."""
    one_step = setup_game(["558m44789999p336s", None, None, None], dealer=0, drawn=True)
    kong = fast_action(one_step, 0, value_aware=True, sharp=True)
    assert kong.kind is ActionKind.CONCEALED_KONG and kong.tile == parse_tiles("9p")[0]
    assert fast_action(one_step, 0, value_aware=True).kind is ActionKind.DISCARD
    two_steps = setup_game(["2222336m223788p5s", None, None, None], dealer=0, drawn=True)
    assert any(a.kind is ActionKind.CONCEALED_KONG for a in two_steps.legal_actions(0))
    assert fast_action(two_steps, 0, value_aware=True, sharp=True).kind is ActionKind.DISCARD


def test_the_sharp_rollout_keeps_the_wait_with_more_live_tiles_r10_r20() -> None:
    """Six pairs and 78s: either single goes for a 七對 wait (6 fan, R10, R20) on the other.
    Two 7s lie in a river, so a 7s wait has one live copy and an 8s wait three: the sharp own
    seat lets 7s go, where the efficient rules' shape score lets 8s go."""
    game = setup_game(
        ["123m123m44p55p66s78s", None, None, None],
        dealer=0,
        drawn=True,
        discards=["", "7s7s", "", ""],
    )
    seven_s, eight_s = parse_tiles("7s8s")
    assert fast_action(game, 0, value_aware=True).tile == eight_s
    assert fast_action(game, 0, value_aware=True, sharp=True).tile == seven_s
    assert unseen_by(game, 0)[seven_s] == 1 and unseen_by(game, 0)[eight_s] == 3


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), bloody=st.booleans())
def test_the_sharp_rollouts_unseen_count_is_the_views_r53(seed: int, bloody: bool) -> None:
    """What the sharp own seat counts as live at its turn is what its view cannot see: its
    hand, every meld and river, and in a 血戰 room the winners' laid-open hands (R53); the
    hand is played by the sharp policy for every seat, so kongs and wins occur."""
    rules = replace(DUYUN, bloody_battle=bloody)
    game = new_round(seed, rules=rules)
    while not game.is_over:
        seat = game.to_act[0]
        if game.claims is None:
            visible = game.view(seat).visible_counts()
            assert unseen_by(game, seat) == [4 - count for count in visible]
        game.apply(fast_action(game, seat, value_aware=True, sharp=True))


# ---------------------------------------------------------------------- pattern routes


def test_the_pungs_reading_counts_sets_pairs_and_the_eye_r20() -> None:
    # the seed's 對對胡 111222444m33399p is complete; without its 9p eye tile it is ready
    assert pungs_shanten(melds=0, pungs=4, pairs=1) == -1
    assert pungs_shanten(melds=0, pungs=4, pairs=0) == 0
    assert pungs_shanten(melds=0, pungs=3, pairs=1) == 1  # 111222m333p99p5s: 9p, then 5s
    assert pungs_shanten(melds=2, pungs=0, pairs=3) == 1  # [111m][222m]33p44p55p6s
    assert pungs_shanten(melds=0, pungs=0, pairs=0) == 8


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 3), st.booleans())
def test_a_pungs_reading_is_never_nearer_than_the_standard_shanten_r10(
    rng: random.Random, melds: int, drawn: bool
) -> None:
    """Every 對對胡 is a standard hand (R10): its reading can only be as far or further.
    (Four of a kind is read as a pung and a single that no tile can pair: left out.)"""
    tiles = full_set()
    rng.shuffle(tiles)
    counts = to_counts(tiles[: 13 - 3 * melds + drawn])
    assume(max(counts) < 4)
    pungs = sum(c >= 3 for c in counts)
    pairs = sum(c == 2 for c in counts)
    assert pungs_shanten(melds, pungs, pairs) >= shanten_standard(counts)


def test_a_hand_steers_to_the_pattern_it_is_close_to_r20() -> None:
    def route(hand: str) -> int:
        return hand_route(setup_game([hand, None, None, None], dealer=0, drawn=True), 0)

    assert route("1455578999m8p457s") == ROUTE_FLUSH  # ten manzu
    assert route("1155m3399p2288s47s") == ROUTE_PAIRS  # six pairs, no meld
    assert route("111m444p77s88s5p [999s]") == ROUTE_PUNGS  # a pong, two pungs, two pairs
    assert route("123m456p789s2468s5m") == ROUTE_FAST


def test_a_seven_pairs_route_lets_a_single_go_and_refuses_pongs_r20() -> None:
    """Five pairs and 2m3m4m: on the 七對 route a single goes, and a pong (which ends 七對,
    R10) is passed where the efficient rules take it (it does not slow the standard hand)."""
    game = setup_game(["1155m3399p22s234m6s", None, None, None], dealer=0, drawn=True)
    chosen = fast_action(game, 0, value_aware=True, routes=True)
    assert chosen.kind is ActionKind.DISCARD and chosen.tile is not None
    assert game.counts[0][chosen.tile] == 1
    claim = setup_game(["1155m3399p22s234m", "5m123456789p1234s", None, None], dealer=1, drawn=True)
    claim.apply(next(a for a in claim.legal_actions(1) if a.tile == parse_tiles("5m")[0]))
    legal = claim.legal_actions(0)
    assert any(a.kind is ActionKind.PONG for a in legal)
    assert fast_action(claim, 0, value_aware=True).kind is not ActionKind.PASS
    assert fast_action(claim, 0, value_aware=True, routes=True).kind is ActionKind.PASS


def test_a_pungs_route_takes_a_pong_r20() -> None:
    """A pong, a concealed pung and three pairs: one step from a 對對胡 (3 fan, R20), which
    wins on a discard without a bean (R17); the route takes the pong of a pair."""
    claim = setup_game(
        ["111m44m77s88s5p [999s]", "4m123456789p1234s", None, None], dealer=1, drawn=True
    )
    four_m = parse_tiles("4m")[0]
    claim.apply(next(a for a in claim.legal_actions(1) if a.tile == four_m))
    assert hand_route(claim, 0) == ROUTE_PUNGS
    taken = fast_action(claim, 0, value_aware=True, routes=True)
    assert taken.kind is ActionKind.PONG and claim.claims is not None
    assert claim.claims.tile == four_m


def test_a_flush_route_lets_off_suit_tiles_go_and_passes_their_pongs_r20() -> None:
    """Ten manzu: an off-suit tile goes, and a pong of an off-suit tile, which would end
    清一色 (R20), is passed where the efficient rules take it (it does not slow the hand)."""
    game = setup_game(["1234567m999m77p13s", None, None, None], dealer=0, drawn=True)
    chosen = fast_action(game, 0, value_aware=True, routes=True)
    assert chosen.tile is not None and chosen.tile // 9 != 0
    claim = setup_game(["1234567m999m77p1s", "7p123456789s1234m", None, None], dealer=1, drawn=True)
    seven_p = parse_tiles("7p")[0]
    claim.apply(next(a for a in claim.legal_actions(1) if a.tile == seven_p))
    assert hand_route(claim, 0) == ROUTE_FLUSH
    assert fast_action(claim, 0, value_aware=True).kind is ActionKind.PONG
    assert fast_action(claim, 0, value_aware=True, routes=True).kind is ActionKind.PASS


def test_strong_play_out_ends_the_hand_even_if_the_strong_bot_answers_off_the_menu() -> None:
    """``strong_play_out`` (the continuation of 大師's claim searches, which run at tables)
    plays the hand to its end (R1: 108 tiles, one result) with the own seat's every move the
    strong bot's twin's; an answer the engine does not offer is replaced by the policy's
    move rather than failing the search."""
    from duyun.bots.search import play_out, strong_play_out
    from duyun.engine.actions import Action

    game = new_round(35_011)
    view = game.view(game.to_act[0])
    seat = view.seat
    advisor = StrongBot(seat)
    action = advisor.choose(view)
    asked: list[SeatView] = []

    class OffMenu(StrongBot):
        def choose(self, view: SeatView) -> Action:
            asked.append(view)
            return Action(view.seat, ActionKind.PONG)  # no tile: never an offered action

    points = strong_play_out(game, action, seat, OffMenu(seat))  # its twins answer the same
    assert asked and all(v.seat == seat for v in asked)
    assert game.result is None  # the sampled hand itself is untouched (a copy is played)
    # every own move replaced by the policy's: the hand the plain policy plays throughout
    assert points == play_out(game, action, seat, value_aware=False)
