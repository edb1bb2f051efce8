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
the awaited code gave. A store call that fails halfway (the lease lost, the log contradicted)
leaves the state changed for effects that never ran: the shell then drops or reloads the
table from the store, as it did with the awaited code, so nothing acts on that state again.

The class is built in three layers, each module importing only the one below: what a table is
and shows (``board.py``), the match (``match.py``) and, here, the inputs, the seats and the
players' messages. The status is one declared machine (``status.py``); every change goes
through ``Board._move``, which refuses an undeclared one. Timers are named by
:class:`~duyun.server.tables.timers.TimerKey`.
"""

from __future__ import annotations

from typing import Any, assert_never

from duyun.bots import Bot, resolve_bot
from duyun.engine import Action
from duyun.server import protocol
from duyun.server.protocol import ProtocolError, error_message
from duyun.server.tables.board import DealOverride as DealOverride
from duyun.server.tables.effects import (
    AfterGrace,
    AttachClient,
    BalancesRead,
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
    Rematched,
    Reprompt,
    Result,
    Resume,
    Send,
    Settled,
    ShowState,
    StoreForcedTuoguan,
    Watch,
)
from duyun.server.tables.inbox import (
    Attach,
    Client,
    ClientMessage,
    Detach,
    Join,
    Spectate,
    TimerFired,
    Unspectate,
)
from duyun.server.tables.match import MatchFlow
from duyun.server.tables.seats import PRIVATE_TABLE_IDLE, Seat, address_key, bot_seat
from duyun.server.tables.status import TRANSITIONS as TRANSITIONS
from duyun.server.tables.status import IllegalTransitionError as IllegalTransitionError
from duyun.server.tables.status import Status as Status
from duyun.server.tables.timers import FILL, IDLE, Timer, TimerKey, grace

#: what the state machine handles of the inbox (``Call`` and ``Stop`` are the shell's)
StateInput = Join | Attach | Detach | Spectate | Unspectate | ClientMessage | TimerFired


def _refuse(client: Client, code: str, message: str) -> Send:
    """The ``error`` a refused join gets (its effects so far still run: the client is let
    go), as the shell sends for a :class:`ProtocolError`."""
    return Send(client, error_message(code, message, None))


class TableState(MatchFlow):
    """One table: seats, spectators, the match and the hand being played; every transition
    returns the effects it calls for."""

    # ------------------------------------------------------------------ inputs

    def opened(self) -> list[Effect]:
        """The table's task starts: an empty private table keeps its code for a while."""
        if self.options.kind == "private" and self.status is Status.WAITING:
            return [self._set_timer(IDLE, PRIVATE_TABLE_IDLE)]
        return []

    def handle(self, item: StateInput, now: float) -> list[Effect]:
        """One inbox message. A refused client message raises :class:`ProtocolError`
        before anything changes, and the shell sends it to the client; a join that gets no
        seat is answered with effects instead (the client is let go, then told why)."""
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

    def thought(
        self, index: int, logged: int, action: Action, twin: tuple[Bot, Bot] | None = None
    ) -> None:
        """A bot's turn move chosen off the event loop (:class:`~flow.Think`), for the hand
        being played. ``twin``: the bot it was forked from and the twin that chose it
        (:attr:`~flow.Think.ahead`). A twin that chose for the position the hand is in has
        seen every view its bot has, and this one: it becomes the seat's bot (unless the seat
        has another bot by now). Else it is dropped, and the bot never saw the view."""
        assert self.hand is not None
        used = self.hand.thought(index, logged, action)
        if twin is not None and used:
            seat, (origin, fork) = self.seats[index], twin
            if seat is not None and seat.bot is origin:
                seat.bot = fork

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
