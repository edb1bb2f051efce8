"""The feature set of a position and its hidden-truth labels (issue 35 item 1)."""

from __future__ import annotations

import random

from duyun.bots import make_bot
from duyun.engine import Round, deal_setup, sample_round
from duyun.engine.phases import Phase
from duyun.hand import Hand
from duyun.learn.features import (
    FEATURE_SIZE,
    FIELDS,
    OPPONENT_SIZE,
    OWN_SIZE,
    encode_view,
    field_slice,
    hidden_labels,
)
from duyun.scoring import best_pattern


def _positions(hands: int = 4, seed: int = 3):  # type: ignore[no-untyped-def]
    """(round, seat) at every own turn of a few efficient-bot hands, as play goes on."""
    for hand in range(hands):
        game = Round(deal_setup(seed * 100 + hand, dealer=hand % 4))
        bots = [make_bot("efficient", seat) for seat in range(4)]
        while not game.is_over:
            seat = game.to_act[0]
            if game.phase is Phase.TURN:
                yield game, seat
            game.apply(bots[seat].choose(game.view(seat)))


def test_the_layout_is_contiguous_and_documented() -> None:
    at = 0
    for field in FIELDS:
        assert field.start == at and field.size > 0 and field.meaning
        at += field.size
    assert at == FEATURE_SIZE == OWN_SIZE + 3 * OPPONENT_SIZE


def test_features_read_the_view_relative_seats_first() -> None:
    for game, seat in _positions(hands=2):
        view = game.view(seat)
        vec = encode_view(view)
        assert len(vec) == FEATURE_SIZE
        assert list(vec[field_slice("hand")]) == game.counts[seat]
        visible = view.visible_counts()
        assert list(vec[field_slice("unseen")]) == [4 - v for v in visible]
        assert vec[field_slice("wall")][0] == view.wall_remaining
        for rel in (1, 2, 3):
            other = (seat + rel) % 4
            river = [0] * 27
            for tile in view.rivers[other]:
                river[tile] += 1
            assert list(vec[field_slice(f"opp{rel}_river")]) == river
            assert vec[field_slice(f"opp{rel}_size")][0] == view.concealed_sizes[other]
        assert vec[field_slice("dealer")][(view.dealer - seat) % 4] == 1


def test_features_never_see_what_the_seat_cannot() -> None:
    """Re-dealing every tile the seat cannot see leaves its features unchanged."""
    rng = random.Random(7)
    checked = 0
    for game, seat in _positions(hands=2, seed=5):
        view = game.view(seat)
        world = sample_round(view, rng=rng)
        assert encode_view(world.view(seat)) == encode_view(view)
        checked += 1
    assert checked > 40


def test_labels_are_the_hidden_truth() -> None:
    """Ready and waits are the engine's (R11); a deal-in is a wait the other seat may win on
    from our discard (R17: a bean, our 報聽, or a pattern above 平胡)."""
    seen_blocked = seen_free = 0
    for game, seat in _positions(hands=6, seed=11):
        for rel, truth in enumerate(hidden_labels(game, seat), start=1):
            other = (seat + rel) % 4
            assert truth.concealed == tuple(game.counts[other])
            waits = game.ready_waits(other)
            assert truth.ready == bool(waits)
            assert truth.waits == sum(1 << t for t in waits)
            assert truth.deal_in & ~truth.waits == 0
            for tile in waits:
                hand = game.hand_of(other)
                won = best_pattern(Hand((*hand.concealed, tile), hand.melds))
                assert won is not None
                allowed = game.has_bean[other] or game.baoting[seat] or won.fan > 1
                assert bool(truth.deal_in >> tile & 1) == allowed
                seen_blocked += not allowed
                seen_free += allowed
    assert seen_blocked and seen_free  # both cases met
