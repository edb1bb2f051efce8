"""One hand (一局) of Duyun mahjong as a pure state machine (RULES R3-R45).

Everything that drives a game -- the terminal game, self-play, bots, the RL environment --
goes through three calls, in the spirit of python-chess:

* ``legal_actions(seat)``: what that seat may do now (empty when it has no choice);
* ``apply(action)``: do it; returns the events it caused, including every automatic step
  that followed (draws, forced discards and wins of R19/R26, claim resolution, settlement);
* ``view(seat)``: what that seat may know.

Forced moves are never offered as choices: they are applied by the engine and reported as
events with ``"auto": true``. While a discard (or an added kong's tile) awaits claims, every
seat that may claim it is asked; the claims are resolved once all of them have answered.

The state is kept as flat count vectors (27 ints per seat) updated incrementally, so that the
hot path of self-play never re-parses notation.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from typing import Any, Literal, SupportsIndex

from duyun.analysis import is_win, shanten
from duyun.engine import inspection, leaving, settlement
from duyun.engine.actions import (
    ACT_EVENTS,
    ADDED_KONG_ACTIONS,
    BAOTING_ACTIONS,
    CLAIM_ACTIONS,
    CONCEALED_KONG_ACTIONS,
    DISCARD_ACTIONS,
    HU_ACTIONS,
    Action,
    ActionKind,
    IllegalActionError,
    LegalActions,
    act_event,
    as_seat,
)
from duyun.engine.events import EndEvent, Event, RefusalRule, RuleOptions, StartEvent, WinHow
from duyun.engine.explain import self_draw_only_declarations, why_illegal
from duyun.engine.ledger import Payment
from duyun.engine.phases import (
    ClaimSource,
    ClaimWindow,
    HandResult,
    Phase,
    TurnKind,
    Win,
    WinKind,
    hand_result,
    leak_forced_wins_v1,
)
from duyun.engine.setup import (
    DEALER_HAND,
    HAND_SIZE,
    SEATS,
    MatchLink,
    Setup,
    deal_setup,
    guess_drawn_tile,
    validate_setup,
)
from duyun.engine.shapes import hand_text, may_be_ready_after_discard, quick_waits
from duyun.engine.view import MeldView, RefusedWin, SeatView, copy_event, seat_view
from duyun.hand import Hand, Meld, MeldKind
from duyun.rules import DUYUN, RuleSet
from duyun.scoring import PatternResult, best_pattern, max_fan
from duyun.tiles import COPIES, NUM_KINDS, TILE_NAMES, Tile, from_counts, tile_to_str

_NAMES = TILE_NAMES  # tile -> notation, for tiles the engine itself holds (always 0..26)

EVENT_LOG_VERSION = 2
# v2: ``start.match``, ``win_refused``, forced wins told on resolution; replay.py reads v1 too
READABLE_LOG_VERSIONS = (1, 2)
LAST_TILES = 4  # R19
# the other seats of each seat, in play order after it (R3)
_OTHERS: tuple[tuple[int, ...], ...] = tuple(
    tuple((seat + offset) % SEATS for offset in (1, 2, 3)) for seat in range(SEATS)
)
_SEAT_TUPLES: tuple[tuple[int], ...] = tuple((seat,) for seat in range(SEATS))
_NO_ACTIONS = LegalActions(())  # immutable: one object serves every seat without a choice
# enum members as module constants: the hot path reads them without a class lookup
_PHASE_TURN = Phase.TURN
_PHASE_CLAIMS = Phase.CLAIMS
_DISCARD_KIND = ActionKind.DISCARD
_DRAW_TURN = TurnKind.DRAW
_FROM_DISCARD = ClaimSource.DISCARD
# how a seat stands to a tile offered for claims (Round._win_claim)
_NO_WIN = "no"
_MAY_WIN = "may"
_MUST_WIN = "must"


#: the ``end`` event's names (engine/events.py ``EndEvent``, ``WinHow``)
_RESULT_NAMES: dict[str, Literal["win", "draw", "escape"]] = {
    "win": "win",
    "draw": "draw",
    "escape": "escape",
}
_WIN_HOWS: dict[WinKind, WinHow] = {
    WinKind.SELF_DRAW: "self_draw",
    WinKind.DISCARD: "discard",
    WinKind.ROB_KONG: "rob_kong",
}


def _rule_options(rules: RuleSet) -> RuleOptions:
    """The ``start`` event's rule options, field by field through their schema."""
    return {
        "pass_blocks_ron": rules.pass_blocks_ron,
        "dead_waits_count": rules.dead_waits_count,
        "dihu_on_discard": rules.dihu_on_discard,
        "base_points": rules.base_points,
        "escape_penalty_units": rules.escape_penalty_units,
        "flower_pig": rules.flower_pig,
        "bloody_battle": rules.bloody_battle,
    }


def _logged(event: Event) -> dict[str, Any]:
    """An event for the log, checked against its TypedDict (engine/events.py) by mypy; at run
    time the very same dict (the log's type stays ``dict[str, Any]`` for its readers)."""
    return event  # type: ignore[return-value]


class Round:
    """The state machine of one hand. Construct with :func:`deal_setup` or a scenario setup;
    :meth:`copy` (``copy.copy``, ``copy.deepcopy``, pickle) gives an independent one."""

    def __new__(cls, *_args: Any, **_kwargs: Any) -> Round:
        # empty, for copying and pickle (compiled, no __new__ would run __init__: issue 23)
        return super().__new__(cls)

    def __init__(
        self, setup: Setup, rules: RuleSet = DUYUN, *, log_version: int = EVENT_LOG_VERSION
    ) -> None:
        """Start the hand. ``log_version`` is only for replaying an older log (replay.py): the
        round then writes the events that version wrote (version 1: no ``match`` link, no
        ``win_refused``, a forced win announced when its claim window opens, with the other
        claimants left only "hu" or "pass")."""
        if log_version not in READABLE_LOG_VERSIONS:
            raise ValueError(f"event log version {log_version!r} is not supported")
        self.log_version = log_version
        if not isinstance(setup, Setup):
            raise TypeError(f"Round needs a Setup (see deal_setup), not {type(setup).__name__}")
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, not {type(rules).__name__}")
        self.rules = rules
        self.setup = setup
        validate_setup(setup, rules)  # before any of it is stored in a typed field
        self.dealer: int = setup.dealer
        self.streak: int = setup.streak

        self.counts: list[list[int]] = [hand.counts() for hand in setup.hands]
        # concealed tiles per seat (the sum of its counts), kept with every lasting change of
        # the counts: public (every view shows them), and read on every RL observation
        self.concealed_sizes: list[int] = [sum(counts) for counts in self.counts]
        self.melds: list[list[Meld]] = [list(hand.melds) for hand in setup.hands]
        self.rivers: list[list[Tile]] = [list(river) for river in setup.discards]
        self.discard_count: list[int] = [len(river) for river in setup.discards]
        self.baoting: list[bool] = list(setup.baoting)
        self.wall: list[Tile] = list(setup.wall)
        self.front = 0
        self.back = len(self.wall)
        self.has_bean = [any(m.is_kong for m in melds) for melds in self.melds]  # R15
        self.ledger: list[Payment] = []
        self.events: list[dict[str, Any]] = []
        self.result: HandResult | None = None
        self.win_tile: Tile | None = None  # the tile of the latest win
        # R53 血戰到底: winners leave play (``won``); a winner may then leave the table (R57)
        self.bloody = rules.bloody_battle
        self.won: list[bool] = [False] * SEATS
        self.left: list[bool] = [False] * SEATS
        self.winners: list[int] = []  # in order of winning
        self.wins: list[Win] = []
        self.win_tiles: list[Tile | None] = [None] * SEATS
        # tiles won on a discard or a robbed kong: in no hand, meld or river any more (one per
        # win, shared by the winners of a 一炮多響)
        self.off_table: list[Tile] = []

        self.phase = Phase.TURN
        self.current = self.dealer if setup.turn is None else setup.turn
        self.turn_kind = TurnKind.INITIAL
        self.drawn_tile: Tile | None = None
        self.drawn_last_four = False
        # R19: per seat and kind, how many tiles held were drawn from the last four; a discard
        # or an added kong's tile of a marked kind is one of the last four (the mark goes with it)
        self.last_four_marks: list[list[int]] = [[0] * NUM_KINDS for _ in range(SEATS)]
        self.kong_income: list[Payment] | None = None  # of the kong just made, for 槓上炮 (R28)
        self.claims: ClaimWindow | None = None
        self.ron_blocked = [False] * SEATS  # R9
        # the latest win each seat was refused (R17, R9), until its next own action or draw
        self.refused_wins: list[RefusedWin | None] = [None] * SEATS
        self._self_draw_only: tuple[Tile, ...] | None = None
        self.any_meld_made = any(self.melds)
        self.discard_made = any(self.discard_count)
        # 地胡 (R20): a non-dealer's first draw of the hand; a seat that has discarded or melded
        # has drawn before.
        self.awaiting_first_draw = [
            not self.discard_count[s] and not self.melds[s] and s != self.dealer
            for s in range(SEATS)
        ]
        self.dihu_draw = False
        self._waits_cache: list[list[Tile] | None] = [None] * SEATS
        self._turn_legal: LegalActions | None = None
        # views are built before every bot decision; these parts change rarely
        self.meld_views: dict[int, tuple[tuple[MeldView, ...], ...]] = {}
        self.ledger_view: tuple[tuple[Payment, ...], tuple[int, ...]] | None = None

        dealt = setup.to_json()
        start: StartEvent = {
            "type": "start",
            "version": log_version,
            "rules": _rule_options(rules),
            "dealer": dealt["dealer"],
            "streak": dealt["streak"],
            "hands": dealt["hands"],
            "discards": dealt["discards"],
            "baoting": dealt["baoting"],
            "turn": dealt["turn"],
            "drawn": dealt["drawn"],
            "wall": dealt["wall"],
            "seed": dealt["seed"],
        }
        if log_version > 1:  # version 1 logs have no match link
            start["match"] = dealt["match"]
        self.events.append(_logged(start))
        self._start()

    def _size(self, seat: int) -> int:
        return sum(self.counts[seat]) + 3 * len(self.melds[seat])

    def _start(self) -> None:
        """Enter the first decision: the turn seat acts, or draws first when it holds 13."""
        seat = self.current
        if self._size(seat) == HAND_SIZE:
            self._draw_or_exhaust(seat, self.events)
            return
        if self.setup.drawn:
            self.turn_kind = TurnKind.DRAW
            self.drawn_tile = guess_drawn_tile(self, seat)
            # R19: the tile in hand was drawn from a wall one tile longer than now
            self.drawn_last_four = self.wall_remaining + 1 <= LAST_TILES
            if self.drawn_last_four and self.drawn_tile is not None:
                self.last_four_marks[seat][self.drawn_tile] += 1
        self._after_turn_start(seat, self.events)

    # ------------------------------------------------------------------ queries

    @property
    def wall_remaining(self) -> int:
        return self.back - self.front

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.ENDED

    @property
    def to_act(self) -> tuple[int, ...]:
        """Seats that have a decision to make now."""
        if self.phase is Phase.TURN:
            return _SEAT_TUPLES[self.current]
        if self.phase is Phase.CLAIMS:
            assert self.claims is not None
            return tuple(s for s in self.claims.options if s not in self.claims.answers)
        return ()

    def hand_of(self, seat: object) -> Hand:
        seat = seat if type(seat) is int and 0 <= seat < SEATS else as_seat(seat)
        return Hand(tuple(from_counts(self.counts[seat])), tuple(self.melds[seat]))

    def _hand_text(self, seat: int) -> str:
        """``str(self.hand_of(seat))`` without building the Hand (events name hands)."""
        return hand_text(self.counts[seat], self.melds[seat])

    def held_counts(self, seat: object) -> list[int]:
        """Concealed and melded tiles of a seat (R11's four-copies exclusion)."""
        seat = seat if type(seat) is int and 0 <= seat < SEATS else as_seat(seat)
        held = list(self.counts[seat])
        for meld in self.melds[seat]:
            held[meld.tile] += meld.kind.size
        return held

    def waits_of(self, seat: object) -> list[Tile]:
        """Waits of a seat holding 3k+1 tiles, cached until its hand changes."""
        seat = seat if type(seat) is int and 0 <= seat < SEATS else as_seat(seat)
        cached = self._waits_cache[seat]
        if cached is None:
            cached = quick_waits(self.counts[seat], self.held_counts(seat))
            self._waits_cache[seat] = cached
        return cached

    def ready_waits_for(self, seat: int, counts: Sequence[int]) -> list[Tile]:
        """R11 waits of ``counts`` (3k+1 tiles) for ``seat``, honouring ``dead_waits_count``."""
        held = list(counts)
        for meld in self.melds[seat]:
            held[meld.tile] += meld.kind.size
        found = quick_waits(counts, held)
        if self.rules.dead_waits_count or not found:
            return found
        visible = held
        for other in range(SEATS):
            for tile in self.rivers[other]:
                visible[tile] += 1
            if other != seat:
                for meld in self.melds[other]:
                    if meld.kind is not MeldKind.CONCEALED_KONG:
                        visible[meld.tile] += meld.kind.size
        return [tile for tile in found if visible[tile] < COPIES]

    def ready_waits(self, seat: object) -> list[Tile]:
        """R11 waits of a seat holding 3k+1 tiles (dead waits per the rule option)."""
        seat = seat if type(seat) is int and 0 <= seat < SEATS else as_seat(seat)
        if self.rules.dead_waits_count:
            return self.waits_of(seat)
        return self.ready_waits_for(seat, self.counts[seat])

    def _invalidate(self, seat: int) -> None:
        self._waits_cache[seat] = None

    def forget_derived(self) -> None:
        """Drop every cache derived from the hands, melds and ledger: a sampler that deals the
        hidden tiles anew (``determinize``) calls it, so nothing computed for the old tiles
        survives. Caches are the round's own; nobody else writes them."""
        self._waits_cache = [None] * SEATS
        self._turn_legal = None
        self._self_draw_only = None
        self.meld_views = {}
        self.ledger_view = None

    def claim_options_on(
        self, source: ClaimSource, from_seat: int, tile: Tile, last_four: bool
    ) -> tuple[dict[int, tuple[ActionKind, ...]], list[int]]:
        """What each other seat still in the hand may answer on ``tile``, and which must win
        on it (R6, R7, R9, R13, R17, R19, R26): what the round works out when it opens a claim
        window, for a sampler that reopens one on dealt hands. A refused win is remembered
        for its seat as the engine does; its notice is not logged."""
        return self._claim_options(source, from_seat, tile, last_four, [])

    def legal_actions(self, seat: object) -> LegalActions:
        """Every action ``seat`` may take now; empty when it has no choice to make.

        ``seat`` is typed ``object`` because it is checked here (a bool, a float or a seat out
        of range is an error naming it): a compiled engine (mypyc) would otherwise convert or
        refuse it with its own message before the check."""
        seat = seat if type(seat) is int and 0 <= seat < SEATS else as_seat(seat)
        if self.phase is _PHASE_TURN and seat == self.current:
            # a driver lists the actions and apply() checks them again: compute them once
            # per position (any change of state goes through apply/escape, which clear this)
            cached = self._turn_legal
            if cached is None:
                cached = self._turn_legal = LegalActions(self._turn_actions(seat))
            return cached
        if self.phase is _PHASE_CLAIMS:
            window = self.claims
            assert window is not None
            if seat in window.answers:
                return _NO_ACTIONS
            # asked again by apply() and by drivers: built once per seat and window
            cached = window.legal.get(seat)
            if cached is None:
                options = window.options.get(seat)
                if options is None:
                    return _NO_ACTIONS
                cached = window.legal[seat] = LegalActions(
                    [CLAIM_ACTIONS[kind][seat] for kind in options]
                )
            return cached
        return _NO_ACTIONS

    def _turn_actions(self, seat: int) -> list[Action]:
        counts = self.counts[seat]
        actions: list[Action] = []
        if self.turn_kind is not TurnKind.PONG:
            if is_win(counts):
                actions.append(HU_ACTIONS[seat])
            if self.back > self.front and not self.baoting[seat]:  # R7, R26
                if 4 in counts:
                    concealed = CONCEALED_KONG_ACTIONS[seat]
                    actions.extend([concealed[t] for t in range(NUM_KINDS) if counts[t] == 4])
                melds = self.melds[seat]
                if melds:
                    added = ADDED_KONG_ACTIONS[seat]
                    actions.extend(
                        [
                            added[meld.tile]
                            for meld in melds
                            if meld.kind is MeldKind.PONG and counts[meld.tile]
                        ]
                    )
        # the discards in tile order: compress keeps the action of each kind held
        actions.extend(compress(DISCARD_ACTIONS[seat], counts))
        # a 14-tile hand's shanten is its best discard's: above 0 no discard leaves it ready
        if (
            not self.discard_count[seat]  # the cheapest part of R25's test first
            and self.may_declare_baoting(seat)
            and may_be_ready_after_discard(counts)
            and shanten(counts) <= 0
        ):
            declarations = BAOTING_ACTIONS[seat]
            for tile in list(compress(range(NUM_KINDS), counts)):
                counts[tile] -= 1
                ready = bool(self.ready_waits_for(seat, counts))
                counts[tile] += 1
                if ready:
                    actions.append(declarations[tile])
        return actions

    def baoting_self_draw_only(self, seat: object) -> tuple[Tile, ...]:
        """Legal 報聽 discards after which ``seat`` could never win on an ordinary discard.

        A 報聽 hand is frozen (R26): it can make no kong, so a seat without a bean keeps none
        (R15). If every wait of the hand left by the discard scores only 平胡, R17 refuses each
        discard win except on another 報聽 player's discard (R27); the seat can still win by
        self-draw or 搶槓. Clients warn before such a declaration. Empty when the seat may not
        declare now or has a bean.
        """
        seat = seat if type(seat) is int and 0 <= seat < SEATS else as_seat(seat)
        if (
            self.phase is not Phase.TURN
            or seat != self.current
            or self.has_bean[seat]
            or not self.may_declare_baoting(seat)
        ):
            return ()
        cached = self._self_draw_only
        if cached is not None:
            return cached
        self._self_draw_only = self_draw_only_declarations(self, seat)
        return self._self_draw_only

    def may_declare_baoting(self, seat: int) -> bool:
        """R25: with one's first discard, never after a pong or kong."""
        return (
            not self.baoting[seat]
            and self.discard_count[seat] == 0
            and not self.melds[seat]
            and self.turn_kind is not TurnKind.PONG
        )

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: Action) -> list[dict[str, Any]]:
        """Apply a seat's decision; return the events it caused, automatic ones included.

        The returned events are copies; ``self.events`` is the log itself.
        """
        # the caller gets copies: editing them must not rewrite the log
        return [copy_event(event) for event in self.apply_logged(action)]

    def apply_logged(self, action: Action) -> list[dict[str, Any]]:
        """:meth:`apply` without the copies: the events returned are the log's own objects
        (``self.events[-len(result):]``) and must not be edited.

        For drivers that only read the events, or none at all (the RL environment follows the
        log itself): copying a decision's three or so events is a measurable part of a step.
        """
        if type(action) is not Action and not isinstance(action, Action):
            raise TypeError(
                f"apply() takes an Action (e.g. Action.parse('0 discard 5p')), not "
                f"{type(action).__name__}"
            )
        seat = action.seat
        # the engine's own action objects (the drivers hand them back) match by identity; a
        # scan by identity first spares the dataclass __eq__ on every earlier legal action
        for offered in self.legal_actions(seat).actions:
            if offered is action:
                break
        else:
            if action not in self.legal_actions(seat):
                raise IllegalActionError(f"{action}: {why_illegal(self, action)}")
        return self.apply_unchecked(action)

    def apply_unchecked(self, action: Action) -> list[dict[str, Any]]:
        """:meth:`apply_logged` without the legality check, for a driver that has just taken
        ``action`` from ``legal_actions(action.seat)`` for this very position (the RL
        environment does, by identity). Anything else corrupts the round: use :meth:`apply`."""
        seat = action.seat
        template = ACT_EVENTS.get(id(action))
        act = template.copy() if template is not None else act_event(action)
        events: list[dict[str, Any]] = [_logged(act)]
        self._turn_legal = None
        self._self_draw_only = None
        self.refused_wins[seat] = None
        if self.phase is _PHASE_CLAIMS:
            self._answer_claim(action, events)
        elif action.kind is _DISCARD_KIND:  # most decisions: straight to the discard
            self._discard(seat, action.tile, False, False, events)  # type: ignore[arg-type]
        else:
            self._turn_action(action, events)
        self.events.extend(events)
        return events

    def _turn_action(self, action: Action, events: list[dict[str, Any]]) -> None:
        seat, kind = action.seat, action.kind
        if kind is ActionKind.HU:
            self._settle_self_draw(seat, auto=False, events=events)
        elif kind is ActionKind.DISCARD or kind is ActionKind.BAOTING:
            assert action.tile is not None
            self._discard(seat, action.tile, kind is ActionKind.BAOTING, False, events)
        elif kind is ActionKind.CONCEALED_KONG:
            assert action.tile is not None
            self._concealed_kong(seat, action.tile, events)
        elif kind is ActionKind.ADDED_KONG:
            assert action.tile is not None
            self._declare_added_kong(seat, action.tile, events)
        else:  # pragma: no cover - legal_actions never offers anything else on a turn
            raise IllegalActionError(f"{action}: not a turn action")

    def _draw_or_exhaust(self, seat: int, events: list[dict[str, Any]]) -> None:
        if self.wall_remaining == 0:
            self._settle_exhaustive_draw(events)
            return
        self._draw(seat, replacement=False, events=events)

    def _draw(self, seat: int, *, replacement: bool, events: list[dict[str, Any]]) -> None:
        # the hot path of every hand: small helpers are inlined (same steps, same order)
        last_four = self.back - self.front <= LAST_TILES  # R19: the drawn tile included
        if replacement:
            self.back -= 1
            tile = self.wall[self.back]
        else:
            tile = self.wall[self.front]
            self.front += 1
        self.counts[seat][tile] += 1
        self.concealed_sizes[seat] += 1
        if last_four:
            self.last_four_marks[seat][tile] += 1
        self._waits_cache[seat] = None
        self.phase = _PHASE_TURN
        self.current = seat
        self.claims = None
        self.drawn_tile = tile
        self.drawn_last_four = last_four
        self.ron_blocked[seat] = False  # R9: the block lasts until one's own next draw
        self.refused_wins[seat] = None
        if replacement:
            self.turn_kind = TurnKind.REPLACEMENT
            self.dihu_draw = False
        else:
            self.turn_kind = _DRAW_TURN
            self.kong_income = None
            awaiting = self.awaiting_first_draw
            self.dihu_draw = awaiting[seat] and not self.any_meld_made
            awaiting[seat] = False
        events.append(
            _logged(
                {
                    "type": "draw",
                    "seat": seat,
                    "tile": _NAMES[tile],
                    "replacement": replacement,
                    "last_four": last_four,
                }
            )
        )
        # a drawn turn has forced moves only for a 報聽 seat or a last-four tile (R19, R26)
        if last_four or self.baoting[seat]:
            self._after_turn_start(seat, events)

    def _after_turn_start(self, seat: int, events: list[dict[str, Any]]) -> None:
        """Forced moves at the start of a turn: R19 last-four wins, R26 報聽 wins and discards."""
        if self.turn_kind is TurnKind.PONG:
            return
        forced_win = self.baoting[seat] or (
            self.drawn_last_four and self.turn_kind is not TurnKind.INITIAL
        )
        if forced_win and is_win(self.counts[seat]):
            self._settle_self_draw(seat, auto=True, events=events)
        elif self.baoting[seat] and self.drawn_tile is not None:
            self._discard(seat, self.drawn_tile, False, True, events)

    def _discard(
        self, seat: int, tile: Tile, declare: bool, auto: bool, events: list[dict[str, Any]]
    ) -> None:
        counts = self.counts[seat]
        marks = self.last_four_marks[seat]  # R19, as _take_last_four_mark (inlined)
        last_four = marks[tile] > 0
        if last_four:
            marks[tile] -= 1
        gang_shang_pao = self.kong_income is not None and self.turn_kind is TurnKind.REPLACEMENT
        if declare:
            self.baoting[seat] = True  # R25
            events.append(_logged({"type": "baoting", "seat": seat, "tile": _NAMES[tile]}))
        counts[tile] -= 1
        self.concealed_sizes[seat] -= 1
        self._waits_cache[seat] = None
        self.rivers[seat].append(tile)
        self.discard_count[seat] += 1
        self.discard_made = True
        self.drawn_tile = None
        events.append(
            _logged(
                {
                    "type": "discard",
                    "seat": seat,
                    "tile": _NAMES[tile],
                    "baoting": declare,
                    "auto": auto,
                }
            )
        )
        self._open_claims(ClaimSource.DISCARD, seat, tile, last_four, gang_shang_pao, events)

    def _take_last_four_mark(self, seat: int, tile: Tile) -> bool:
        """R19: whether a tile of kind ``tile`` leaving ``seat``'s hand is one of the last four.

        Copies of a kind are indistinguishable, so the reading is: it is when the seat holds a
        copy of that kind drawn from the last four; that copy's mark goes with it.
        """
        marks = self.last_four_marks[seat]
        if marks[tile]:
            marks[tile] -= 1
            return True
        return False

    def _drop_last_four_marks(self, seat: int, tile: Tile) -> None:
        """After a pong or kong took copies of ``tile`` from the hand: no more marks than
        copies left (marked copies are taken last: the seat keeps every mark it can)."""
        marks = self.last_four_marks[seat]
        if marks[tile] > self.counts[seat][tile]:
            marks[tile] = self.counts[seat][tile]

    def _win_allowed_on(
        self, seat: int, tile: Tile, source: ClaimSource, from_seat: int
    ) -> PatternResult | None:
        """The pattern a claim of ``tile`` would score, or None if it may not win (R16, R17)."""
        pattern, refusal = self.win_on(seat, tile, source, from_seat)
        return None if refusal is not None else pattern

    def win_on(
        self, seat: int, tile: Tile, source: ClaimSource, from_seat: int
    ) -> tuple[PatternResult | None, RefusalRule | None]:
        """Whether ``tile`` completes ``seat``'s hand, and whether the win is allowed.

        Returns ``(None, None)`` when the tile does not complete the hand, ``(pattern, None)``
        when the seat may win with ``pattern``, and ``(pattern, rule)`` when the hand is
        complete but the win is refused: ``"R17"`` (平胡 without a bean on a discard from a
        seat that has not declared 報聽) or ``"R9"`` (the 過水 block). When both apply, R17 is
        named: the win would be refused even without the block.
        """
        counts = self.counts[seat]
        # A tile someone else holds can never be a fifth copy, so R11's four-copies exclusion
        # cannot apply here, and a plain win check is cheaper than listing the waits.
        counts[tile] += 1
        try:
            if not is_win(counts):
                return None, None
            pattern = best_pattern(
                self.hand_of(seat), dihu=self._dihu_on_discard(seat, from_seat, source)
            )
        finally:
            counts[tile] -= 1
        if pattern is None:  # pragma: no cover - a wait always completes the hand
            return None, None
        if source is ClaimSource.ADDED_KONG:
            return pattern, None  # 搶槓 is always allowed (R17), and R9 does not block it
        if pattern.fan <= 1 and not self.has_bean[seat] and not self.baoting[from_seat]:
            return pattern, "R17"  # R17, R27
        if self.ron_blocked[seat]:
            return pattern, "R9"
        return pattern, None

    def _dihu_on_discard(self, seat: int, from_seat: int, source: ClaimSource) -> bool:
        """R20 option ``dihu_on_discard``: a non-dealer wins on the dealer's first discard."""
        return (
            self.rules.dihu_on_discard
            and source is ClaimSource.DISCARD
            and from_seat == self.dealer
            and seat != self.dealer
            and self.discard_count[from_seat] == 1
            and not self.any_meld_made
            and self.awaiting_first_draw[seat]
        )

    def _open_claims(
        self,
        source: ClaimSource,
        from_seat: int,
        tile: Tile,
        last_four: bool,
        gang_shang_pao: bool,
        events: list[dict[str, Any]],
    ) -> None:
        """After a discard or an added kong's tile: ask every seat that may claim it, or play
        on when none may (R6, R13, R16-R19, R26)."""
        if self._nobody_can_claim(from_seat, tile):  # the common case, decided cheaply
            self._play_on(source, from_seat, tile, events)
            return
        options, forced = self._claim_options(source, from_seat, tile, last_four, events)
        if not options and not forced:
            self._play_on(source, from_seat, tile, events)
            return
        if forced and self.log_version == 1:
            options = leak_forced_wins_v1(options, forced, events)
        self.phase = Phase.CLAIMS
        self.claims = ClaimWindow(
            source, from_seat, tile, last_four, gang_shang_pao, options, forced
        )
        if not options:  # only forced wins: nobody to ask
            self._resolve_claims(events)

    def _nobody_can_claim(self, from_seat: int, tile: Tile) -> bool:
        """Whether no other seat still in the hand can win on ``tile`` or pong it.

        The test of :meth:`_claim_options` (a win check of the hand with the tile added, two
        copies held) without building anything: when it cannot rule a claim out,
        :meth:`_claim_options` decides (and writes any refusal events) in full.
        """
        counts = self.counts
        won = self.won
        for seat in _OTHERS[from_seat]:
            if won[seat]:
                continue
            hand = counts[seat]
            held = hand[tile]
            if held >= 2:
                return False
            hand[tile] = held + 1
            complete = is_win(hand)
            hand[tile] = held
            if complete:
                return False
        return True

    def _play_on(
        self, source: ClaimSource, from_seat: int, tile: Tile, events: list[dict[str, Any]]
    ) -> None:
        """Nobody claims: the next seat still in the hand draws (R8, R53), or the added kong
        is made (R13)."""
        self.claims = None
        if source is _FROM_DISCARD:
            self._draw_or_exhaust(self._next_in_hand(from_seat), events)
        else:
            self._complete_added_kong(from_seat, tile, events)

    def _claim_options(
        self,
        source: ClaimSource,
        from_seat: int,
        tile: Tile,
        last_four: bool,
        events: list[dict[str, Any]],
    ) -> tuple[dict[int, tuple[ActionKind, ...]], list[int]]:
        """What each other seat still in the hand may answer on ``tile`` (its claims and
        "pass"), and which seats must win on it without being asked (R19, R26)."""
        options: dict[int, tuple[ActionKind, ...]] = {}
        forced: list[int] = []
        for seat in _OTHERS[from_seat]:
            if self.won[seat]:
                continue  # R53: a winner claims no more
            win = self._win_claim(seat, tile, source, from_seat, last_four, events)
            if win == _MUST_WIN:
                forced.append(seat)
                continue
            kinds = [ActionKind.HU] if win == _MAY_WIN else []
            if source is _FROM_DISCARD and not self.baoting[seat]:
                kinds += self._meld_claims(seat, tile)
            if kinds:
                options[seat] = (*kinds, ActionKind.PASS)
        return options, forced

    def _win_claim(
        self,
        seat: int,
        tile: Tile,
        source: ClaimSource,
        from_seat: int,
        last_four: bool,
        events: list[dict[str, Any]],
    ) -> str:
        """Whether ``seat`` cannot win on ``tile``, may, or must (R19, R26: no choice --
        except under the 過水 block, R9, which a robbed kong tile does not refuse but which
        lifts the obligation). A win refused by R17 or R9 is told to the seat alone."""
        pattern, refusal = self.win_on(seat, tile, source, from_seat)
        if refusal is not None:
            assert pattern is not None
            if self.log_version > 1:
                self._refuse_win(seat, tile, from_seat, refusal, pattern.name, events)
            return _NO_WIN
        if pattern is None:
            return _NO_WIN
        if (self.baoting[seat] or last_four) and not self.ron_blocked[seat]:
            return _MUST_WIN
        return _MAY_WIN

    def _meld_claims(self, seat: int, tile: Tile) -> list[ActionKind]:
        """Pong with two copies held, kong with three while the wall can replace (R6, R7)."""
        held = self.counts[seat][tile]
        kinds: list[ActionKind] = []
        if held >= 2:
            kinds.append(ActionKind.PONG)
        if held == 3 and self.wall_remaining > 0:  # R7
            kinds.append(ActionKind.KONG)
        return kinds

    def _refuse_win(
        self,
        seat: int,
        tile: Tile,
        from_seat: int,
        reason: RefusalRule,
        pattern: str,
        events: list[dict[str, Any]],
    ) -> None:
        """Tell ``seat`` (and only it, see :func:`redact_event`) that ``tile`` completes its
        hand but may not win (R17, R9). Nothing else changes: no claim window opens for it."""
        self.refused_wins[seat] = RefusedWin(tile, from_seat, reason, pattern)
        events.append(
            _logged(
                {
                    "type": "win_refused",
                    "seat": seat,
                    "tile": tile_to_str(tile),
                    "from": from_seat,
                    "reason": reason,
                    "pattern": pattern,
                }
            )
        )

    def _answer_claim(self, action: Action, events: list[dict[str, Any]]) -> None:
        assert self.claims is not None
        self.claims.answers[action.seat] = action.kind
        if len(self.claims.answers) == len(self.claims.options):
            self._resolve_claims(events)

    def _resolve_claims(self, events: list[dict[str, Any]]) -> None:
        window = self.claims
        assert window is not None
        for seat in window.forced if self.log_version > 1 else ():  # announced now
            events.append(_logged({"type": "claim", "seat": seat, "claim": "hu", "auto": True}))
        winners = [s for s in window.forced]
        winners += [s for s, kind in window.answers.items() if kind is ActionKind.HU]
        if self.rules.pass_blocks_ron:
            for seat, kind in window.answers.items():
                if kind is ActionKind.PASS and ActionKind.HU in window.options[seat]:
                    self.ron_blocked[seat] = True  # R9
        if winners:
            order = sorted(winners, key=lambda s: (s - window.from_seat) % SEATS)
            self._settle_claimed_win(order, window, events)
            return
        claimer = next(
            (s for s, k in window.answers.items() if k in (ActionKind.PONG, ActionKind.KONG)),
            None,
        )
        if window.source is ClaimSource.ADDED_KONG:
            self._complete_added_kong(window.from_seat, window.tile, events)
        elif claimer is not None:
            if window.answers[claimer] is ActionKind.PONG:
                self._pong(claimer, window, events)
            else:
                self._direct_kong(claimer, window, events)
        else:
            self.claims = None
            self._draw_or_exhaust(self._next_in_hand(window.from_seat), events)

    # ------------------------------------------------------------------ melds and beans

    def _take_discard(self, window: ClaimWindow) -> None:
        river = self.rivers[window.from_seat]
        assert river and river[-1] == window.tile
        river.pop()

    def _pong(self, seat: int, window: ClaimWindow, events: list[dict[str, Any]]) -> None:
        self.meld_views.clear()
        self._take_discard(window)
        self.counts[seat][window.tile] -= 2
        self.concealed_sizes[seat] -= 2
        self._drop_last_four_marks(seat, window.tile)
        self._invalidate(seat)
        self.melds[seat].append(Meld(MeldKind.PONG, window.tile))
        self.any_meld_made = True
        self.claims = None
        self.phase = Phase.TURN
        self.current = seat
        self.turn_kind = TurnKind.PONG
        self.drawn_tile = None
        self.drawn_last_four = False
        self.kong_income = None
        events.append(
            _logged(
                {
                    "type": "pong",
                    "seat": seat,
                    "tile": _NAMES[window.tile],
                    "from": window.from_seat,
                }
            )
        )

    def _bean(
        self, seat: int, payers: Sequence[int], units: int, kind: str, events: list[dict[str, Any]]
    ) -> None:
        """R12: beans are paid at once, in base units, without the dealer bonus (R36)."""
        rows = settlement.bean_rows(self._table(), seat, payers, units, kind)
        self._pay(rows, events)
        self.has_bean[seat] = True  # R15
        self.kong_income = rows

    def _after_kong(self, seat: int, events: list[dict[str, Any]]) -> None:
        self.any_meld_made = True
        self._invalidate(seat)
        self._draw(seat, replacement=True, events=events)

    def _direct_kong(self, seat: int, window: ClaimWindow, events: list[dict[str, Any]]) -> None:
        self.meld_views.clear()
        self._take_discard(window)
        self.counts[seat][window.tile] -= 3
        self.concealed_sizes[seat] -= 3
        self._drop_last_four_marks(seat, window.tile)
        self.melds[seat].append(Meld(MeldKind.DIRECT_KONG, window.tile))
        self.claims = None
        events.append(
            _logged(
                {
                    "type": "kong",
                    "seat": seat,
                    "kind": "direct_kong",
                    "tile": _NAMES[window.tile],
                    "from": window.from_seat,
                }
            )
        )
        self._bean(seat, [window.from_seat], 1, "直槓 銀豆", events)
        self._after_kong(seat, events)

    def _concealed_kong(self, seat: int, tile: Tile, events: list[dict[str, Any]]) -> None:
        self.meld_views.clear()
        self.counts[seat][tile] -= 4
        self.concealed_sizes[seat] -= 4
        self._drop_last_four_marks(seat, tile)
        self.melds[seat].append(Meld(MeldKind.CONCEALED_KONG, tile))
        events.append(
            _logged({"type": "kong", "seat": seat, "kind": "concealed_kong", "tile": _NAMES[tile]})
        )
        self._bean(seat, self._payers(seat), 2, "暗槓 金豆", events)
        self._after_kong(seat, events)

    def _declare_added_kong(self, seat: int, tile: Tile, events: list[dict[str, Any]]) -> None:
        """R13: the added tile may be robbed before the kong happens."""
        last_four = self._take_last_four_mark(seat, tile)
        self.counts[seat][tile] -= 1
        self.concealed_sizes[seat] -= 1
        self._invalidate(seat)
        self.drawn_tile = None
        self._open_claims(ClaimSource.ADDED_KONG, seat, tile, last_four, False, events)

    def _complete_added_kong(self, seat: int, tile: Tile, events: list[dict[str, Any]]) -> None:
        self.meld_views.clear()
        melds = self.melds[seat]
        index = next(i for i, m in enumerate(melds) if m.kind is MeldKind.PONG and m.tile == tile)
        melds[index] = Meld(MeldKind.ADDED_KONG, tile)
        self.claims = None
        events.append(
            _logged({"type": "kong", "seat": seat, "kind": "added_kong", "tile": _NAMES[tile]})
        )
        self._bean(seat, self._payers(seat), 1, "面下槓 銀豆", events)
        self._after_kong(seat, events)

    def _payers(self, seat: int) -> list[int]:
        """Every other player still in the hand (未胡者, R12, R29, R45, R54), in play order."""
        return [other for other in _OTHERS[seat] if not self.won[other]]

    def _next_in_hand(self, seat: int) -> int:
        """The next seat after ``seat`` in play order that is still in the hand (R8, R53)."""
        for other in _OTHERS[seat]:
            if not self.won[other]:
                return other
        raise AssertionError("nobody is left in the hand")  # pragma: no cover - R53 ends it

    def in_hand(self, seat: object) -> bool:
        """Whether ``seat`` still plays this hand: it has not won (R53) and the hand goes on."""
        return not self.won[as_seat(seat)] and self.phase is not Phase.ENDED

    # ------------------------------------------------------------------ settlement

    def _pay(self, rows: Sequence[Payment], events: list[dict[str, Any]]) -> None:
        self.ledger_view = None
        for row in rows:
            self.ledger.append(row)
            events.append(
                _logged(
                    {
                        "type": "payment",
                        "payer": row.payer,
                        "payee": row.payee,
                        "fan": row.fan,
                        "points": row.points,
                        "rule": row.rule,
                        "reason": row.reason,
                    }
                )
            )

    def _table(self) -> settlement.PaymentTerms:
        """The facts every payment depends on besides its parties (R21, R36, R40)."""
        return settlement.PaymentTerms(
            self.dealer, self.streak, tuple(self.baoting), self.rules.base_points
        )

    def _settle_self_draw(self, seat: int, *, auto: bool, events: list[dict[str, Any]]) -> None:
        tianhu = (
            seat == self.dealer
            and self.turn_kind is TurnKind.INITIAL
            and not self.discard_made
            and not self.any_meld_made
        )
        dihu = self.turn_kind is TurnKind.DRAW and self.dihu_draw
        pattern = best_pattern(self.hand_of(seat), tianhu=tianhu, dihu=dihu)
        assert pattern is not None
        gang_shang_hua = self.turn_kind is TurnKind.REPLACEMENT  # R21
        self.win_tile = self.drawn_tile
        events.append(
            _logged(
                {
                    "type": "win",
                    "seat": seat,
                    "how": "self_draw",
                    "from": None,
                    "tile": tile_to_str(self.drawn_tile) if self.drawn_tile is not None else None,
                    "pattern": pattern.name,
                    "fan": pattern.fan,
                    "extras": ["槓上花"] if gang_shang_hua else [],
                    "auto": auto,
                    "hand": self._hand_text(seat),
                }
            )
        )
        rows = settlement.self_draw_rows(
            self._table(), seat, pattern, self._payers(seat), gang_shang_hua=gang_shang_hua
        )
        self._pay(rows, events)
        self.win_tiles[seat] = self.drawn_tile
        self._after_win(Win((seat,), WinKind.SELF_DRAW, None), events)

    def _settle_claimed_win(
        self, winners: list[int], window: ClaimWindow, events: list[dict[str, Any]]
    ) -> None:
        payer, tile = window.from_seat, window.tile
        robbed = window.source is ClaimSource.ADDED_KONG
        if not robbed:
            self._take_discard(window)
        self.win_tile = tile
        kind = WinKind.ROB_KONG if robbed else WinKind.DISCARD
        table = self._table()
        rows: list[Payment] = []
        for seat in winners:
            pattern = self._win_allowed_on(seat, tile, window.source, payer)
            assert pattern is not None
            self.counts[seat][tile] += 1
            hand_text = self._hand_text(seat)
            self.counts[seat][tile] -= 1
            events.append(
                _logged(
                    {
                        "type": "win",
                        "seat": seat,
                        "how": "rob_kong" if robbed else "discard",
                        "from": payer,
                        "tile": tile_to_str(tile),
                        "pattern": pattern.name,
                        "fan": pattern.fan,
                        "extras": ["槓上炮"] if window.gang_shang_pao else [],
                        "auto": seat in window.forced,
                        "hand": hand_text,
                    }
                )
            )
            if robbed:
                rows += settlement.rob_kong_rows(table, seat, pattern, payer)
            else:
                rows += settlement.discard_win_rows(
                    table,
                    seat,
                    pattern,
                    payer,
                    gang_shang_pao=window.gang_shang_pao,
                    kong_income=self.kong_income or (),
                )
        self._pay(rows, events)
        self.claims = None
        self.off_table.append(tile)
        for seat in winners:
            self.win_tiles[seat] = tile
        self._after_win(Win(tuple(winners), kind, payer), events)

    def _after_win(self, win: Win, events: list[dict[str, Any]]) -> None:
        """The normal room ends at the first win (R52). A 血戰 room (R53) ends when three have
        won; otherwise the winners leave play and the next seat still in the hand after the
        last of them (the furthest from the discarder, in play order) draws."""
        self.wins.append(win)
        if not self.bloody:
            self._finish("win", win.seats, win.kind, win.from_seat, events)
            return
        for seat in win.seats:
            self.won[seat] = True
            self.winners.append(seat)
            self.refused_wins[seat] = None
        self.meld_views.clear()
        self.claims = None
        self.drawn_tile = None
        self.kong_income = None
        if len(self.winners) >= SEATS - 1:
            self._finish("win", tuple(self.winners), win.kind, win.from_seat, events)
            return
        self._draw_or_exhaust(self._next_in_hand(win.seats[-1]), events)

    def da_jiao(self, seat: object) -> PatternResult | None:
        """R30 大叫: the largest basic fan over the seat's waits, None when not ready.

        A seat caught holding 3k+2 tiles (an escape in the middle of its turn, R45) is judged
        by its best discard: it is ready if some discard leaves it ready.
        """
        seat = seat if type(seat) is int and 0 <= seat < SEATS else as_seat(seat)
        counts = self.counts[seat]
        if self._size(seat) == HAND_SIZE:
            waits_ = self.ready_waits(seat)
            return max_fan(self.hand_of(seat), waits_) if waits_ else None
        best: PatternResult | None = None
        for tile in range(NUM_KINDS):
            if not counts[tile]:
                continue
            counts[tile] -= 1
            waits_ = self.ready_waits_for(seat, counts)
            found = max_fan(self.hand_of(seat), waits_) if waits_ else None
            counts[tile] += 1
            if found is not None and (best is None or found.fan > best.fan):
                best = found
        return best

    def _settle_exhaustive_draw(self, events: list[dict[str, Any]]) -> None:
        """R30, R31, R14: 查大叫 then 黃豆 refunds by every seat that is not ready.

        In a 血戰 room (R56) among the players still in the hand only; bean income is returned
        to winners too, except to a winner who has left the table (R57). The event's ``ready``
        is null for a winner."""
        players = [seat for seat in range(SEATS) if not self.won[seat]]
        da_jiao = {seat: self.da_jiao(seat) for seat in players}
        events.append(
            _logged(
                {
                    "type": "exhaustive_draw",
                    "ready": [
                        None if self.won[s] else da_jiao[s] is not None for s in range(SEATS)
                    ],
                }
            )
        )
        refundable = [row for row in self.ledger if not self.left[row.payer]]  # R57
        rows = settlement.exhaustive_draw_rows(self._table(), players, da_jiao, refundable)
        self._pay(rows, events)
        self.phase = Phase.ENDED
        self._finish("draw", (), None, None, events)

    def leave(self, seat: object) -> list[dict[str, Any]]:
        """R57: a player who has won in a 血戰 room leaves the table, without penalty; the hand
        goes on, and no 黃豆 refund (R56) is owed to them any more. Logged (an ``act`` with
        action "leave", then a ``leave`` event) so that a replay reproduces it."""
        seat = as_seat(seat)
        leaving.check_leave(self, seat)
        self.left[seat] = True
        events: list[dict[str, Any]] = [
            _logged({"type": "act", "seat": seat, "action": "leave"}),
            _logged({"type": "leave", "seat": seat}),
        ]
        self.events.extend(events)
        return [copy_event(event) for event in events]

    def escape(self, seat: object) -> list[dict[str, Any]]:
        """R45: a seat quits (or times out); it pays the larger of the two penalties
        (:func:`leaving.escape_penalty`). In a 血戰 room (R57) a winner who quits only leaves
        the table (:meth:`leave`): no penalty, and the hand goes on."""
        seat = as_seat(seat)  # before anything changes: a bad seat must leave no trace
        leaving.check_escape(self, seat)
        if self.won[seat]:
            return self.leave(seat)
        events: list[dict[str, Any]] = [_logged({"type": "act", "seat": seat, "action": "quit"})]
        self._turn_legal = None
        self._self_draw_only = None
        window = self.claims
        if window is not None and window.source is ClaimSource.ADDED_KONG:
            # R13, R45: the escape ends the hand before the chance to rob has passed, so the
            # added kong never happens (no bean); its tile goes back to the kong player's hand
            self.counts[window.from_seat][window.tile] += 1
            self.concealed_sizes[window.from_seat] += 1
            self._invalidate(window.from_seat)
            self.claims = None
        others = self._payers(seat)  # R57: the other players still in the hand
        penalty, chosen = leaving.escape_penalty(self, seat, others)
        events.append(_logged({"type": "escape", "seat": seat, "penalty": penalty}))
        self._pay(chosen, events)
        self.claims = None
        self._finish("escape", (), None, seat, events)
        self.events.extend(events)
        return [copy_event(event) for event in events]

    def _finish(
        self,
        result: str,
        winners: tuple[int, ...],
        win_kind: WinKind | None,
        loser: int | None,
        events: list[dict[str, Any]],
    ) -> None:
        """End the hand: its result (R35, R36; R53, R55) and the ``end`` event."""
        self.phase = Phase.ENDED
        self.result = hand_result(
            result,
            winners,
            win_kind,
            loser,
            wins=tuple(self.wins),
            winners_in_order=tuple(self.winners),
            dealer=self.dealer,
            streak=self.streak,
            bloody=self.bloody,
            ledger=tuple(self.ledger),
        )
        ended = self.result
        end: EndEvent = {
            "type": "end",
            "result": _RESULT_NAMES[ended.result],
            "winners": list(ended.winners),
            "win_kind": _WIN_HOWS[ended.win_kind] if ended.win_kind else None,
            "loser": ended.loser,
            "totals": list(ended.totals),
            "next_dealer": ended.next_dealer,
            "next_streak": ended.next_streak,
            "hands": [self._hand_text(s) for s in range(SEATS)],
        }
        if self.bloody:  # the normal room's events stay as they were (old logs replay)
            end["wins"] = [
                {"seats": list(win.seats), "how": _WIN_HOWS[win.kind], "from": win.from_seat}
                for win in self.wins
            ]
            end["left"] = list(self.left)
        events.append(_logged(end))

    # ------------------------------------------------------------------ inspection

    def tile_total(self) -> int:
        """Every tile on the table (see :func:`inspection.tile_total`)."""
        return inspection.tile_total(self)

    def snapshot(self) -> dict[str, Any]:
        """The complete state as JSON-ready data, for replays and equality checks."""
        return inspection.snapshot(self)

    def view(self, seat: object) -> SeatView:
        """What ``seat`` may know (see :mod:`duyun.engine.view`); an invalid seat is an error,
        never another seat's view."""
        return seat_view(self, as_seat(seat))

    def copy(self) -> Round:
        """An independent copy that plays on exactly like this hand, for search (issue 23),
        which copies a round thousands of times per decision: made field by field, compiled,
        it costs a few microseconds.

        Every mutable container is copied one level down, which is a full copy because what they
        hold is immutable (tiles, frozen payments, melds, wins) -- except the event log's dicts:
        an event is never changed once emitted (``apply`` hands out copies), so the copy's log is
        a new list sharing them. The wall list is never written (``front``/``back`` move), so it
        is shared too.
        """
        kind = type(self)
        copy = kind.__new__(kind)
        copy.log_version = self.log_version
        copy.rules = self.rules
        copy.setup = self.setup
        copy.dealer = self.dealer
        copy.streak = self.streak
        copy.counts = [counts[:] for counts in self.counts]
        copy.concealed_sizes = self.concealed_sizes[:]
        copy.melds = [melds[:] for melds in self.melds]
        copy.rivers = [river[:] for river in self.rivers]
        copy.discard_count = self.discard_count[:]
        copy.baoting = self.baoting[:]
        copy.wall = self.wall
        copy.front = self.front
        copy.back = self.back
        copy.has_bean = self.has_bean[:]
        copy.ledger = self.ledger[:]
        copy.events = self.events[:]
        copy.result = self.result
        copy.win_tile = self.win_tile
        copy.bloody = self.bloody
        copy.won = self.won[:]
        copy.left = self.left[:]
        copy.winners = self.winners[:]
        copy.wins = self.wins[:]
        copy.win_tiles = self.win_tiles[:]
        copy.off_table = self.off_table[:]
        copy.phase = self.phase
        copy.current = self.current
        copy.turn_kind = self.turn_kind
        copy.drawn_tile = self.drawn_tile
        copy.drawn_last_four = self.drawn_last_four
        copy.last_four_marks = [marks[:] for marks in self.last_four_marks]
        income = self.kong_income
        copy.kong_income = None if income is None else income[:]
        window = self.claims
        copy.claims = None if window is None else window.copy()
        copy.ron_blocked = self.ron_blocked[:]
        copy.refused_wins = self.refused_wins[:]
        copy._self_draw_only = self._self_draw_only
        copy.any_meld_made = self.any_meld_made
        copy.discard_made = self.discard_made
        copy.awaiting_first_draw = self.awaiting_first_draw[:]
        copy.dihu_draw = self.dihu_draw
        copy._waits_cache = self._waits_cache[:]  # cached lists are replaced, never edited
        copy._turn_legal = self._turn_legal  # immutable
        copy.meld_views = dict(self.meld_views)  # immutable tuples, cleared on change
        copy.ledger_view = self.ledger_view
        return copy

    def __copy__(self) -> Round:
        # never shallow: a copy sharing the counts corrupts both (deepcopy uses __reduce__)
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle (processes, Ray): every field but the caches, which are rebuilt on demand
        return (blank_round, (type(self),), self._state())  # blank_round: see __new__

    def _state(self) -> dict[str, Any]:
        """What pickle stores of a round: every field but the caches (rebuilt on demand)."""
        return {
            "log_version": self.log_version,
            "rules": self.rules,
            "setup": self.setup,
            "dealer": self.dealer,
            "streak": self.streak,
            "counts": self.counts,
            "concealed_sizes": self.concealed_sizes,
            "melds": self.melds,
            "rivers": self.rivers,
            "discard_count": self.discard_count,
            "baoting": self.baoting,
            "wall": self.wall,
            "front": self.front,
            "back": self.back,
            "has_bean": self.has_bean,
            "ledger": self.ledger,
            "events": self.events,
            "result": self.result,
            "win_tile": self.win_tile,
            "bloody": self.bloody,
            "won": self.won,
            "left": self.left,
            "winners": self.winners,
            "wins": self.wins,
            "win_tiles": self.win_tiles,
            "off_table": self.off_table,
            "phase": self.phase,
            "current": self.current,
            "turn_kind": self.turn_kind,
            "drawn_tile": self.drawn_tile,
            "drawn_last_four": self.drawn_last_four,
            "last_four_marks": self.last_four_marks,
            "kong_income": self.kong_income,
            "claims": self.claims,
            "ron_blocked": self.ron_blocked,
            "refused_wins": self.refused_wins,
            "any_meld_made": self.any_meld_made,
            "discard_made": self.discard_made,
            "awaiting_first_draw": self.awaiting_first_draw,
            "dihu_draw": self.dihu_draw,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Fill an empty round (:func:`blank_round`) from what :meth:`__reduce__` stored."""
        self.log_version = state["log_version"]
        self.rules = state["rules"]
        self.setup = state["setup"]
        self.dealer = state["dealer"]
        self.streak = state["streak"]
        self.counts = state["counts"]
        self.concealed_sizes = state["concealed_sizes"]
        self.melds = state["melds"]
        self.rivers = state["rivers"]
        self.discard_count = state["discard_count"]
        self.baoting = state["baoting"]
        self.wall = state["wall"]
        self.front = state["front"]
        self.back = state["back"]
        self.has_bean = state["has_bean"]
        self.ledger = state["ledger"]
        self.events = state["events"]
        self.result = state["result"]
        self.win_tile = state["win_tile"]
        self.bloody = state["bloody"]
        self.won = state["won"]
        self.left = state["left"]
        self.winners = state["winners"]
        self.wins = state["wins"]
        self.win_tiles = state["win_tiles"]
        self.off_table = state["off_table"]
        self.phase = state["phase"]
        self.current = state["current"]
        self.turn_kind = state["turn_kind"]
        self.drawn_tile = state["drawn_tile"]
        self.drawn_last_four = state["drawn_last_four"]
        self.last_four_marks = state["last_four_marks"]
        self.kong_income = state["kong_income"]
        self.claims = state["claims"]
        self.ron_blocked = state["ron_blocked"]
        self.refused_wins = state["refused_wins"]
        self.any_meld_made = state["any_meld_made"]
        self.discard_made = state["discard_made"]
        self.awaiting_first_draw = state["awaiting_first_draw"]
        self.dihu_draw = state["dihu_draw"]
        self._self_draw_only = None
        self._waits_cache = [None] * SEATS
        self._turn_legal = None
        self.meld_views = {}
        self.ledger_view = None


def blank_round(kind: type[Round]) -> Round:
    """An empty round of class ``kind`` for unpickling to fill in (``Round.__setstate__``)."""
    return kind.__new__(kind)


def new_round(
    seed: SupportsIndex | None = None,
    *,
    rules: RuleSet = DUYUN,
    dealer: object = 0,
    streak: object = 0,
    wall_order: Sequence[Tile] | None = None,
) -> Round:
    """A freshly dealt hand (R4)."""
    if not isinstance(rules, RuleSet):  # before Round(): compiled, its error would be lost
        raise TypeError(f"rules must be a RuleSet, not {type(rules).__name__}")
    return Round(deal_setup(seed, wall_order=wall_order, dealer=dealer, streak=streak), rules)


__all__ = [
    "DEALER_HAND",
    "EVENT_LOG_VERSION",
    "HandResult",
    "MatchLink",
    "Phase",
    "Round",
    "Setup",
    "TurnKind",
    "Win",
    "WinKind",
    "deal_setup",
    "new_round",
]
