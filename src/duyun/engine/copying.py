"""Copying a hand in play (issue 23): for search, which copies a round thousands of times per
decision, and for pickle (processes, Ray).

Kept out of engine/round.py, which holds the rules; compiled like it (duyun._build), because
a copy made field by field in C costs a few microseconds, a two-hundredth of a random hand.
Every field of :class:`~duyun.engine.round.Round` is named here: a field added to the round
must be added to all three functions (tests/engine/test_engine_copy.py fails otherwise).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from duyun.engine.setup import SEATS

if TYPE_CHECKING:  # round.py imports this module: the class comes in as an argument
    from duyun.engine.round import Round


def blank_round(kind: type[Round]) -> Round:
    """An empty round of class ``kind`` for unpickling to fill in (``Round.__setstate__``)."""
    return kind.__new__(kind)


def copy_round(game: Round) -> Round:
    """An independent copy that plays on exactly like ``game``.

    Every mutable container is copied one level down, which is a full copy because what they
    hold is immutable (tiles, frozen payments, melds, wins) -- except the event log's dicts:
    an event is never changed once emitted (``apply`` hands out copies), so the copy's log is
    a new list sharing them. The wall list is never written (``front``/``back`` move), so it
    is shared too.
    """
    kind = type(game)
    copy = kind.__new__(kind)
    copy.log_version = game.log_version
    copy.rules = game.rules
    copy.setup = game.setup
    copy.dealer = game.dealer
    copy.streak = game.streak
    copy.counts = [counts[:] for counts in game.counts]
    copy.concealed_sizes = game.concealed_sizes[:]
    copy.melds = [melds[:] for melds in game.melds]
    copy.rivers = [river[:] for river in game.rivers]
    copy.discard_count = game.discard_count[:]
    copy.baoting = game.baoting[:]
    copy.wall = game.wall
    copy.front = game.front
    copy.back = game.back
    copy.has_bean = game.has_bean[:]
    copy.ledger = game.ledger[:]
    copy.events = game.events[:]
    copy.result = game.result
    copy.win_tile = game.win_tile
    copy.bloody = game.bloody
    copy.won = game.won[:]
    copy.left = game.left[:]
    copy.winners = game.winners[:]
    copy.wins = game.wins[:]
    copy.win_tiles = game.win_tiles[:]
    copy.off_table = game.off_table[:]
    copy.phase = game.phase
    copy.current = game.current
    copy.turn_kind = game.turn_kind
    copy.drawn_tile = game.drawn_tile
    copy.drawn_last_four = game.drawn_last_four
    copy.last_four_marks = [marks[:] for marks in game.last_four_marks]
    income = game.kong_income
    copy.kong_income = None if income is None else income[:]
    window = game.claims
    copy.claims = None if window is None else window.copy()
    copy.ron_blocked = game.ron_blocked[:]
    copy.refused_wins = game.refused_wins[:]
    copy._self_draw_only = game._self_draw_only
    copy.any_meld_made = game.any_meld_made
    copy.discard_made = game.discard_made
    copy.awaiting_first_draw = game.awaiting_first_draw[:]
    copy.dihu_draw = game.dihu_draw
    copy._waits_cache = game._waits_cache[:]  # cached lists are replaced, never edited
    copy._turn_legal = game._turn_legal  # immutable
    copy.meld_views = dict(game.meld_views)  # immutable tuples, cleared on change
    copy.ledger_view = game.ledger_view
    return copy


def round_state(game: Round) -> dict[str, Any]:
    """What pickle stores of a round: every field but the caches (rebuilt on demand)."""
    return {
        "log_version": game.log_version,
        "rules": game.rules,
        "setup": game.setup,
        "dealer": game.dealer,
        "streak": game.streak,
        "counts": game.counts,
        "concealed_sizes": game.concealed_sizes,
        "melds": game.melds,
        "rivers": game.rivers,
        "discard_count": game.discard_count,
        "baoting": game.baoting,
        "wall": game.wall,
        "front": game.front,
        "back": game.back,
        "has_bean": game.has_bean,
        "ledger": game.ledger,
        "events": game.events,
        "result": game.result,
        "win_tile": game.win_tile,
        "bloody": game.bloody,
        "won": game.won,
        "left": game.left,
        "winners": game.winners,
        "wins": game.wins,
        "win_tiles": game.win_tiles,
        "off_table": game.off_table,
        "phase": game.phase,
        "current": game.current,
        "turn_kind": game.turn_kind,
        "drawn_tile": game.drawn_tile,
        "drawn_last_four": game.drawn_last_four,
        "last_four_marks": game.last_four_marks,
        "kong_income": game.kong_income,
        "claims": game.claims,
        "ron_blocked": game.ron_blocked,
        "refused_wins": game.refused_wins,
        "any_meld_made": game.any_meld_made,
        "discard_made": game.discard_made,
        "awaiting_first_draw": game.awaiting_first_draw,
        "dihu_draw": game.dihu_draw,
    }


def restore_round(game: Round, state: dict[str, Any]) -> None:
    """Fill an empty round (``Round.__new__``) from :func:`round_state`."""
    game.log_version = state["log_version"]
    game.rules = state["rules"]
    game.setup = state["setup"]
    game.dealer = state["dealer"]
    game.streak = state["streak"]
    game.counts = state["counts"]
    game.concealed_sizes = state["concealed_sizes"]
    game.melds = state["melds"]
    game.rivers = state["rivers"]
    game.discard_count = state["discard_count"]
    game.baoting = state["baoting"]
    game.wall = state["wall"]
    game.front = state["front"]
    game.back = state["back"]
    game.has_bean = state["has_bean"]
    game.ledger = state["ledger"]
    game.events = state["events"]
    game.result = state["result"]
    game.win_tile = state["win_tile"]
    game.bloody = state["bloody"]
    game.won = state["won"]
    game.left = state["left"]
    game.winners = state["winners"]
    game.wins = state["wins"]
    game.win_tiles = state["win_tiles"]
    game.off_table = state["off_table"]
    game.phase = state["phase"]
    game.current = state["current"]
    game.turn_kind = state["turn_kind"]
    game.drawn_tile = state["drawn_tile"]
    game.drawn_last_four = state["drawn_last_four"]
    game.last_four_marks = state["last_four_marks"]
    game.kong_income = state["kong_income"]
    game.claims = state["claims"]
    game.ron_blocked = state["ron_blocked"]
    game.refused_wins = state["refused_wins"]
    game.any_meld_made = state["any_meld_made"]
    game.discard_made = state["discard_made"]
    game.awaiting_first_draw = state["awaiting_first_draw"]
    game.dihu_draw = state["dihu_draw"]
    game._self_draw_only = None
    game._waits_cache = [None] * SEATS
    game._turn_legal = None
    game.meld_views = {}
    game.ledger_view = None
