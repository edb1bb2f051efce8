"""The engine's fast paths (issue 12) give exactly what the code they stand in for gives.

Each shortcut on the hot path is checked against its reference on generated inputs: the
unrolled shuffle against ``random.Random.shuffle`` (seeded walls, R4), the hand notation
from count vectors against ``format_counts`` and ``str(Hand)`` (R2), the wait and 報聽
prefilters against the full searches (R10, R11, R25), ``apply_logged`` against ``apply`` and
``apply_unchecked`` against ``apply_logged``.
The golden digests (test_engine_golden.py) check the whole engine on seeded hands.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duyun.analysis import waits
from duyun.engine import new_round
from duyun.engine.setup import _shuffle_inline, _shuffle_reference, _tile_names
from duyun.engine.shapes import concealed_text as _concealed_text
from duyun.engine.shapes import may_be_ready_after_discard as _may_be_ready_after_discard
from duyun.engine.shapes import quick_waits as _waits
from duyun.hand import Hand, Meld, MeldKind
from duyun.tiles import NUM_KINDS, format_counts, format_tiles, tile_to_str


def _counts_of(tiles: list[int]) -> list[int]:
    counts = [0] * NUM_KINDS
    for tile in tiles:
        if counts[tile] < 4:
            counts[tile] += 1
    return counts


# hands built from sets, pairs and single tiles, so that ready and complete hands are common
_pieces = st.lists(
    st.tuples(st.sampled_from(["pung", "run", "pair", "single"]), st.integers(0, NUM_KINDS - 1)),
    max_size=7,
)


def _hand_from(pieces: list[tuple[str, int]]) -> list[int]:
    tiles: list[int] = []
    for kind, tile in pieces:
        if kind == "pung":
            tiles += [tile] * 3
        elif kind == "run" and tile % 9 <= 6:
            tiles += [tile, tile + 1, tile + 2]
        elif kind == "pair":
            tiles += [tile] * 2
        else:
            tiles.append(tile)
    return tiles


@given(st.one_of(st.none(), st.integers(-(2**70), 2**70)))
def test_unrolled_shuffle_deals_the_walls_of_random_shuffle(seed: int | None) -> None:
    """R4: a seed deals the same wall as ``random.Random(seed).shuffle`` always did."""
    if seed is None:
        return  # an unseeded shuffle is not reproducible by either
    assert _shuffle_inline(seed) == _shuffle_reference(seed)


@given(st.lists(st.integers(0, NUM_KINDS - 1), max_size=20))
def test_hand_text_from_counts_equals_format_counts(tiles: list[int]) -> None:
    """R2 notation: the events' hands are written as ``format_counts`` writes them."""
    counts = _counts_of(tiles)
    assert _concealed_text(counts) == format_counts(counts)


@given(st.lists(st.integers(-3, NUM_KINDS + 3), max_size=20))
def test_format_tiles_fast_path_equals_the_checked_loop(tiles: list[int]) -> None:
    """The C-level join writes the reference loop's text, and a bad tile gets the reference's
    error (naming the first bad tile in the given order), from a list or an iterator."""
    from duyun.tiles import _format_checked

    for source in (tiles, iter(tiles)):
        try:
            expected = _format_checked(tiles)
        except ValueError as error:
            with pytest.raises(ValueError) as raised:
                format_tiles(source)
            assert str(raised.value) == str(error)
        else:
            assert format_tiles(source) == expected


@given(st.lists(st.integers(0, NUM_KINDS - 1), max_size=60))
def test_tile_names_equal_tile_to_str(tiles: list[int]) -> None:
    assert _tile_names(tiles) == [tile_to_str(tile) for tile in tiles]


def _trimmed(counts: list[int], remainder: int) -> list[int]:
    """``counts`` less its most-held tiles until the size is 3k + ``remainder``."""
    size = sum(counts)
    while size % 3 != remainder:
        tile = max(range(NUM_KINDS), key=lambda t: counts[t])
        counts[tile] -= 1
        size -= 1
    return counts


@settings(max_examples=300)
@given(_pieces, st.integers(0, NUM_KINDS - 1))
def test_waits_prefilter_never_drops_a_wait(pieces: list[tuple[str, int]], extra: int) -> None:
    """R10, R11: the two-complete-suits prefilter answers [] only where waits() does."""
    counts = _trimmed(_counts_of([*_hand_from(pieces), extra]), 1)  # 3k + 1 tiles
    assert _waits(counts, counts) == waits(counts, counts)


@settings(max_examples=300)
@given(_pieces, st.integers(0, NUM_KINDS - 1))
def test_baoting_prefilter_passes_every_hand_a_discard_makes_ready(
    pieces: list[tuple[str, int]], extra: int
) -> None:
    """R25: a hand that some discard leaves ready always passes the 報聽 prefilter."""
    counts = _trimmed(_counts_of([*_hand_from(pieces), extra]), 2)  # 3k + 2 tiles
    ready = False
    for tile in range(NUM_KINDS):
        if counts[tile]:
            counts[tile] -= 1
            ready = ready or bool(waits(counts, counts))
            counts[tile] += 1
    if ready:
        assert _may_be_ready_after_discard(counts)


def test_hand_text_with_melds_equals_str_of_hand() -> None:
    """The ``hand`` of win and end events equals ``str(Round.hand_of(seat))`` with melds."""
    game = new_round(3)
    game.counts[1] = Hand.parse("123m45p").counts()
    game.counts[2] = Hand.parse("99s").counts()
    game.melds[1].append(Meld(MeldKind.PONG, 4))
    game.melds[1].append(Meld(MeldKind.CONCEALED_KONG, 20))
    game.melds[2].append(Meld(MeldKind.ADDED_KONG, 9))
    game.counts[3] = [0] * NUM_KINDS
    for seat in range(4):
        assert game._hand_text(seat) == str(game.hand_of(seat))
    assert str(Hand((), (Meld(MeldKind.PONG, 4),))) == "[555m]"


def test_apply_logged_returns_the_log_events_and_apply_equal_copies() -> None:
    """``apply`` returns copies equal to what ``apply_logged`` returns: the log's own events."""
    first, second = new_round(11), new_round(11)
    rng = random.Random(11)
    while not first.is_over:
        seat = first.to_act[0]
        legal = first.legal_actions(seat)
        action = legal[rng.randrange(len(legal))]
        copies = first.apply(action)
        logged = second.apply_logged(action)
        assert copies == logged
        assert all(a is not b for a, b in zip(copies, first.events[-len(copies) :], strict=True))
        assert all(a is b for a, b in zip(logged, second.events[-len(logged) :], strict=True))
    assert first.events == second.events


@pytest.mark.parametrize("bloody", [False, True])
def test_apply_unchecked_of_an_offered_action_plays_as_apply_logged(bloody: bool) -> None:
    """``apply_unchecked`` (the RL environment's step, issue 22 item 7) skips only the check:
    given the round's own offered actions it writes the same log as ``apply_logged``, 血戰
    rooms (R52-R57) included."""
    from duyun.rules import RuleSet

    rules = RuleSet(bloody_battle=bloody)
    for seed in range(6):
        checked, unchecked = new_round(seed, rules=rules), new_round(seed, rules=rules)
        rng = random.Random(seed)
        while not checked.is_over:
            seat = checked.to_act[0]
            index = rng.randrange(len(checked.legal_actions(seat)))
            logged = checked.apply_logged(checked.legal_actions(seat)[index])
            fast = unchecked.apply_unchecked(unchecked.legal_actions(seat)[index])
            assert fast == logged
            assert all(a is b for a, b in zip(fast, unchecked.events[-len(fast) :], strict=True))
        assert unchecked.is_over
        assert checked.events == unchecked.events


@pytest.mark.parametrize("bloody", [False, True])
def test_concealed_sizes_follow_the_counts_at_every_step(bloody: bool) -> None:
    """``Round.concealed_sizes`` (kept incrementally) equals the sums of the count vectors
    after every decision, escape and leave, through pongs, kongs, robbed kongs and wins."""
    from duyun.engine import ActionKind, Round, deal_setup
    from duyun.rules import RuleSet

    eager = {ActionKind.HU, ActionKind.PONG, ActionKind.KONG, ActionKind.CONCEALED_KONG}
    eager |= {ActionKind.ADDED_KONG}
    kinds: set[str] = set()
    for seed in range(40):
        rng = random.Random(seed)
        game = Round(deal_setup(seed, dealer=seed % 4), RuleSet(bloody_battle=bloody))
        steps = 0
        while not game.is_over:
            assert game.concealed_sizes == [sum(c) for c in game.counts], (seed, steps)
            seat = game.to_act[0]
            legal = game.legal_actions(seat)
            if seed % 7 == 3 and steps == 40:
                game.escape(seat)
                break
            choices = [a for a in legal if a.kind in eager]
            pick = choices if choices and rng.random() < 0.8 else list(legal)
            game.apply(pick[rng.randrange(len(pick))])
            steps += 1
        assert game.concealed_sizes == [sum(c) for c in game.counts], seed
        kinds |= {e.get("kind", e["type"]) for e in game.events if e["type"] in ("kong", "pong")}
    assert {"pong", "direct_kong", "concealed_kong", "added_kong"} <= kinds, kinds
