"""A table as one pure state machine: seats, the match, the hand being played, and every
transition between them.

:class:`TableState` holds what a table is (its seats and spectators, its status, the match's
dealer, streak and results, the hand's :class:`~duyun.server.tables.flow.HandFlow`, the timers
it wants running) and each of its transitions takes one input and the time (``now``, the
shell's ``time.monotonic()``) and returns the effects it calls for (``effects.py``), in order,
without doing any of them: no I/O, no asyncio, no clock of its own. The inputs are the inbox
messages (:meth:`handle`: a client joining, leaving, acting; a timer running out), the answers
to the effects that ask the store or the host something (:meth:`on_result`: the match's id,
the hand's id, the settlement's coin rows, ...), a bot's thought (:meth:`thought`) and a live
match to rebuild (:meth:`restore`). The async :class:`~duyun.server.tables.table.Table` runs
the effects and feeds the answers back, in one loop; tests drive whole matches through this
class with a fake clock and a fake store (tests/server/tables/test_table_state.py).

Where the code this replaced went on after an awaited call (a change of 托管 that may deal the
next hand, then a reprompt; an escape that may settle the hand, then the leave), the
transition ends with a :class:`~duyun.server.tables.effects.Resume` of a named step, which the
shell hands back when everything before it has run: the order of what players see is the one
the awaited code gave.

The status is one declared machine (:data:`TRANSITIONS`); every change goes through
:meth:`TableState._move`, which refuses an undeclared one (tests/server/tables/
test_table_state.py holds the code to it). Timers are named by
:class:`~duyun.server.tables.timers.TimerKey`.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, assert_never

from duyun.bots import Bot, make_bot, resolve_bot
from duyun.bots.search import SearchBot
from duyun.engine import Action, Round, SeatView, Setup, deal_setup, replay
from duyun.server import protocol
from duyun.server.config import ServerConfig
from duyun.server.protocol import ProtocolError, error_message
from duyun.server.store import (
    Account,
    Lease,
    LiveMatch,
    MatchSpec,
    RatingChange,
    SeatSpec,
    SettledHand,
)
from duyun.server.store.base import INITIAL_RATING
from duyun.server.tables import flow
from duyun.server.tables.effects import (
    AfterGrace,
    AppendEvents,
    AttachClient,
    BalancesRead,
    CancelAllTimers,
    Deal,
    DetachClient,
    DropTable,
    Effect,
    HandSettled,
    HandStarted,
    HostSeat,
    HostUnseat,
    LeaveSeat,
    MatchCreated,
    MatchFinished,
    PostTo,
    QuickMatch,
    ReadBalances,
    RegisterMatch,
    Rematch,
    Rematched,
    Reprompt,
    Result,
    Resume,
    Send,
    SendPrompt,
    SendSnapshot,
    SendText,
    SetAccount,
    SetBotRating,
    Settled,
    ShowState,
    StoreForcedTuoguan,
    StoreHandStart,
    StoreMatchEnd,
    StoreMatchStart,
    StoreSettlement,
    StoreTuoguan,
    Watch,
)
from duyun.server.tables.ending import match_end_message, rating_lines, settlement, stored_result
from duyun.server.tables.flow import CancelTimer, HandFlow, SetTimer, SettleUntil, Think
from duyun.server.tables.inbox import (
    Attach,
    Client,
    ClientMessage,
    Detach,
    Join,
    Spectate,
    TableRef,
    TimerFired,
    Unspectate,
)
from duyun.server.tables.seats import (
    PRIVATE_TABLE_IDLE,
    SEATS,
    HandSummary,
    Seat,
    TableOptions,
    Viewer,
    address_key,
    bot_seat,
    dumps,
    hand_seed,
    win_summaries,
)
from duyun.server.tables.timers import (
    COUNTDOWN,
    FILL,
    IDLE,
    NEXT_HAND,
    Timer,
    TimerKey,
    grace,
)

#: tests only: deals hand ``(hand_index, seed, dealer, streak)`` instead of its seed
DealOverride = Callable[[int, int, int, int], Setup]

#: what the state machine handles of the inbox (``Call`` and ``Stop`` are the shell's)
StateInput = Join | Attach | Detach | Spectate | Unspectate | ClientMessage | TimerFired


class Status(StrEnum):
    #: seats fill up; the match starts when four sit and every person is ready
    WAITING = "waiting"
    #: a hand is being played (or being dealt: the store is asked for its id)
    PLAYING = "playing"
    #: between two hands: the settlement is shown, the next hand waits for 下一局
    BETWEEN = "between"
    #: the match is over (played out or dissolved); the table is dropped
    ENDED = "ended"


#: every status change a table makes, and nothing else (``TableState._move``)
TRANSITIONS: frozenset[tuple[Status, Status]] = frozenset(
    {
        # four seated and ready: the match starts; or a live match is restored
        (Status.WAITING, Status.PLAYING),
        # a hand settled and more are to be played; or a match restored between hands
        (Status.PLAYING, Status.BETWEEN),
        # the next hand is dealt
        (Status.BETWEEN, Status.PLAYING),
        # the last hand settled
        (Status.PLAYING, Status.ENDED),
        # 解散 between hands; or a restored match whose hands were all played
        (Status.BETWEEN, Status.ENDED),
    }
)


class IllegalTransitionError(AssertionError):
    """A status change :data:`TRANSITIONS` does not declare: a bug."""


def _refuse(client: Client, code: str, message: str) -> Send:
    """The ``error`` a refused join gets (its effects so far still run: the client is let
    go), as the shell sends for a :class:`ProtocolError`."""
    return Send(client, error_message(code, message, None))


class TableState:
    """One table: seats, spectators, the match and the hand being played; every transition
    returns the effects it calls for."""

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

    # ------------------------------------------------------------------ inputs

    def opened(self) -> list[Effect]:
        """The table's task starts: an empty private table keeps its code for a while."""
        if self.options.kind == "private" and self.status is Status.WAITING:
            return [self._set_timer(IDLE, PRIVATE_TABLE_IDLE)]
        return []

    def handle(self, item: StateInput, now: float) -> list[Effect]:
        """One inbox message. A refusal raises :class:`ProtocolError` before anything
        changes; the shell sends it to the client."""
        match item:
            case TimerFired(name=key, args=args):
                self.timers.discard(key)
                return self._on_timer(key, args, now)
            case ClientMessage(client=client, message=message):
                return self._message(client, message, now)
            case Join(client=client, seat=seat, by_code=by_code):
                return self._join(client, seat, by_code, now)
            case Attach(client=client):
                return [*self._attach(client, now), *self._maybe_next_hand(now)]
            case Detach(client=client):
                return self._detach(client, now)
            case Spectate(client=client):
                return self._spectate(client, now)
            case Unspectate(client=client):
                return self._unspectate(client)
            case _:
                assert_never(item)

    def on_result(self, result: Result, now: float) -> list[Effect]:
        """The answer to an effect that asked something, or a resumed step: the transition
        goes on from where it asked."""
        match result:
            case MatchCreated(match_id=match_id):
                return self._match_created(match_id, now)
            case HandStarted(hand_id=hand_id, game=game):
                return self._hand_started(hand_id, game, now)
            case HandSettled():
                return self._hand_settled(result, now)
            case BalancesRead(balances=balances):
                return self._balances_read(balances, now)
            case MatchFinished(reason=reason, changes=changes):
                return self._match_finished(reason, changes)
            case Rematched(code=code):
                return self._let_go({"code": code, "room": None})
            case Settled():
                hand = self.hand
                assert hand is not None
                return self._play(hand.pump(now))
            case Reprompt(seat=index):
                hand = self.hand
                if self.status is not Status.PLAYING or hand is None:
                    return []
                # the seat's pending turn decision, asked anew under its new driver
                return self._play(hand.reprompt(index, now))
            case ShowState(client=client, seat=index):
                return self._send_state(client, index, now)
            case LeaveSeat(seat=index, may_return=may_return):
                return self._leave_seat(index, may_return, now)
            case Deal():
                return self._deal(now)
            case AfterGrace(broadcast=broadcast):
                out = self._broadcast() if broadcast else []
                return [*out, *self._maybe_next_hand(now)]
            case _:
                assert_never(result)

    def thought(self, index: int, logged: int, action: Action) -> None:
        """A bot's turn move chosen off the event loop (:class:`~flow.Think`), for the hand
        being played."""
        assert self.hand is not None
        self.hand.thought(index, logged, action)

    # ------------------------------------------------------------------ the hand's effects

    def _play(self, effects: list[flow.Effect]) -> list[Effect]:
        """The hand flow's effects as the table's: events to store carry the hand's id and
        lease, events and prompts go to the clients connected now, a 托管 is stored and
        shown; timers are tracked; the end of the hand is settled."""
        hand = self.hand
        assert hand is not None
        hand_id = hand.hand_id
        out: list[Effect] = []
        for effect in effects:
            match effect:
                case flow.StoreEvents(first=first, events=events):
                    out.append(AppendEvents(hand_id, first, events, self.lease))
                case flow.SendEvents(viewer=viewer, seq=seq, events=events):
                    clients = self._clients_of(viewer)
                    if clients:
                        message = {"type": "events", "hand_id": hand_id, "seq": seq}
                        out.append(SendText(clients, dumps({**message, "events": events})))
                case flow.SendSnapshot(viewer=viewer, events=events, prompt=prompt):
                    snap = self._snapshot_message(hand, viewer, events)
                    out.extend(
                        SendSnapshot(client, snap, prompt, hand_id)
                        for client in self._clients_of(viewer)
                    )
                case flow.SendPrompt(seat=index, prompt=prompt):
                    seat = self.seats[index]
                    if seat is not None and seat.client is not None:
                        out.append(SendPrompt(seat.client, prompt, hand_id))
                case SetTimer(name=key):
                    self.timers.add(key)
                    out.append(effect)
                case CancelTimer(name=key):
                    self.timers.discard(key)
                    out.append(effect)
                case SettleUntil() | Think():
                    out.append(effect)
                case flow.FinishHand():
                    out.extend(self._finish_hand())
                case flow.BroadcastTable():
                    out.extend(self._broadcast())
                case flow.StoreTuoguan(seat=index):
                    out.extend(self._keep_tuoguan(index))
                case _:
                    assert_never(effect)
        return out

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

    def _on_timer(self, key: TimerKey, args: tuple[Any, ...], now: float) -> list[Effect]:
        match key.timer:
            case Timer.DECISION:
                hand = self.hand
                if hand is None or self.status is not Status.PLAYING:
                    return []
                what, index = args[0], (args[1] if len(args) > 1 else None)
                return self._play(hand.on_timer(what, index, now))
            case Timer.FILL:
                return self._fill_with_bots(now)
            case Timer.NEXT_HAND:
                return self._next_hand(now)
            case Timer.COUNTDOWN:
                return self._maybe_next_hand(now)
            case Timer.IDLE:
                if self.status is Status.WAITING and not self.humans():
                    return [DropTable()]
                return []
            case Timer.GRACE:
                assert key.seat is not None
                return self._grace_over(key.seat, now)
            case _:
                assert_never(key.timer)

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
        """Everyone gets the ``table`` message anew (each seat its own ``you``)."""
        out: list[Effect] = [
            Send(seat.client, {"type": "table", "table": self.table_json(index)})
            for index, seat in enumerate(self.seats)
            if seat is not None and seat.client is not None
        ]
        if self.spectators:
            text = dumps({"type": "table", "table": self.table_json(None)})
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

    # ------------------------------------------------------------------ seating

    def _join(
        self, client: Client, seat_wanted: int | None, by_code: bool, now: float
    ) -> list[Effect]:
        account = client.account
        assert account is not None
        if self.status is not Status.WAITING:
            mine = [
                i for i, s in enumerate(self.seats) if s is not None and s.account_id == account.id
            ]
            if mine and self.status in (Status.PLAYING, Status.BETWEEN):
                return self._come_back(client, mine[0], now)
            return [
                *self._unjoin(client),
                _refuse(client, "wrong_state", f"table {self.code} has already started"),
            ]
        if any(s is not None and s.account_id == account.id for s in self.seats):
            return self._send_state(client, self.seat_of(client), now)
        free = [i for i, s in enumerate(self.seats) if s is None]
        if not free:
            let_go = self._unjoin(client)
            if self.options.kind == "room" and self.options.room is not None:
                return [*let_go, QuickMatch(client, self.options.room)]
            full = _refuse(client, "table_full", f"table {self.code} has no free seat")
            return [*let_go, full]
        address = address_key(client.address)
        if self.shares_address(address):
            # fair matching (issue 32): a stake room's table never seats two people of one
            # address; the join of a quick match that raced another from the same address looks
            # again (this table now holds the other one, so it is not picked twice)
            assert self.options.room is not None
            return [*self._unjoin(client), QuickMatch(client, self.options.room)]
        kept = self.reserved.get(account.id)
        if kept is not None and kept in free:
            index = kept  # 再來一局: one's seat of the match before
        elif seat_wanted is not None and seat_wanted in free:
            index = seat_wanted
        else:
            # seats kept for the people of the match before go last
            others = [i for i in free if i not in self.reserved.values()]
            index = (others or free)[0]
        self.seats[index] = Seat(
            kind="human",
            name=account.name,
            bot_name=self.options.bot,
            account_id=account.id,
            ready=self.options.kind == "room",
            client=client,
            balance=account.balance,
            rating=account.rating,
            address=address,
        )
        out: list[Effect] = [AttachClient(client, True)]
        if by_code and self.options.kind == "room":
            self.arrivals += 1
        if client.spectating is self.ref:
            self.spectators.discard(client)
            out.append(Watch(client, False))
        out += self._broadcast()
        out += self._send_state(client, index, now)
        if self.options.kind == "room" and FILL not in self.timers and self.free_seats:
            out.append(self._set_timer(FILL, self.config.bot_fill_wait))
            self.fill_at = now + self.config.bot_fill_wait
        out += self._maybe_start(now)
        return out

    def _come_back(self, client: Client, index: int, now: float) -> list[Effect]:
        """A player back at the seat it left between hands (回到牌桌): it takes the seat from
        托管 and plays on. A seat that escaped during a hand (R45) stays its bot's to the end of
        the match: its player may only watch."""
        seat = self.seats[index]
        assert seat is not None and seat.account_id is not None
        if seat.forced_tuoguan and not seat.may_return:
            return [
                *self._unjoin(client),
                _refuse(
                    client,
                    "wrong_state",
                    f"your seat at table {self.code} escaped and a bot plays it until the "
                    "match ends; spectate it to watch",
                ),
            ]
        out: list[Effect] = []
        if seat.client is not None and seat.client is not client:
            out.append(DetachClient(seat.client))
        seat.client = client
        seat.cut_off_by_server = False
        out += self._cancel_timer(grace(index))
        out += [HostSeat(seat.account_id), AttachClient(client, True)]
        if seat.forced_tuoguan:
            seat.forced_tuoguan = seat.may_return = False
            assert self.match_id is not None
            out.append(StoreForcedTuoguan(self.match_id, index, self.lease, False))
        out += self._set_tuoguan(index, seat, False, now)
        out.append(Resume(ShowState(client, index)))
        return out

    def _unjoin(self, client: Client) -> list[Effect]:
        """A join that did not get a seat: the client is free again."""
        out: list[Effect] = []
        if client.account is not None:
            out.append(HostUnseat(client.account.id))
        out.append(DetachClient(client))
        return out

    def _attach(self, client: Client, now: float) -> list[Effect]:
        """A reconnect (or a second connection taking over): the seat gets the new client."""
        account = client.account
        assert account is not None
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.account_id == account.id and seat.is_human:
                seat.client = client
                seat.cut_off_by_server = False
                out: list[Effect] = [AttachClient(client, True)]
                out += self._cancel_timer(grace(index))
                out += self._broadcast()
                out += self._send_state(client, index, now)
                return out
        return [AttachClient(client, False), HostUnseat(account.id)]

    def _detach(self, client: Client, now: float) -> list[Effect]:
        """The client's socket closed (or it was replaced)."""
        out: list[Effect] = []
        if client in self.spectators:
            self.spectators.discard(client)
            out += self._broadcast()
        index = self.seat_of(client)
        if index is None:
            return out
        seat = self.seats[index]
        assert seat is not None
        seat.client = None
        seat.last_drop = now
        if self.status is Status.WAITING:
            out += self._free_seat(index)
        elif self.status is not Status.ENDED and not seat.forced_tuoguan:
            # per match (issue 20 item 12): it runs on across the end of a hand, and the next
            # hand does not start before it has run out (``_next_hand``). An escaped seat
            # has nothing left to lose: its bot plays on whether its player watches or not.
            out.append(self._set_timer(grace(index), self.config.reconnect_grace))
        out += self._broadcast()
        return out

    def _free_seat(self, index: int) -> list[Effect]:
        seat = self.seats[index]
        if seat is None:
            return []
        self.seats[index] = None
        out: list[Effect] = []
        if seat.account_id is not None:
            out.append(HostUnseat(seat.account_id))
        if seat.client is not None:
            out.append(DetachClient(seat.client))
        if not self.humans() and self.status is Status.WAITING:
            out += self._cancel_timer(FILL)
            if self.options.kind == "private":
                # an invite stays valid while its players come and go (a page reload)
                out.append(self._set_timer(IDLE, PRIVATE_TABLE_IDLE))
            else:
                out.append(DropTable())
        return out

    def _spectate(self, client: Client, now: float) -> list[Effect]:
        if client.account is not None and any(
            s is not None and s.account_id == client.account.id for s in self.seats
        ):
            raise ProtocolError("wrong_state", "you are seated at this table; you cannot watch it")
        out: list[Effect] = []
        if client.spectating is not None and client.spectating is not self.ref:
            out.append(PostTo(client.spectating, Unspectate(client)))
        out.append(Watch(client, True))
        self.spectators.add(client)
        out += self._send_state(client, None, now)
        out += self._broadcast()
        return out

    def _unspectate(self, client: Client) -> list[Effect]:
        self.spectators.discard(client)
        out: list[Effect] = []
        if client.spectating is self.ref:
            out.append(Watch(client, False))
        out += self._broadcast()
        return out

    def _leave(self, index: int, now: float) -> list[Effect]:
        seat = self.seats[index]
        assert seat is not None
        if self.status is Status.WAITING:
            client = seat.client
            out = self._free_seat(index)
            if client is not None:
                out.append(Send(client, {"type": "table", "table": None}))
            out += self._broadcast()
            return out
        # during a match: R45 when a hand is on, then 托管 for the rest of the match. A seat
        # that has escaped already only stops being watched by its player: no second escape.
        # Between hands nothing is paid, and the player may come back to the seat (回到牌桌)
        if seat.forced_tuoguan:
            return self._leave_seat(index, None, now)
        between = self.status is Status.BETWEEN
        return [*self._escape(index, now), Resume(LeaveSeat(index, between))]

    def _leave_seat(self, index: int, may_return: bool | None, now: float) -> list[Effect]:
        seat = self.seats[index]
        assert seat is not None
        if may_return is not None:
            seat.may_return = may_return
        client = seat.client
        seat.client = None
        out: list[Effect] = []
        if seat.account_id is not None:
            out.append(HostUnseat(seat.account_id))
        if client is not None:
            out.append(AttachClient(client, False))
            out.append(Send(client, {"type": "table", "table": None}))
        out += self._broadcast()
        out += self._maybe_next_hand(now)
        return out

    def _escape(self, index: int, now: float) -> list[Effect]:
        """R45: a seat quits or its reconnect grace runs out while a hand is on."""
        seat = self.seats[index]
        assert seat is not None
        newly_forced = not seat.forced_tuoguan
        seat.forced_tuoguan = True
        seat.tuoguan = True
        out = self._cancel_timer(grace(index))
        if newly_forced and self.match_id is not None and seat.account_id is not None:
            # stored before the escape itself: a restart in between resumes the hand with the
            # seat played by its bot (no penalty charged) rather than waiting for the player
            out.append(StoreForcedTuoguan(self.match_id, index, self.lease))
        hand = self.hand
        if self.status is not Status.PLAYING or hand is None or hand.game.is_over:
            return out
        return [*out, *self._play(hand.escape(index, now))]

    def _set_tuoguan(self, index: int, seat: Seat, on: bool, now: float) -> list[Effect]:
        if not on and seat.forced_tuoguan:
            raise ProtocolError(
                "wrong_state", "your seat escaped: a bot plays it until the match ends"
            )
        changed = seat.tuoguan != on
        seat.tuoguan = on
        seat.timeouts = 0
        out: list[Effect] = []
        if changed and self.status in (Status.PLAYING, Status.BETWEEN):
            out += self._keep_tuoguan(index)
        out += self._broadcast()
        if self.status is Status.BETWEEN:
            out += self._maybe_next_hand(now)
        out.append(Resume(Reprompt(index)))
        return out

    def _keep_tuoguan(self, index: int) -> list[Effect]:
        """Store seat ``index``'s 托管 as it is now (a person's seat of a match in play), so a
        restart neither waits for a player who left their seat to the bot nor takes it back
        from the bot for them (issue 37)."""
        seat = self.seats[index]
        if self.match_id is None or seat is None or seat.account_id is None:
            return []
        return [StoreTuoguan(self.match_id, index, seat.tuoguan, self.lease)]

    def _grace_over(self, index: int, now: float) -> list[Effect]:
        """A dropped person's reconnect grace ran out."""
        seat = self.seats[index]
        if seat is None or seat.client is not None or seat.forced_tuoguan:
            return []
        if self._shared_drop(index):
            # several people of the table lost their connections together: the network or
            # the server failed, nobody quit (issue 20 item 12). No R45: the seat is played
            # in 托管, which its player switches off on coming back.
            return [*self._set_tuoguan(index, seat, True, now), Resume(AfterGrace(False))]
        # R45 when a hand is on; between hands only 托管 for the rest of the match. The
        # account stays seated (issue 20 item 6): its player may come back and watch the
        # seat finish the match, but not take it back (``tuoguan off`` is refused).
        return [*self._escape(index, now), Resume(AfterGrace(True))]

    def _shared_drop(self, index: int) -> bool:
        """Whether another person at this table lost the connection within
        ``shared_drop_window`` seconds of this seat's person (before or after, back since or
        not), or the person has not been back since a restore seated them. One person leaving
        is a quit; people dropping together, or a server process dying under them, is a
        failure of the network or the server, which no player pays R45 for (issue 20 item
        12). A table with one person cannot tell a lone drop from a quit: there a drop past
        the grace stays an escape."""
        seat = self.seats[index]
        if seat is None:
            return False
        if seat.cut_off_by_server:
            return True
        if seat.last_drop is None:
            return False
        window = self.config.shared_drop_window
        return any(
            other is not None
            and other is not seat
            and other.is_human
            and other.last_drop is not None
            and abs(other.last_drop - seat.last_drop) <= window
            for other in self.seats
        )

    # ------------------------------------------------------------------ players' messages

    def _message(self, client: Client, message: protocol._Message, now: float) -> list[Effect]:
        """The players' table messages (docs/protocol.md "Client → server"): acts, ready,
        seats, bots, start, 托管, 解散 and reactions."""
        index = self.seat_of(client)
        if isinstance(message, protocol.Reaction):
            return self._reaction(client, index, message)
        if index is None:
            raise ProtocolError("not_seated", "sit at a table first")
        seat = self.seats[index]
        assert seat is not None
        if isinstance(message, protocol.Act):
            return self._act(index, seat, message, now)
        if isinstance(message, protocol.Ready):
            return self._ready(seat, message.ready, now)
        if isinstance(message, protocol.Sit):
            return self._sit(index, message.seat)
        if isinstance(message, protocol.Leave):
            return self._leave(index, now)
        if isinstance(message, protocol.AddBot):
            return self._add_bot(client, message, now)
        if isinstance(message, protocol.RemoveBot):
            return self._remove_bot(client, message.seat)
        if isinstance(message, protocol.Start):
            return self._start(client, now)
        if isinstance(message, protocol.Tuoguan):
            return self._set_tuoguan(index, seat, message.on, now)
        if isinstance(message, protocol.Dissolve):
            return self._dissolve(index, message.agree, now)
        # the manager routes only table messages here
        raise ProtocolError("unknown_type", f"{message.__class__.__name__} is not for tables")

    def _act(self, index: int, seat: Seat, message: protocol.Act, now: float) -> list[Effect]:
        if message.seat is not None and message.seat != index:
            raise ProtocolError(
                "not_your_seat", f"you sit at seat {index}; you cannot act for seat {message.seat}"
            )
        if seat.forced_tuoguan:
            raise ProtocolError(
                "wrong_state", "your seat escaped: a bot plays it until the match ends"
            )
        action = protocol.action_from_message(message, index)
        hand = self.hand
        if hand is None:
            if message.prompt is not None:
                raise ProtocolError(
                    "too_late", f"prompt {message.prompt} has closed; nothing was done"
                )
            raise ProtocolError("not_your_turn", "no hand is being played")
        playing = self.status is Status.PLAYING
        return self._play(hand.act(index, action, message.prompt, playing=playing, now=now))

    def _reaction(
        self, client: Client, index: int | None, message: protocol.Reaction
    ) -> list[Effect]:
        text = protocol.REACTION_TEXT.get(message.id)
        if text is None:
            raise ProtocolError(
                "unknown_reaction",
                f"unknown reaction {message.id!r}; known: {', '.join(protocol.REACTION_TEXT)}",
            )
        if index is None and client not in self.spectators:
            raise ProtocolError("not_seated", "sit at or watch a table first")
        name = client.account.name if client.account is not None else "?"
        return self._send_to_all(
            {"type": "reaction", "seat": index, "name": name, "id": message.id, "text": text}
        )

    def _sit(self, index: int, wanted: int) -> list[Effect]:
        if self.status is not Status.WAITING:
            raise ProtocolError("wrong_state", "seats can change only before the match starts")
        if wanted == index:
            return []
        if self.seats[wanted] is not None:
            raise ProtocolError("wrong_state", f"seat {wanted} is taken")
        self.seats[wanted], self.seats[index] = self.seats[index], None
        return self._broadcast()

    def _require_host(self, client: Client) -> None:
        account = client.account
        if self.options.kind != "private" or account is None or account.id != self.options.host:
            raise ProtocolError("not_host", "only the host of a private table may do that")
        if self.status is not Status.WAITING:
            raise ProtocolError("wrong_state", "only before the match starts")

    def _add_bot(self, client: Client, message: protocol.AddBot, now: float) -> list[Effect]:
        self._require_host(client)
        if not self.options.bots_allowed:
            raise ProtocolError("wrong_state", "this table does not allow bots")
        try:  # a bot name or a difficulty level (easy/normal/hard/expert)
            name = resolve_bot(message.bot or self.options.bot)
        except ValueError as error:
            raise ProtocolError("unknown_bot", str(error)) from None
        if self.seats[message.seat] is not None:
            raise ProtocolError("wrong_state", f"seat {message.seat} is taken")
        self.seats[message.seat] = bot_seat(name)
        return [*self._broadcast(), *self._maybe_start(now)]

    def _remove_bot(self, client: Client, index: int) -> list[Effect]:
        self._require_host(client)
        seat = self.seats[index]
        if seat is None or seat.kind != "bot":
            raise ProtocolError("wrong_state", f"seat {index} holds no bot")
        self.seats[index] = None
        return self._broadcast()

    def _start(self, client: Client, now: float) -> list[Effect]:
        self._require_host(client)
        if any(not s.ready for _, s in self.humans()):
            raise ProtocolError("wrong_state", "every player must be ready (準備) first")
        if self.free_seats and not self.options.bots_allowed:
            raise ProtocolError("wrong_state", "four players are needed (this table has no bots)")
        for index, seat in enumerate(self.seats):
            if seat is None:
                self.seats[index] = bot_seat(self.options.bot)
        return [*self._broadcast(), *self._maybe_start(now)]

    def _ready(self, seat: Seat, ready: bool, now: float) -> list[Effect]:
        if self.status not in (Status.WAITING, Status.BETWEEN):
            raise ProtocolError(
                "wrong_state", "ready (準備) only before the match or between hands"
            )
        seat.ready = ready
        out = self._broadcast()
        if self.status is Status.WAITING:
            return [*out, *self._maybe_start(now)]
        return [*out, *self._maybe_next_hand(now)]

    def _dissolve(self, index: int, agree: bool, now: float) -> list[Effect]:
        if self.status is not Status.BETWEEN:
            raise ProtocolError("wrong_state", "解散 votes are held only between hands")
        if not agree:
            self.dissolve_votes = None
            return self._broadcast()
        if self.dissolve_votes is None:
            self.dissolve_votes = set()
        self.dissolve_votes.add(index)
        out = self._broadcast()
        if set(self.voters()) <= self.dissolve_votes:
            out += self._finish_match("dissolved")
        return out

    # ------------------------------------------------------------------ the match

    def _maybe_start(self, now: float) -> list[Effect]:
        if self.status is not Status.WAITING or self.free_seats:
            return []
        if any(not s.ready for _, s in self.humans()):
            return []
        if not self.humans():
            return []
        return [*self._cancel_timer(FILL), *self._start_match()]

    def _fill_with_bots(self, now: float) -> list[Effect]:
        if self.status is not Status.WAITING or not self.humans():
            return []
        for index, seat in enumerate(self.seats):
            if seat is None:
                self.seats[index] = bot_seat(self.config.default_bot)
        return [*self._broadcast(), *self._maybe_start(now)]

    def _start_match(self) -> list[Effect]:
        # playing from now: no quick match picks this table while the store creates its match
        self._move(Status.PLAYING)
        spec = MatchSpec(
            kind=self.options.kind,
            room=self.options.room or "",
            stake=self.options.stake,
            hands=self.options.hands,
            seats=tuple(SeatSpec(s.account_id, s.bot_name) for s in self.seats if s is not None),
            seed=self.seed,
            code=self.code,
            first_dealer=0,
            rules=self.options.rules.to_mapping(),
            options={
                "bots_allowed": self.options.bots_allowed,
                "bot": self.options.bot,
                "listed": self.options.listed,
                "host": self.options.host,
                "spectators": self.options.spectators,
                "claim_pause": self.options.claim_pause,
                "rated": self.options.rated,
            },
        )
        return [StoreMatchStart(spec, self.owner, self.config.lease_seconds)]

    def _match_created(self, match_id: int, now: float) -> list[Effect]:
        self.match_id = match_id
        self.lease = Lease(self.owner, 0)  # a new match's epoch
        self.dealer, self.streak, self.hand_index = 0, 0, 0  # R3
        return [RegisterMatch(match_id), *self._start_hand()]

    def deal(self, seed: int) -> Setup:
        """The hand's deal: from its seed (R4), or from the host's test hook."""
        if self.deal_override is not None:
            return self.deal_override(self.hand_index, seed, self.dealer, self.streak)
        return deal_setup(seed, dealer=self.dealer, streak=self.streak)

    def _start_hand(self) -> list[Effect]:
        assert self.match_id is not None
        out = [*self._cancel_timer(NEXT_HAND), *self._cancel_timer(COUNTDOWN)]
        self.next_hand_due = False
        self.dissolve_votes = None
        self.last_hand_end = None
        self.hand_ended_at = None
        seed = hand_seed(self.seed, self.hand_index)
        game = Round(self.deal(seed), self.options.rules)
        out.append(
            StoreHandStart(
                self.match_id, self.hand_index, seed, self.dealer, self.streak, self.lease, game
            )
        )
        return out

    def _hand_started(self, hand_id: int, game: Round, now: float) -> list[Effect]:
        hand = self._new_hand(game, hand_id)
        return [*self._play(hand.store_new()), Resume(Deal())]

    def _deal(self, now: float) -> list[Effect]:
        hand = self.hand
        assert hand is not None
        self._move(Status.PLAYING)
        for _, seat in self.humans():
            seat.ready = False
        out = self._broadcast()
        # the start event goes out as a snapshot, then play runs on
        out += self._play(hand.start(now))
        return out

    def _maybe_next_hand(self, now: float) -> list[Effect]:
        if self.status is not Status.BETWEEN:
            return []
        if self.next_hand_due:
            return self._next_hand(now)
        waiting_for = [
            s for _, s in self.humans() if s.client is not None and not s.tuoguan and not s.ready
        ]
        if waiting_for:
            return []
        left = self._countdown_left(now)
        if left > 0 and self._cut_off_and_away():
            # people cut off by a failed process are not back yet: their pages, once back,
            # show this hand's settlement and press 下一局 when its countdown ends, so the
            # hand waits for that countdown (counted from the hand's end), no longer. Dealt at
            # once, it would come before they are back and they would never see the
            # settlement (issue 37 item 2)
            return [self._set_timer(COUNTDOWN, left)]
        return self._next_hand(now)

    def _cut_off_and_away(self) -> bool:
        """A person cut off by a failed server process has not reconnected yet."""
        return any(
            seat is not None
            and seat.cut_off_by_server
            and seat.client is None
            and not seat.forced_tuoguan
            and grace(index) in self.timers
            for index, seat in enumerate(self.seats)
        )

    def _next_hand(self, now: float) -> list[Effect]:
        """Start the next hand, unless a dropped person's reconnect grace is still running:
        a hand started under it would charge them R45 when it runs out, for a connection
        lost between hands, and a table whose people all dropped at once would charge them
        one per hand (issue 20 item 12). The hand then starts when the last grace ends (the
        person is back, or the seat plays on in 托管 without penalty)."""
        if self.status is not Status.BETWEEN:
            return []
        if any(self._grace_holds(index) for index in range(SEATS)):
            self.next_hand_due = True
            return []
        return self._start_hand()

    def _grace_holds(self, index: int) -> bool:
        """Whether seat ``index``'s reconnect grace holds the next hand back. A seat whose
        person was cut off by a failed server process never pays R45 when its grace runs out
        (``_grace_over``), so its grace holds nothing: after a restart the next hand comes
        when its wait, counted from the hand's stored end, is over (issue 37)."""
        seat = self.seats[index]
        return grace(index) in self.timers and seat is not None and not seat.cut_off_by_server

    # ------------------------------------------------------------------ the end of a hand

    def _finish_hand(self) -> list[Effect]:
        """Settle the hand that ended: store its result and payments (then the balances are
        read, the settlement sent, and the next hand's wait or the end of the match)."""
        hand = self.hand
        assert hand is not None
        result = hand.game.result
        assert result is not None
        end, wins = stored_result(hand.game)
        return [
            StoreSettlement(hand.hand_id, list(result.payments), {**end, "wins": wins}, self.lease)
        ]

    def _hand_settled(self, settled: HandSettled, now: float) -> list[Effect]:
        self._rows = settled
        accounts = [seat.account_id for _, seat in self.humans() if seat.account_id is not None]
        if accounts:
            return [ReadBalances(accounts)]
        return self._balances_read({}, now)

    def _balances_read(self, balances: dict[int, int], now: float) -> list[Effect]:
        settled, self._rows = self._rows, None
        assert settled is not None and self.hand is not None
        for _, seat in self.humans():
            if seat.account_id is not None:
                seat.balance = balances[seat.account_id]
        hand = self.hand
        result = hand.game.result
        assert result is not None
        self.hand_index += 1
        summary, hand_end = settlement(
            hand.hand_id,
            self.hand_index - 1,
            hand.game,
            settled.rows,
            hands=self.options.hands,
            balances=[None if s is None else s.balance for s in self.seats],
            next_hand_wait=self.config.next_hand_wait,
        )
        self.results.append(summary)
        self.last_hand_end = hand_end
        self.dealer, self.streak = result.next_dealer, result.next_streak
        # the wait for the next hand counts from here (a restore counts it from the stored end)
        self.hand_ended_at = now
        out = self._send_to_all(hand_end)
        if self.hand_index >= self.options.hands:
            return [*out, *self._finish_match("completed")]
        self._move(Status.BETWEEN)
        for _, seat in self.humans():
            seat.ready = False
        out.append(self._set_timer(NEXT_HAND, self.next_hand_limit(), since=self.hand_ended_at))
        out += self._broadcast()
        out += self._maybe_next_hand(now)
        return out

    # ------------------------------------------------------------------ the end of the match

    def _finish_match(self, reason: str) -> list[Effect]:
        """The match is over (played out, or dissolved between hands, 解散): store its end,
        then send ``match_end`` and let everyone go."""
        assert self.match_id is not None
        self.timers.clear()
        return [CancelAllTimers(), StoreMatchEnd(self.match_id, reason, self.lease)]

    def _match_finished(self, reason: str, changes: list[RatingChange]) -> list[Effect]:
        out: list[Effect] = []
        for change in changes:
            seat = self.seats[change.seat]
            if seat is not None and seat.kind == "human":
                seat.rating = change.after
                client = seat.client
                if client is not None and client.account is not None:
                    # the next table this connection sits at (by code) shows the new rating
                    account = dataclasses.replace(
                        client.account,
                        rating=change.after,
                        rated_matches=client.account.rated_matches + 1,
                    )
                    out.append(SetAccount(client, account))
            if change.bot is not None:
                out.append(SetBotRating(change.bot, change.after))
        self._move(Status.ENDED)
        self.dissolve_votes = None
        self.match_end = match_end_message(
            reason, self.results, self.match_points(), self.match_coins(), rating_lines(changes)
        )
        if reason != "completed":
            return [*out, *self._let_go(None)]
        # 再來一局 (issue 31 item 5): the same private table, waiting again; a room's players
        # quick-match again in the same room
        if self.options.kind == "private":
            return [*out, Rematch()]
        return [*out, *self._let_go({"code": None, "room": self.options.room})]

    def _let_go(self, again: dict[str, Any] | None) -> list[Effect]:
        assert self.match_end is not None
        self.match_end["rematch"] = again
        out = self._broadcast()
        out += self._send_to_all(self.match_end)
        for _, seat in self.humans():
            if seat.account_id is not None:
                out.append(HostUnseat(seat.account_id))
            if seat.client is not None:
                out.append(DetachClient(seat.client))
        out.extend(Watch(client, False) for client in self.spectators)
        out.append(DropTable())
        return out

    # ------------------------------------------------------------------ 再來一局

    def keep_seats_of(self, ended: TableState) -> None:
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

    # ------------------------------------------------------------------ restore

    def restore(
        self, live: LiveMatch, accounts: Mapping[int, Account], now: float, store_clock: float
    ) -> list[Effect]:
        """Rebuild the table of a live match in the store (a restart, an adoption, a reload),
        before its task runs. ``accounts``: the seated people's accounts as stored;
        ``store_clock``: the store's clock now (the last hand's end is stored on it).

        The seats come back as they were stored (an escaped seat stays with its bot), the
        finished hands as the match summary, and the hand in progress is replayed from its
        stored events and resumed exactly where it stopped: a hand whose result was not
        stored is finished, a pending decision is asked again."""
        self.match_id = live.match_id
        self.lease = live.lease
        out: list[Effect] = [RegisterMatch(live.match_id)]
        self.seed = live.spec.seed
        self._move(Status.PLAYING)
        out += self._reseat(live, accounts)
        self._summarise(live)
        self.hand_index = len(live.finished_hands)
        if live.hand is None:
            self._move(Status.BETWEEN)
            if self.hand_index >= self.options.hands:
                return [*out, *self._finish_match("completed")]
            if live.settled is not None:
                self._show_settled(live.settled, now, store_clock)
            # the wait counts from the hand's stored end, never from this restore: any number
            # of restarts between two hands adds only their own seconds (issue 37)
            out.append(self._set_timer(NEXT_HAND, self.next_hand_limit(), since=self.hand_ended_at))
            return out
        events = [dict(e) for e in live.hand.events]
        self.hand_index = live.hand.index
        self.dealer, self.streak = live.hand.dealer, live.hand.streak
        game = (
            replay(events, require_end=False)  # exact, but a hand in progress
            if events
            else Round(self.deal(live.hand.seed), self.options.rules)
        )
        hand = self._new_hand(game, live.hand.hand_id)
        hand.stored = hand.released = len(events)
        for viewer in hand.seen:
            hand.seen[viewer] = len(hand.released_events(viewer))
        # resume: finish a hand whose result was not stored, or reopen its pending decision
        return [*out, *self._play(hand.resume(now))]

    def _show_settled(self, settled: SettledHand, now: float, store_clock: float) -> None:
        """The last hand as the table showed it when it ended: its view (the hand replayed from
        its events) and its settlement with the coins as stored, for every client arriving
        between hands; and when it ended, on this process's clock."""
        events = [dict(e) for e in settled.events]
        hand = self._new_hand(replay(events), settled.hand_id)
        hand.stored = hand.released = len(events)
        for viewer in hand.seen:
            hand.seen[viewer] = len(hand.released_events(viewer))
        _, self.last_hand_end = settlement(
            settled.hand_id,
            settled.index,
            hand.game,
            settled.rows,
            hands=self.options.hands,
            balances=[None if s is None else s.balance for s in self.seats],
            next_hand_wait=self.config.next_hand_wait,
        )
        ago = max(0.0, store_clock - settled.finished.timestamp())
        self.hand_ended_at = now - ago

    def _reseat(self, live: LiveMatch, accounts: Mapping[int, Account]) -> list[Effect]:
        out: list[Effect] = []
        for index, seat_spec in enumerate(live.spec.seats):
            if seat_spec.account_id is None:
                self.seats[index] = bot_seat(seat_spec.bot or self.config.default_bot)
                continue
            account = accounts[seat_spec.account_id]
            seat = Seat(
                kind="human",
                name=account.name,
                bot_name=seat_spec.bot or self.options.bot,
                account_id=account.id,
                balance=account.balance,
                rating=account.rating,
                tuoguan=seat_spec.tuoguan or seat_spec.forced_tuoguan,
                forced_tuoguan=seat_spec.forced_tuoguan,
            )
            self.seats[index] = seat
            if seat_spec.forced_tuoguan:
                continue  # escaped or left before the restart: its bot plays on, nobody waits
            out.append(HostSeat(account.id))
            # everyone was cut off by the failed process: a grace that runs out after a
            # restore is 托管, never R45 (issue 20 item 12)
            seat.cut_off_by_server = True
            out.append(self._set_timer(grace(index), self.config.reconnect_grace))
        return out

    def _summarise(self, live: LiveMatch) -> None:
        for record in live.finished_hands:
            res = record.result or {}
            self.results.append(
                HandSummary(
                    record.hand_id,
                    str(res.get("result", "")),
                    list(res.get("winners", [])),
                    list(res.get("totals", [0] * SEATS)),
                    list(record.coins),
                    win_summaries(list(res.get("wins", []))),
                )
            )
            self.dealer = int(res.get("next_dealer", self.dealer))
            self.streak = int(res.get("next_streak", self.streak))
