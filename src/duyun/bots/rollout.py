"""The search bot's rollout policy (issue 23): a whole hand played out in a fraction of a
millisecond, many times per decision.

Compiled with mypyc (``duyun._build``): the search bot spends nine tenths of its time here,
and a rollout is pure arithmetic on the round's own counts. The rules are the ``efficient``
bot's (what the search believes the others play) with a little of what a hand is worth for
the bot's own seat; :func:`fast_action` says which. The shanten numbers are those of
:func:`duyun.analysis.shanten` (the hand evaluator gives the same numbers from one reading
of the hand instead of one per discard), so a rollout plays exactly as the interpreted
policy it replaced did, only faster.
"""

from __future__ import annotations

from duyun.analysis.shanten import shanten
from duyun.bots.evaluation import HandEvaluator
from duyun.engine.actions import Action, ActionKind
from duyun.engine.phases import Phase
from duyun.engine.round import Round


def rollout(game: Round, seat: int, value_aware: bool = False) -> int:
    """Play ``game`` to its end with :func:`fast_action` for every seat; ``seat``'s points.
    With ``value_aware`` that seat plays the value-aware variant (the bot's own later turns),
    the others the efficient rules it believes they play."""
    while game.phase is not Phase.ENDED:
        actor = game.to_act[0]
        game.apply_logged(fast_action(game, actor, value_aware and actor == seat))
    result = game.result
    assert result is not None
    return result.totals[seat]


def fast_action(game: Round, seat: int, value_aware: bool = False) -> Action:
    """The efficient bot's rules on the round's own counts (no view built): win when allowed,
    discard for the lowest shanten (報聽 with it when allowed), kong or pong when it does not
    slow the hand. Among the discards tied at the lowest shanten the least connected tile goes
    (:func:`keep_score`, a cheap stand-in for the efficient bot's count of live useful tiles).

    ``value_aware`` adds what a hand is worth, cheaply: a hand with ten or more tiles of one
    suit keeps that suit (清一色, R20) among the tied discards, and facing an opponent's 報聽
    (R25, R26) a hand two or more steps from ready discards a tile that opponent has let pass
    since declaring, when one keeps the shanten low: dealing in to a 報聽 hand costs its
    pattern + 6 fan (R21), more than a slow hand is likely to win."""
    legal = game.legal_actions(seat).actions
    if len(legal) == 1:
        return legal[0]
    counts = game.counts[seat]
    if game.phase is Phase.CLAIMS:
        return _claim_answer(game, legal, counts)
    discard_shanten = HandEvaluator(counts).discard_shanten()
    after: dict[int, int] = {}
    others: list[Action] = []
    discard_actions: dict[int, Action] = {}
    for action in legal:
        kind = action.kind
        if kind is ActionKind.HU:
            return action
        if kind is ActionKind.DISCARD:
            discard = action.tile
            assert discard is not None
            after[discard] = discard_shanten[discard]
            discard_actions[discard] = action
        else:
            others.append(action)
    best_value = min(after.values())
    flush = flush_suit(game, seat) if value_aware else -1
    chosen = -1
    chosen_score = 0
    for tile in sorted(after):  # the lowest tile wins a tie of keep scores
        if after[tile] != best_value:
            continue
        score = keep_score(counts, tile, flush)
        if chosen < 0 or score < chosen_score:
            chosen, chosen_score = tile, score
    if value_aware and best_value >= 2:
        safe = safe_against_baoting(game, seat)
        if safe and chosen not in safe:
            guarded = -1
            guarded_key = (0, 0)
            for tile in sorted(after):
                if tile not in safe or after[tile] > best_value + 1:
                    continue
                key = (after[tile], keep_score(counts, tile, -1))
                if guarded < 0 or key < guarded_key:
                    guarded, guarded_key = tile, key
            if guarded >= 0:
                chosen = guarded
    best_action = discard_actions[chosen]
    for action in others:
        meld_tile = action.tile
        assert meld_tile is not None
        if action.kind is ActionKind.BAOTING and meld_tile == best_action.tile:
            return action
        if action.kind is ActionKind.CONCEALED_KONG or action.kind is ActionKind.ADDED_KONG:
            copies = 4 if action.kind is ActionKind.CONCEALED_KONG else 1
            if _shanten_without(counts, meld_tile, copies) <= best_value:
                return action
    return best_action


def _shanten_without(counts: list[int], tile: int, copies: int) -> int:
    """Shanten once ``copies`` of ``tile`` leave the concealed hand (a kong or a pong);
    ``counts`` is restored."""
    counts[tile] -= copies
    value = shanten(counts)
    counts[tile] += copies
    return value


def _claim_answer(game: Round, legal: tuple[Action, ...], counts: list[int]) -> Action:
    """A claim window: win when allowed, kong or pong when it does not slow the hand."""
    window = game.claims
    assert window is not None
    tile = window.tile
    pass_action = legal[-1]
    win = kong = pong = None
    for action in legal:
        if action.kind is ActionKind.HU:
            win = action
        elif action.kind is ActionKind.KONG:
            kong = action
        elif action.kind is ActionKind.PONG:
            pong = action
    if win is not None:
        return win
    now = shanten(counts)
    if kong is not None and _shanten_without(counts, tile, 3) <= now:
        return kong
    if pong is not None:
        counts[tile] -= 2
        best = min(HandEvaluator(counts).discard_shanten().values())
        counts[tile] += 2
        if best <= now:
            return pong
    return pass_action


def keep_score(counts: list[int], tile: int, flush: int) -> int:
    """How much ``tile`` is worth keeping for its shape: its other copies (pairs and pungs,
    which are also the 對對胡 and 七對 routes) and its neighbours in the suit (runs). A tile off
    the suit a flush is being built in (``flush``, -1 for none) is worth nothing."""
    suit = tile // 9
    rank = tile % 9
    if flush >= 0 and suit != flush:
        return -1
    score = 3 * (counts[tile] - 1)
    if rank >= 1 and counts[tile - 1]:
        score += 2
    if rank <= 7 and counts[tile + 1]:
        score += 2
    if rank >= 2 and counts[tile - 2]:
        score += 1
    if rank <= 6 and counts[tile + 2]:
        score += 1
    return score


def flush_suit(game: Round, seat: int) -> int:
    """The suit a 清一色 (R20) is worth steering to: ten or more of the hand's tiles (melds
    counted as three) in it, and every meld in it; -1 when none is."""
    counts = game.counts[seat]
    melds = game.melds[seat]
    meld_suits = {m.tile // 9 for m in melds}
    if len(meld_suits) > 1:
        return -1
    for suit in range(3):
        if meld_suits and suit not in meld_suits:
            continue
        held = 3 * len(melds)
        for tile in range(suit * 9, suit * 9 + 9):
            held += counts[tile]
        if held >= 10:
            return suit
    return -1


def safe_against_baoting(game: Round, seat: int) -> set[int]:
    """Tiles no opponent in 報聽 can be waiting on (R26: its discards after declaring did not
    win), or nothing when no opponent still in the hand has declared."""
    safe: set[int] | None = None
    for other in range(4):
        if other == seat or not game.baoting[other] or game.won[other]:
            continue
        passed = set(game.rivers[other][1:])
        safe = passed if safe is None else safe & passed
    return safe if safe is not None else set()
