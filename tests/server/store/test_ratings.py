"""Skill ratings, leaderboards and profiles (issue 32), on SQLite and PostgreSQL.

A match is rated once, when it ends, from its points (ties share a place; an escape is last);
bot levels are rated like players; private tables only with two people (or never, by option).
Each leaderboard is one query served by an index (the plans are checked here).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import text

from duyun.engine import Payment
from duyun.server.store import AccountError, ConflictError, MatchSpec, SeatSpec, Store
from duyun.server.store.players import RATING_BOARD, WEEKLY_BOARD
from duyun.server.store.ratings import new_ratings, places, shown

MakeStore = Callable[..., Store]


def play_match(
    store: Store,
    seats: Sequence[int | None],
    totals: Sequence[Sequence[int]],
    *,
    kind: str = "room",
    options: dict[str, Any] | None = None,
    escaped: Sequence[int] = (),
    wins: Sequence[dict[str, Any]] = (),
    end: str = "completed",
) -> int:
    """A match whose hands end with ``totals`` (points per seat, paid as payments from the
    losers to the winners at stake 1); returns its id after ``finish_match``."""
    spec = MatchSpec(
        kind=kind,  # type: ignore[arg-type]
        room="novice" if kind == "room" else "",
        stake=1,
        hands=max(1, len(totals)),
        seats=tuple(SeatSpec(a, None if a else "random") for a in seats),
        seed=3,
        code=None,
        options=options or {},
    )
    match = store.create_match(spec)
    for index, points in enumerate(totals):
        hand = store.start_hand(match, index, seed=index, dealer=0, streak=0)
        payments = []
        due = [max(0, p) for p in points]
        for payer in range(4):
            owed = -points[payer]
            for payee in range(4):
                share = min(owed, due[payee])
                if share > 0:
                    payments.append(Payment(payer, payee, 1, share, "R28", "t"))
                    owed -= share
                    due[payee] -= share
        result = {"totals": list(points), "wins": list(wins) if index == 0 else []}
        store.finish_hand(hand, payments, result)
    for seat in escaped:
        store.mark_forced_tuoguan(match, seat)
    store.finish_match(match, end)
    return match


def test_places_tie_and_escape_last() -> None:
    assert places([30, -10, -10, -10], [False] * 4) == [1, 2, 2, 2]
    assert places([30, 0, 0, -30], [True, False, False, False]) == [4, 1, 1, 3]
    assert places([0, 0, 0, 0], [False, True, True, False]) == [1, 4, 4, 1]


@given(
    points=st.lists(st.integers(-500, 500), min_size=4, max_size=4),
    escaped=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_places_order_follows_points_and_escapes_are_last(
    points: list[int], escaped: list[bool]
) -> None:
    ranks = places(points, escaped)
    for a in range(4):
        assert 1 <= ranks[a] <= 4
        if escaped[a]:
            assert ranks[a] == 4
            continue
        for b in range(4):
            if not escaped[b]:
                assert (points[a] > points[b]) == (ranks[a] < ranks[b])
    after = new_ratings([(25.0, 25 / 3)] * 4, ranks)
    # openskill: a better place never ends lower than a worse one from equal ratings
    for a in range(4):
        for b in range(4):
            if ranks[a] < ranks[b]:
                assert after[a][0] > after[b][0]
            elif ranks[a] == ranks[b]:
                assert after[a][0] == pytest.approx(after[b][0])


def test_a_room_match_rates_the_player_and_the_bot_level_once_with_history(
    database_url: str, make_store: MakeStore
) -> None:
    store = make_store(database_url)
    guest = store.create_guest()
    assert (guest.rating, guest.rated_matches) == (1000, 0)
    match = play_match(store, [guest.id, None, None, None], [[18, -6, -6, -6], [6, 0, -6, 0]])
    rated = store.account(guest.id)
    assert rated.rated_matches == 1 and rated.rating > 1000
    changes = store.match_ratings(match)
    assert [c.place for c in changes] == [1, 2, 4, 2]
    assert changes[0].before == 1000 and changes[0].after == rated.rating
    assert [c.bot for c in changes] == [None, "random", "random", "random"]
    bots = store.bot_ratings()
    assert set(bots) == {"random"} and bots["random"] == changes[1].after
    with pytest.raises(ConflictError):  # a match ends (and is rated) once
        store.finish_match(match, "completed")
    assert store.account(guest.id).rated_matches == 1
    profile = store.profile(guest.id)
    assert [(p.match_id, p.rating, p.place) for p in profile.history] == [(match, rated.rating, 1)]
    assert store.audit().ok


def test_an_escape_is_last_whatever_its_points(database_url: str, make_store: MakeStore) -> None:
    store = make_store(database_url)
    a, b = store.create_guest().id, store.create_guest().id
    match = play_match(store, [a, b, None, None], [[30, -10, -10, -10]], escaped=[0])
    changes = store.match_ratings(match)
    assert changes[0].place == 4 and changes[0].after < changes[0].before
    assert changes[1].place == 1 and changes[1].after > changes[1].before


@pytest.mark.parametrize(
    ("seats", "options", "end", "totals", "rated"),
    [
        ("one", {}, "completed", [[6, -6, 0, 0]], False),  # one person and bots: unrated
        ("two", {}, "completed", [[6, -6, 0, 0]], True),  # two people: rated by default
        ("two", {"rated": False}, "completed", [[6, -6, 0, 0]], False),  # the host's choice
        ("two", {}, "dissolved", [], False),  # no hand finished
    ],
)
def test_private_tables_are_rated_with_two_people_unless_the_host_says_not(
    store: Store,
    seats: str,
    options: dict[str, Any],
    end: str,
    totals: list[list[int]],
    rated: bool,
) -> None:
    a, b = store.create_guest().id, store.create_guest().id
    sitting = [a, None, None, None] if seats == "one" else [a, b, None, None]
    match = play_match(store, sitting, totals, kind="private", options=options, end=end)
    assert bool(store.match_ratings(match)) == rated
    assert store.account(a).rated_matches == int(rated)


def test_leaderboards_top_and_own_place_one_query_each(
    database_url: str, make_store: MakeStore
) -> None:
    store = make_store(database_url)
    players = [store.create_guest().id for _ in range(6)]
    unrated = store.create_guest().id
    play_match(store, players[:4], [[30, 10, -15, -25]])
    play_match(store, [players[4], players[5], None, None], [[9, -9, 6, -6]])
    board = store.rating_board(players[3], size=3)
    ratings = {p: store.account(p).rating for p in players}
    expected = sorted(players, key=lambda p: (ratings[p], p), reverse=True)
    assert [e.account_id for e in board.top] == expected[:3]
    assert [e.place for e in board.top] == [1, 2, 3]
    assert board.own is not None and board.own.account_id == players[3]
    assert board.own.place == expected.index(players[3]) + 1 and board.own.place > 3
    assert store.rating_board(unrated).own is None  # no rated match: not ranked
    assert all(e.account_id != unrated for e in store.rating_board(None).top)

    week = store.weekly_board(players[2], datetime.now(UTC) - timedelta(days=1), size=2)
    assert [(e.place, e.account_id, e.value) for e in week.top] == [
        (1, players[0], 30),
        (2, players[1], 10),
    ]
    assert week.own is not None and (week.own.place, week.own.value) == (5, -15)
    later = store.weekly_board(players[0], datetime.now(UTC) + timedelta(days=1))
    assert later.top == () and later.own is None  # a new week starts empty


def test_leaderboard_queries_use_their_indexes(store: Store) -> None:
    """The plans of the two leaderboard statements name the indexes migration 0007 adds.
    PostgreSQL picks a sequential scan on tiny tables, so its planner is told to avoid one
    when it can: what is checked is that the index serves the query."""
    params = {"size": 50, "me": 1, "since": datetime.now(UTC), "house": 1}
    with store._session() as session:
        if store.dialect == "postgresql":
            session.execute(text("SET LOCAL enable_seqscan = off"))
            explain = "EXPLAIN "
        else:
            explain = "EXPLAIN QUERY PLAN "
        plans = {}
        for name, query in (("rating", RATING_BOARD), ("weekly", WEEKLY_BOARD)):
            rows = session.execute(text(explain + query.text), params).all()
            plans[name] = "\n".join(" ".join(str(c) for c in row) for row in rows)
    assert "ix_accounts_rating" in plans["rating"], plans["rating"]
    assert "ix_coin_ledger_kind_created" in plans["weekly"], plans["weekly"]


def test_profile_counts_hands_and_finds_the_biggest_win(store: Store) -> None:
    guest = store.create_guest().id
    wins = [{"seat": 0, "pattern": "清一色", "fan": 6, "how": "zimo"}]
    match = play_match(
        store, [guest, None, None, None], [[36, -12, -12, -12], [-6, 6, 0, 0]], wins=wins
    )
    profile = store.profile(guest)
    assert (profile.matches, profile.hands, profile.hands_won) == (1, 2, 1)
    assert profile.biggest_win is not None
    assert (profile.biggest_win.pattern, profile.biggest_win.fan) == ("清一色", 6)
    assert (profile.biggest_win.match_id, profile.biggest_win.coins) == (match, 36)


def test_a_guest_chooses_a_display_name_by_the_name_rules_and_keeps_it_registering(
    store: Store,
) -> None:
    guest = store.create_guest()
    # two Chinese characters are a name (issue 32: tables show "小明", not guest-123456)
    assert store.rename_guest(guest.id, " 小明 ").name == "小明"
    assert store.rename_guest(guest.id, " 阿小明 ").name == "阿小明"
    other = store.create_guest()
    with pytest.raises(AccountError, match="taken"):
        store.rename_guest(other.id, "阿小明")
    with pytest.raises(AccountError, match="characters long"):
        store.rename_guest(other.id, "x")
    with pytest.raises(AccountError, match="characters long"):
        store.rename_guest(other.id, "明")
    with pytest.raises(AccountError, match="not allowed"):
        store.rename_guest(other.id, "a b!")
    with pytest.raises(AccountError):
        store.rename_guest(other.id, "guest-123456")  # reserved: looks like a guest
    user = store.register("阿小明", "a long password", guest_id=guest.id)  # keeps its name
    assert (user.id, user.name, user.kind) == (guest.id, "阿小明", "user")
    with pytest.raises(AccountError, match="only a guest"):
        store.rename_guest(user.id, "阿小紅")


def test_shown_rating_starts_at_1000() -> None:
    assert shown(25.0, 25 / 3) == 1000
