"""Determinization: deal a complete hand consistent with what one seat knows (issue 23).

A search from one seat's point of view needs complete positions -- the other hands, the wall
order -- that agree with everything that seat has seen. :func:`sample_round` deals one, from the
round itself (the seat's knowledge is read off ``round.view(seat)``) or from a
:class:`~duyun.engine.view.SeatView` alone (what a bot holds).

What is kept, because the seat knows it: its own hand and melds, every river, every exposed
meld, 報聽 declarations, each seat's number of concealed tiles, the wall's length, the ledger,
a 血戰 winner's laid-open hand and winning tiles (R53), its own refused-win fact (R17, R9), the
claim window it is answering.

What is sampled, uniformly over the tiles the seat cannot see (108 minus what it sees): the
other seats' concealed tiles, the kind of each concealed kong (暗槓) of another seat, and the
order of the live wall. The sample is conditioned on:

* a 報聽 seat's hand being ready (R25), with none of the tiles it has discarded since its
  declaration among its waits (R26: a 報聽 seat discards only the tile it drew, and must win
  on a winning draw). This is exact rejection sampling of that seat's hand; above
  ``max_tries`` proposals (a ready hand is rare among random hands) the hand is built as a
  ready shape instead, which is close to but not exactly uniform over ready hands.

It is *not* conditioned on the other seats' past behaviour: that they did not pong, kong or win
when they could have, which tiles they chose to discard, how fast they played. Nor on their
private facts (R9 blocks, refused wins), which the sample clears. A search that wants a
behavioural model weights or filters samples itself, or passes a ``hand_model``: a function
that may exchange tiles between each other seat's dealt hand and the live wall before the
round is assembled (the search bot develops the hands as far as the turn suggests,
``duyun/bots/opponent_model.py``). The sample is then no longer uniform, by design; it stays
consistent with the view, since only tiles the seat cannot see move.

From a view alone a few public counters the view does not carry are reconstructed: how many
discards each seat made (only "none, one, several" matters: R20, R25), how the current seat
came to its turn (drawn, ponged, after a kong: R7, R21), and whether a discard being claimed
was made after a kong (槓上炮, R28: assumed not). The order of 血戰 wins (R55's next dealer) is
not in a view either: points never depend on it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from duyun.analysis import waits
from duyun.engine.actions import as_seat
from duyun.engine.ledger import Payment
from duyun.engine.phases import ClaimSource, ClaimWindow, Phase, TurnKind, Win, WinKind
from duyun.engine.round import EVENT_LOG_VERSION, LAST_TILES, Round, Setup
from duyun.engine.view import SeatView
from duyun.hand import Hand, Meld, MeldKind
from duyun.rules import DUYUN, RuleSet
from duyun.tiles import COPIES, NUM_KINDS, TOTAL_TILES

SEATS = 4
FULL_WALL = TOTAL_TILES - 14 - 3 * 13  # the live wall after the deal (R4)
BEAN_RULE = "R12"


#: ``hand_model(seat, hand, wall, rng)``: called for every other seat still in the hand and not
#: in 報聽 with its dealt concealed tiles and the live wall in draw order (lists of kinds); it
#: may exchange tiles between the two in place, never add or drop one (checked).
HandModel = Callable[[int, list[int], list[int], random.Random], None]


class DeterminizeError(ValueError):
    """The view cannot be completed: its tiles do not add up to 108 (a corrupt view)."""


def unseen_pool(view: SeatView) -> list[int]:
    """Count of each kind the seat cannot see (4 minus what it sees; never negative)."""
    visible = view.visible_counts()
    pool = [COPIES - visible[kind] for kind in range(NUM_KINDS)]
    for kind, count in enumerate(pool):
        if count < 0:
            raise DeterminizeError(f"the view shows {visible[kind]} copies of kind {kind}")
    return pool


def sample_round(
    source: Round | SeatView,
    seat: int | None = None,
    rng: random.Random | None = None,
    *,
    rules: RuleSet | None = None,
    max_tries: int = 4000,
    hand_model: HandModel | None = None,
) -> Round:
    """A complete hand, dealt at random, that ``seat`` cannot tell from the real one.

    ``source`` is the real :class:`Round` (then ``seat`` names the seat) or that seat's
    :class:`SeatView` (``seat`` may be omitted; ``rules`` default to Duyun's). ``rng`` makes
    it reproducible. See the module docstring for what the sample keeps and conditions on,
    and for ``hand_model`` (:data:`HandModel`).
    """
    rng = rng if rng is not None else random.Random()
    if isinstance(source, Round):
        if seat is None:
            raise TypeError("sample_round(round, seat, rng): name the seat whose view to keep")
        seat = as_seat(seat)
        view = source.view(seat)
        game = source.copy()
        if rules is not None and rules != game.rules:
            raise ValueError("rules: a round is sampled under its own rules")
    elif isinstance(source, SeatView):
        view = source
        if seat is not None and as_seat(seat) != view.seat:
            raise ValueError(f"seat {seat} given for the view of seat {view.seat}")
        seat = view.seat
        game = _round_from_view(view, rules if rules is not None else DUYUN)
    else:
        raise TypeError(f"sample_round needs a Round or a SeatView, not {type(source).__name__}")
    _redeal(game, view, rng, max_tries, hand_model)
    return game


# ---------------------------------------------------------------------- the deal


def _redeal(
    game: Round,
    view: SeatView,
    rng: random.Random,
    max_tries: int,
    hand_model: HandModel | None = None,
) -> None:
    """Replace every tile ``view.seat`` cannot see in ``game`` by a uniform draw of the unseen
    multiset (conditioned as the module docstring says), and clear what depended on them."""
    me = view.seat
    pool = unseen_pool(view)
    others = [s for s in range(SEATS) if s != me and not view.won[s]]
    hidden_kongs = {
        s: [i for i, m in enumerate(view.melds[s]) if m.tile is None and s != me]
        for s in range(SEATS)
    }
    needed = sum(view.concealed_sizes[s] for s in others) + view.wall_remaining
    needed += 4 * sum(len(found) for found in hidden_kongs.values())
    if needed != sum(pool):
        raise DeterminizeError(
            f"the view leaves {sum(pool)} tiles unseen but the hidden hands, concealed kongs "
            f"and wall hold {needed}"
        )
    # Concealed kongs first: every kind with four unseen copies is equally likely (each
    # choice leaves the same number of arrangements of the rest, up to the same factor 4!).
    for owner, positions in hidden_kongs.items():
        for index in positions:
            kinds = [kind for kind in range(NUM_KINDS) if pool[kind] == COPIES]
            if not kinds:
                raise DeterminizeError(f"no kind left for seat {owner}'s concealed kong")
            kind = rng.choice(kinds)
            pool[kind] = 0
            game.melds[owner][index] = Meld(MeldKind.CONCEALED_KONG, kind)
    tiles = [kind for kind in range(NUM_KINDS) for _ in range(pool[kind])]
    hands: dict[int, list[int]] = {}
    for other in others:  # the 報聽 hands first: they are conditioned on being ready
        if view.baoting[other]:
            hand = _ready_hand(game, view, other, tiles, rng, max_tries)
            for tile in hand:
                tiles.remove(tile)
            hands[other] = hand
    rng.shuffle(tiles)
    position = 0
    for other in others:
        if other not in hands:
            size = view.concealed_sizes[other]
            hands[other] = tiles[position : position + size]
            position += size
    wall = tiles[position:]
    if hand_model is not None:
        _apply_model(hand_model, view, hands, wall, rng)
    for other in others:
        counts = [0] * NUM_KINDS
        for tile in hands[other]:
            counts[tile] += 1
        game.counts[other] = counts
        game.last_four_marks[other] = [0] * NUM_KINDS
        game.ron_blocked[other] = False
        game.refused_wins[other] = None
    game.wall = wall
    game.front = 0
    game.back = len(wall)
    if game.phase is Phase.TURN and game.current != me:
        held = hands.get(game.current, [])
        game.drawn_tile = rng.choice(held) if held and game.drawn_tile is not None else None
    if game.phase is Phase.CLAIMS:
        _reopen_claims(game, view)
    game.forget_derived()


def _apply_model(
    hand_model: HandModel,
    view: SeatView,
    hands: dict[int, list[int]],
    wall: list[int],
    rng: random.Random,
) -> None:
    """Let ``hand_model`` reshape the free hands (not 報聽: those are conditioned already) with
    the wall; a model that changes the tiles in play is a bug, named here."""
    before = Counter(wall)
    sizes = {}
    for other, hand in hands.items():
        if not view.baoting[other]:
            before.update(hand)
            sizes[other] = len(hand)
    length = len(wall)
    for other in sizes:
        hand_model(other, hands[other], wall, rng)
    after = Counter(wall)
    for other in sizes:
        after.update(hands[other])
    if (
        after != before
        or len(wall) != length
        or any(len(hands[other]) != size for other, size in sizes.items())
    ):
        raise DeterminizeError("the hand model added or dropped tiles instead of exchanging them")


def _ready_hand(
    game: Round, view: SeatView, seat: int, tiles: list[int], rng: random.Random, tries: int
) -> list[int]:
    """A uniformly random hand of the seat's size from ``tiles`` that is ready (R25) with no
    wait among the tiles it discarded after declaring (R26); by rejection."""
    size = view.concealed_sizes[seat]
    refused = set(view.rivers[seat][1:])
    held_melds = [0] * NUM_KINDS  # a 報聽 hand has no melds (R25)
    for _ in range(tries):
        hand = rng.sample(tiles, size)
        if _ready_without(hand, refused, held_melds, size):
            return hand
    return _built_ready_hand(tiles, size, refused, held_melds, rng)


def _ready_without(hand: Sequence[int], refused: set[int], held: list[int], size: int) -> bool:
    counts = [0] * NUM_KINDS
    for tile in hand:
        counts[tile] += 1
    if size % 3 == 1:
        found = waits(counts, [c + h for c, h in zip(counts, held, strict=True)])
        return bool(found) and not refused.intersection(found)
    for tile in set(hand):  # holding a drawn tile: some discard leaves it ready
        counts[tile] -= 1
        found = waits(counts, [c + h for c, h in zip(counts, held, strict=True)])
        counts[tile] += 1
        if found and not refused.intersection(found):
            return True
    return False


def _built_ready_hand(
    tiles: list[int], size: int, refused: set[int], held: list[int], rng: random.Random
) -> list[int]:
    """A ready hand assembled from sets (the fallback when rejection takes too long)."""
    for _ in range(2000):
        left = list(tiles)
        rng.shuffle(left)
        counts = [0] * NUM_KINDS
        for tile in left:
            counts[tile] += 1
        hand: list[int] = []
        sets = (size - 1) // 3
        for _ in range(sets * 4):
            if len(hand) >= sets * 3:
                break
            start = rng.choice(left)
            shapes = [(start, start, start)]
            if start % 9 <= 6:
                shapes.append((start, start + 1, start + 2))
            shape = rng.choice(shapes)
            need = [0] * NUM_KINDS
            for tile in shape:
                need[tile] += 1
            if all(counts[t] >= need[t] for t in set(shape)):
                for tile in shape:
                    counts[tile] -= 1
                    left.remove(tile)
                hand.extend(shape)
        if len(hand) != sets * 3:
            continue
        hand.extend(rng.sample(left, size - len(hand)))
        if _ready_without(hand, refused, held, size):
            return hand
    raise DeterminizeError("no ready hand can be dealt from the unseen tiles")


def _reopen_claims(game: Round, view: SeatView) -> None:
    """The open claim window with the other seats' options worked out on their new hands
    (by the round itself, as when it opens one); this seat keeps exactly the options its view
    shows."""
    window = game.claims
    assert window is not None
    me = view.seat
    options, forced = game.claim_options_on(
        window.source, window.from_seat, window.tile, window.last_four
    )
    options.pop(me, None)
    if view.legal:
        options[me] = tuple(action.kind for action in view.legal)
    game.claims = ClaimWindow(
        window.source,
        window.from_seat,
        window.tile,
        window.last_four,
        window.gang_shang_pao,
        options,
        [seat for seat in forced if seat != me],
        {s: k for s, k in window.answers.items() if s == me},
    )


# ---------------------------------------------------------------------- from a view


def _round_from_view(view: SeatView, rules: RuleSet) -> Round:
    """A round holding what ``view`` shows; the hidden parts are filled in by :func:`_redeal`."""
    me = view.seat
    game = Round.__new__(Round)
    game.log_version = EVENT_LOG_VERSION
    game.rules = rules
    game.dealer = view.dealer
    game.streak = view.streak
    counts = [[0] * NUM_KINDS for _ in range(SEATS)]
    for tile in view.hand:
        counts[me][tile] += 1
    for owner, tiles in enumerate(view.open_hands):
        if owner != me:
            for tile in tiles:
                counts[owner][tile] += 1
    game.counts = counts
    game.concealed_sizes = list(view.concealed_sizes)
    game.melds = [
        [Meld(m.kind, m.tile if m.tile is not None else 0) for m in melds] for melds in view.melds
    ]
    game.rivers = [list(river) for river in view.rivers]
    drawn_so_far = FULL_WALL - view.wall_remaining
    game.discard_count = [
        len(view.rivers[s]) or int(_had_turn(view, s, drawn_so_far)) for s in range(SEATS)
    ]
    game.baoting = list(view.baoting)
    game.wall = []
    game.front = 0
    game.back = 0
    game.has_bean = list(view.has_bean)
    game.ledger = list(view.payments)
    game.result = None
    game.win_tile = None
    game.bloody = rules.bloody_battle
    game.won = list(view.won)
    game.left = list(view.left)
    game.winners = [s for s in range(SEATS) if view.won[s]]
    game.wins = [
        Win((s,), WinKind.SELF_DRAW, None) for s in game.winners
    ]  # the order and kind of past wins are not in a view (module docstring)
    game.win_tiles = list(view.win_tiles)
    game.off_table = list(view.off_table)
    game.phase = Phase(view.phase)
    game.current = view.current
    game.drawn_tile = view.drawn_tile
    game.turn_kind = _turn_kind(view, drawn_so_far)
    game.drawn_last_four = view.drawn_tile is not None and view.wall_remaining < LAST_TILES
    game.last_four_marks = [[0] * NUM_KINDS for _ in range(SEATS)]
    if game.drawn_last_four and view.drawn_tile is not None:
        game.last_four_marks[me][view.drawn_tile] = 1
    game.kong_income = None
    game.claims = None
    if view.claim_tile is not None and view.claim_from is not None:
        game.claims = ClaimWindow(
            ClaimSource.ADDED_KONG if view.claim_is_rob else ClaimSource.DISCARD,
            view.claim_from,
            view.claim_tile,
            view.wall_remaining < LAST_TILES,
            False,
            {},
            [],
        )
    game.ron_blocked = [False] * SEATS
    game.refused_wins = [None] * SEATS
    game.refused_wins[me] = view.refused_win
    game.any_meld_made = any(view.melds)
    game.discard_made = drawn_so_far > 0 or any(view.rivers) or game.any_meld_made
    game.awaiting_first_draw = [
        not game.discard_count[s] and not game.melds[s] and s != game.dealer for s in range(SEATS)
    ]
    game.dihu_draw = False
    game.forget_derived()
    # the setup a log would start from is unknown: this records the melds and rivers seen
    # (another seat's concealed kongs left out: their kinds are only dealt by _redeal)
    hands = tuple(
        Hand((), tuple(Meld(m.kind, m.tile) for m in melds if m.tile is not None))
        for melds in view.melds
    )
    game.setup = Setup(
        hands=hands,
        wall=(),
        dealer=view.dealer,
        streak=view.streak,
        discards=tuple(tuple(river) for river in view.rivers),
        baoting=tuple(view.baoting),
        turn=view.current,
    )
    game.events = [
        {
            "type": "start",
            "version": EVENT_LOG_VERSION,
            "rules": rules.to_mapping(),
            "sampled_for": me,
        }
    ]
    return game


def _had_turn(view: SeatView, seat: int, drawn_so_far: int) -> bool:
    """Whether ``seat`` has played a turn (and so discarded once at least): the dealer acts
    first, then each seat in order after one draw each (R4, R8)."""
    if view.melds[seat] or view.rivers[seat]:
        return True
    offset = (seat - view.dealer) % SEATS
    if offset == 0:
        return drawn_so_far > 0 or any(view.rivers)
    return drawn_so_far > offset or (drawn_so_far == offset and view.current != seat)


def _turn_kind(view: SeatView, drawn_so_far: int) -> TurnKind:
    """How the current seat came to its turn, from what the view shows (module docstring)."""
    if view.phase != Phase.TURN.value:
        return TurnKind.DRAW
    if view.drawn_tile is None:
        if drawn_so_far == 0 and not any(view.rivers) and view.current == view.dealer:
            return TurnKind.INITIAL
        if view.current == view.seat or view.melds[view.current]:
            return TurnKind.PONG
        return TurnKind.INITIAL
    last: Payment | None = view.payments[-1] if view.payments else None
    if (
        last is not None
        and last.rule == BEAN_RULE
        and last.payee == view.current
        and view.melds[view.current]
        and view.melds[view.current][-1].kind.is_kong
    ):
        return TurnKind.REPLACEMENT
    return TurnKind.DRAW


__all__ = ["DeterminizeError", "sample_round", "unseen_pool"]
