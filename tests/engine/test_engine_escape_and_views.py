"""Escapes at every kind of moment (R45, R13) keep all 108 tiles and a zero-sum ledger, and a
seat's view is the same whatever the other seats hold (counterfactual re-deals)."""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from duyun.engine import Action, ActionKind, Round, Setup, deal_setup, events_for, replay
from duyun.engine.phases import ClaimSource, TurnKind
from duyun.engine.round import Phase
from duyun.hand import Hand
from scenario_helpers import setup_game


def _check_escape(game: Round, seat: int) -> None:
    assert game.tile_total() == 108
    game.escape(seat)
    assert game.is_over and game.result is not None and game.result.result == "escape"
    assert game.tile_total() == 108  # R1: nothing vanishes, whatever the moment
    assert sum(game.result.totals) == 0  # R41
    again = replay(game.events)
    assert again.snapshot() == game.snapshot()


def _play_until(
    seed: int, moment: Callable[[Round], bool], limit: int = 400, *, baoting: bool = False
) -> Round | None:
    """Random play (報聽 only if asked for, kongs favoured) until ``moment`` holds."""
    rng = random.Random(seed)
    game = Round(deal_setup(seed))
    for _ in range(limit):
        if game.is_over:
            return None
        if moment(game):
            return game
        legal = list(game.legal_actions(game.to_act[0]))
        declare = [a for a in legal if a.kind is ActionKind.BAOTING]
        if baoting and declare:
            game.apply(rng.choice(declare))
            continue
        legal = [a for a in legal if a.kind is not ActionKind.BAOTING]
        kongs = [a for a in legal if a.kind in (ActionKind.ADDED_KONG, ActionKind.KONG)]
        pongs = [a for a in legal if a.kind is ActionKind.PONG]
        game.apply(rng.choice(kongs or pongs or legal))
    return None


MOMENTS: dict[str, Callable[[Round], bool]] = {
    "own turn with 14 tiles": lambda g: g.phase is Phase.TURN and g.turn_kind is TurnKind.DRAW,
    "discard claim window": lambda g: (
        g.phase is Phase.CLAIMS and g.claims is not None and g.claims.source is ClaimSource.DISCARD
    ),
    "after a pong before the discard": lambda g: (
        g.phase is Phase.TURN and g.turn_kind is TurnKind.PONG
    ),
    "four tiles or fewer in the wall": lambda g: g.wall_remaining <= 4,
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    moment=st.sampled_from(sorted(MOMENTS)),
    seed=st.integers(0, 5_000),
    escapee=st.integers(0, 3),
)
def test_r45_escape_at_every_kind_of_moment(moment: str, seed: int, escapee: int) -> None:
    game = _play_until(seed, MOMENTS[moment])
    assume(game is not None)
    assert game is not None
    _check_escape(game, escapee)


def test_r45_each_kind_of_moment_is_reached() -> None:
    """The property above is not vacuous: every moment occurs within a few seeds."""
    for name, moment in MOMENTS.items():
        assert any(_play_until(seed, moment) is not None for seed in range(60)), name


def test_r13_r45_escape_of_each_seat_during_a_rob_window() -> None:
    # (random play rarely offers a robbable kong, so this moment is set up explicitly)
    hands: list[str | None] = [None, "123456789m1s [555p]", None, "111222333s46p77s"]
    for escapee in range(4):
        game = setup_game(hands, wall="5p", turn=1)
        game.apply(Action.parse("1 added_kong 5p"))
        assert game.claims is not None and game.claims.source is ClaimSource.ADDED_KONG
        _check_escape(game, escapee)
        assert [m.kind.value for m in game.melds[1]] == ["pong"]


# ---------------------------------------------------------------- counterfactual views


def _setup_of(game: Round, seat: int) -> Setup:
    """The position as a setup: ``seat`` to act, holding its drawn tile."""
    return Setup(
        hands=tuple(game.hand_of(s) for s in range(4)),
        wall=tuple(game.wall[game.front : game.back]),
        dealer=game.dealer,
        streak=game.streak,
        discards=tuple(tuple(river) for river in game.rivers),
        baoting=tuple(game.baoting),
        turn=seat,
        drawn=True,
    )


def _redeal(setup: Setup, seat: int, rng: random.Random, keep: int | None = None) -> Setup:
    """The same position with the other seats' concealed tiles and the wall dealt anew
    (``keep``: one more seat whose tiles stay, e.g. the one about to discard)."""
    kept = {seat, keep}
    pool = [t for s, hand in enumerate(setup.hands) if s not in kept for t in hand.concealed]
    pool += list(setup.wall)
    rng.shuffle(pool)
    hands: list[Hand] = []
    for s, hand in enumerate(setup.hands):
        if s in kept:
            hands.append(hand)
            continue
        size = len(hand.concealed)
        hands.append(Hand(tuple(sorted(pool[:size])), hand.melds))
        del pool[:size]
    return Setup(
        hands=tuple(hands),
        wall=tuple(pool),
        dealer=setup.dealer,
        streak=setup.streak,
        discards=setup.discards,
        baoting=setup.baoting,
        turn=setup.turn,
        drawn=setup.drawn,
    )


def _pass_all(game: Round) -> None:
    while game.phase is Phase.CLAIMS:
        game.apply(Action(game.to_act[0], ActionKind.PASS))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(seed=st.integers(0, 5_000), steps=st.integers(4, 80), redeal=st.integers(0, 2**32))
def test_a_seats_view_does_not_depend_on_what_others_hold(
    seed: int, steps: int, redeal: int
) -> None:
    def moment(game: Round) -> bool:
        return (
            len(game.events) >= steps
            and game.phase is Phase.TURN
            and game.turn_kind is TurnKind.DRAW
            and game.wall_remaining > 5  # no R19 forced wins in the next steps
            and not any(game.baoting)  # no R26 forced moves either
        )

    played = _play_until(seed, moment)
    assume(played is not None)
    assert played is not None
    seat = played.current
    real = Round(_setup_of(played, seat))
    other = Round(_redeal(real.setup, seat, random.Random(redeal)))
    assert real.view(seat) == other.view(seat)
    assert events_for(real.events, seat) == events_for(other.events, seat)
    # the seat discards: the others may pause to claim (the pause itself may differ); once
    # every claim is passed, the seat has seen the same events in both worlds
    discard = random.Random(seed).choice(
        [a for a in real.legal_actions(seat) if a.kind is ActionKind.DISCARD]
    )
    for game in (real, other):
        game.apply(discard)
        _pass_all(game)
    assert events_for(real.events, seat) == events_for(other.events, seat)
    assert real.view(seat) == other.view(seat)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(seed=st.integers(0, 5_000), steps=st.integers(4, 60), redeal=st.integers(0, 2**32))
def test_r19_r26_a_claimants_view_does_not_depend_on_what_others_hold(
    seed: int, steps: int, redeal: int
) -> None:
    """A seat asked about a discard sees the same question, options and events whatever the
    others hold -- in particular whether a 報聽 player must win on the tile (R26)."""

    def claimable(game: Round) -> tuple[int, int] | None:
        """(asked seat, tile) that the seat to play could discard and that seat could pong."""
        discarder = game.current
        for offset in (1, 2, 3):
            seat = (discarder + offset) % 4
            if game.baoting[seat]:
                continue
            for tile in range(27):
                if game.counts[discarder][tile] and game.counts[seat][tile] >= 2:
                    return seat, tile
        return None

    def moment(game: Round) -> bool:
        return (
            len(game.events) >= steps
            and game.phase is Phase.TURN
            and game.turn_kind is TurnKind.DRAW
            and not game.baoting[game.current]
            and game.wall_remaining > 5
            and claimable(game) is not None
        )

    played = _play_until(seed, moment, baoting=True)
    assume(played is not None)
    assert played is not None
    found = claimable(played)
    assert found is not None
    seat, tile = found
    discarder = played.current
    real = Round(_setup_of(played, discarder))
    other = Round(_redeal(real.setup, seat, random.Random(redeal), keep=discarder))
    for game in (real, other):
        game.apply(Action(discarder, ActionKind.DISCARD, tile))
        assert seat in game.to_act  # asked in both worlds: to pong (and maybe to win)
    assert real.view(seat) == other.view(seat)
    assert events_for(real.events, seat) == events_for(other.events, seat)


def test_counterfactual_redeal_changes_the_other_seats_hands() -> None:
    """The re-deal really changes what the others hold (the test above is not vacuous)."""
    game = Round(deal_setup(9))
    setup = _setup_of(game, 0) if game.current == 0 else None
    assert setup is not None
    changed = _redeal(setup, 0, random.Random(1))
    assert changed.hands[0] == setup.hands[0]
    assert any(changed.hands[s] != setup.hands[s] for s in (1, 2, 3))
