"""What a table is, and what it shows: the data of the table's state machine.

:class:`Board` holds the seats and spectators, the status, the match (its dealer, streak,
results, lease), the hand being played (a :class:`~duyun.server.tables.flow.HandFlow`) and the
timers the table wants running, with the queries on them and the messages that show them to
clients (``table``, ``snapshot``, the settlement for a client arriving between hands), built
as effects. It changes nothing by itself but its status, through :meth:`Board._move`; the
transitions that change the rest are its subclasses': the match in ``match.py``
(:class:`~duyun.server.tables.match.MatchFlow`) and the seats and the players' messages in
``state.py`` (:class:`~duyun.server.tables.state.TableState`), the one class the shell uses.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from duyun.bots import Bot, make_bot
from duyun.bots.search import SearchBot
from duyun.engine import Action, Round, SeatView, Setup
from duyun.server import protocol
from duyun.server.config import ServerConfig
from duyun.server.store import Lease
from duyun.server.store.base import INITIAL_RATING
from duyun.server.tables.effects import Effect, HandSettled, Send, SendSnapshot, SendText
from duyun.server.tables.flow import CancelTimer, HandFlow, SetTimer
from duyun.server.tables.inbox import Client, TableRef
from duyun.server.tables.seats import (
    SEATS,
    HandSummary,
    Seat,
    TableOptions,
    Viewer,
    bot_seat,
    dumps,
    hand_seed,
)
from duyun.server.tables.status import TRANSITIONS, IllegalTransitionError, Status
from duyun.server.tables.timers import TimerKey

#: tests only: deals hand ``(hand_index, seed, dealer, streak)`` instead of its seed
DealOverride = Callable[[int, int, int, int], Setup]


class Board:
    """One table's state: seats, spectators, the match and the hand being played."""

    def __init__(
        self,
        ref: TableRef,
        code: str,
        options: TableOptions,
        config: ServerConfig,
        *,
        owner: str | None = None,
        deal: DealOverride | None = None,
        bot_ratings: Mapping[str, int] | None = None,
        seed: int | None = None,
    ) -> None:
        #: the table as its clients know it (``client.spectating is ref``)
        self.ref = ref
        self.code = code
        self.options = options
        self.config = config
        #: this process's name in the store's leases (None: a single process)
        self.owner = owner
        self.deal_override = deal
        #: each bot level's rating, shown next to a bot seat (the host's, read only)
        self.bot_ratings: Mapping[str, int] = bot_ratings if bot_ratings is not None else {}
        self.seats: list[Seat | None] = [None] * SEATS
        self.spectators: set[Client] = set()
        self.status = Status.WAITING
        #: 再來一局: the seat each person of the match before had, kept for them
        self.reserved: dict[int, int] = {}
        #: seats taken at this room table by code since the cluster last published it: players
        #: another process's quick match sent here, each holding a seat that process reserved
        #: (the next publish consumes their reservations; cluster.py)
        self.arrivals = 0
        self.match_id: int | None = None
        #: the match's lease as this table holds it: every write names it (issue 20 item 9)
        self.lease: Lease | None = None
        self.seed = secrets.randbits(63) if seed is None else seed
        self.hand_index = 0
        self.dealer = 0
        self.streak = 0
        self.results: list[HandSummary] = []
        self.last_hand_end: dict[str, Any] | None = None
        #: when the last hand's end was stored (the shell's clock): the next hand's wait
        #: counts from it, also for a table restored after a crash (issue 37)
        self.hand_ended_at: float | None = None
        self.match_end: dict[str, Any] | None = None
        #: the hand being played, or the last one (its view stays shown between hands)
        self.hand: HandFlow | None = None
        #: bots' think times: random, and drawn from nothing about the hand
        self.think = random.Random()
        self.dissolve_votes: set[int] | None = None
        #: the timers this table wants running (the shell runs one per key)
        self.timers: set[TimerKey] = set()
        self.fill_at: float | None = None
        #: the wait between hands is over but a reconnect grace still runs (``NEXT_HAND``)
        self.next_hand_due = False
        #: the settlement whose coin rows came back, while the balances are read
        self._rows: HandSettled | None = None

    # ------------------------------------------------------------------ the status machine

    def _move(self, to: Status) -> None:
        """The one place the status changes: only along :data:`TRANSITIONS` (a move to the
        status the table is in already changes nothing)."""
        if to is self.status:
            return
        if (self.status, to) not in TRANSITIONS:
            raise IllegalTransitionError(f"table {self.code}: {self.status} -> {to}")
        self.status = to

    # ------------------------------------------------------------------ the hand and its bots

    def _new_hand(self, game: Round, hand_id: int) -> HandFlow:
        self.hand = HandFlow(
            game,
            hand_id,
            self.seats,
            self.config,
            self.options.claim_pause,
            self._decide,
            self.think,
            spectated=lambda: bool(self.spectators),
            thinks_apart=self._thinks_apart,
        )
        return self.hand

    def bot(self, index: int) -> Bot:
        """Seat ``index``'s bot (made when first needed: it keeps state from move to move)."""
        seat = self.seats[index]
        assert seat is not None
        if seat.bot is None:
            seat.bot = make_bot(
                seat.bot_name, seed=hand_seed(self.seed, 1000 + index), rules=self.options.rules
            )
        return seat.bot

    def _thinks_apart(self, index: int) -> bool:
        """The search bot (大師) chooses its turn moves in a thread: its search, about 80 ms
        and up to a second, would otherwise stall every table of the process."""
        return isinstance(self.bot(index), SearchBot)

    def _decide(self, index: int, view: SeatView, claim: bool) -> Action:
        """The bot's move for a botted seat, on the event loop. A claim is answered inside the
        claim pause, whose timer is already running: a search there (大師) could outlast a
        0.6 s beat and so tell the table that a bot may claim (issue 20 item 2), so the search
        bot answers claims with its base policy, the strong bot's, in milliseconds."""
        bot = self.bot(index)
        if claim and isinstance(bot, SearchBot):
            return bot.strong.choose(view)
        return bot.choose(view)

    # ------------------------------------------------------------------ timers

    def _set_timer(
        self, key: TimerKey, delay: float, args: tuple[Any, ...] = (), since: float | None = None
    ) -> SetTimer:
        self.timers.add(key)
        return SetTimer(key, delay, args, since)

    def _cancel_timer(self, key: TimerKey) -> list[Effect]:
        if key not in self.timers:
            return []
        self.timers.discard(key)
        return [CancelTimer(key)]

    # ------------------------------------------------------------------ queries

    @property
    def round(self) -> Round | None:
        return None if self.hand is None else self.hand.game

    @property
    def hand_id(self) -> int | None:
        return None if self.hand is None else self.hand.hand_id

    @property
    def seated_count(self) -> int:
        return sum(seat is not None for seat in self.seats)

    @property
    def free_seats(self) -> int:
        return SEATS - self.seated_count

    def humans(self) -> list[tuple[int, Seat]]:
        return [(i, s) for i, s in enumerate(self.seats) if s is not None and s.is_human]

    def seat_of(self, client: Client) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.client is client:
                return index
        return None

    def host_seat(self) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.account_id == self.options.host and seat.is_human:
                return index
        return None

    def match_points(self) -> list[int]:
        return [sum(h.points[s] for h in self.results) for s in range(SEATS)]

    def match_coins(self) -> list[int]:
        return [sum(h.coins[s] for h in self.results) for s in range(SEATS)]

    def addresses(self) -> set[str]:
        """The address digests of the people seated (fair matching, issue 32)."""
        return {s.address for s in self.seats if s is not None and s.address is not None}

    def shares_address(self, address: str | None) -> bool:
        """Whether a person of ``address`` (:func:`address_key`) may not sit here: a stake
        room's table (quick match) where someone of that address sits already, unless the
        config allows it (``same_address_tables``). Private tables are for friends: never."""
        if address is None or self.options.kind != "room" or self.config.same_address_tables:
            return False
        return address in self.addresses()

    def voters(self) -> list[int]:
        """The seats whose 解散 vote counts: people connected and playing their own seat."""
        return [i for i, s in self.humans() if s.client is not None and not s.forced_tuoguan]

    def summary(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "kind": self.options.kind,
            "room": self.options.room,
            "stake": self.options.stake,
            "hands": self.options.hands,
            "rules": self.options.rules.to_mapping(),
            "bots_allowed": self.options.bots_allowed,
            "bot": self.options.bot,
            "spectators_allowed": self.options.spectators,
            "claim_pause": self.options.claim_pause,
            "rated": self.options.kind == "room" or self.options.rated,
            "status": self.status.value,
            "seated": self.seated_count,
            "humans": len(self.humans()),
            "hand_index": self.hand_index,
            "spectators": len(self.spectators),
        }

    def table_json(self, you: int | None) -> dict[str, Any]:
        points, coins = self.match_points(), self.match_coins()
        data = self.summary()
        data.update(
            {
                "host": self.host_seat(),
                "hand_id": self.hand_id,
                "you": you,
                "seats": [
                    None if seat is None else self._seat_json(seat, i, points[i], coins[i])
                    for i, seat in enumerate(self.seats)
                ],
                "dissolve": None
                if self.dissolve_votes is None
                else {"agreed": sorted(self.dissolve_votes), "needed": self.voters()},
                "invite": f"/?join={self.code}",
            }
        )
        return data

    def _seat_json(self, seat: Seat, index: int, points: int, coins: int) -> dict[str, Any]:
        data = seat.to_json(index, points, coins)
        if seat.kind == "bot":  # a bot seat plays as its level: the level's rating
            data["rating"] = self.bot_ratings.get(seat.bot_name, INITIAL_RATING)
        return data

    def next_hand_limit(self) -> float:
        """The longest the next hand waits for people who have not pressed 下一局 (issue 21
        item 4). Their page presses it by itself when its countdown (``next_hand_wait``) ends,
        unless they are reading the settlement; bots, 托管 and absent seats never hold it."""
        return max(self.config.next_hand_wait, self.config.next_hand_limit)

    def _countdown_left(self, now: float) -> float:
        """Seconds left of the settlement's countdown (``next_hand_wait`` from the hand's end)."""
        if self.hand_ended_at is None:
            return 0.0
        return max(0.0, self.config.next_hand_wait - (now - self.hand_ended_at))

    def hand_end_now(self, now: float) -> dict[str, Any]:
        """The last hand's ``hand_end`` for a client arriving between hands (a reconnect, a
        reload, a restart or an adoption): its ``next_hand_in`` is what is left of the page's
        countdown, which counts from the hand's end, so the page presses 下一局 when the
        others' do and the settlement it shows is the one everybody saw."""
        end = self.last_hand_end
        assert end is not None
        if end["next_hand_in"] is None or self.hand_ended_at is None:
            return end
        return {**end, "next_hand_in": round(self._countdown_left(now), 3)}

    # ------------------------------------------------------------------ to clients

    def _clients_of(self, viewer: Viewer) -> tuple[Client, ...]:
        if viewer is None:
            return tuple(self.spectators)
        seat = self.seats[viewer]
        return (seat.client,) if seat is not None and seat.client is not None else ()

    def _broadcast(self) -> list[Effect]:
        """Everyone gets the ``table`` message anew (each seat its own ``you``).

        The table is described once and each seat's message is a shallow copy with its own
        ``you``: the four share the rest, which nothing changes after it is built (a queued
        ``table`` message is encoded only when written). A crowd being seated broadcasts at
        every arrival, so four descriptions per broadcast were a measured part of the seating.
        """
        clients = [
            (index, seat.client)
            for index, seat in enumerate(self.seats)
            if seat is not None and seat.client is not None
        ]
        if not clients and not self.spectators:
            return []
        shared = self.table_json(None)
        out: list[Effect] = [
            Send(client, {"type": "table", "table": {**shared, "you": index}})
            for index, client in clients
        ]
        if self.spectators:
            text = dumps({"type": "table", "table": shared})
            out.append(SendText(tuple(self.spectators), text))
        return out

    def _send_to_all(self, message: dict[str, Any]) -> list[Effect]:
        viewers = (*range(SEATS), None)
        clients = [client for viewer in viewers for client in self._clients_of(viewer)]
        return [SendText(tuple(clients), dumps(message))] if clients else []

    def _snapshot_message(
        self, hand: HandFlow, viewer: Viewer, events: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """A ``snapshot`` without its prompt (rendered when sent, :class:`SendSnapshot`)."""
        return {
            "type": "snapshot",
            "hand_id": hand.hand_id,
            "hand_index": self.hand_index,
            "seat": viewer,
            "view": protocol.fold_view(events, viewer),
            "events": events,
            "prompt": None,
        }

    def _send_state(self, client: Client, viewer: Viewer, now: float) -> list[Effect]:
        """table + snapshot (+ the last settlement between hands) for a client arriving."""
        out: list[Effect] = [Send(client, {"type": "table", "table": self.table_json(viewer)})]
        hand = self.hand
        if hand is not None and hand.released:
            events = hand.released_events(viewer)
            prompt = hand.prompts.get(viewer) if viewer is not None else None
            snap = self._snapshot_message(hand, viewer, events)
            out.append(SendSnapshot(client, snap, prompt, hand.hand_id))
            hand.seen[viewer] = len(events)  # the next events batch follows on
        if self.status in (Status.BETWEEN, Status.ENDED) and self.last_hand_end is not None:
            out.append(Send(client, self.hand_end_now(now)))
        if self.status is Status.ENDED and self.match_end is not None:
            out.append(Send(client, self.match_end))
        return out

    # ------------------------------------------------------------------ asked by the host

    def keep_seats_of(self, ended: Board) -> None:
        """再來一局 at a private table: the ended table's bots back in their seats and each
        person's seat kept for them (a new table, before its task runs)."""
        for index, seat in enumerate(ended.seats):
            if seat is None:
                continue
            if seat.kind == "bot":
                again = bot_seat(seat.bot_name)
                again.rating = seat.rating
                self.seats[index] = again
            elif seat.account_id is not None:
                self.reserved[seat.account_id] = index

    def consume_arrivals(self, published: int) -> None:
        """The cluster published ``published`` of the arrivals counted so far."""
        self.arrivals = max(0, self.arrivals - published)
