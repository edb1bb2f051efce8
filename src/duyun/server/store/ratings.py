"""Skill ratings (issue 32): every account and every bot level, updated once per finished
match, with their history.

The arithmetic is openskill's (a rating for games of more than two players, with ties), not our
own: its Bradley-Terry "full pairing" model, which scores every pair of seats. Its
Plackett-Luce model was tried first and refused: with two seats tied for first (openskill 6.2)
it gives the seat placed behind them the same gain as the winners, so a tie would reward the
loser beside it. Each seat of a match is a team of one, ranked by its points over the
match's hands; seats with equal points share a place, and a seat that escaped (R45) or left the
match is last whatever its points. A bot level is one player wherever it sits: the bots of one
level at a match are each rated from the level's rating and the level moves by the mean of
their changes.

The shown rating is openskill's ordinal (mu - 3 sigma, a cautious estimate that grows as the
uncertainty shrinks) scaled to start at 1000: ``1000 + 40 * (mu - 3 sigma)``.

:func:`rate_match` runs inside :meth:`~duyun.server.store.matches.MatchStore.finish_match`'s
transaction, which holds the match row's lock and refuses a second end, so a match is rated
exactly once whichever process ends it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openskill.models import BradleyTerryFull
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from duyun.server.store.base import utcnow
from duyun.server.store.models import (
    RATING_MU,
    RATING_SIGMA,
    AccountRow,
    BotRatingRow,
    HandRow,
    MatchRow,
    MatchSeatRow,
    RatingHistoryRow,
)
from duyun.server.store.types import SEATS, RatingChange

#: the shown rating: ``RATING_BASE + RATING_SCALE * (mu - 3 sigma)``
RATING_BASE = 1000
RATING_SCALE = 40.0

_MODEL = BradleyTerryFull(mu=RATING_MU, sigma=RATING_SIGMA)


def shown(mu: float, sigma: float) -> int:
    """The rating players see for a (mu, sigma)."""
    return round(RATING_BASE + RATING_SCALE * (mu - 3 * sigma))


def places(points: Sequence[int], escaped: Sequence[bool]) -> list[int]:
    """Each seat's place, 1 best: more points is better, equal points share a place, and
    every seat that escaped is last (they share the last place among themselves)."""
    places_ = []
    for seat, mine in enumerate(points):
        if escaped[seat]:
            places_.append(SEATS)
            continue
        better = sum(
            1 for other, theirs in enumerate(points) if not escaped[other] and theirs > mine
        )
        places_.append(1 + better)
    return places_


def new_ratings(
    ratings: Sequence[tuple[float, float]], ranks: Sequence[int]
) -> list[tuple[float, float]]:
    """openskill's update of four (mu, sigma) by their places (ties allowed)."""
    teams = [[_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    rated = _MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in rated]


def is_rated(kind: str, options: Mapping[str, Any], humans: int, hands: int) -> bool:
    """Quick-match (room) matches are always rated; a private table only when the host left it
    rated (``options["rated"]``, default true) and at least two people sat at it; a match
    that ended before any hand finished is never rated."""
    if hands < 1:
        return False
    if kind == "room":
        return True
    return bool(options.get("rated", True)) and humans >= 2


def _bot_row(session: Session, bot: str, postgres: bool) -> BotRatingRow:
    query = select(BotRatingRow).where(BotRatingRow.bot == bot)
    if postgres:
        query = query.with_for_update()
    row = session.scalar(query)
    if row is not None:
        return row
    try:
        with session.begin_nested():  # a first match of this level on two processes at once
            session.add(
                BotRatingRow(
                    bot=bot,
                    rating_mu=RATING_MU,
                    rating_sigma=RATING_SIGMA,
                    rating=shown(RATING_MU, RATING_SIGMA),
                    rated_matches=0,
                )
            )
    except IntegrityError:
        pass
    found = session.scalar(query)
    assert found is not None
    return found


def rate_match(session: Session, match: MatchRow, postgres: bool) -> list[RatingChange]:
    """Rate a match that is being ended (in its transaction); returns each seat's change, or
    nothing when the match is not rated (:func:`is_rated`)."""
    seats = session.scalars(
        select(MatchSeatRow).where(MatchSeatRow.match_id == match.id).order_by(MatchSeatRow.seat)
    ).all()
    if len(seats) != SEATS:
        return []
    results = session.scalars(
        select(HandRow.result).where(HandRow.match_id == match.id, HandRow.status == "finished")
    ).all()
    humans = [s.account_id for s in seats if s.account_id is not None]
    if not is_rated(match.kind, match.options or {}, len(humans), len(results)):
        return []
    points = [0] * SEATS
    for result in results:
        totals = result.get("totals") if isinstance(result, dict) else None
        if isinstance(totals, list) and len(totals) == SEATS:
            for position, value in enumerate(totals):
                points[position] += int(value)
    ranks = places(points, [s.forced_tuoguan for s in seats])
    # accounts first, in id order, then bot levels by name: the lock order of every writer
    accounts: dict[int, AccountRow] = {}
    if humans:
        query = select(AccountRow).where(AccountRow.id.in_(sorted(humans))).order_by(AccountRow.id)
        if postgres:
            query = query.with_for_update()
        accounts = {row.id: row for row in session.scalars(query)}
    bots = {s.bot or "bot" for s in seats if s.account_id is None}
    levels = {name: _bot_row(session, name, postgres) for name in sorted(bots)}
    before: list[tuple[float, float]] = []
    for seat in seats:
        if seat.account_id is not None:
            row = accounts[seat.account_id]
            before.append((row.rating_mu, row.rating_sigma))
        else:
            level = levels[seat.bot or "bot"]
            before.append((level.rating_mu, level.rating_sigma))
    after = new_ratings(before, ranks)
    now = utcnow()
    moves: dict[str, list[tuple[float, float]]] = {}
    for index, seat in enumerate(seats):
        if seat.account_id is not None:
            row = accounts[seat.account_id]
            row.rating_mu, row.rating_sigma = after[index]
            row.rating = shown(*after[index])
            row.rated_matches += 1
        else:
            moves.setdefault(seat.bot or "bot", []).append(
                (after[index][0] - before[index][0], after[index][1])
            )
    for name, deltas in moves.items():
        level = levels[name]
        level.rating_mu += sum(d for d, _ in deltas) / len(deltas)
        level.rating_sigma = sum(s for _, s in deltas) / len(deltas)
        level.rating = shown(level.rating_mu, level.rating_sigma)
        level.rated_matches += 1
    changes: list[RatingChange] = []
    for index, seat in enumerate(seats):
        bot = None if seat.account_id is not None else seat.bot or "bot"
        # a bot seat shows its level's new rating (the mean of its seats' changes)
        new = shown(*after[index]) if bot is None else levels[bot].rating
        change = RatingChange(index, seat.account_id, bot, ranks[index], shown(*before[index]), new)
        changes.append(change)
        session.add(
            RatingHistoryRow(
                match_id=match.id,
                seat=index,
                account_id=seat.account_id,
                bot=bot,
                place=change.place,
                before=change.before,
                after=change.after,
                created=now,
            )
        )
    session.flush()
    return changes
