"""The group-committing event writer (server/writer.py): the moves of many tables that arrive
while one write runs are stored together by the next, each caller hears its own outcome."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from duyun.server.store import ConflictError, MatchSpec, SeatSpec, Store
from duyun.server.writer import EventWriter


def _hands(store: Store, count: int) -> list[int]:
    guest = store.create_guest()
    hands = []
    for n in range(count):
        human = SeatSpec(guest.id, None) if n == 0 else SeatSpec(None, "random")
        seats = (human, *(SeatSpec(None, "random") for _ in range(3)))
        match = store.create_match(
            MatchSpec(kind="room", room="novice", stake=1, hands=1, seats=seats, seed=n)
        )
        hands.append(store.start_hand(match, 0, seed=n, dealer=0, streak=0))
    return hands


def test_writer_batches_concurrent_tables_and_reports_each_error(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'writer.db'}")
    calls: list[int] = []
    original = store.append_events_many

    def counting(appends: Any) -> Any:
        calls.append(len(appends))
        return original(appends)

    store.append_events_many = counting  # type: ignore[method-assign]
    try:
        hands = _hands(store, 12)

        async def play() -> list[BaseException | None]:
            writer = EventWriter(store)
            await writer.append(hands[0], 0, [{"type": "start"}])
            jobs = [writer.append(hand, 0, [{"type": "start", "hand": hand}]) for hand in hands[1:]]
            jobs.append(writer.append(hands[0], 0, [{"type": "again"}]))  # seq 0 is taken
            return await asyncio.gather(*jobs, return_exceptions=True)

        outcomes = asyncio.run(play())
        assert outcomes[:-1] == [None] * 11
        assert isinstance(outcomes[-1], ConflictError)
        # the first append ran alone; the twelve that came while nothing was in flight, or
        # while one write ran, took at most two more transactions
        assert calls[0] == 1 and sum(calls) == 13 and len(calls) <= 3
        for hand in hands[1:]:
            assert [e.get("hand") for e in store.hand_log(hand).events] == [hand]
        assert [e["type"] for e in store.hand_log(hands[0]).events] == ["start"]
    finally:
        store.close()


def test_writer_passes_a_database_failure_to_every_waiter(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'down.db'}")
    hands = _hands(store, 2)

    def broken(appends: Any) -> Any:
        raise RuntimeError("database unreachable")

    store.append_events_many = broken  # type: ignore[method-assign]
    try:

        async def play() -> list[BaseException | None]:
            writer = EventWriter(store)
            return await asyncio.gather(
                *(writer.append(hand, 0, [{"type": "start"}]) for hand in hands),
                return_exceptions=True,
            )

        outcomes = asyncio.run(play())
        assert len(outcomes) == 2 and all(isinstance(o, RuntimeError) for o in outcomes)
        assert store.hand_log(hands[0]).events == ()
    finally:
        store.close()
