"""Whole matches through the table's pure state machine (server/tables/state.py), with no
event loop: a fake clock, a fake store that answers the machine's questions and keeps what it
is told, and fake clients that record what they are sent (issue 34 item 1).

The small synchronous shell here does what the async table does with the effects: it runs
them in order, answers the store's questions and hands the answers back, fires the earliest
timer when nothing else is to be done, and checks on every step that the timers it runs are
the ones the state thinks are running. The matches cover seating (join, sit, bots, start),
ready and the next hand, an escape (R45), 托管 after two turns run out, a restore after a
crash (between hands and in the middle of a hand, from a ``LiveMatch`` as the store gives it),
血戰 (R52-R57, a winner leaving) and a 解散 vote; each asserts the status changes it went
through, and together they go through every declared one.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import json
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from duyun.engine import Round, events_for
from duyun.rules import RuleSet
from duyun.server import protocol
from duyun.server.config import ServerConfig
from duyun.server.protocol import ProtocolError
from duyun.server.store import (
    Account,
    CoinRow,
    HandRecord,
    Lease,
    LiveHand,
    LiveMatch,
    MatchSpec,
    RatingChange,
    SeatSpec,
    SettledHand,
)
from duyun.server.tables.effects import (
    AppendEvents,
    AttachClient,
    BalancesRead,
    CancelAllTimers,
    DetachClient,
    DropTable,
    Effect,
    HandSettled,
    HandStarted,
    HostSeat,
    HostUnseat,
    MatchCreated,
    MatchFinished,
    PostTo,
    QuickMatch,
    ReadBalances,
    RegisterMatch,
    Rematch,
    Rematched,
    Result,
    Resume,
    Send,
    SendPrompt,
    SendSnapshot,
    SendText,
    SetAccount,
    SetBotRating,
    Settled,
    StoreForcedTuoguan,
    StoreHandStart,
    StoreMatchEnd,
    StoreMatchStart,
    StoreSettlement,
    StoreTuoguan,
    Watch,
)
from duyun.server.tables.flow import CancelTimer, SetTimer, SettleUntil, Think
from duyun.server.tables.inbox import (
    Attach,
    ClientMessage,
    Detach,
    InboxMessage,
    Join,
    Spectate,
    TimerFired,
)
from duyun.server.tables.seats import TableOptions
from duyun.server.tables.state import TRANSITIONS, Status, TableState
from duyun.server.tables.timers import DECISION, FILL, IDLE, NEXT_HAND, TimerKey, grace
from play_policies import win_pass_else_last_discard as policy

TABLES = Path(__file__).resolve().parents[3] / "src" / "duyun" / "server" / "tables"
CONFIG = ServerConfig(
    claim_window=4.0,
    claim_beat=0.6,
    turn_timer=15.0,
    bot_delay=0.5,
    bot_delay_max=1.5,
    reconnect_grace=30.0,
    next_hand_wait=10.0,
    next_hand_limit=30.0,
    bot_fill_wait=5.0,
)
W, P, B, E = Status.WAITING, Status.PLAYING, Status.BETWEEN, Status.ENDED
START = datetime(2026, 12, 5, tzinfo=UTC)


class Person:
    """A connected client as the table sees it, recording what it is sent."""

    ids = itertools.count(100)

    def __init__(self, name: str, balance: int = 1000, address: str | None = None) -> None:
        self.account: Account | None = Account(next(self.ids), name, "guest", balance, START)
        self.table: Any = None
        self.spectating: Any = None
        self.address = address
        self.messages: list[dict[str, Any]] = []
        #: the prompt asked and not answered yet
        self.prompt: dict[str, Any] | None = None

    @property
    def id(self) -> int:
        assert self.account is not None
        return self.account.id

    def send(self, message: dict[str, Any]) -> None:
        json.dumps(message, allow_nan=False)  # what a websocket would refuse
        self._got(message)

    def send_text(self, text: str) -> None:
        self._got(json.loads(text))

    def _got(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        if message["type"] == "prompt":
            self.prompt = message
        elif message["type"] == "snapshot" and message["prompt"] is not None:
            self.prompt = message["prompt"]

    def close(self, code: int, reason: str) -> None:
        raise AssertionError(f"closed: {code} {reason}")

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == kind]

    def last(self, kind: str) -> dict[str, Any]:
        return self.of(kind)[-1]

    def events(self, hand_id: int) -> list[dict[str, Any]]:
        """The hand as this client knows it: its last snapshot and the batches after it."""
        known: list[dict[str, Any]] = []
        for message in self.messages:
            if message.get("hand_id") != hand_id:
                continue
            if message["type"] == "snapshot":
                known = list(message["events"])
            elif message["type"] == "events":
                assert message["seq"] == len(known), "events out of sequence"
                known.extend(message["events"])
        return known


@dataclass
class StoredHand:
    hand_id: int
    match_id: int
    index: int
    seed: int
    dealer: int
    streak: int
    events: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    rows: tuple[CoinRow, ...] = ()
    finished: datetime | None = None


class FakeStore:
    """What the machine stores, kept as the real store keeps it, and read back as a
    :class:`LiveMatch` for a restore."""

    def __init__(self, stake: int = 1) -> None:
        self.ids = itertools.count(1)
        self.specs: dict[int, MatchSpec] = {}
        self.hands: dict[int, StoredHand] = {}
        self.tuoguan: dict[tuple[int, int], bool] = {}
        self.forced: dict[tuple[int, int], bool] = {}
        self.ended: dict[int, str] = {}
        self.stake = stake
        self.clock = START.timestamp()

    def hands_of(self, match_id: int) -> list[StoredHand]:
        return sorted(
            (h for h in self.hands.values() if h.match_id == match_id), key=lambda h: h.index
        )

    def settle(self, hand_id: int, payments: list[Any], end: dict[str, Any]) -> list[CoinRow]:
        hand = self.hands[hand_id]
        assert hand.result is None, "a hand settled twice"
        rows = tuple(
            CoinRow(i, p.payer, p.payee, coins, coins, 0, "hand", p.rule, p.reason, hand_id, START)
            for i, p in enumerate(payments)
            for coins in [p.points * self.stake]
        )
        hand.result, hand.rows, hand.finished = end, rows, START
        return list(rows)

    def live(self, match_id: int) -> LiveMatch:
        """The match as a restart finds it in the store."""
        spec = self.specs[match_id]
        seats = tuple(
            SeatSpec(
                s.account_id,
                s.bot,
                forced_tuoguan=self.forced.get((match_id, i), False),
                tuoguan=self.tuoguan.get((match_id, i), False),
            )
            for i, s in enumerate(spec.seats)
        )
        spec = dataclasses.replace(spec, seats=seats)
        hands = self.hands_of(match_id)
        finished = [h for h in hands if h.result is not None]
        playing = next((h for h in hands if h.result is None), None)
        records = tuple(
            HandRecord(
                h.hand_id,
                h.index,
                h.seed,
                h.dealer,
                h.streak,
                "finished",
                h.result,
                tuple(self._coins(h)),
                h.finished,
            )
            for h in finished
        )
        live_hand = (
            None
            if playing is None
            else LiveHand(
                playing.hand_id,
                playing.index,
                playing.seed,
                playing.dealer,
                playing.streak,
                tuple(playing.events),
            )
        )
        settled = None
        if playing is None and finished:
            last = finished[-1]
            assert last.finished is not None
            settled = SettledHand(
                last.hand_id, last.index, tuple(last.events), last.rows, last.finished
            )
        return LiveMatch(match_id, spec, "playing", records, live_hand, Lease(None, 1), settled)

    @staticmethod
    def _coins(hand: StoredHand) -> list[int]:
        coins = [0] * 4
        for row in hand.rows:
            coins[row.payer] -= row.coins
            coins[row.payee] += row.coins
        return coins


class Shell:
    """The async table's part, synchronously: runs effects, answers questions, fires timers."""

    def __init__(
        self,
        options: TableOptions,
        *,
        store: FakeStore | None = None,
        seed: int = 7,
        config: ServerConfig = CONFIG,
        code: str = "123456",
    ) -> None:
        self.code = code
        self.posted: list[InboxMessage] = []
        self.store = store or FakeStore(options.stake)
        self.now = 1000.0
        self.state = TableState(self, code, options, config, seed=seed)
        self.state.think = random.Random(seed)
        self.timers: dict[TimerKey, tuple[float, tuple[Any, ...]]] = {}
        self.thoughts: dict[int, Think] = {}
        self.asked: list[str] = []
        self.effects: list[Effect] = []
        self.moves: list[tuple[Status, Status]] = []
        self.dropped = False
        self.rerouted: list[Person] = []
        self.people: list[Person] = []
        self.answering: set[int] = set()
        move = self.state._move

        def recorded(to: Status) -> None:
            before = self.state.status
            move(to)
            if self.state.status is not before:
                self.moves.append((before, to))

        self.state._move = recorded  # type: ignore[method-assign]
        self.run(self.state.opened())

    # the table as its clients see it (``TableRef``)
    def post(self, item: InboxMessage) -> None:
        self.posted.append(item)

    # ---------------------------------------------------------------- running effects

    def run(self, effects: list[Effect]) -> None:
        todo = deque(effects)
        while todo:
            effect = todo.popleft()
            self.effects.append(effect)
            result = self.perform(effect)
            if result is not None:
                todo.extendleft(reversed(self.state.on_result(result, self.now)))
        assert set(self.timers) == self.state.timers, "the state's timers are not the shell's"
        self.answer()

    def perform(self, effect: Effect) -> Result | None:
        store = self.store
        match effect:
            case Send(client=client, message=message):
                client.send(message)
            case SendText(clients=clients, text=text):
                for client in clients:
                    client.send_text(text)
            case SendPrompt(client=client, prompt=prompt, hand_id=hand_id):
                client.send(prompt.to_json(hand_id))
            case SendSnapshot(client=client, message=message, prompt=prompt, hand_id=hand_id):
                if prompt is not None:
                    message = {**message, "prompt": prompt.to_json(hand_id)}
                client.send(message)
            case SetTimer(name=key, delay=delay, args=args, since=since):
                start = self.now if since is None else since
                self.timers[key] = (max(self.now, start + delay), args)
            case CancelTimer(name=key):
                self.timers.pop(key, None)
            case CancelAllTimers():
                self.timers.clear()
            case SettleUntil(at=at):
                self.now = max(self.now, at)
                return Settled()
            case Think(seat=seat):
                self.thoughts[seat] = effect
            case Resume(step=step):
                return step
            case AppendEvents(hand_id=hand_id, first=first, events=events):
                stored = store.hands[hand_id].events
                assert first == len(stored), "a gap or an overlap in the stored log"
                stored.extend(events)
            case StoreMatchStart(spec=spec):
                match_id = next(store.ids)
                store.specs[match_id] = spec
                return MatchCreated(match_id)
            case StoreHandStart(match_id=match_id, hand_index=index, game=game) as start:
                hand_id = next(store.ids)
                store.hands[hand_id] = StoredHand(
                    hand_id, match_id, index, start.seed, start.dealer, start.streak
                )
                return HandStarted(hand_id, game)
            case StoreSettlement(hand_id=hand_id, payments=payments, end=end):
                return HandSettled(store.settle(hand_id, payments, end))
            case ReadBalances(account_ids=ids):
                return BalancesRead({i: 1000 for i in ids})
            case StoreMatchEnd(match_id=match_id, reason=reason):
                store.ended[match_id] = reason
                changes = [RatingChange(0, None, "strong", 1, 1000, 1010)] if reason else []
                return MatchFinished(reason, changes)
            case StoreTuoguan(match_id=match_id, seat=seat, on=on):
                store.tuoguan[match_id, seat] = on
            case StoreForcedTuoguan(match_id=match_id, seat=seat, forced=forced):
                store.forced[match_id, seat] = forced
            case RegisterMatch():
                self.asked.append("register_match")
            case HostSeat():
                self.asked.append("seat")
            case HostUnseat():
                self.asked.append("unseat")
            case AttachClient(client=client, here=here):
                self.asked.append("attach_client")
                client.table = self if here else None
            case DetachClient(client=client):
                self.asked.append("detach_client")
                if client.table is self:
                    client.table = None
            case Watch(client=client, here=here):
                client.spectating = self if here else None
            case PostTo(table=table, item=item):
                table.post(item)
            case QuickMatch(client=client):
                self.rerouted.append(client)  # type: ignore[arg-type]
            case Rematch():
                self.asked.append("rematch")
                return Rematched("654321")
            case SetBotRating():
                pass
            case SetAccount(client=client, account=account):
                client.account = account
            case DropTable():
                self.asked.append("drop_table")
                self.dropped = True
            case _:
                raise AssertionError(f"unknown effect {effect}")
        return None

    # ---------------------------------------------------------------- inputs

    def post_now(self, item: Join | Attach | Detach | Spectate) -> None:
        self.run(self.state.handle(item, self.now))

    def join(self, person: Person, seat: int | None = None) -> None:
        self.people.append(person)
        self.post_now(Join(person, seat))

    def say(self, person: Person, message: protocol._Message) -> None:
        """A client's message; a refusal goes to the client as the shell sends it."""
        try:
            effects = self.state.handle(ClientMessage(person, message), self.now)
        except ProtocolError as error:
            person.send({"type": "error", "code": error.code, "message": error.message})
            return
        self.run(effects)

    def answer(self) -> None:
        """People who play answer their prompt at once (the policy)."""
        for person in self.people:
            if person.id in self.answering and person.prompt is not None:
                prompt, person.prompt = person.prompt, None
                act = protocol.Act(type="act", prompt=prompt["id"], **policy(prompt))
                self.say(person, act)

    def advance(self) -> TimerKey:
        """Fire the earliest timer."""
        key, (due, args) = min(self.timers.items(), key=lambda item: item[1][0])
        del self.timers[key]
        self.now = max(self.now, due)
        if key is DECISION and args[0] == "bot" and args[1] in self.thoughts:
            think = self.thoughts.pop(args[1])
            bot = self.state.bot(think.seat)
            self.state.thought(think.seat, think.logged, bot.choose(think.game.view(think.seat)))
        self.run(self.state.handle(TimerFired(key, 0, args), self.now))
        return key

    def until(self, done: Callable[[], bool], limit: int = 5000) -> None:
        for _ in range(limit):
            if done():
                return
            self.advance()
        raise AssertionError("never happened")

    # ---------------------------------------------------------------- reading

    @property
    def game(self) -> Round:
        assert self.state.round is not None
        return self.state.round

    def hand_ends(self) -> int:
        return len(self.state.results)


def private(hands: int = 2, host: Person | None = None, **rules: Any) -> TableOptions:
    host_id = None if host is None else host.id
    return TableOptions("private", None, 1, hands, RuleSet(**rules), True, "strong", False, host_id)


def room(hands: int = 2, **rules: Any) -> TableOptions:
    return TableOptions("room", "novice", 1, hands, RuleSet(**rules), True, "strong", True, None)


def seated(shell: Shell) -> list[str | None]:
    return [None if s is None else s.name for s in shell.state.seats]


# ---------------------------------------------------------------------------- whole matches


def test_a_private_match_is_seated_readied_and_played_to_its_end() -> None:
    ann, bob = Person("ann"), Person("bob")
    shell = Shell(private(2, ann))
    assert shell.state.timers == {IDLE}  # an empty private table keeps its code
    shell.join(ann)
    shell.join(bob, seat=2)
    assert seated(shell) == ["ann", None, "bob", None]
    shell.say(bob, protocol.Sit(type="sit", seat=3))
    shell.say(bob, protocol.AddBot(type="add_bot", seat=1))
    assert bob.last("error")["code"] == "not_host"
    shell.say(ann, protocol.AddBot(type="add_bot", seat=1))
    shell.say(ann, protocol.AddBot(type="add_bot", seat=2, bot="random"))
    shell.say(ann, protocol.RemoveBot(type="remove_bot", seat=2))
    assert seated(shell) == ["ann", "bot:strong", None, "bob"]
    shell.say(ann, protocol.Start(type="start"))
    assert ann.last("error")["code"] == "wrong_state"  # nobody is ready yet
    shell.say(ann, protocol.Ready(type="ready"))
    shell.say(bob, protocol.Ready(type="ready"))
    assert shell.state.status is W  # a free seat: the host starts it
    shell.say(ann, protocol.Start(type="start"))
    assert shell.state.status is P and seated(shell)[2] == "bot:strong"
    assert shell.asked == ["attach_client", "attach_client", "register_match"]
    kinds = [type(e) for e in shell.effects]
    # the match is stored, then its hand, then its deal is stored and only then shown
    assert kinds.index(StoreMatchStart) < kinds.index(StoreHandStart) < kinds.index(AppendEvents)
    assert kinds.index(AppendEvents) < kinds.index(SendSnapshot)
    shell.answering = {ann.id, bob.id}
    shell.answer()
    shell.until(lambda: shell.state.status is B)
    end = ann.last("hand_end")
    assert end["hand_index"] == 0 and end["next_hand_in"] == CONFIG.next_hand_wait
    hand_id = end["hand_id"]
    # what each seat was sent is exactly its view of the stored log
    stored = shell.store.hands[hand_id].events
    assert ann.events(hand_id) == events_for(stored, 0)
    assert bob.events(hand_id) == events_for(stored, 3)
    # 下一局: the next hand waits for both people, and comes as soon as both are ready
    shell.say(ann, protocol.Ready(type="ready"))
    assert shell.state.status is B
    shell.say(bob, protocol.Ready(type="ready"))
    assert shell.state.status is P and shell.state.hand_index == 1
    shell.until(lambda: shell.state.status is E)
    match_end = bob.last("match_end")
    assert match_end["reason"] == "completed" and match_end["hands_played"] == 2
    assert match_end["rematch"] == {"code": "654321", "room": None}  # 再來一局
    assert match_end["points"] == shell.state.match_points()
    assert shell.asked[-6:] == [
        "rematch",
        "unseat",
        "detach_client",
        "unseat",
        "detach_client",
        "drop_table",
    ]
    assert shell.moves == [(W, P), (P, B), (B, P), (P, E)]
    assert shell.store.ended == {1: "completed"} and not shell.timers


def test_a_room_table_fills_with_bots_and_two_turns_run_out_make_tuoguan() -> None:
    ann = Person("ann")
    shell = Shell(room(1))
    shell.join(ann)
    assert shell.state.seats[0] is not None and shell.state.seats[0].ready  # a room: ready
    assert shell.state.fill_at == shell.now + CONFIG.bot_fill_wait
    assert shell.advance() == FILL
    assert shell.state.status is P and seated(shell)[1:] == ["bot:strong"] * 3
    # ann never answers: her turn runs out twice, then the bot plays her seat (托管)
    seat = shell.state.seats[0]
    assert seat is not None
    shell.until(lambda: seat.tuoguan)
    turns = [m for m in ann.of("prompt") if m["kind"] == "turn"]
    assert len(turns) >= 2 and seat.timeouts == 2
    assert shell.store.tuoguan == {(1, 0): True}  # kept through a restart (issue 37)
    assert ann.last("table")["table"]["seats"][0]["tuoguan"] is True
    # she takes it back: stored, and her pending turn (if any) is asked of her again
    shell.say(ann, protocol.Tuoguan(type="tuoguan", on=False))
    assert not seat.tuoguan and shell.store.tuoguan == {(1, 0): False}
    shell.answering = {ann.id}
    shell.answer()
    shell.until(lambda: shell.state.status is E)
    assert ann.last("match_end")["rematch"] == {"code": None, "room": "novice"}
    assert shell.moves == [(W, P), (P, E)]


def test_an_escape_during_a_hand_is_r45_and_the_bot_plays_on_r45() -> None:
    ann, bob = Person("ann"), Person("bob")
    shell = Shell(room(1))
    shell.join(ann)
    shell.join(bob)
    shell.advance()  # the fill timer: bots at seats 2 and 3
    shell.answering = {ann.id, bob.id}
    shell.answer()
    shell.until(lambda: len(shell.game.events) > 12)
    shell.say(bob, protocol.Leave(type="leave"))
    assert bob.last("table") == {"type": "table", "table": None}
    seat = shell.state.seats[1]
    assert seat is not None and seat.forced_tuoguan and seat.client is None
    assert shell.store.forced == {(1, 1): True}  # stored before the escape itself
    assert any(e["type"] == "escape" and e["seat"] == 1 for e in shell.game.events)
    # an escaped seat is its bot's to the end of the match: coming back is refused
    shell.join(bob)
    assert bob.last("error")["code"] == "wrong_state"
    shell.until(lambda: shell.state.status is E)
    assert ann.last("table")["table"]["seats"][1]["escaped"] is True
    assert shell.moves == [(W, P), (P, E)]


def test_a_grace_run_out_alone_is_an_escape_and_together_is_tuoguan() -> None:
    """One person dropping past the grace escaped (R45); people dropping together did not
    (issue 20 item 12): their seats go to 托管, without penalty."""
    ann, bob = Person("ann"), Person("bob")
    shell = Shell(room(1))
    shell.join(ann)
    shell.join(bob)
    shell.advance()
    shell.answering = {ann.id, bob.id}
    shell.answer()
    shell.until(lambda: len(shell.game.events) > 8)
    shell.answering = set()
    shell.post_now(Detach(ann))
    shell.now += 0.5
    shell.post_now(Detach(bob))
    assert {grace(0), grace(1)} <= shell.state.timers
    shell.until(lambda: grace(0) not in shell.state.timers and grace(1) not in shell.timers)
    seats = shell.state.seats
    assert seats[0] is not None and seats[1] is not None
    assert seats[0].tuoguan and not seats[0].forced_tuoguan  # a shared drop: 托管
    assert seats[1].tuoguan and not seats[1].forced_tuoguan
    assert not any(e["type"] == "escape" for e in shell.game.events)
    # ann comes back: her seat is hers again
    shell.post_now(Attach(ann))
    assert seats[0].client is ann and ann.last("snapshot")["seat"] == 0
    shell.say(ann, protocol.Tuoguan(type="tuoguan", on=False))
    assert not seats[0].tuoguan


def test_dissolve_vote_between_hands_ends_the_match() -> None:
    ann, bob = Person("ann"), Person("bob")
    shell = Shell(private(4, ann))
    shell.join(ann)
    shell.join(bob)
    for person in (ann, bob):
        shell.say(person, protocol.Ready(type="ready"))
    shell.say(ann, protocol.Start(type="start"))
    shell.answering = {ann.id, bob.id}
    shell.answer()
    shell.say(ann, protocol.Dissolve(type="dissolve", agree=True))
    assert ann.last("error")["code"] == "wrong_state"  # only between hands
    shell.until(lambda: shell.state.status is B)
    shell.say(ann, protocol.Dissolve(type="dissolve", agree=True))
    assert ann.last("table")["table"]["dissolve"] == {"agreed": [0], "needed": [0, 1]}
    shell.say(bob, protocol.Dissolve(type="dissolve", agree=False))
    assert shell.state.dissolve_votes is None
    shell.say(ann, protocol.Dissolve(type="dissolve", agree=True))
    shell.say(bob, protocol.Dissolve(type="dissolve", agree=True))
    assert shell.state.status is E
    match_end = ann.last("match_end")
    assert match_end["reason"] == "dissolved" and match_end["hands_played"] == 1
    assert match_end["rematch"] is None and "rematch" not in shell.asked
    assert shell.moves == [(W, P), (P, B), (B, E)]
    assert shell.store.ended == {1: "dissolved"}


# ---------------------------------------------------------------------------- restore


def _crashed_in_hand(store: FakeStore) -> tuple[Shell, Person]:
    ann = Person("ann")
    first = Shell(room(2), store=store)
    first.join(ann)
    first.advance()
    first.answering = {ann.id}
    first.answer()
    first.until(lambda: len(first.game.events) > 20 and first.state.hand is not None)
    return first, ann


def test_a_restore_in_the_middle_of_a_hand_resumes_it_where_it_stopped() -> None:
    store = FakeStore()
    first, ann = _crashed_in_hand(store)
    hand_id = first.state.hand_id
    assert hand_id is not None
    stored = list(store.hands[hand_id].events)
    # the process dies; another rebuilds the table from the store
    again = Shell(room(2), store=store, seed=99)
    live = store.live(1)
    accounts = {ann.id: ann.account}
    again.run(again.state.restore(live, accounts, again.now, store.clock))  # type: ignore[arg-type]
    assert again.state.status is P and again.moves == [(W, P)]
    assert again.state.seed == first.state.seed  # the match's seed, as stored
    assert again.game.events == stored  # replayed exactly
    seat = again.state.seats[0]
    assert seat is not None and seat.cut_off_by_server and grace(0) in again.state.timers
    # ann reconnects: the hand as she knew it, and play goes on to the end of the match
    ann.messages.clear()
    again.people.append(ann)
    again.post_now(Attach(ann))
    assert ann.of("snapshot")[0]["events"] == events_for(stored, 0)
    again.answering = {ann.id}
    again.answer()
    again.until(lambda: again.state.status is E)
    assert [h.result is not None for h in store.hands_of(1)] == [True, True]
    assert again.moves == [(W, P), (P, B), (B, P), (P, E)]


def test_a_restore_between_hands_shows_the_settlement_and_deals_on_time() -> None:
    store = FakeStore()
    ann = Person("ann")
    first = Shell(room(2), store=store)
    first.join(ann)
    first.advance()
    first.answering = {ann.id}
    first.answer()
    first.until(lambda: first.state.status is B)
    shown = ann.last("hand_end")
    store.clock += 4.0  # the restart takes four seconds of the countdown
    again = Shell(room(2), store=store)
    accounts = {ann.id: ann.account}
    effects = again.state.restore(store.live(1), accounts, again.now, store.clock)  # type: ignore[arg-type]
    again.run(effects)
    assert again.state.status is B and again.moves == [(W, P), (P, B)]
    assert again.state.results[0].coins == first.state.results[0].coins
    # the next hand waits from the hand's stored end: its limit less the four seconds
    due, _ = again.timers[NEXT_HAND]
    assert due == pytest.approx(again.now + again.state.next_hand_limit() - 4.0)
    ann.messages.clear()
    again.people.append(ann)
    again.post_now(Attach(ann))
    end = ann.last("hand_end")
    assert {**end, "next_hand_in": None} == {**shown, "next_hand_in": None}
    assert end["next_hand_in"] == pytest.approx(CONFIG.next_hand_wait - 4.0)
    again.answering = {ann.id}
    again.say(ann, protocol.Ready(type="ready"))
    assert again.state.status is P and again.state.hand_index == 1
    again.until(lambda: again.state.status is E)


def test_a_restore_of_a_match_whose_hands_were_all_played_ends_it() -> None:
    store = FakeStore()
    ann = Person("ann")
    first = Shell(room(1), store=store)
    first.join(ann)
    first.advance()
    first.answering = {ann.id}
    first.answer()
    first.until(lambda: first.hand_ends() == 1)
    store.ended.clear()  # the process died before the match's end was stored
    again = Shell(room(1), store=store)
    accounts = {ann.id: ann.account}
    again.run(again.state.restore(store.live(1), accounts, again.now, store.clock))  # type: ignore[arg-type]
    assert again.state.status is E and store.ended == {1: "completed"}
    assert again.moves == [(W, P), (P, B), (B, E)]


# ---------------------------------------------------------------------------- 血戰


def test_a_bloody_match_plays_on_after_a_win_and_the_winner_may_leave_r52_r57() -> None:
    """SEED 7 was chosen offline: bob (seat 1) wins first, with the hand still on (R52); he
    leaves the table (R57): no penalty (R45 is not charged), the hand plays on without him
    and its settlement says he left."""
    ann, bob = Person("ann"), Person("bob")
    shell = Shell(room(1, bloody_battle=True), seed=7)
    shell.join(ann)
    shell.join(bob)
    shell.advance()
    shell.answering = {ann.id, bob.id}
    shell.answer()
    game = shell.game
    shell.until(lambda: any(game.won) or game.is_over)
    assert game.won == [False, True, False, False] and not game.is_over
    shell.answering.discard(bob.id)
    shell.say(bob, protocol.Leave(type="leave"))
    assert bob.last("table") == {"type": "table", "table": None}
    shell.until(lambda: shell.state.status is E)
    assert not any(e["type"] == "escape" for e in game.events)  # a winner's leave: no R45
    assert [e["seat"] for e in game.events if e["type"] == "leave"] == [1]
    end = ann.last("hand_end")
    assert end["left"] == [False, True, False, False] and 1 in end["winners"]
    assert shell.moves == [(W, P), (P, E)]


# ---------------------------------------------------------------------------- spectators


def test_a_spectator_sees_the_table_and_moves_to_another() -> None:
    ann, eve = Person("ann"), Person("eve")
    shell = Shell(room(1))
    shell.join(ann)
    shell.advance()
    other = Shell(room(1), code="222222")
    eve.spectating = other
    shell.post_now(Spectate(eve))
    assert eve.spectating is shell and eve in shell.state.spectators
    assert other.posted and type(other.posted[0]).__name__ == "Unspectate"
    assert eve.last("snapshot")["seat"] is None
    with pytest.raises(ProtocolError, match="you are seated"):
        shell.post_now(Spectate(ann))
    assert ann not in shell.state.spectators and ann.spectating is None


def test_a_broadcast_gives_each_seat_its_own_you_and_everyone_the_same_table() -> None:
    """The table is described once per broadcast and each seat's message copies it with its
    own ``you`` (board.py ``_broadcast``): no seat's ``you`` leaks into another's message,
    and a spectator's says None."""
    ann, bob, cat, eve = Person("ann"), Person("bob"), Person("cat"), Person("eve")
    shell = Shell(private(2, ann))
    shell.join(ann)
    shell.join(bob, seat=2)
    shell.post_now(Spectate(eve))
    shell.join(cat, seat=1)  # a broadcast to three seats and a spectator
    people = {"ann": ann, "bob": bob, "cat": cat, "eve": eve}
    tables = {name: person.last("table")["table"] for name, person in people.items()}
    assert {name: table["you"] for name, table in tables.items()} == {
        "ann": 0,
        "bob": 2,
        "cat": 1,
        "eve": None,
    }
    rest = [{k: v for k, v in table.items() if k != "you"} for table in tables.values()]
    assert all(table == rest[0] for table in rest)
    assert [seat and seat["name"] for seat in rest[0]["seats"]] == ["ann", "cat", "bob", None]


# ---------------------------------------------------------------------------- the status machine


def test_every_status_change_in_the_code_is_declared() -> None:
    """Every status change of the table goes through ``_move`` with a declared status: in
    the whole package, the one assignment of ``status`` outside ``Board.__init__`` is in
    ``_move`` itself, every ``_move`` names a ``Status``, and each status a transition leads
    to is moved to somewhere (the matches above go through every declared transition)."""
    functions = [
        node
        for path in sorted(TABLES.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef)
    ]
    targets: set[str] = set()
    assigned_in: list[str] = []
    for function in functions:
        for node in ast.walk(function):
            if isinstance(node, ast.Assign | ast.AnnAssign):
                names = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in names:
                    if isinstance(target, ast.Attribute) and target.attr == "status":
                        assigned_in.append(function.name)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "_move"
            ):
                (argument,) = node.args
                assert isinstance(argument, ast.Attribute), ast.unparse(node)
                assert ast.unparse(argument.value) == "Status", ast.unparse(node)
                targets.add(argument.attr)
    assert sorted(assigned_in) == ["__init__", "_move"]
    assert {Status[name] for name in targets} == {to for _, to in TRANSITIONS}


def test_an_undeclared_status_change_is_refused() -> None:
    state = TableState(Shell(room(1)), "111111", room(1), CONFIG)
    with pytest.raises(AssertionError, match="waiting -> between"):
        state._move(Status.BETWEEN)
    assert state.status is Status.WAITING
