"""The hand flow: what a table does with one hand, as plain synchronous code.

A functional core under an imperative shell. :class:`HandFlow` holds the hand's state (the
engine ``Round``, how far its events are stored and released, the open claim window, prompts,
answers, bots' chosen moves) and each of its methods takes one input and the current time
(``now``, the shell's ``time.monotonic()``) and returns the effects it calls for, in order:
store these events, send these events to this viewer, send a prompt, set or cancel a timer,
wait out the claim settle, finish the hand, broadcast the table. The table's state
machine (``state.py``) takes them into its own effects, which the async table (``table.py``)
executes in that order, awaiting a store before any send that follows it,
so "store before send" (docs/protocol.md "Durability") holds by construction; the tests drive
a flow through whole hands with no event loop (tests/server/tables/test_tables_flow.py).

The claim window (docs/protocol.md "Timing"). After every discard and every added kong's tile
the table holds what follows for one pause (:meth:`HandFlow.claim_pause`): ``claim_window``
seconds at a ``fixed`` table; at a ``natural`` one (issue 21 item 1) the short ``claim_beat``
unless a person was offered a claim, whose answer is then awaited. The engine goes straight on
when nobody can claim (it draws the next tile at once), so the flow keeps a *released* mark
into the engine's event list: events up to and including the discard are released, the rest
wait for the end of the window. Seats that may claim are prompted at once; their answers are
collected and applied only when the window ends. Content and timing are thus the same whether
or not anyone could claim. Views are folded from the released events, never read from an
engine that may be ahead.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from duyun.engine import (
    Action,
    ActionKind,
    IllegalActionError,
    Phase,
    Round,
    SeatView,
    events_for,
)
from duyun.server import protocol
from duyun.server.config import ServerConfig
from duyun.server.protocol import ProtocolError
from duyun.server.tables.seats import VIEWERS, Prompt, Seat, Viewer
from duyun.server.tables.timers import DECISION as DECISION
from duyun.server.tables.timers import TimerKey
from duyun.tiles import tile_to_str

#: seconds between the end of a claim window and what follows it going out (at most half the
#: window): resolving claims stores the answers first, and that must not be seen in the timing
CLAIM_SETTLE = 0.02
#: how long before its think time ends a bot thinking apart must stop searching (at most a
#: quarter of the think time): the thread hands its move back and the loop takes it before
#: the timer fires, so no move waits for a search (issue 23: a late move would say the bot
#: faced a close decision)
THINK_SLACK = 0.05
#: the least time a bot thinking apart is given from the start of its turn (capped by
#: ``bot_delay``). Its search usually starts earlier, at the claim window before the turn
#: (:meth:`HandFlow._think_ahead`), and has the window's pause as well; so this floor only has
#: to keep a search alive when that thought was for a turn that did not come (a person
#: claimed) or no window came before the turn (a kong's replacement draw), and a short one
#: keeps a table of search bots at a person's pace (a search bot's turn takes about 0.1 s
#: longer than another bot's: 3.8 s from one of a person's turns to the next at a table of
#: three, where a floor of 0.3 s made 4.4 s)
THINK_FLOOR = 0.1

#: a botted seat's move: ``decide(seat, view, claim)``; the table provides it (its bots)
BotDecide = Callable[[int, SeatView, bool], Action]


# ---------------------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class StoreEvents:
    """Append ``events`` to the hand's log from sequence number ``first``; what follows waits
    for the commit."""

    first: int
    events: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class SendEvents:
    """An ``events`` batch for ``viewer`` (a seat, None for spectators), from ``seq``."""

    viewer: Viewer
    seq: int
    events: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class SendSnapshot:
    """The hand as ``viewer`` knows it, from ``events`` (a hand's first event goes out this
    way, before anyone is prompted)."""

    viewer: Viewer
    events: list[dict[str, Any]]
    prompt: Prompt | None = None


@dataclass(frozen=True, slots=True)
class SendPrompt:
    """Ask ``seat`` for a decision (sent if its person is connected)."""

    seat: int
    prompt: Prompt


@dataclass(frozen=True, slots=True)
class SetTimer:
    """(Re)start timer ``name``: it fires ``delay`` seconds after ``since`` (a time of the
    flow's clock), or after this effect runs when ``since`` is None, with ``args``."""

    name: TimerKey
    delay: float
    args: tuple[Any, ...] = ()
    since: float | None = None


@dataclass(frozen=True, slots=True)
class CancelTimer:
    name: TimerKey


@dataclass(frozen=True, slots=True)
class SettleUntil:
    """Wait until ``at`` (the claim settle), then run :meth:`HandFlow.pump`."""

    at: float


@dataclass(frozen=True, slots=True)
class Think:
    """Choose ``seat``'s turn move off the event loop, on ``game`` (a copy of the round in the
    position of that turn, ``logged`` events long: taken at the claim window before it, in
    the position that window's known answers lead to, or else at the turn's start), and hand
    it back with :meth:`HandFlow.thought` before the bot's timer fires into
    :meth:`HandFlow.on_timer`: the search stops at ``deadline`` (``time.monotonic()``), a
    little before the timer, so the move is played when the think time ends however long the
    search would have taken.

    ``ahead``: begun at the claim window, on the hypothesis that the window ends as its known
    answers say (a person asked to claim passes). The turn may not come, so the thought runs
    on a twin of the bot (:meth:`~duyun.bots.search.SearchBot.fork`), which becomes the seat's
    bot when the thought is handed back for the very position it was begun for
    (:meth:`~duyun.server.tables.state.TableState.thought`), and is stopped when the window
    ends otherwise (:class:`DropThought`)."""

    seat: int
    logged: int
    game: Round
    deadline: float
    ahead: bool = False


@dataclass(frozen=True, slots=True)
class DropThought:
    """The thought begun ahead for ``seat`` (:attr:`Think.ahead`) is for a turn that did not
    come: the window ended otherwise than foreseen (a person asked to claim claimed or won).
    The table stops its search, whose thread is wanted by thoughts that count; it runs on a
    twin, so the seat's bot loses nothing. Without this it ran on to its deadline (up to the
    window's pause and the floor) for nothing."""

    seat: int


@dataclass(frozen=True, slots=True)
class FinishHand:
    """The hand is over: settle it (the table's part: the store, the match)."""


@dataclass(frozen=True, slots=True)
class BroadcastTable:
    """A seat's state changed (托管): everyone gets the ``table`` message anew."""


@dataclass(frozen=True, slots=True)
class StoreTuoguan:
    """``seat`` went to 托管 (two turns ran out): the store keeps it, so that a table restored
    after a crash goes on playing the seat with its bot rather than waiting for its person."""

    seat: int


Effect = (
    StoreEvents
    | SendEvents
    | SendSnapshot
    | SendPrompt
    | SetTimer
    | CancelTimer
    | SettleUntil
    | Think
    | DropThought
    | FinishHand
    | BroadcastTable
    | StoreTuoguan
)


def apply_answers(game: Round, answer: Callable[[int], Action]) -> None:
    """End a claim window on ``game``: each seat still asked, in the engine's order, gives
    ``answer(seat)``; a seat the answers before it took out of the window (a win or claim
    that settled it) is not asked."""
    for index in list(game.to_act):
        if game.phase is Phase.CLAIMS and index in game.to_act:
            game.apply(answer(index))


def pass_action(index: int) -> Action:
    """``index`` passes on the tile (a person who did not answer, or is assumed to)."""
    return Action(index, ActionKind.PASS)


def holds(event: dict[str, Any]) -> bool:
    """A discard or an added kong's tile: a claim window follows it."""
    kind = event["type"]
    return kind == "discard" or (kind == "act" and event.get("action") == "added_kong")


def window_start(events: list[dict[str, Any]], hold: int) -> int:
    """Where the claim window after the held event at ``hold`` begins: after the private
    notices the engine writes with the discard (``win_refused``, R17/R9, seen only by its
    seat). Holding them back past the window's start left the engine "ahead" of the
    released events, so no prompt went out and a second window followed: a pause, and a
    late prompt, that told everyone a win had been refused (issue 20 item 2)."""
    stop = hold + 1
    while stop < len(events) and events[stop]["type"] == "win_refused":
        stop += 1
    return stop


def obvious_move(game: Round, index: int) -> Action:
    """A person's turn that ran out: the drawn tile, else the highest tile of the hand."""
    legal = game.legal_actions(index)
    drawn = game.drawn_tile if game.current == index else None
    if drawn is not None:
        action = Action(index, ActionKind.DISCARD, drawn)
        if action in legal:
            return action
    discards = [a for a in legal if a.kind is ActionKind.DISCARD]
    assert discards and all(a.tile is not None for a in discards)
    return max(discards, key=lambda a: a.tile or 0)


@dataclass(slots=True)
class HandFlow:
    """One hand at one table: its engine round and everything between it and the seats."""

    game: Round
    hand_id: int
    #: the table's seats (shared: who is botted and connected can change during the hand)
    seats: list[Seat | None]
    config: ServerConfig
    #: ``natural`` or ``fixed`` (TableOptions.claim_pause)
    claim_pause_mode: str
    decide: BotDecide
    #: bots' think times: random, and drawn from nothing about the hand
    think: random.Random
    #: whether anyone spectates the table (their events are folded only then)
    spectated: Callable[[], bool] = lambda: False
    #: whether a seat's bot chooses its turn moves off the event loop (the search bot, whose
    #: search takes up to a second and would stall every table of the process): :class:`Think`
    thinks_apart: Callable[[int], bool] = lambda index: False
    #: events stored, and released (sent), so far: a prefix of ``game.events``
    stored: int = 0
    released: int = 0
    #: per viewer, how many events it has been sent (the next batch's ``seq``)
    seen: dict[Viewer, int] = field(default_factory=lambda: dict.fromkeys(VIEWERS, 0))
    window_open: bool = False
    #: the open claim window's start and pause (:meth:`claim_pause`)
    window_opened: float = 0.0
    window_pause: float = 0.0
    #: when the last move was made: a bot's think time counts from it
    moved_at: float = 0.0
    #: a botted seat's turn move, chosen when its think time starts: (log length, move)
    bot_moves: dict[int, tuple[int, Action]] = field(default_factory=dict)
    #: a thought begun at the claim window before the seat's turn (:meth:`_think_ahead`): the
    #: log's length and last event at the turn it was begun for
    thinking_ahead: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    answers: dict[int, Action] = field(default_factory=dict)
    prompts: dict[int, Prompt] = field(default_factory=dict)
    #: 血戰 winners who left the table (R57) while events were held back (a claim window):
    #: their leave is applied once every event before it has gone out
    pending_leaves: set[int] = field(default_factory=set)
    _out: list[Effect] = field(default_factory=list, init=False, repr=False)

    # ------------------------------------------------------------------ inputs

    def store_new(self) -> list[Effect]:
        """Store what the engine logged and is not stored yet (a new or restored hand)."""
        self._out = []
        self._store()
        return self._take()

    def start(self, now: float) -> list[Effect]:
        """A new hand's first event goes out as a snapshot; then play runs on."""
        self._out = []
        self.released = 1
        self.moved_at = now
        first = self.game.events[:1]
        for viewer in VIEWERS:
            self.seen[viewer] = len(events_for(first, viewer))
        self.prompts.clear()
        self._out.extend(
            SendSnapshot(viewer, self.released_events(viewer)) for viewer in self._audience()
        )
        self._pump(now)
        return self._take()

    def resume(self, now: float) -> list[Effect]:
        """A restored hand: store its deal if nothing was stored, then finish it if its result
        was not stored or reopen its pending decision."""
        self._out = []
        self._store()
        self._pump(now)
        return self._take()

    def pump(self, now: float) -> list[Effect]:
        """Release what the end of a claim window (and its settle) let through."""
        self._out = []
        self._pump(now)
        return self._take()

    def act(
        self, index: int, action: Action, prompt_id: int | None, *, playing: bool, now: float
    ) -> list[Effect]:
        """A person's decision; a refusal raises :class:`ProtocolError` and changes nothing."""
        self._out = []
        if prompt_id is not None:
            current = self.prompts.get(index)
            if current is None or current.id != prompt_id:
                raise ProtocolError("too_late", f"prompt {prompt_id} has closed; nothing was done")
        game = self.game
        if not playing or game.is_over:
            raise ProtocolError("not_your_turn", "no hand is being played")
        stable = self.released == len(game.events)
        if game.phase is Phase.CLAIMS and stable and self.window_open and index in game.to_act:
            self._answer_claim(index, action, now)
            return self._take()
        if game.phase is not Phase.TURN or not stable or game.current != index:
            raise ProtocolError("not_your_turn", "you have no decision to make now")
        if action not in game.legal_actions(index):
            try:
                game.apply(action)  # refused by the engine, which says why; nothing changes
            except IllegalActionError as error:
                raise ProtocolError("illegal_action", str(error)) from None
            raise AssertionError(f"{action} was applied although it is not legal")
        seat = self.seats[index]
        assert seat is not None
        seat.timeouts = 0
        self._apply(action, now)
        return self._take()

    def on_timer(self, what: str, index: int | None, now: float) -> list[Effect]:
        """The decision timer: the claim window's end, a bot's think time, a turn run out."""
        self._out = []
        game = self.game
        if what == "window":
            self.window_open = False
            self.prompts.clear()
            # what follows goes out a fixed settle time after the window, so the work of
            # resolving claims (applying answers, storing them) does not show in the timing
            release_at = now + min(CLAIM_SETTLE, self.window_pause / 2)
            if game.phase is Phase.CLAIMS and self.released == len(game.events):
                self._resolve_claims(now)
            self._drop_unforeseen()
            self._out.append(SettleUntil(release_at))
            return self._take()
        if game.phase is not Phase.TURN or game.current != index:
            return []
        assert index is not None
        seat = self.seats[index]
        assert seat is not None
        if what == "bot":
            logged, action = self.bot_moves.pop(index, (-1, None))
            if (
                action is None
                or logged != len(game.events)
                or action not in game.legal_actions(index)
            ):
                # the hand moved on since (or a thought begun ahead was for a position that
                # did not come): decide again
                action = self._bot_choice(index)
            self._apply(action, now)
            return self._take()
        # a turn that ran out: the obvious move; two in a row -> 托管
        seat.timeouts += 1
        if seat.timeouts >= 2 and not seat.tuoguan:
            seat.tuoguan = True
            self._out.append(StoreTuoguan(index))
            self._out.append(BroadcastTable())
        self._apply(obvious_move(game, index), now)
        return self._take()

    def escape(self, index: int, now: float) -> list[Effect]:
        """R45 (the seat is 托管 already): the engine charges it, the hand goes on. A 血戰
        winner (R57) leaves instead, without penalty, once every event before it is out."""
        self._out = []
        game = self.game
        if game.won[index]:
            # nobody else's prompt, timer or claim window is touched (a winner is never
            # prompted)
            self.pending_leaves.add(index)
            if not self.window_open and self.released == len(game.events):
                self._apply_leaves()
            return self._take()
        game.escape(index)
        self.prompts.clear()
        self.answers.clear()
        self._store()
        if not self.window_open:
            self._out.append(CancelTimer(DECISION))
            self._pump(now)
        return self._take()

    def reprompt(self, index: int, now: float) -> list[Effect]:
        """The seat's driver changed (托管 on or off): its pending turn is asked anew."""
        self._out = []
        game = self.game
        if self.window_open:
            return []
        if game.phase is Phase.TURN and game.current == index and self.released == len(game.events):
            self._prompt_turn(index, now)
        return self._take()

    def thought(self, index: int, logged: int, action: Action) -> bool:
        """The move a :class:`Think` chose for ``index`` on the log ``logged`` events long:
        played when its think time ends if the hand has not moved on since. Returns whether
        it is for the position the hand is in."""
        self.bot_moves[index] = (logged, action)
        return logged == len(self.game.events)

    def released_events(self, viewer: Viewer) -> list[dict[str, Any]]:
        """What ``viewer`` may know of the hand so far."""
        return events_for(self.game.events[: self.released], viewer)

    # ------------------------------------------------------------------ release

    def _take(self) -> list[Effect]:
        out, self._out = self._out, []
        return out

    def _audience(self) -> list[Viewer]:
        """The viewers someone watches as: seats with a connected person, then spectators.
        Nobody else is sent anything; a client arriving later gets a snapshot (and seq)."""
        audience: list[Viewer] = [
            index for index, seat in enumerate(self.seats) if seat is not None and seat.client
        ]
        if self.spectated():
            audience.append(None)
        return audience

    def _store(self) -> None:
        game = self.game
        if self.stored < len(game.events):
            batch = game.events[self.stored :]
            self._out.append(StoreEvents(self.stored, list(batch)))
            self.stored += len(batch)

    def _release(self, stop: int) -> None:
        batch = self.game.events[self.released : stop]
        self.released = stop
        for viewer in self._audience():
            visible = events_for(batch, viewer)
            if not visible:
                continue
            seq = self.seen.get(viewer, 0)
            self.seen[viewer] = seq + len(visible)
            self._out.append(SendEvents(viewer, seq, visible))

    def _pump(self, now: float) -> None:
        """Release events up to the next claim window, or all of them and prompt."""
        game = self.game
        events = game.events
        while self.released < len(events):
            hold = next((i for i in range(self.released, len(events)) if holds(events[i])), None)
            if hold is None:
                self._release(len(events))
                break
            self._release(window_start(events, hold))
            self._open_window(now)
            return
        if self.pending_leaves:
            self._apply_leaves()
        if game.is_over:
            self.prompts.clear()
            self._out.append(CancelTimer(DECISION))
            self._out.append(FinishHand())
        elif game.phase is Phase.TURN:
            self._prompt_turn(game.current, now)
        elif game.phase is Phase.CLAIMS and not self.window_open:
            self._open_window(now)  # restored in the middle of a claim window

    def _apply_leaves(self) -> None:
        """Apply the R57 leaves of 血戰 winners (``Round.leave``), store and release them.

        Called only when every event has been released and no claim window is open, so the
        ``leave`` events go out in log order. A leave still pending when the hand ends is
        dropped: the hand is over, and the seat is 托管 for the rest of the match anyway."""
        game = self.game
        leaving, self.pending_leaves = sorted(self.pending_leaves), set()
        for index in leaving:
            if not game.is_over and game.won[index] and not game.left[index]:
                game.leave(index)
        self._store()
        self._release(len(game.events))

    # ------------------------------------------------------------------ the claim window

    def claim_pause(self, person_asked: bool) -> float:
        """How long the table holds what follows a discard or an added kong's tile: the one
        place that decides it. It depends on nothing hidden (issue 20 item 2): not on who may
        claim, win or was refused. ``fixed``: the one window whatever happens. ``natural``
        (issue 21 item 1): the short beat, unless a person was offered a claim: then up to the
        claim timer, ended early by that person's answer (:meth:`act`). Bots answer at once,
        so a claim only a bot could make costs the same beat as a tile nobody can claim.

        A person asked is given at least the beat too (issue 33 item 4): with a claim timer
        configured shorter than the beat, a window that ran out, or was answered at once,
        would otherwise end before the beat and show that a person could claim."""
        if self.claim_pause_mode == "natural":
            beat = self.config.claim_beat
            return max(self.config.claim_window, beat) if person_asked else beat
        return self.config.claim_window

    def people_to_ask(self) -> list[int]:
        """The seats a person decides for, and is connected to answer, that may claim the tile
        on the table now. A dropped person is not waited for (whether they could claim stays
        hidden, and the table does not crawl through their reconnect grace)."""
        game = self.game
        if self.released != len(game.events) or game.phase is not Phase.CLAIMS:
            return []
        return [
            i
            for i in game.to_act
            if (seat := self.seats[i]) is not None and not seat.botted and seat.client is not None
        ]

    def _open_window(self, now: float) -> None:
        """Start one claim window. The timer starts first and bots decide now, not at its
        end, so that the moment the window resolves does not depend on who could claim."""
        game = self.game
        pause = self.claim_pause(bool(self.people_to_ask()))
        self._out.append(SetTimer(DECISION, pause, ("window",)))
        deadline = now + pause
        self.window_opened, self.window_pause = now, pause
        self.moved_at = now
        self.window_open = True
        self.answers.clear()
        self.prompts.clear()
        self.thinking_ahead.clear()
        if self.released != len(game.events) or game.phase is not Phase.CLAIMS:
            self._think_ahead(now)  # nobody may claim: the engine is at the next turn
            return
        claims = game.claims
        assert claims is not None
        for seat_index in game.to_act:
            seat = self.seats[seat_index]
            assert seat is not None
            if seat.botted:
                self.answers[seat_index] = self._bot_choice(seat_index, claim=True)
                continue
            prompt = Prompt(
                "claim",
                protocol.legal_to_json(game.legal_actions(seat_index)),
                deadline,
                tile_to_str(claims.tile),
                claims.from_seat,
            )
            self.prompts[seat_index] = prompt
            self._out.append(SendPrompt(seat_index, prompt))
        self._think_ahead(now)

    def _think_ahead(self, now: float) -> None:
        """Begin now the search of the seat whose turn follows this window, in the position
        the window's known answers lead to: the bots', given at its start, and a pass from
        every person asked (most pass; a person who claims makes it a turn that does not
        come). The search (大師) then has the window's pause too, and its floor after the
        window (THINK_FLOOR) can stay short; without this, the search after a window that asked
        a person had only that floor. Nothing of this shows: the move is timed by
        :meth:`_prompt_turn` from the turn's start exactly as for a thought begun there; the
        thought is used only if the turn comes in the very position it was begun for (else
        the turn is thought anew, and a move no longer legal is decided again); and it runs
        on a twin of the bot (:attr:`Think.ahead`), so a hypothesis that fails leaves the bot's
        memory of the hand untouched."""
        game = self.game
        if not any(
            seat is not None and seat.botted and self.thinks_apart(index)
            for index, seat in enumerate(self.seats)
        ):
            return  # (most tables: no copy of the hand at every window)
        ahead = game.copy()
        if ahead.phase is Phase.CLAIMS and self.released == len(game.events):
            # as _resolve_claims will: the bots' answers, a pass for anyone else
            apply_answers(ahead, lambda index: self.answers.get(index, pass_action(index)))
        if ahead.is_over or ahead.phase is not Phase.TURN:
            return
        index = ahead.current
        seat = self.seats[index]
        if seat is None or not seat.botted or not self.thinks_apart(index):
            return
        logged = len(ahead.events)
        self.thinking_ahead[index] = (logged, ahead.events[-1])
        self.bot_moves.pop(index, None)
        # the move's timer fires no earlier than the floor after the window's end, and the
        # window lasts at least the pause of a window that asks nobody (one a person answers
        # at once is held that long too, claim_pause): the search stops before either
        floor = self._think_floor()
        deadline = now + self.claim_pause(False) + floor - min(THINK_SLACK, floor / 4)
        self._out.append(Think(index, logged, ahead, deadline, ahead=True))

    def _foresaw(self, index: int) -> bool:
        """Whether the hand is at ``index``'s turn in the very position its thought begun
        ahead was for (the same log length and last event: the same draw)."""
        ahead = self.thinking_ahead.get(index)
        game = self.game
        return (
            ahead is not None
            and game.phase is Phase.TURN
            and game.current == index
            and ahead[0] == len(game.events)
            and game.events[-1] == ahead[1]
        )

    def _drop_unforeseen(self) -> None:
        """The window is over: a thought begun ahead for a turn that did not come is stopped
        now (:class:`DropThought`) rather than left to run to its deadline."""
        for index in [i for i in self.thinking_ahead if not self._foresaw(i)]:
            del self.thinking_ahead[index]
            self._out.append(DropThought(index))

    def _answer_claim(self, index: int, action: Action, now: float) -> None:
        legal = self.game.legal_actions(index)
        if action not in legal:
            options = ", ".join(a.kind.value for a in legal)
            raise ProtocolError("illegal_action", f"{action}: on this tile you may only {options}")
        self.answers[index] = action
        self.prompts.pop(index, None)
        waiting = [i for i in self.prompts if i in self.people_to_ask()]
        if self.claim_pause_mode == "natural" and not waiting:
            # every person asked has answered: a natural table moves on (but never before
            # the beat, so an answer given at once looks like nobody was asked; a natural
            # window is never shorter than the beat, claim_pause)
            beat_end = self.window_opened + self.config.claim_beat
            self._out.append(SetTimer(DECISION, max(0.0, beat_end - now), ("window",)))

    def _resolve_claims(self, now: float) -> None:
        def answer(index: int) -> Action:
            seat = self.seats[index]
            assert seat is not None
            action = self.answers.get(index)
            if action is None:
                action = self._bot_choice(index, claim=True) if seat.botted else pass_action(index)
            if action.kind is not ActionKind.PASS:
                self.moved_at = now  # a claim: a bot thinks anew before discarding
            return action

        apply_answers(self.game, answer)
        self.answers.clear()
        self._store()

    # ------------------------------------------------------------------ turns

    def _prompt_turn(self, index: int, now: float) -> None:
        game = self.game
        seat = self.seats[index]
        assert seat is not None
        self.prompts.clear()
        if seat.botted:
            # decided now and played when the think time is over (counted from the move before
            # it), so that how long the bot computed (which depends on its hand) is hidden
            # inside the think time
            think = self._think_time()
            if self.thinks_apart(index):
                # a search bot's turn lasts what is left of its think time, but at least
                # THINK_FLOOR from the start of its turn (the claim pause before it would
                # often leave the search no time at all), and the search stops before it ends;
                # the same whether its thought began at the window before (_think_ahead) or
                # begins now, so the move's time says nothing of which
                delay = max(think - (now - self.moved_at), self._think_floor())
                logged = len(game.events)
                foreseen = self._foresaw(index)
                self.thinking_ahead.pop(index, None)
                if not foreseen:
                    self.bot_moves.pop(index, None)
                    deadline = now + delay - min(THINK_SLACK, delay / 4)
                    self._out.append(Think(index, logged, game.copy(), deadline))
                self._out.append(SetTimer(DECISION, delay, ("bot", index), since=now))
            else:
                self.bot_moves[index] = (len(game.events), self._bot_choice(index))
                self._out.append(SetTimer(DECISION, think, ("bot", index), since=self.moved_at))
            return
        prompt = Prompt(
            "turn",
            protocol.legal_to_json(game.legal_actions(index)),
            now + self.config.turn_timer,
        )
        # R17/R25-R27: 報聽 discards after which the hand could win only by self-draw
        prompt.extra["baoting_self_draw_only"] = [
            tile_to_str(t) for t in game.baoting_self_draw_only(index)
        ]
        self.prompts[index] = prompt
        self._out.append(SendPrompt(index, prompt))
        self._out.append(SetTimer(DECISION, self.config.turn_timer, ("turn", index)))

    def _think_floor(self) -> float:
        return min(self.config.bot_delay, THINK_FLOOR)

    def _think_time(self) -> float:
        """A bot's (or 托管 seat's) pause before its turn move, counted from the move before
        it (the claim pause after the previous discard is part of it, as a person thinks while
        others decide): short and varied like a person's quick move, and drawn independently
        of the hand, so it tells nothing."""
        low = self.config.bot_delay
        return self.think.uniform(low, max(low, self.config.bot_delay_max))

    def _bot_choice(self, index: int, *, claim: bool = False) -> Action:
        return self.decide(index, self.game.view(index), claim)

    def _apply(self, action: Action, now: float) -> None:
        self._out.append(CancelTimer(DECISION))
        self.prompts.clear()
        self.game.apply(action)
        self.moved_at = now
        self._store()
        self._pump(now)
