"""Deals for tests that must not depend on the luck of a random deal (issue 30).

A test that waits for a message a player only gets by luck of the deal (a turn after somebody
won, a fifth decision before anybody wins) fails once in a few thousand runs, and a suite of
many such tests fails often. These deals fix what the test needs: the manager's test-only
``deal`` hook (``server.manager.deal = slow``) for a server in the test's process, and
``ServeProcess(..., deal="stacked_deals:slow")`` for a ``duyun serve`` subprocess.

Each is a ``deal(hand_index, seed, dealer, streak)``, the hook's signature.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from duyun.analysis.shanten import shanten
from duyun.engine import Setup, deal_setup
from duyun.engine.scenario import parse_scenario
from duyun.tiles import parse_tiles, tile_to_str

#: a seed whose deal leaves every hand four steps from ready, whoever deals (found by search)
SLOW_SEED = 8604
#: the fewest steps from ready of any hand of the slow deal
SLOW_SHANTEN = 4

DEALER = "1m1m3m7m9m2p2p8p9p1s5s7s9s5p"  # discards 5p first
DUIDUI = "3m3m3m4p4p4p4s4s4s6m6m6m5p"  # 報聽 on 5p with 大對子: wins the 5p unasked (R26)
PLAIN1 = "2m4m6m8m1p3p6p8p2s4s6s8s9s"
PLAIN2 = "2m5m8m3p6p8p2s6s7p9p3s5s7p"


def slow(hand_index: int, seed: int, dealer: int, streak: int) -> Setup:
    """A full wall and four hands each at least four steps from ready (R8's shanten): a seat
    needs five draws or claims that each improve its hand before it can win, so no hand ends
    in its first rounds, whatever the bots do."""
    setup = deal_setup(SLOW_SEED, dealer=dealer, streak=streak)
    steps = [shanten(list(hand.all_counts())) for hand in setup.hands]
    assert min(steps) >= SLOW_SHANTEN, steps
    return setup


def forced_win(hand_index: int, seed: int, dealer: int, streak: int) -> Setup:
    """The dealer holds DEALER and discards 5p first to the next seat, which declared 報聽
    waiting on it with 大對子 (a forced win, R26); a four-tile wall, so the hand ends at once
    (in a 血戰 room the two other seats and the dealer then draw the wall's tiles in turn)."""
    order = [DEALER, DUIDUI, PLAIN1, PLAIN2]
    hands = [order[(seat - dealer) % 4] for seat in range(4)]
    waiter = (dealer + 1) % 4
    used = Counter(t for hand in hands for t in parse_tiles(hand))
    spare = sorted((t for t in range(27) if tile_to_str(t) != "5p"), key=lambda t: (used[t], t))
    data: dict[str, Any] = {
        "dealer": dealer,
        "streak": streak,
        "hands": hands,
        "wall": "".join(tile_to_str(t) for t in spare[:4]),
        "fill": False,
        "actions": [],
        "baoting": [seat == waiter for seat in range(4)],
        "discards": ["2s" if seat == waiter else "" for seat in range(4)],
    }
    return parse_scenario(data).setup


#: seat 0 holds five pairs of terminals (and is not ready); each other seat holds two single
#: terminals its other tiles do not touch (the first tiles an efficient bot lets go), the rest
#: of its hand in loose pairs of neighbours, far from ready
CLAIMS_HANDS = (
    "1m1m9m9m1p1p9p9p1s1s3m6p8s",
    "1m9p3p4p6p7p4s5s7s8s4m5m7m",
    "9m1s2p3p5p6p2s3s6s7s2m3m6m",
    "1p9s3m4m6m7m3p4p7p8p3s4s6s",
)
#: the dealer's fourteenth tile, by seat
CLAIMS_EXTRA = ("5p", "2m", "8p", "5s")


def claims(hand_index: int, seed: int, dealer: int, streak: int) -> Setup:
    """Seat 0 is offered a claim (碰 of a terminal) in the first round of every hand, whoever
    deals: the others' first discards are single terminals it holds pairs of. The rest of the
    wall is shuffled by the hand's seed, so hands differ after that."""
    hands = [
        CLAIMS_HANDS[seat] + (CLAIMS_EXTRA[seat] if seat == dealer else "") for seat in range(4)
    ]
    data: dict[str, Any] = {
        "dealer": dealer,
        "streak": streak,
        "hands": hands,
        "wall": "",
        "fill": True,
        "seed": seed % 2**32,
        "actions": [],
    }
    return parse_scenario(data).setup
