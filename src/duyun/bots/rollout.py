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
from duyun.bots.expectation import wait_fans
from duyun.engine.actions import Action, ActionKind
from duyun.engine.phases import Phase
from duyun.engine.round import Round
from duyun.hand import MeldKind

# The patterns the bot's own seat may steer to in a rollout (hand_route, SearchBot.ROUTES)
ROUTE_FAST = 0  # no pattern: the efficient rules
ROUTE_FLUSH = 1  # 清一色 (R20): ten or more tiles of one suit, every meld in it
ROUTE_PAIRS = 2  # 七對 (R20): no meld, five or more pairs
ROUTE_PUNGS = 3  # 對對胡 (R20): every set a pung, at most one step from ready that way


def rollout(
    game: Round, seat: int, value_aware: bool = False, routes: bool = False, sharp: bool = False
) -> int:
    """Play ``game`` to its end with :func:`fast_action` for every seat; ``seat``'s points.
    With ``value_aware`` that seat plays the value-aware variant (the bot's own later turns),
    the others the efficient rules it believes they play; ``routes`` adds the value-aware
    variant's pattern routes (:func:`route_discard`), ``sharp`` its kongs for beans and
    best-paying waits."""
    while game.phase is not Phase.ENDED:
        actor = game.to_act[0]
        own = value_aware and actor == seat
        game.apply_logged(fast_action(game, actor, own, own and routes, own and sharp))
    result = game.result
    assert result is not None
    return result.totals[seat]


def fast_action(
    game: Round, seat: int, value_aware: bool = False, routes: bool = False, sharp: bool = False
) -> Action:
    """The efficient bot's rules on the round's own counts (no view built): win when allowed,
    discard for the lowest shanten (報聽 with it when allowed), kong or pong when it does not
    slow the hand. Among the discards tied at the lowest shanten the least connected tile goes
    (:func:`keep_score`, a cheap stand-in for the efficient bot's count of live useful tiles).

    ``value_aware`` adds what a hand is worth, cheaply: a hand with ten or more tiles of one
    suit keeps that suit (清一色, R20) among the tied discards, and facing an opponent's 報聽
    (R25, R26) a hand two or more steps from ready discards a tile that opponent has let pass
    since declaring, when one keeps the shanten low: dealing in to a 報聽 hand costs its
    pattern + 6 fan (R21), more than a slow hand is likely to win.

    ``routes`` (meant for the seat that plays ``value_aware``: this function applies it on
    its own, and :func:`rollout` gives it to that seat only) plays a pattern the hand is
    close to as a player would (:func:`hand_route`): off-suit tiles out of a 清一色 hand
    first, singles out of a 七對 or 對對胡 hand, pongs taken for 對對胡 and refused for 七對.

    ``sharp`` (meant for that seat too, and given to it alone by :func:`rollout`) plays two
    things the strong bot does and the efficient rules do not, each worth about a quarter of
    a point a hand to a player (docs/simulate.md, "A sharper own seat"): a concealed or added
    kong is made even when it costs the hand one step (a bean is paid at once, R12, and lets
    a 平胡 win on a discard, R15, R17), and a hand that can be ready in several ways keeps the
    wait that pays most (:func:`best_wait`) rather than the most connected tiles, unless it
    keeps a 清一色 suit or faces a 報聽 seat (the value-aware rules above choose there)."""
    legal = game.legal_actions(seat).actions
    if len(legal) == 1:
        return legal[0]
    counts = game.counts[seat]
    route = hand_route(game, seat) if routes else ROUTE_FAST
    if game.phase is Phase.CLAIMS:
        return _claim_answer(game, seat, legal, counts, route)
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
    if sharp:
        for action in others:
            kind = action.kind
            if kind is ActionKind.CONCEALED_KONG or kind is ActionKind.ADDED_KONG:
                kong_tile = action.tile
                assert kong_tile is not None
                copies = 4 if kind is ActionKind.CONCEALED_KONG else 1
                if _shanten_without(counts, kong_tile, copies) <= best_value + 1:
                    return action
    flush = flush_suit(game, seat) if value_aware else -1
    chosen = least_connected(counts, after, best_value, flush)
    if sharp and best_value == 0 and flush < 0 and not safe_against_baoting(game, seat):
        chosen = best_wait(game, seat, after, chosen)
    if route != ROUTE_FAST:
        chosen = route_discard(counts, after, best_value, route, flush, chosen)
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
        if route == ROUTE_PAIRS:  # a kong breaks the pairs (four of a kind stay two)
            continue
        if action.kind is ActionKind.CONCEALED_KONG or action.kind is ActionKind.ADDED_KONG:
            copies = 4 if action.kind is ActionKind.CONCEALED_KONG else 1
            if _shanten_without(counts, meld_tile, copies) <= best_value:
                return action
    return best_action


def best_wait(game: Round, seat: int, after: dict[int, int], chosen: int) -> int:
    """Among the discards that leave ``seat`` ready (``after``: tile -> shanten after it),
    the one whose waits pay most: each wait's live copies (those the seat cannot see) times
    its fan (R20), a 平胡 wait at half while the hand has no bean (R17: it then wins on a
    self-draw only). Ties go to the lowest tile; ``chosen`` stands when it is the only one."""
    tied = [tile for tile in sorted(after) if after[tile] == 0]
    if len(tied) < 2:
        return chosen
    counts = game.counts[seat]
    melds = tuple(game.melds[seat])
    bean = game.has_bean[seat]
    unseen = unseen_by(game, seat)
    best = -1
    best_value = 0.0
    for tile in tied:
        counts[tile] -= 1
        value = 0.0
        for wait, fan in wait_fans(counts, melds):
            value += unseen[wait] * fan * (1.0 if fan > 1 or bean else 0.5)
        counts[tile] += 1
        if best < 0 or value > best_value:
            best, best_value = tile, value
    return best


def unseen_by(game: Round, seat: int) -> list[int]:
    """Copies of each tile ``seat`` cannot see at its turn: not in its hand, in no meld it
    sees (another seat's 暗槓 lies face down), in no river, not off the table and not in a
    winner's laid-open hand (R53). Its view's count (``SeatView.visible_counts``), read off
    the round's own lists: a rollout builds no view."""
    seen = list(game.counts[seat])
    for owner in range(4):
        if owner != seat and game.won[owner]:
            held = game.counts[owner]
            for tile in range(27):
                seen[tile] += held[tile]
    for owner in range(4):
        for meld in game.melds[owner]:
            if owner == seat or meld.kind is not MeldKind.CONCEALED_KONG:  # 暗槓 face down
                seen[meld.tile] += meld.kind.size
    for river in game.rivers:
        for tile in river:
            seen[tile] += 1
    for tile in game.off_table:
        seen[tile] += 1
    return [max(0, 4 - count) for count in seen]


def _shanten_without(counts: list[int], tile: int, copies: int) -> int:
    """Shanten once ``copies`` of ``tile`` leave the concealed hand (a kong or a pong);
    ``counts`` is restored."""
    counts[tile] -= copies
    value = shanten(counts)
    counts[tile] += copies
    return value


def _claim_answer(
    game: Round, seat: int, legal: tuple[Action, ...], counts: list[int], route: int = ROUTE_FAST
) -> Action:
    """A claim window: win when allowed, kong or pong when it does not slow the hand; on a
    route (:func:`hand_route`) a 對對胡 hand takes every pong, a 七對 hand none, a 清一色
    hand none off its suit."""
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
    if route == ROUTE_PAIRS or (route == ROUTE_FLUSH and tile // 9 != flush_suit(game, seat)):
        return pass_action
    if route == ROUTE_PUNGS:
        if kong is not None:
            return kong
        if pong is not None:
            return pong
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


def hand_route(game: Round, seat: int) -> int:
    """The pattern a hand is close enough to for a player to steer to it (its ``ROUTE_*``):
    each pays at least three times a 平胡 and may win on a discard without a bean (R17), where
    the efficient rules would often end ready with a 平胡 that only a self-draw can win."""
    if flush_suit(game, seat) >= 0:
        return ROUTE_FLUSH
    counts = game.counts[seat]
    melds = len(game.melds[seat])
    pairs = 0
    pungs = 0
    seven = 0  # 七對's pairs: four of a kind is two (R10)
    for count in counts:
        seven += count >> 1
        if count >= 3:
            pungs += 1
        elif count == 2:
            pairs += 1
    if not melds and seven >= 5:
        return ROUTE_PAIRS
    if pungs_shanten(melds, pungs, pairs) <= 1 and (melds or pungs >= 2):
        return ROUTE_PUNGS
    return ROUTE_FAST


def pungs_shanten(melds: int, pungs: int, pairs: int) -> int:
    """Shanten of a 對對胡 reading (every set a pung or a meld, R20) of a 3k + 1 or 3k + 2
    hand with ``melds`` melds and ``pungs`` / ``pairs`` concealed triplets and pairs: each
    missing set costs two steps, one less for a pair that may grow into it, and one pair is
    the eye (the usual 8 - 2 sets - partial sets - eye, read for pungs only)."""
    missing = 4 - melds - min(pungs, 4 - melds)
    if pairs > missing:
        return missing - 1
    if pairs:
        return 2 * missing - pairs
    return 2 * missing


def route_discard(
    counts: list[int], after: dict[int, int], best: int, route: int, flush: int, chosen: int
) -> int:
    """The discard of a hand on ``route`` (:func:`hand_route`); ``chosen`` is the efficient
    rules' tie-break at the ``best`` shanten, kept when the route has nothing better.

    清一色: the least connected off-suit tile. 七對 and 對對胡: the least connected single (no
    copy held), which never undoes a pair or pung; for 對對胡 the fastest such single first.
    A tile that costs more than one step is never let go for a route."""
    pick = -1
    pick_key = (0, 0)
    for tile in sorted(after):
        if after[tile] > best + 1:
            continue
        if route == ROUTE_FLUSH:
            if tile // 9 == flush:
                continue
        elif counts[tile] != 1:
            continue
        key = (after[tile] if route == ROUTE_PUNGS else 0, keep_score(counts, tile, -1))
        if pick < 0 or key < pick_key:
            pick, pick_key = tile, key
    return pick if pick >= 0 else chosen


def least_connected(counts: list[int], after: dict[int, int], best: int, flush: int) -> int:
    """The tile to let go among those whose discard leaves the ``best`` shanten (``after``:
    tile -> shanten after discarding it): the lowest :func:`keep_score`, then the lowest
    tile."""
    chosen = -1
    chosen_score = 0
    for tile in sorted(after):
        if after[tile] != best:
            continue
        score = keep_score(counts, tile, flush)
        if chosen < 0 or score < chosen_score:
            chosen, chosen_score = tile, score
    return chosen


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
