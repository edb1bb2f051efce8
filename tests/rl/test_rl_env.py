"""The RL environments (duyun.rl): API conformance, masks, rewards, encodings, no leaks."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from duyun import rl
from duyun.bots import make_bot
from duyun.engine import Action, ActionKind, Phase, new_round
from duyun.hand import MeldKind
from duyun.rl.actions import (
    ADDED_KONG,
    BAOTING,
    CONCEALED_KONG,
    HU,
    KONG,
    PASS,
    PONG,
)
from duyun.tiles import NUM_KINDS, full_set, tile_to_str

SEATS = 4


def play_random(
    env: Any, seed: int, *, check: Any = None, max_steps: int = 10_000
) -> dict[str, float]:
    """Play one episode with uniformly random masked actions; return each agent's total reward."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter(max_iter=max_steps):
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        if check is not None:
            check(env, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(legal[rng.integers(len(legal))])
        steps += 1
    assert not env.agents, "the episode did not end"
    assert steps > 0
    return totals


def play_bots(
    env: Any, seed: int, *, bot: str = "efficient", check: Any = None
) -> dict[str, float]:
    """Play one episode with four bots choosing from their seat's view (random play rarely
    scores: most random hands end in a draw with nobody ready); return the total rewards."""
    env.reset(seed=seed)
    bots = {agent: make_bot(bot, seed * 4 + s) for s, agent in enumerate(env.possible_agents)}
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(max_iter=10_000):
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        if check is not None:
            check(env, agent, obs)
        env.step(rl.index_of(bots[agent].choose(env.unwrapped.seat_view(agent))))
    assert not env.agents, "the episode did not end"
    return totals


# ---------------------------------------------------------------- API conformance


def test_metadata_name_and_spaces() -> None:
    env = rl.env()
    assert env.metadata["name"] == "duyun_v0"
    env.reset(seed=0)
    agent = env.possible_agents[0]
    assert env.action_space(agent).n == rl.NUM_ACTIONS == 112
    space = env.observation_space(agent)
    assert space["observation"].shape == (rl.OBS_SIZE,)
    assert space["action_mask"].dtype == np.int8


def test_pettingzoo_api_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(rl.env(), num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    seed_test(rl.env, num_cycles=300)


def test_pettingzoo_api_test_match_and_payment_rewards() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(rl.env(hands=2, reward_timing="payments", reward_scale=0.1), num_cycles=300)


def test_gymnasium_check_env() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(rl.gym_env(opponents="efficient"), skip_render_check=False)
        check_env(rl.gym_env(seat=None, opponents=("random", "efficient", "strong")))
        check_env(rl.gym_env(opponents="random", hands=2, render_mode="ansi"))


def test_env_before_reset_is_a_clear_error() -> None:
    env = rl.env()
    with pytest.raises(Exception, match="reset"):
        env.step(0)


# ---------------------------------------------------------------- masks and episodes


def _mask_matches_engine(env: Any, agent: str, obs: dict[str, np.ndarray]) -> None:
    seat = env.unwrapped.agent_name_mapping[agent]
    game = env.unwrapped.game
    assert seat in game.to_act, "the selected agent is a seat the engine asks"
    expected = sorted(rl.index_of(action) for action in game.legal_actions(seat))
    assert list(np.flatnonzero(obs["action_mask"])) == expected
    assert expected, "a selected agent always has a choice"
    assert obs["action_mask"].dtype == np.int8
    assert env.observation_space(agent).contains(obs)


@pytest.mark.parametrize("seed", range(6))
def test_mask_equals_legal_actions_at_every_step_and_episode_ends(seed: int) -> None:
    totals = play_random(rl.env(), seed, check=_mask_matches_engine)
    assert sum(totals.values()) == pytest.approx(0.0)


@settings(max_examples=12, deadline=None)
@given(
    st.integers(0, 2**32),
    st.integers(0, 3),
    st.sampled_from(["end", "payments"]),
    st.integers(1, 2),
)
def test_any_episode_keeps_mask_and_reward_invariants(
    seed: int, dealer: int, timing: str, hands: int
) -> None:
    """For any deal, dealer, reward timing and episode length: the mask is the engine's legal
    actions at every step, observations lie in the space, and rewards are zero-sum (R40)."""
    env = rl.env(dealer=dealer, reward_timing=timing, hands=hands)
    totals = play_bots(env, seed % 1000, check=_mask_matches_engine)
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
    results = env.unwrapped.results
    assert len(results) == hands
    episode = [sum(r.totals[s] for r in results) for s in range(SEATS)]
    assert [totals[a] for a in env.possible_agents] == pytest.approx(episode)


def test_r6_r18_claims_select_each_claimant_in_turn() -> None:
    """R6/R18: during claims the selected agent is one asked to claim; its obs shows the tile."""
    seen_claims = 0
    for seed in range(20):
        env = rl.raw_env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.agents:
            obs, _, terminated, _, _ = env.last()
            if terminated:
                env.step(None)
                continue
            view = env.seat_view(env.agent_selection)
            if view.phase == "claims":
                seen_claims += 1
                block = obs["observation"][rl.field_slice("claim_tile")]
                assert view.claim_tile is not None
                assert block[view.claim_tile] == 1 and block.sum() == 1
                mask = obs["action_mask"]
                assert mask[PASS] == 1 or mask[HU] == 1
                assert not mask[:PONG].any(), "no discard is offered during claims"
            legal = np.flatnonzero(obs["action_mask"])
            env.step(legal[rng.integers(len(legal))])
    assert seen_claims > 0


# ---------------------------------------------------------------- rewards


def test_r6_r18_several_claimants_are_asked_one_after_another() -> None:
    """When several seats may claim a discard, each is selected in turn; the first answer
    changes nothing visible until the last claimant has answered (the engine then resolves)."""
    for seed in range(200):
        env = rl.raw_env()
        env.reset(seed=seed)
        bots = {agent: make_bot("efficient", seed) for agent in env.possible_agents}
        while not env.terminations["player_0"]:
            game = env.game
            if game.phase.value == "claims" and len(game.to_act) >= 2:
                first, second = game.to_act[0], game.to_act[1]
                assert env.agent_selection == f"player_{first}"
                river_sizes = [len(r) for r in game.view(first).rivers]
                env.step(PASS if PASS in env.legal_indices(env.agent_selection) else HU)
                assert not env.terminations["player_0"], "claims resolve once all answered"
                assert env.agent_selection == f"player_{second}"
                assert game.phase.value == "claims"
                view = env.seat_view(env.agent_selection)
                assert [len(r) for r in view.rivers] == river_sizes, "not resolved yet"
                assert view.claim_tile is not None
                return
            agent = env.agent_selection
            env.step(rl.index_of(bots[agent].choose(env.seat_view(agent))))
    pytest.fail("no discard with two claimants in 200 hands")


@pytest.mark.parametrize("timing", ["end", "payments"])
def test_r40_rewards_are_zero_sum_and_equal_the_hand_points(timing: str) -> None:
    """R40: rewards are the points won or lost in the hand, times the scale, summing to zero."""
    scored = 0
    for seed in range(6):
        env = rl.raw_env(reward_timing=timing, reward_scale=0.5)
        totals = play_bots(env, seed, check=_mask_matches_engine)
        (result,) = env.results
        for seat, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(result.totals[seat] * 0.5)
        assert sum(result.totals) == 0
        assert sum(totals.values()) == pytest.approx(0.0)
        scored += any(result.totals)
    assert scored >= 3, "most hands between efficient bots score"


def test_r12_payment_timing_pays_kong_beans_at_once() -> None:
    """R12: a kong's bean is paid when it is made; with reward_timing="payments", its reward."""
    for seed in range(200):
        env = rl.raw_env(reward_timing="payments")
        env.reset(seed=seed)
        rng = random.Random(seed)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent]:
                env.step(None)
                continue
            legal = env.legal_indices(agent)
            kongs = [i for i in legal if i == KONG or CONCEALED_KONG <= i < HU]
            action = kongs[0] if kongs else legal[rng.randrange(len(legal))]
            env.step(action)
            if kongs and not env.terminations[agent]:
                assert any(env.rewards.values()), "a kong's bean pays someone at once"
                assert sum(env.rewards.values()) == pytest.approx(0.0)
                return
    pytest.fail("no kong in 200 random hands")


def test_r35_r36_match_option_chains_hands_with_dealer_passing() -> None:
    """R35/R36: with hands=3 one episode deals three hands; dealer and streak follow each
    result, and the episode's rewards are the three hands' points."""
    env = rl.raw_env(hands=3, dealer=1)
    dealers = []
    original = env._deal

    def spy(dealer: int, streak: int, wall: list[int] | None = None) -> None:
        dealers.append((dealer, streak))
        original(dealer, streak, wall)

    env._deal = spy  # type: ignore[method-assign]
    totals = play_bots(env, 7)
    assert len(env.results) == 3
    assert dealers[0] == (1, 0)
    for earlier, (dealer, streak) in zip(env.results[:-1], dealers[1:], strict=True):
        assert (dealer, streak) == (earlier.next_dealer, earlier.next_streak)
    episode = [sum(r.totals[s] for r in env.results) for s in range(SEATS)]
    assert any(episode)
    assert [totals[a] for a in env.possible_agents] == pytest.approx(episode)
    assert list(env.episode_points) == episode


def test_match_observation_carries_episode_points_and_hands_left() -> None:
    env = rl.raw_env(hands=2)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)["observation"]
    assert obs[rl.field_slice("hands_left")][0] == 1
    assert not obs[rl.field_slice("match_points")].any()


# ---------------------------------------------------------------- actions


def test_decode_encode_round_trip_covers_every_kind() -> None:
    names = [rl.decode_action(i) for i in range(rl.NUM_ACTIONS)]
    assert len(set(names)) == rl.NUM_ACTIONS
    for index, name in enumerate(names):
        assert rl.encode_action(name) == index
        action = Action.parse(f"2 {name}")
        assert rl.encode_action(action) == index == rl.index_of(action)
        assert rl.action_for(index, 2) == action
    assert rl.decode_action(13) == "discard 5p"
    assert rl.decode_action(BAOTING + 26) == "baoting 9s"
    assert rl.decode_action(PONG) == "pong"
    assert rl.decode_action(KONG) == "kong"
    assert rl.decode_action(CONCEALED_KONG) == "concealed_kong 1m"
    assert rl.decode_action(ADDED_KONG + 9) == "added_kong 1p"
    assert rl.decode_action(HU) == "hu"
    assert rl.decode_action(PASS) == "pass"
    kinds = {rl.action_for(i, 0).kind for i in range(rl.NUM_ACTIONS)}
    assert kinds == set(ActionKind)


@given(st.integers(0, 111), st.integers(0, 3))
def test_index_action_round_trip(index: int, seat: int) -> None:
    action = rl.action_for(index, seat)
    assert action.seat == seat
    assert rl.index_of(action) == index
    assert rl.encode_action(str(action)) == index


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("discard", "needs a tile"),
        ("pong 5p", "takes no tile"),
        ("chow 5p", "unknown verb"),
        ("discard 0p", "discard 0p"),
        ("", "expected"),
    ],
)
def test_encode_action_rejects_bad_notation(text: str, message: str) -> None:
    with pytest.raises(rl.ActionIndexError, match=message):
        rl.encode_action(text)


@pytest.mark.parametrize("bad", [-1, 112, 10**9])
def test_decode_action_rejects_out_of_range(bad: int) -> None:
    with pytest.raises(rl.ActionIndexError, match="out of range"):
        rl.decode_action(bad)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.uint8, np.intp])
def test_numpy_integer_actions_are_accepted(dtype: type) -> None:
    env = rl.env()
    env.reset(seed=11)
    obs, *_ = env.last()
    index = int(np.flatnonzero(obs["action_mask"])[0])
    env.step(dtype(index))
    # the engine got a plain int action: its log holds the tile as notation, not a numpy value
    act = next(e for e in env.unwrapped.game.events if e["type"] == "act")
    assert act["action"] == rl.decode_action(index).split()[0]
    assert type(act["seat"]) is int
    # a 0-d numpy array also works, as a policy's argmax returns one
    obs, *_ = env.last()
    env.step(np.array(np.flatnonzero(obs["action_mask"])[0]).astype(dtype)[()])


@pytest.mark.parametrize("bad", [1.0, "3", True, None])
def test_non_integer_actions_are_a_type_error(bad: object) -> None:
    env = rl.raw_env()
    env.reset(seed=0)
    with pytest.raises(TypeError, match="integer index"):
        env.step(bad)


def test_illegal_action_raises_naming_it_and_the_legal_ones() -> None:
    env = rl.raw_env()
    env.reset(seed=0)
    with pytest.raises(rl.IllegalEnvActionError, match=r"action 111 \(pass\).*legal: "):
        env.step(PASS)  # nothing to pass on: it is the dealer's turn
    with pytest.raises(rl.ActionIndexError):
        env.step(112)


def test_illegal_action_penalize_mode_plays_a_fallback_and_charges_the_agent() -> None:
    env = rl.raw_env(illegal_action="penalize", illegal_penalty=2.5)
    env.reset(seed=0)
    agent = env.agent_selection
    game = env.game
    before = len(game.events)
    env.step(PASS)
    assert len(game.events) > before, "a fallback action was played"
    assert env.rewards[agent] == pytest.approx(-2.5)
    assert env.infos[agent] == {"illegal_action": True}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"reward_scale": 0}, "reward_scale"),
        ({"reward_timing": "later"}, "reward_timing"),
        ({"hands": 0}, "hands"),
        ({"dealer": 4}, "dealer"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"rules": {"no_such_rule": True}}, "no_such_rule"),
        ({"rules": {"flower_pig": True}}, "flower_pig"),
    ],
)
def test_bad_options_are_clear_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rl.env(**options)


def test_numpy_integer_seed_is_accepted_and_equals_the_plain_int() -> None:
    first, second = rl.raw_env(), rl.raw_env()
    first.reset(seed=np.int64(3))
    second.reset(seed=3)
    assert first.agent_selection == second.agent_selection
    assert np.array_equal(
        first.observe(first.agent_selection)["observation"],
        second.observe(second.agent_selection)["observation"],
    )


def test_bad_reset_options_are_clear_errors() -> None:
    env = rl.raw_env()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed="one")
    with pytest.raises(ValueError, match="108 tiles"):
        env.reset(options={"wall_order": [0] * 10})
    with pytest.raises(ValueError, match="streak"):
        env.reset(options={"streak": -1})
    with pytest.warns(UserWarning, match="unknown reset option"):
        env.reset(options={"dealr": 1})


def test_r40_rules_option_reaches_the_engine() -> None:
    """R40: base_points scales every payment; the same play with 1 and 6 points per fan."""
    scored = []
    for base in (1, 6):
        env = rl.raw_env(rules={"base_points": base})
        for seed in range(20):
            play_bots(env, seed)
            if any(env.results[0].totals):
                break
        assert env.game.rules.base_points == base
        scored.append(env.results[0].totals)
    assert any(scored[0])
    assert scored[1] == tuple(6 * points for points in scored[0])


# ---------------------------------------------------------------- observations


def test_observation_fields_follow_the_view() -> None:
    env = rl.raw_env()
    env.reset(seed=5, options={"dealer": 2, "streak": 3})
    agent = env.agent_selection
    assert agent == "player_2"
    view = env.seat_view(agent)
    obs = env.observe(agent)["observation"]
    hand = obs[rl.field_slice("hand")]
    assert list(hand) == [view.hand.count(t) for t in range(NUM_KINDS)]
    assert hand.sum() == 14
    assert obs[rl.field_slice("dealer")][0] == 1  # the dealer is the observing seat itself
    assert obs[rl.field_slice("streak")][0] == 3
    assert obs[rl.field_slice("wall_remaining")][0] == 55
    assert list(obs[rl.field_slice("seat")]) == [0, 0, 1, 0]
    assert list(obs[rl.field_slice("concealed_sizes")]) == [14, 13, 13, 13]


def test_numeric_fields_are_in_relative_seat_order() -> None:
    """Points (R40, beans paid at once R12), concealed sizes and earlier hands' points are
    rotated so that position 0 is the observer; checked at every decision of bot play."""
    seen_points = seen_match = 0

    def check(env: Any, agent: str, obs: dict[str, np.ndarray]) -> None:
        nonlocal seen_points, seen_match
        view = env.unwrapped.seat_view(agent)
        order = [(view.seat + rel) % SEATS for rel in range(SEATS)]
        vector = obs["observation"]
        assert list(vector[rl.field_slice("points")]) == [view.points[s] for s in order]
        sizes = vector[rl.field_slice("concealed_sizes")]
        assert list(sizes) == [view.concealed_sizes[s] for s in order]
        episode = env.unwrapped.episode_points
        assert list(vector[rl.field_slice("match_points")]) == [episode[s] for s in order]
        assert vector[rl.field_slice("wall_remaining")][0] == view.wall_remaining
        seen_points += any(view.points)
        seen_match += any(episode)

    for seed in range(4):
        play_bots(rl.env(hands=2), seed, check=check)
    assert seen_points and seen_match


def test_rivers_are_encoded_in_order_relative_to_the_observer() -> None:
    env = rl.raw_env()
    play_until = 40
    env.reset(seed=9)
    rng = random.Random(9)
    for _ in range(play_until):
        agent = env.agent_selection
        legal = env.legal_indices(agent)
        env.step(legal[rng.randrange(len(legal))])
        if env.terminations[agent]:
            break
    agent = env.agent_selection
    view = env.seat_view(agent)
    obs = env.observe(agent)["observation"]
    rivers = obs[rl.field_slice("rivers")].reshape(SEATS, rl.RIVER_SLOTS, NUM_KINDS)
    melds = obs[rl.field_slice("melds")].reshape(SEATS, 4, 4 + NUM_KINDS)
    for rel in range(SEATS):
        owner = (view.seat + rel) % SEATS
        river = view.rivers[owner]
        assert [int(np.argmax(rivers[rel, i])) for i in range(len(river))] == list(river)
        assert not rivers[rel, len(river) :].any()
        for slot, meld in enumerate(view.melds[owner]):
            kinds = [MeldKind.PONG, MeldKind.DIRECT_KONG, MeldKind.ADDED_KONG]
            kinds.append(MeldKind.CONCEALED_KONG)
            assert melds[rel, slot, kinds.index(meld.kind)] == 1
            if meld.tile is not None:
                assert melds[rel, slot, 4 + meld.tile] == 1


def _dealt_order(seed: int, dealer: int) -> list[int]:
    order = full_set()
    random.Random(seed).shuffle(order)
    return order


def _seat_slice(dealer: int, seat: int) -> slice:
    """Where ``seat``'s dealt tiles lie in a 108-tile order (R4: dealer 14, then 13 each)."""
    offset = (seat - dealer) % SEATS
    start = 0 if offset == 0 else 14 + 13 * (offset - 1)
    return slice(start, start + (14 if offset == 0 else 13))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 3), st.integers(0, 2**32))
def test_no_leak_counterfactual_redeal_of_hidden_tiles(seed: int, seat: int, other: int) -> None:
    """An observation holds only what the seat may know: re-dealing the other seats' concealed
    tiles and the wall (R4) leaves the dealer's first observation unchanged."""
    order = _dealt_order(seed, seat)
    own = _seat_slice(seat, seat)
    hidden = order[own.stop :]
    shuffled = list(hidden)
    random.Random(other).shuffle(shuffled)
    counterfactual = order[: own.stop] + shuffled
    observations = []
    for wall in (order, counterfactual):
        env = rl.raw_env()
        env.reset(seed=0, options={"dealer": seat, "wall_order": wall})
        assert env.agent_selection == f"player_{seat}"
        observations.append(env.observe(env.agent_selection))
    assert np.array_equal(observations[0]["observation"], observations[1]["observation"])
    assert np.array_equal(observations[0]["action_mask"], observations[1]["action_mask"])


def _mid_hand(seed: int) -> Any:
    """An env in the middle of a hand (20..40 tiles left in the wall) after random play."""
    for attempt in range(100):
        env = rl.raw_env()
        env.reset(seed=seed * 1000 + attempt)
        rng = random.Random(seed * 1000 + attempt)
        target = rng.randrange(20, 41)
        while not env.terminations["player_0"] and env.game.wall_remaining > target:
            legal = env.legal_indices(env.agent_selection)
            env.step(legal[rng.randrange(len(legal))])
        if not env.terminations["player_0"]:
            return env
    raise AssertionError("100 hands in a row ended early")  # pragma: no cover


@pytest.mark.parametrize("seed", range(8))
def test_no_leak_counterfactual_mid_hand(seed: int) -> None:
    """Mid-hand, swapping tiles between another seat's concealed hand and the live wall (a
    different deal the seat cannot tell apart) leaves its observation unchanged; changing the
    seat's own hand changes it (so the comparison can fail).

    No public call can re-deal a hand in progress, so this test edits the round's tile counts
    and wall directly: it is the one place that reaches into the engine's state on purpose.
    """
    env = _mid_hand(seed)
    agent = env.agent_selection
    seat = env.agent_name_mapping[agent]
    game = env.game
    before = env.observe(agent)
    swaps = 0
    live = list(range(game.front, game.back))
    for other in range(SEATS):
        if other == seat:
            continue
        counts = game.counts[other]
        for tile in range(NUM_KINDS):
            if not counts[tile]:
                continue
            position = next((p for p in live if game.wall[p] != tile), None)
            if position is None:
                continue
            replacement = game.wall[position]
            counts[tile] -= 1
            counts[replacement] += 1
            game.wall[position] = tile
            swaps += 1
            break
    assert swaps == 3
    after = env.observe(agent)
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])
    # the own hand does show: moving one own tile to another kind changes the observation
    own = game.counts[seat]
    tile = next(t for t in range(NUM_KINDS) if own[t])
    own[tile] -= 1
    own[(tile + 1) % NUM_KINDS] += 1
    changed = env.observe(agent)
    assert not np.array_equal(before["observation"], changed["observation"])


@pytest.mark.parametrize("seed", range(6))
def test_no_leak_counterfactual_undrawn_wall_every_seat_every_step(seed: int) -> None:
    """Re-ordering the part of the wall not drawn yet changes nothing anyone may know: replaying
    the same actions on the re-ordered wall gives every seat the same observations."""
    order = _dealt_order(seed, 0)
    first = rl.raw_env()
    first.reset(seed=0, options={"dealer": 0, "wall_order": order})
    rng = random.Random(seed)
    target = rng.randrange(20, 41)
    actions: list[int] = []
    observed: list[list[np.ndarray]] = []
    while first.game.wall_remaining > target and not first.terminations["player_0"]:
        legal = first.legal_indices(first.agent_selection)
        actions.append(legal[rng.randrange(len(legal))])
        first.step(actions[-1])
        observed.append([first.observe(a)["observation"] for a in first.possible_agents])
    assert len(actions) > 10
    events = first.game.events
    front = sum(1 for e in events if e["type"] == "draw" and not e["replacement"])
    back = sum(1 for e in events if e["type"] == "draw" and e["replacement"])
    dealt = 14 + 3 * 13  # R4
    undrawn = order[dealt + front : len(order) - back]
    assert len(undrawn) == first.game.wall_remaining
    shuffled = sorted(undrawn, reverse=undrawn[0] < undrawn[-1])  # a different order
    assert shuffled != undrawn
    counterfactual = order[: dealt + front] + shuffled + order[len(order) - back :]
    second = rl.raw_env()
    second.reset(seed=0, options={"dealer": 0, "wall_order": counterfactual})
    for step, action in enumerate(actions):
        second.step(action)
        again = [second.observe(a)["observation"] for a in second.possible_agents]
        for seat in range(SEATS):
            assert np.array_equal(observed[step][seat], again[seat]), (step, seat)


@pytest.mark.parametrize("rules", [{}, {"bloody_battle": True}])
def test_no_leak_a_seat_not_asked_never_sees_a_claim_window(rules: dict[str, bool]) -> None:
    """R6: whether a discard (or an added kong's tile, R13) can be claimed depends on the other
    seats' concealed tiles; a tile nobody can claim opens no window. So while a window is open,
    every seat that is not asked -- the discarder included -- observes exactly what it observed
    just before the tile was played (mask too), as it would if nobody could claim."""
    windows = 0
    for seed in range(12):
        env = rl.raw_env(rules=rules)
        env.reset(seed=seed)
        rng = random.Random(seed)
        before: dict[str, dict[str, np.ndarray]] = {}
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            game = env.game
            if game.claims is None:
                before = {a: env.observe(a) for a in env.agents}
            else:
                windows += 1
                for other in env.agents:
                    seat = env.agent_name_mapping[other]
                    if seat in game.to_act:
                        continue
                    seen = env.observe(other)
                    assert np.array_equal(seen["observation"], before[other]["observation"])
                    assert np.array_equal(seen["action_mask"], before[other]["action_mask"])
                    view = env.seat_view(other)
                    assert view.phase is not Phase.CLAIMS
                    assert np.array_equal(rl.encode_view(view), seen["observation"])
            legal = env.legal_indices(agent)
            env.step(legal[rng.randrange(len(legal))])
    assert windows > 20


def test_r12_other_seats_concealed_kongs_are_face_down() -> None:
    """R12 暗槓 is shown face down: other seats' observations hold its kind, not its tile."""
    for seed in range(300):
        env = rl.raw_env()
        env.reset(seed=seed)
        rng = random.Random(seed)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent]:
                env.step(None)
                continue
            legal = env.legal_indices(agent)
            kongs = [i for i in legal if CONCEALED_KONG <= i < ADDED_KONG]
            env.step(kongs[0] if kongs else legal[rng.randrange(len(legal))])
            if kongs:
                seat = env.agent_name_mapping[agent]
                watcher = (seat + 1) % SEATS
                view = env.game.view(watcher)
                if env.game.is_over or not any(view.melds[seat]):
                    break
                obs = rl.encode_view(view)
                melds = obs[rl.field_slice("melds")].reshape(SEATS, 4, 4 + NUM_KINDS)
                rel = (seat - watcher) % SEATS
                slot = len(view.melds[seat]) - 1
                assert melds[rel, slot, 3] == 1  # concealed kong
                assert not melds[rel, slot, 4:].any()  # tile unknown
                own = rl.encode_view(env.game.view(seat))
                own_melds = own[rl.field_slice("melds")].reshape(SEATS, 4, 4 + NUM_KINDS)
                tile = kongs[0] - CONCEALED_KONG
                assert own_melds[0, slot, 4 + tile] == 1, tile_to_str(tile)
                return
    pytest.fail("no concealed kong in 300 hands")


def test_observation_is_a_fresh_array_each_call() -> None:
    env = rl.raw_env()
    env.reset(seed=1)
    first = env.observe("player_0")
    second = env.observe("player_0")
    assert first["observation"] is not second["observation"]
    first["observation"][:] = 0
    assert second["observation"].any()


# ---------------------------------------------------------------- render and gym


def test_render_ansi_shows_the_selected_seat_only() -> None:
    env = rl.env(render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert isinstance(text, str)
    assert "duyun_v0" in text and "hand of seat" in text and "legal:" in text
    seat = env.unwrapped.agent_name_mapping[env.agent_selection]
    game = env.unwrapped.game
    for other in range(SEATS):
        shown = str(game.hand_of(other))
        assert (shown in text) == (other == seat)


def test_pettingzoo_render_test() -> None:
    render_test(lambda render_mode=None: rl.env(render_mode=render_mode))


def test_render_human_prints(capsys: pytest.CaptureFixture[str]) -> None:
    env = rl.env(render_mode="human")
    env.reset(seed=4)
    env.render()
    assert "duyun_v0" in capsys.readouterr().out


def test_gym_episode_rewards_sum_to_the_learners_points() -> None:
    for seed in range(3):
        env = rl.gym_env(seat=1, opponents="efficient", reward_scale=0.25)
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total = 0.0
        terminated = False
        while not terminated:
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.size, "the learner is only asked when it has a choice"
            obs, reward, terminated, truncated, info = env.step(legal[rng.integers(len(legal))])
            assert not truncated
            total += float(reward)
        (result,) = env.aec.results
        assert total == pytest.approx(result.totals[1] * 0.25)
        assert info["hand_points"] == result.totals


def test_gym_human_mode_draws_each_step_and_masks_match(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = rl.gym_env(opponents="random", render_mode="human")
    obs, _ = env.reset(seed=2)
    assert np.array_equal(env.action_masks(), obs["action_mask"])
    obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert np.array_equal(env.action_masks(), obs["action_mask"])
    assert capsys.readouterr().out.count("duyun_v0") == 2


def test_gym_bad_options() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        rl.gym_env(opponents="perfect")
    with pytest.raises(ValueError, match="three"):
        rl.gym_env(opponents=("random", "random"))
    with pytest.raises(ValueError, match="seat"):
        rl.gym_env(seat=5)


def test_r4_rivers_stay_within_the_layout_bound() -> None:
    """The river layout holds 36 slots; the argument in observation.py bounds a river at 35
    (R4 wall of 55, one discard per turn). Random play, which pongs whenever it happens to,
    never gets near it."""
    longest = 0
    for seed in range(150):
        game = new_round(seed)
        rng = random.Random(seed)
        while not game.is_over:
            legal = game.legal_actions(game.to_act[0])
            game.apply(legal[rng.randrange(len(legal))])
        longest = max(longest, *(len(river) for river in game.view(0).rivers))
    assert 10 < longest <= 35 < rl.RIVER_SLOTS


def test_env_wrapper_behaves_as_pettingzoos_order_enforcing_wrapper() -> None:
    """``rl.env()``'s wrapper (PettingZoo's, with direct ``last`` and ``step``) gives the same
    episodes as PettingZoo's own ``OrderEnforcingWrapper`` and refuses the same misuse."""
    from pettingzoo.utils import wrappers

    ours = rl.env()
    theirs = wrappers.OrderEnforcingWrapper(rl.raw_env())
    assert isinstance(ours, wrappers.OrderEnforcingWrapper)
    for wrapped in (ours, theirs):
        with pytest.raises(AttributeError, match="before reset"):
            wrapped.last()
        with pytest.raises(AssertionError, match="before step"):
            wrapped.step(0)
    for seed in range(3):
        rng = random.Random(seed)
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        for agent, other in zip(ours.agent_iter(), theirs.agent_iter(), strict=True):
            assert agent == other
            mine, reward, terminated, truncated, info = ours.last()
            expected = theirs.last()
            assert np.array_equal(mine["observation"], expected[0]["observation"])
            assert np.array_equal(mine["action_mask"], expected[0]["action_mask"])
            assert (reward, terminated, truncated, info) == expected[1:]
            if terminated or truncated:
                ours.step(None)
                theirs.step(None)
                continue
            legal = np.flatnonzero(mine["action_mask"])
            choice = int(legal[rng.randrange(len(legal))])
            ours.step(choice)
            theirs.step(choice)
        assert not ours.agents and not theirs.agents
    # stepping a finished episode only warns (PettingZoo's EnvLogger), as its wrapper does
    from pettingzoo.utils.env_logger import EnvLogger

    before = len(EnvLogger.mqueue)
    ours.step(None)
    assert any("after all agents" in str(m) for m in EnvLogger.mqueue[before:])
