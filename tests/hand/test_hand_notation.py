"""Hand notation with melds (R2) and the R10 tile count."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from duyun.hand import Hand, Meld, MeldKind
from duyun.tiles import NotationError, format_tiles, tile_to_str


def test_r2_example_hand_parses() -> None:
    hand = Hand.parse("11m234p678s [555p] (9999s)")
    assert format_tiles(hand.concealed) == "11m234p678s"
    assert hand.melds == (Meld(MeldKind.PONG, 13), Meld(MeldKind.CONCEALED_KONG, 26))
    assert hand.tile_count == 14  # R10: kongs count as three


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[555p]", MeldKind.PONG),
        ("[5555p]", MeldKind.DIRECT_KONG),
        ("[5555p+]", MeldKind.ADDED_KONG),
        ("(5555p)", MeldKind.CONCEALED_KONG),
    ],
)
def test_r2_meld_kinds(text: str, kind: MeldKind) -> None:
    meld = Meld.parse(text)
    assert meld.kind is kind
    assert str(meld) == text


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("11m [55p", "'\\[55p'"),
        ("11m [556p]", "one tile"),
        ("11m (555p)", "concealed kong"),
        ("11m 22p", "'22p'"),
        ("11m [55x]", "'x'"),
        ("11111m", "5 copies of 1m"),
        ("1m [1111m]", "5 copies of 1m"),
        ("", "empty"),
    ],
)
def test_r2_strict_hand_errors_name_the_group(text: str, named: str) -> None:
    with pytest.raises(NotationError, match=named):
        Hand.parse(text)


melds = st.builds(Meld, st.sampled_from(list(MeldKind)), st.integers(0, 26))


@st.composite
def hands(draw: st.DrawFn) -> Hand:
    chosen = draw(st.lists(melds, max_size=4, unique_by=lambda m: m.tile))
    used = [0] * 27
    for meld in chosen:
        used[meld.tile] += meld.kind.size
    pool = [t for t in range(27) for _ in range(4 - used[t])]
    concealed = draw(st.lists(st.sampled_from(pool), max_size=14))
    counts = [0] * 27
    kept = []
    for tile in concealed:
        if counts[tile] + used[tile] < 4:
            counts[tile] += 1
            kept.append(tile)
    return Hand(tuple(kept), tuple(chosen))


@given(hands())
def test_r2_hand_round_trip(hand: Hand) -> None:
    assert Hand.parse(str(hand)) == hand if str(hand) else True


@given(hands(), st.randoms(use_true_random=False))
def test_r2_hand_str_is_normal_form_of_any_spelling(hand: Hand, rnd: object) -> None:
    if not hand.concealed:
        return
    tiles = list(hand.concealed)
    rnd.shuffle(tiles)  # type: ignore[attr-defined]
    spelled = " ".join(["".join(tile_to_str(t) for t in tiles), *(str(m) for m in hand.melds)])
    assert str(Hand.parse(spelled)) == str(hand)
