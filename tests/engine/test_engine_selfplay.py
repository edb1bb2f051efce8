"""Invariants over random self-play: tile conservation (R1), zero-sum ledgers (R41), legality,
replays and per-seat views. Thousands of seeded hands with uniformly random legal actions."""

from __future__ import annotations

import io
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.engine import (
    Action,
    ActionKind,
    IllegalActionError,
    Round,
    dump_events,
    load_events,
    new_round,
    redact_event,
    replay,
)
from duyun.rules import RuleSet

ALL_KINDS = list(ActionKind)
CLAIM_ANSWERS = ("pass", "pong", "kong", "hu")


def random_action(rng: random.Random) -> Action:
    kind = rng.choice(ALL_KINDS)
    tile = rng.randrange(27) if kind.needs_tile else None
    return Action(rng.randrange(4), kind, tile)


def play_random(seed: int, rules: RuleSet | None = None, probe_illegal: bool = False) -> Round:
    rng = random.Random(seed)
    game = new_round(seed, rules=rules or RuleSet(), dealer=seed % 4, streak=seed % 3)
    while not game.is_over:
        assert game.tile_total() == 108  # R1
        legal = {s: set(game.legal_actions(s)) for s in range(4)}
        assert set(game.to_act) == {s for s, acts in legal.items() if acts}
        if probe_illegal:
            for _ in range(3):
                candidate = random_action(rng)
                if candidate in legal[candidate.seat]:
                    continue
                before = game.snapshot()
                try:
                    game.apply(candidate)
                except IllegalActionError:
                    pass
                else:  # pragma: no cover - the assertion below reports it
                    raise AssertionError(f"{candidate} applied but was not listed")
                assert game.snapshot() == before
        seat = rng.choice(game.to_act)
        if rng.random() < 0.002:
            game.escape(rng.randrange(4))
            break
        game.apply(rng.choice(sorted(legal[seat], key=str)))
    assert game.result is not None
    assert game.tile_total() == 108
    assert sum(game.result.totals) == 0  # R41
    return game


def test_thousands_of_random_hands_keep_108_tiles_and_zero_sum() -> None:
    results: dict[str, int] = {}
    for seed in range(1500):
        game = play_random(seed)
        assert game.result is not None
        results[game.result.result] = results.get(game.result.result, 0) + 1
    assert results.get("draw", 0) > 0 and results.get("win", 0) > 0


def test_random_hands_with_every_option_switched() -> None:
    rules = RuleSet(
        pass_blocks_ron=True, dead_waits_count=False, dihu_on_discard=True, base_points=5
    )
    for seed in range(300):
        play_random(seed, rules)


def test_only_listed_actions_apply() -> None:
    for seed in range(150):
        play_random(seed, probe_illegal=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_the_log_replays_to_the_same_state(seed: int) -> None:
    game = play_random(seed)
    stream = io.StringIO()
    dump_events(game.events, stream)
    replayed = replay(load_events(stream.getvalue().splitlines()))
    assert replayed.snapshot() == game.snapshot()
    assert replayed.events == game.events


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_no_view_reveals_other_concealed_tiles_or_the_wall(seed: int) -> None:
    rng = random.Random(seed)
    game = new_round(seed)
    while not game.is_over:
        for seat in range(4):
            view = game.view(seat)
            assert sorted(view.hand) == [t for t in range(27) for _ in range(game.counts[seat][t])]
            assert view.concealed_sizes == tuple(sum(c) for c in game.counts)
            for owner, melds in enumerate(view.melds):
                for meld, real in zip(melds, game.melds[owner], strict=True):
                    if owner != seat and real.kind.value == "concealed_kong":
                        assert meld.tile is None
                    else:
                        assert meld.tile == real.tile
            assert not hasattr(view, "wall")
            if game.claims is not None:  # other seats' pending claims stay private
                assert view.to_act == ((seat,) if seat in game.to_act else ())
        seat = game.to_act[0]
        game.apply(rng.choice(list(game.legal_actions(seat))))
    for seat in range(4):
        for event in game.events:
            seen = redact_event(event, seat)
            is_claim_answer = event["type"] == "act" and event["action"] in CLAIM_ANSWERS
            if is_claim_answer and event["seat"] != seat:
                assert seen is None  # a pass would tell what the seat could claim
                continue
            if event["type"] == "win_refused":  # R17/R9 refusals tell what the seat holds
                assert (seen is None) == (event["seat"] != seat)
                continue
            assert seen is not None
            if event["type"] == "start":
                assert isinstance(seen["wall"], int)
                assert all(h == "?" for i, h in enumerate(seen["hands"]) if i != seat)
            elif event["type"] == "draw" and event["seat"] != seat:
                assert seen["tile"] == "?"
            elif event["type"] == "kong" and event["kind"] == "concealed_kong":
                assert (seen["tile"] == "?") == (event["seat"] != seat)


def test_every_legal_action_applies_from_many_positions() -> None:
    """Each listed action, tried on a copy of the position, applies without error."""
    rng = random.Random(11)
    checked = 0
    for seed in range(40):
        game = new_round(seed)
        steps = 0
        while not game.is_over and steps < 30:
            seat = game.to_act[0]
            for action in game.legal_actions(seat):
                trial = replay(game.events, verify=False)
                trial.apply(action)
                checked += 1
            game.apply(rng.choice(list(game.legal_actions(seat))))
            steps += 1
    assert checked > 1000
