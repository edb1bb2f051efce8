"""What players read about each other (issue 32): profiles, leaderboards, bot levels' ratings.

Each leaderboard is ONE query, on SQLite and PostgreSQL alike, served by an index
(``docs/deploy.md`` "Leaderboards" shows the plans; ``tests/server/store/test_ratings.py`` checks
them):

- by rating: the top lines read ``ix_accounts_rating`` (rating, id) from its high end, and the
  asking account's place is a count over the same index, both in one ``UNION ALL``; accounts
  without a rated match have no rating (NULL) and are not in it;
- by coins won this week: the week's ``hand`` rows through ``ix_coin_ledger_kind_created``,
  each row counted for its payee and against its payer, summed per account and numbered with
  ``ROW_NUMBER()``. This one is read whole (:meth:`PlayerStore.weekly_ranking`: every account
  that played this week, in order), because its cost is the week's rows, not the answer's
  size: the server reads it once per cache period and answers every player's own line from
  it (330 ms at 100,000 rows this week; docs/deploy.md "The economy").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import text

from duyun.server.store.base import INITIAL_RATING, MAX_ID, aware, check_int
from duyun.server.store.models import (
    BotRatingRow,
    HandRow,
    MatchRow,
    MatchSeatRow,
    RatingHistoryRow,
)
from duyun.server.store.records import RecordStore
from duyun.server.store.types import (
    BiggestWin,
    Board,
    BoardEntry,
    NotFoundError,
    Profile,
    RatingChange,
    RatingPoint,
)

#: the lines a leaderboard shows
BOARD_SIZE = 50
#: rating history points a profile returns (its chart)
HISTORY_POINTS = 100
#: the most finished hands a profile reads for its counts and biggest win (the newest)
PROFILE_HANDS = 5000

RATING_BOARD = text(
    """
    SELECT * FROM (
        SELECT a.id AS id, a.name AS name, a.rating AS value, 0 AS own_place
        FROM accounts a
        WHERE a.rating IS NOT NULL
        ORDER BY a.rating DESC, a.id DESC
        LIMIT :size
    ) AS top
    UNION ALL
    SELECT me.id, me.name, me.rating,
        1 + (SELECT count(*) FROM accounts b
             WHERE b.rating IS NOT NULL AND (b.rating, b.id) > (me.rating, me.id))
    FROM accounts me
    WHERE me.id = :me AND me.rating IS NOT NULL
    """
)

WEEKLY_BOARD = text(
    """
    WITH moves AS (
        SELECT payee_id AS account_id, coins AS amount FROM coin_ledger
        WHERE kind = 'hand' AND created >= :since
        UNION ALL
        SELECT payer_id AS account_id, -coins AS amount FROM coin_ledger
        WHERE kind = 'hand' AND created >= :since
    ), won AS (
        SELECT account_id, SUM(amount) AS value FROM moves
        WHERE account_id <> :house GROUP BY account_id
    ), ranked AS (
        SELECT account_id, value,
            ROW_NUMBER() OVER (ORDER BY value DESC, account_id DESC) AS place
        FROM won
    )
    SELECT r.account_id AS id, a.name AS name, r.value AS value, r.place AS place
    FROM ranked r JOIN accounts a ON a.id = r.account_id
    ORDER BY r.place
    """
)


class PlayerStore(RecordStore):
    """Profiles, leaderboards and ratings (a profile reads records, hence them underneath)."""

    def rating_board(self, account_id: int | None, size: int = BOARD_SIZE) -> Board:
        """The top ``size`` accounts by rating and the asking account's place."""
        check_int("size", size, 1, 1000)
        me = 0 if account_id is None else check_int("account id", account_id, 1, MAX_ID)
        with self._session() as session:
            rows = session.execute(RATING_BOARD, {"size": size, "me": me}).all()
        top = tuple(
            BoardEntry(i + 1, int(r.id), r.name, int(r.value))
            for i, r in enumerate(r for r in rows if not r.own_place)
        )
        own = next(
            (
                BoardEntry(int(r.own_place), int(r.id), r.name, int(r.value))
                for r in rows
                if r.own_place
            ),
            None,
        )
        return Board(top, own)

    def weekly_ranking(self, since: datetime) -> tuple[BoardEntry, ...]:
        """Every account by coins won in hands since ``since`` (the week's start), in order:
        the weekly board's one query, read once and shared by every player's answer."""
        with self._session() as session:
            rows = session.execute(WEEKLY_BOARD, {"since": since, "house": self._house}).all()
        return tuple(BoardEntry(int(r.place), int(r.id), r.name, int(r.value)) for r in rows)

    def weekly_board(
        self, account_id: int | None, since: datetime, size: int = BOARD_SIZE
    ) -> Board:
        """The top ``size`` accounts by coins won in hands since ``since`` and the asking
        account's line (:func:`board_of` over :meth:`weekly_ranking`)."""
        check_int("size", size, 1, 1000)
        me = None if account_id is None else check_int("account id", account_id, 1, MAX_ID)
        return board_of(self.weekly_ranking(since), me, size)

    def bot_ratings(self) -> dict[str, int]:
        """Each bot level's rating (levels that never played a rated match are absent)."""
        with self._session() as session:
            return {
                row.bot: int(row.rating)
                for row in session.query(BotRatingRow).order_by(BotRatingRow.bot)
            }

    def match_ratings(self, match_id: int) -> list[RatingChange]:
        """The rating changes a match made, by seat (empty when it was not rated)."""
        check_int("match id", match_id, 1, MAX_ID)
        with self._session() as session:
            rows = (
                session.query(RatingHistoryRow)
                .filter(RatingHistoryRow.match_id == match_id)
                .order_by(RatingHistoryRow.seat)
                .all()
            )
            return [
                RatingChange(r.seat, r.account_id, r.bot, r.place, r.before, r.after) for r in rows
            ]

    def profile(self, account_id: int) -> Profile:
        """An account's profile: rating history (the newest ``HISTORY_POINTS``), matches
        played, hands played and won, the biggest win (most fan, then most coins)."""
        account = self.account(account_id)
        if account.kind == "house":
            raise NotFoundError(f"no player with id {account_id}")
        with self._session() as session:
            history = (
                session.query(RatingHistoryRow)
                .filter(RatingHistoryRow.account_id == account_id)
                .order_by(RatingHistoryRow.id.desc())
                .limit(HISTORY_POINTS)
                .all()
            )
            points = tuple(
                RatingPoint(
                    r.match_id,
                    r.after,
                    r.after - r.before,
                    r.place,
                    cast(datetime, aware(r.created)),
                )
                for r in reversed(history)
            )
            matches = (
                session.query(MatchSeatRow).filter(MatchSeatRow.account_id == account_id).count()
            )
            hands = (
                session.query(
                    HandRow.id, HandRow.match_id, HandRow.result, MatchSeatRow.seat, MatchRow.stake
                )
                .join(MatchSeatRow, MatchSeatRow.match_id == HandRow.match_id)
                .join(MatchRow, MatchRow.id == HandRow.match_id)
                .filter(MatchSeatRow.account_id == account_id, HandRow.status == "finished")
                .order_by(HandRow.id.desc())
                .limit(PROFILE_HANDS)
                .all()
            )
        won = 0
        best: BiggestWin | None = None
        for hand_id, match_id, result, seat, stake in hands:
            wins = _wins_of(result, seat)
            if not wins:
                continue
            won += 1
            coins = _points_of(result, seat) * int(stake)
            for win in wins:
                fan = int(win.get("fan") or 0)
                candidate = BiggestWin(hand_id, match_id, str(win.get("pattern") or ""), fan, coins)
                if best is None or (fan, coins) > (best.fan, best.coins):
                    best = candidate
        return Profile(account, matches, len(hands), won, best, points)


def board_of(ranking: Sequence[BoardEntry], account_id: int | None, size: int) -> Board:
    """A board from a whole ranking: its first ``size`` lines and the account's own."""
    own = next((e for e in ranking if e.account_id == account_id), None)
    return Board(tuple(ranking[:size]), own)


def _wins_of(result: Any, seat: int) -> list[dict[str, Any]]:
    if not isinstance(result, dict):
        return []
    wins = result.get("wins")
    if not isinstance(wins, list):
        return []
    return [w for w in wins if isinstance(w, dict) and w.get("seat") == seat]


def _points_of(result: Any, seat: int) -> int:
    totals = result.get("totals") if isinstance(result, dict) else None
    if isinstance(totals, list) and len(totals) > seat:
        return int(totals[seat])
    return 0


__all__ = ["BOARD_SIZE", "INITIAL_RATING", "PlayerStore", "board_of"]
