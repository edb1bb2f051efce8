"""The hand flow (server/tables/flow.py) driven through whole hands without an event loop.

A small synchronous shell executes the flow's effects with a fake clock, the way the async
table does: it checks that every events batch and snapshot carries only stored events (store
before send), counts the claim windows and prompts, and collects what each viewer is sent,
which must be exactly ``events_for`` of the hand's log (issue 22 item 3).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from duyun.bots.strong import StrongBot
from duyun.engine import Action, ActionKind, Phase, Round, SeatView, Setup, deal_setup, events_for
from duyun.engine.scenario import parse_scenario
from duyun.rules import RuleSet
from duyun.server.config import ServerConfig
from duyun.server.protocol import ProtocolError
from duyun.server.store import Account
from duyun.server.tables import Table
from duyun.server.tables.flow import (
    THINK_FLOOR,
    THINK_SLACK,
    BroadcastTable,
    CancelTimer,
    DropThought,
    Effect,
    FinishHand,
    HandFlow,
    SendEvents,
    SendPrompt,
    SendSnapshot,
    SetTimer,
    SettleUntil,
    StoreEvents,
    Think,
    holds,
)
from duyun.server.tables.seats import VIEWERS, Seat, Viewer
from duyun.tiles import parse_tiles, tile_to_str

CONFIG = ServerConfig(claim_window=4.0, claim_beat=0.6, turn_timer=15.0)


class Watcher:
    """A connected client as far as the flow can tell (it only asks whether there is one)."""

    def __init__(self) -> None:
        self.account: Account | None = None
        self.table: Table | None = None
        self.spectating: Table | None = None
        self.address: str | None = None

    def send(self, message: dict[str, Any]) -> None:
        raise AssertionError("the flow never sends: its shell does")

    def send_text(self, text: str) -> None:
        raise AssertionError("the flow never sends: its shell does")

    def close(self, code: int, reason: str) -> None:
        raise AssertionError("the flow never closes a connection")


def seats_for(people: tuple[int, ...] = (), tuoguan: tuple[int, ...] = ()) -> list[Seat | None]:
    """People at ``people``, connected people in 托管 at ``tuoguan``, bots elsewhere."""
    seats: list[Seat | None] = []
    for index in range(4):
        if index in people or index in tuoguan:
            seat = Seat("human", f"p{index}", "strong", account_id=index, client=Watcher())
            seat.tuoguan = index in tuoguan
        else:
            seat = Seat("bot", f"bot:{index}", "strong", ready=True)
        seats.append(seat)
    return seats


class Shell:
    """Executes a flow's effects as the table does, on a fake clock."""

    def __init__(
        self,
        setup: Setup,
        seats: list[Seat | None],
        *,
        claim_pause: str = "natural",
        spectated: bool = False,
        thinks_apart: bool = False,
        config: ServerConfig = CONFIG,
    ) -> None:
        bots = [StrongBot(index) for index in range(4)]
        self.decided_on_loop: list[tuple[int, bool]] = []

        def decide(index: int, view: SeatView, claim: bool) -> Action:
            self.decided_on_loop.append((index, claim))
            return bots[index].choose(view)

        self.bots = bots
        #: thoughts begun (seat -> its Think) and how many were handed back
        self.thinking: dict[int, Think] = {}
        self.thoughts = 0
        self.adopted: list[int] = []  # the seats of thoughts begun ahead that were used
        self.dropped: list[int] = []  # the seats of thoughts begun ahead that were stopped
        #: every thought begun, whether at the claim window before the turn (ahead), and when
        self.begun: list[tuple[Think, bool, float]] = []
        #: every bot turn's move: (when its timer fired, the move)
        self.bot_turns: list[tuple[float, dict[str, Any]]] = []

        self.flow = HandFlow(
            Round(setup, RuleSet()),
            7,
            seats,
            config,
            claim_pause,
            decide,
            random.Random(1),
            spectated=lambda: spectated,
            thinks_apart=lambda index: thinks_apart,
        )
        self.now = 100.0
        self.stored = 0
        self.timers: dict[str, tuple[float, tuple[Any, ...]]] = {}
        self.received: dict[Viewer, list[dict[str, Any]]] = {viewer: [] for viewer in VIEWERS}
        self.effects: list[Effect] = []
        self.windows: list[float] = []  # each window's pause
        self.prompts: list[tuple[int, str, Phase, list[int], int]] = []
        self.finished = False
        self.run(self.flow.store_new())
        self.run(self.flow.start(self.now))

    @property
    def game(self) -> Round:
        return self.flow.game

    def stored_for(self, viewer: Viewer) -> int:
        return len(events_for(self.game.events[: self.stored], viewer))

    def run(self, effects: list[Effect]) -> None:
        for effect in effects:
            self.effects.append(effect)
            match effect:
                case StoreEvents(first=first, events=events):
                    assert first == self.stored, "a gap or an overlap in the stored log"
                    self.stored += len(events)
                case SendEvents(viewer=viewer, seq=seq, events=events):
                    assert seq == len(self.received[viewer]), "events out of sequence"
                    assert seq + len(events) <= self.stored_for(viewer), "sent before stored"
                    self.received[viewer].extend(events)
                case SendSnapshot(viewer=viewer, events=events):
                    assert len(events) <= self.stored_for(viewer), "sent before stored"
                    self.received[viewer] = list(events)
                case SendPrompt(seat=seat, prompt=prompt):
                    game = self.game
                    self.prompts.append(
                        (seat, prompt.kind, game.phase, list(game.to_act), game.current)
                    )
                case SetTimer(name=name, delay=delay, args=args, since=since):
                    if args[0] == "window" and name not in self.timers:
                        self.windows.append(delay)
                    start = self.now if since is None else since
                    self.timers[name] = (max(self.now, start + delay), args)
                case CancelTimer(name=name):
                    self.timers.pop(name, None)
                case SettleUntil(at=at):
                    self.now = max(self.now, at)
                    self.run(self.flow.pump(self.now))
                case Think(seat=seat, logged=logged, game=copy, ahead=ahead):
                    assert copy is not self.game and len(copy.events) == logged
                    assert ahead == self.flow.window_open  # begun ahead only at a window
                    # the turn's position now, or (begun at the claim window before it) the
                    # position the window's known answers lead to: the log so far, and more
                    events = self.game.events
                    assert copy.events[: len(events)] == events
                    assert logged == len(events) or self.flow.window_open
                    self.thinking[seat] = effect
                    self.begun.append((effect, self.flow.window_open, self.now))
                case DropThought(seat=seat):
                    # only a thought begun ahead, at the end of its window, is ever dropped
                    assert self.thinking[seat].ahead and not self.flow.window_open
                    del self.thinking[seat]
                    self.dropped.append(seat)
                case FinishHand():
                    self.finished = True
                case BroadcastTable():
                    pass

    def advance(self) -> str:
        """Fire the next timer; returns what it was (``window``, ``bot``, ``turn``)."""
        name, (at, args) = min(self.timers.items(), key=lambda item: item[1][0])
        del self.timers[name]
        self.now = at
        think = self.thinking.pop(args[1], None) if args[0] == "bot" else None
        if think is not None:  # the thought, as a thread would have computed it meanwhile
            # (begun ahead: on a twin of the bot, which replaces it if the turn came as
            # foreseen, as TableState.thought does)
            bot = self.bots[think.seat]
            thinker = bot.fork() if think.ahead else bot
            action = thinker.choose(think.game.view(think.seat))
            if self.flow.thought(think.seat, think.logged, action) and think.ahead:
                self.bots[think.seat] = thinker
                self.adopted.append(think.seat)
            self.thoughts += 1
        before = len(self.game.events)
        self.run(self.flow.on_timer(args[0], args[1] if len(args) > 1 else None, self.now))
        if args[0] == "bot" and len(self.game.events) > before:
            self.bot_turns.append((self.now, self.game.events[before]))
        return str(args[0])

    def act(self, seat: int, action: Action) -> None:
        prompt = self.flow.prompts[seat]
        self.run(self.flow.act(seat, action, prompt.id, playing=True, now=self.now))

    def play_out(self, answer: Any = None, limit: int = 2000) -> None:
        """Run the hand to its end; ``answer(shell, seat)`` answers people's open prompts."""
        for _ in range(limit):
            if self.finished:
                return
            waiting = [seat for seat in self.flow.prompts if answer is not None]
            if waiting:
                answer(self, waiting[0])
                continue
            self.advance()
        raise AssertionError("the hand did not end")

    def held(self) -> int:
        """How many discards and added kongs' tiles the log holds (each opens one window)."""
        return sum(holds(event) for event in self.game.events)


def answer_obviously(shell: Shell, seat: int) -> None:
    """Discard the drawn tile (else the highest), pass every claim."""
    prompt = shell.flow.prompts[seat]
    game = shell.game
    if prompt.kind == "claim":
        shell.act(seat, Action(seat, ActionKind.PASS))
        return
    legal = [a for a in game.legal_actions(seat) if a.kind is ActionKind.DISCARD]
    drawn = game.drawn_tile
    chosen = next((a for a in legal if a.tile == drawn), None) or max(
        legal, key=lambda a: a.tile or 0
    )
    shell.act(seat, chosen)


def stacked(hands: list[str], wall_front: str = "", baoting: int | None = None) -> Setup:
    """Dealt ``hands`` and a four-tile wall starting with ``wall_front`` (no 5p in it)."""
    used = Counter(t for hand in hands for t in parse_tiles(hand))
    head = parse_tiles(wall_front)
    used.update(head)
    spare = sorted((t for t in range(27) if tile_to_str(t) != "5p"), key=lambda t: (used[t], t))
    wall = "".join(tile_to_str(t) for t in head + spare[: 4 - len(head)])
    data: dict[str, Any] = {"hands": hands, "wall": wall, "fill": False, "actions": []}
    if baoting is not None:
        data["baoting"] = [seat == baoting for seat in range(4)]
        data["discards"] = ["2s" if seat == baoting else "" for seat in range(4)]
    return parse_scenario(data).setup


DEALER = "1m1m3m7m9m2p2p8p9p1s5s7s9s5p"  # seat 0: discards 5p (or 1m)
PINGHU = "1m2m3m4m5m6m7s8s9s1s1s4p6p"  # waits on 5p with only 平胡: refused on a discard (R17)
DUIDUI = "3m3m3m4p4p4p4s4s4s6m6m6m5p"  # 大對子 on 5p: a discard win allowed
PAIR = "5p5p1p9p2s6s8s3m4m6m8m9m7p"  # may pong 5p
PAIR2 = "5p5p1p9p2s6s8s2m4m7m8m9m7p"  # may pong 5p (beside DUIDUI's 3m)
PLAIN1 = "2m4m6m8m1p3p6p8p2s4s6s8s9s"
PLAIN3 = "2m5m8m3p6p8p2s6s7p9p3s5s7p"


def discard(seat: int, tile: str) -> Action:
    (kind,) = parse_tiles(tile)
    return Action(seat, ActionKind.DISCARD, kind)


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_bots_play_whole_hands_storing_before_every_release(seed: int) -> None:
    """Bots (and people in 托管 watching) on every seat, a spectator: one window per discard,
    each the same beat whoever may claim (issue 20 item 2), no prompt, and every viewer sent
    exactly its ``events_for`` of the log."""
    shell = Shell(deal_setup(seed), seats_for(tuoguan=(1, 3)), spectated=True)
    shell.play_out()
    assert shell.game.is_over and shell.stored == len(shell.game.events)
    assert len(shell.windows) == shell.held() > 0
    assert set(shell.windows) == {CONFIG.claim_beat}
    assert shell.prompts == []
    for viewer in (1, 3, None):
        assert shell.received[viewer] == events_for(shell.game.events, viewer)
    assert shell.received[0] == shell.received[2] == []  # bots are sent nothing


@pytest.mark.parametrize("claim_pause", ["natural", "fixed"])
def test_a_person_who_answers_is_prompted_only_when_they_may_act(claim_pause: str) -> None:
    shell = Shell(deal_setup(5), seats_for(people=(0,)), claim_pause=claim_pause)
    shell.play_out(answer_obviously)
    assert shell.game.is_over and shell.prompts
    for seat, kind, phase, to_act, current in shell.prompts:
        assert seat == 0
        if kind == "turn":
            assert phase is Phase.TURN and current == 0
        else:
            assert phase is Phase.CLAIMS and 0 in to_act
    assert shell.received[0] == events_for(shell.game.events, 0)
    assert len(shell.windows) == shell.held()
    if claim_pause == "fixed":  # the one window whatever happens
        assert set(shell.windows) == {CONFIG.claim_window}
    claim_prompts = sum(kind == "claim" for _, kind, *_ in shell.prompts)
    assert shell.windows.count(CONFIG.claim_window) >= claim_prompts


def test_a_person_who_times_out_twice_is_played_by_their_bot() -> None:
    """Two turns run out: each plays the obvious move, the second switches 托管 on."""
    seats = seats_for(people=(2,))
    shell = Shell(deal_setup(8), seats)
    turns_run_out = 0
    while not shell.finished:
        prompt = shell.flow.prompts.get(2)
        what = shell.advance()
        if what == "turn":
            assert prompt is not None and prompt.kind == "turn"
            turns_run_out += 1
            last_discard = next(e for e in reversed(shell.game.events) if e["type"] == "discard")
            assert last_discard["seat"] == 2  # the obvious move was played for them
        if seats[2] is not None and seats[2].tuoguan:
            break
    assert turns_run_out == 2
    assert any(isinstance(effect, BroadcastTable) for effect in shell.effects)
    prompted = len(shell.prompts)
    shell.play_out()
    assert len(shell.prompts) == prompted  # a seat in 托管 is never asked again


def test_a_refused_win_R17_costs_no_second_window() -> None:
    """Seat 1's 平胡 on the dealer's 5p is refused (R17): it hears so alone, the window is
    the one a person's claim prompt opens, and the bot is not asked."""
    shell = Shell(stacked([DEALER, PINGHU, PAIR, PLAIN3]), seats_for(people=(0, 2)))
    assert shell.flow.prompts[0].kind == "turn"
    shell.act(0, discard(0, "5p"))
    refused = [e for e in shell.game.events if e["type"] == "win_refused"]
    assert [e["seat"] for e in refused] == [1]
    assert [e for e in shell.received[1] if e["type"] == "win_refused"] == []  # a bot's
    assert all(e["type"] != "win_refused" for e in shell.received[0] + shell.received[2])
    assert shell.windows == [CONFIG.claim_window]  # person 2 was offered the pong
    assert [(seat, kind) for seat, kind, *_ in shell.prompts[1:]] == [(2, "claim")]
    shell.act(2, Action(2, ActionKind.PASS))
    assert shell.advance() == "window"
    assert len(shell.windows) == 1  # still one window: the refusal opened none of its own
    shell.play_out(answer_obviously)
    assert len(shell.windows) == shell.held()


def test_claims_resolve_by_R18_priority_whatever_the_order_of_answers() -> None:
    """Seat 3 answers pong first, seat 2 wins on the same 5p: the win takes it (R18)."""
    shell = Shell(stacked([DEALER, PLAIN1, DUIDUI, PAIR2]), seats_for(people=(0, 2, 3)))
    shell.act(0, discard(0, "5p"))
    asked = sorted(seat for seat, kind, *_ in shell.prompts if kind == "claim")
    assert asked == [2, 3]
    answered = shell.flow.prompts[3].id
    shell.act(3, Action(3, ActionKind.PONG))
    with pytest.raises(ProtocolError) as closed:  # a prompt answered is closed
        shell.flow.act(3, Action(3, ActionKind.PASS), answered, playing=True, now=shell.now)
    assert closed.value.code == "too_late"
    shell.act(2, Action(2, ActionKind.HU))
    assert shell.advance() == "window"
    wins = [e for e in shell.game.events if e["type"] == "win"]
    assert [w["seat"] for w in wins] == [2]
    result = shell.game.result  # the hand ends on the win: the pong was never made
    assert result is not None and list(result.winners) == [2]
    assert shell.received[3] == events_for(shell.game.events[: shell.flow.released], 3)


def test_a_baoting_seat_discards_what_it_draws_unasked_R26() -> None:
    """Seat 1 declared 報聽 waiting on 5p: the 2m it draws goes out by itself (R26), in a
    claim window like any discard, and seat 1 is never prompted for its turn."""
    shell = Shell(stacked([DEALER, DUIDUI, PLAIN1, PLAIN3], "2m", baoting=1), seats_for((0, 1)))
    shell.act(0, discard(0, "1m"))
    while shell.flow.released < len(shell.game.events) or shell.game.current != 2:
        shell.advance()
    auto = [e for e in shell.game.events if e["type"] == "discard" and e["seat"] == 1]
    assert len(auto) == 1 and auto[0]["tile"] == "2m" and auto[0].get("auto") is True
    assert all(not (seat == 1 and kind == "turn") for seat, kind, *_ in shell.prompts)
    assert len(shell.windows) == shell.held() == 2


def test_a_late_or_wrong_answer_changes_nothing() -> None:
    shell = Shell(deal_setup(4), seats_for(people=(0,)))
    prompt = shell.flow.prompts[0]
    before = len(shell.game.events)
    with pytest.raises(ProtocolError) as late:
        shell.flow.act(0, discard(0, "1m"), prompt.id + 1, playing=True, now=shell.now)
    assert late.value.code == "too_late"
    with pytest.raises(ProtocolError) as stopped:
        shell.flow.act(0, discard(0, "1m"), None, playing=False, now=shell.now)
    assert stopped.value.code == "not_your_turn"
    assert len(shell.game.events) == before and shell.flow.prompts[0] is prompt


def test_a_bot_that_thinks_apart_is_handed_its_move_on_a_copy() -> None:
    """The search bot's turn moves are chosen off the event loop (issue 22 item 3, item 5):
    the flow asks for a thought on a copy of the round when the think time starts and plays
    the move handed back when it ends; only claims are decided on the loop (issue 20 item 2)."""
    shell = Shell(deal_setup(13), seats_for(tuoguan=(0,)), spectated=True, thinks_apart=True)
    shell.play_out()
    turns = sum(e["type"] == "act" and e["action"] != "pass" for e in shell.game.events)
    assert shell.thoughts > 0 and shell.thoughts >= turns - len(shell.windows)
    assert all(claim for _, claim in shell.decided_on_loop)
    assert shell.received[None] == events_for(shell.game.events, None)
    assert len(shell.windows) == shell.held()


def test_a_search_bots_think_time_counts_from_its_turn_and_bounds_its_search() -> None:
    """Issue 23's timing tell: a bot thinking apart (大師) gets what is left of its think
    time but at least THINK_FLOOR from the start of its turn, and its search is told to stop
    THINK_SLACK (at most a quarter of that) before the timer that plays its move fires; so the
    move never waits for a search, and when it comes says nothing of how close the decision
    was. A search begun at the claim window before the turn (nobody but bots could claim, so
    whose turn follows was known) stops no later than that."""
    shell = Shell(deal_setup(13), seats_for(tuoguan=(0,)), thinks_apart=True)
    shell.play_out()
    at_turn = ahead = 0
    for think, early, begun_at in shell.begun:
        index = next(i for i, e in enumerate(shell.effects) if e is think)
        timer = next(
            e
            for e in shell.effects[index:]
            if isinstance(e, SetTimer) and e.args == ("bot", think.seat)
        )
        assert timer.since is not None
        slack = min(THINK_SLACK, timer.delay / 4)
        assert THINK_FLOOR <= timer.delay <= max(THINK_FLOOR, CONFIG.bot_delay_max)
        if early:
            # the turn starts after the window; the search stops before the move's timer fires
            assert begun_at < timer.since < think.deadline
            assert think.deadline <= timer.since + timer.delay - slack + 1e-9
            ahead += 1
        else:
            assert timer.since == begun_at  # counted from the turn, not the move before
            assert think.deadline == pytest.approx(begun_at + timer.delay - slack)
            at_turn += 1
    assert at_turn >= 1 and ahead >= 5
    # no thought was wasted: with bots only, every window's outcome was known at its start
    assert shell.thoughts == len(shell.begun)
    assert all(claim for _, claim in shell.decided_on_loop)


@pytest.mark.parametrize(("seed", "person"), [(13, False), (21, False), (15, True), (22, True)])
def test_thinking_ahead_changes_no_move_and_no_moment(
    seed: int, person: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search begun at the claim window (issue 35: 大師 at a person's pace) is hidden: the
    same hand, played once with the bots' searches begun ahead and once with each begun at its
    turn, has the same moves at the same moments, and everything is stored and sent alike;
    also with a person at the table, who is asked to claim (the thoughts then assume a pass)
    and answers at once."""
    played = []
    for early in (True, False):
        if not early:
            monkeypatch.setattr(HandFlow, "_think_ahead", lambda self, now: None)
        seats = seats_for(people=(0,)) if person else seats_for(tuoguan=(0,))
        shell = Shell(deal_setup(seed), seats, thinks_apart=True)
        shell.play_out(answer_obviously if person else None)
        assert any(ahead for _, ahead, _ in shell.begun) == early
        assert bool(shell.adopted) == early
        assert any(kind == "claim" for _, kind, *_ in shell.prompts) == person
        played.append((shell.game.events, shell.bot_turns, shell.windows, shell.received))
    assert played[0] == played[1]
    assert len(played[0][1]) >= 10


def test_a_table_without_a_search_bot_copies_no_hand_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thinking ahead is for bots that think apart: a table of other bots plays its windows
    without a copy of the hand (1,000 tables in a process open thousands of windows a second)."""
    copies = []
    real_copy = Round.copy

    def counted_copy(self: Round) -> Round:
        copies.append(len(self.events))
        return real_copy(self)

    monkeypatch.setattr(Round, "copy", counted_copy)
    shell = Shell(deal_setup(13), seats_for(tuoguan=(0,)))
    shell.play_out()
    assert shell.windows and not shell.begun and copies == []


def test_a_thought_ahead_when_a_person_may_claim_assumes_they_pass() -> None:
    """Seat 2's person may pong the dealer's 5p, so whose turn follows is not known while the
    window is open. Seat 1's search begins at the window all the same, on the hypothesis that
    the person passes (without it, the search had only THINK_FLOOR after the window), and
    stops before the earliest moment its move could be due: the shortest window, a beat,
    and the floor after it. The person passes: that thought is the move, on a twin of the
    bot that then becomes the seat's bot, and no second search begins."""
    shell = Shell(
        stacked([DEALER, PLAIN1, PAIR, PLAIN3]), seats_for(people=(0, 2)), thinks_apart=True
    )
    opened = shell.now
    shell.act(0, discard(0, "5p"))
    assert 2 in shell.flow.prompts
    ((think, early, _),) = shell.begun
    assert early and think.ahead and think.seat == 1 and think.logged > len(shell.game.events)
    assert shell.windows == [CONFIG.claim_window]  # held for the person's answer
    slack = min(THINK_SLACK, THINK_FLOOR / 4)
    assert think.deadline == pytest.approx(opened + CONFIG.claim_beat + THINK_FLOOR - slack)
    shell.now += 0.3 * CONFIG.claim_beat  # the person passes at once: held for the beat
    shell.act(2, Action(2, ActionKind.PASS))
    assert shell.advance() == "window"
    assert shell.game.current == 1 and len(shell.game.events) == think.logged
    assert len(shell.begun) == 1 and shell.flow.thinking_ahead == {} and shell.dropped == []
    ((due, args),) = shell.timers.values()
    assert args == ("bot", 1) and due >= shell.now + THINK_FLOOR > think.deadline
    before = len(shell.game.events)
    assert shell.advance() == "bot"
    assert shell.game.events[before]["seat"] == 1 and shell.adopted == [1]


def test_a_person_who_claims_leaves_the_thought_ahead_unused() -> None:
    """The hypothesis fails: seat 2's person pongs the dealer's 5p. Seat 1's thought begun at
    the window is for a turn that never comes: it is dropped when the window ends (the table
    stops its twin's search rather than let it run to its deadline), and seat 1 thinks anew
    at its turn, with the bot that never saw the view."""
    shell = Shell(
        stacked([DEALER, PLAIN1, PAIR, PLAIN3]), seats_for(people=(0, 2)), thinks_apart=True
    )
    bot = shell.bots[1]
    shell.act(0, discard(0, "5p"))
    ((think, _, _),) = shell.begun
    assert think.ahead and think.seat == 1
    shell.act(2, next(a for a in shell.game.legal_actions(2) if a.kind is ActionKind.PONG))
    assert shell.dropped == []  # the window is open: the person might still pass
    assert shell.advance() == "window"
    assert shell.game.current == 2
    assert shell.dropped == [1] and 1 not in shell.thinking and shell.flow.thinking_ahead == {}
    answer_obviously(shell, 2)  # the person discards after the pong: a new window
    while shell.game.current != 1 or shell.flow.window_open:
        shell.advance()
    assert shell.bots[1] is bot and 1 not in shell.adopted
    assert shell.begun[-1][0].seat == 1 and len(shell.game.events) == shell.begun[-1][0].logged


def test_a_thought_begun_for_a_turn_that_did_not_come_is_never_played() -> None:
    """Seat 2's person had dropped when the dealer discarded 5p, so the window was not held for
    them and seat 1's search began at once, for its turn after a pass. The person comes back
    inside the window and pongs: that thought is never used, the next window forgets it, and a
    move handed back that is not legal when its timer fires is decided again, never played."""
    seats = seats_for(people=(0, 2))
    person = seats[2]
    assert person is not None
    client, person.client = person.client, None
    shell = Shell(stacked([DEALER, PLAIN1, PAIR, PLAIN3]), seats, thinks_apart=True)
    shell.act(0, discard(0, "5p"))
    ((think, early, _),) = shell.begun
    assert early and think.seat == 1 and think.logged > len(shell.game.events)
    person.client = client  # back, with a snapshot of the hand so far (as the table sends)
    shell.received[2] = shell.flow.released_events(2)
    shell.flow.seen[2] = len(shell.received[2])
    shell.act(2, next(a for a in shell.game.legal_actions(2) if a.kind is ActionKind.PONG))
    assert shell.advance() == "window"
    assert shell.game.melds[2] and shell.game.current == 2
    answer_obviously(shell, 2)  # the person discards after the pong: a new window
    assert 1 not in shell.flow.thinking_ahead
    while shell.flow.window_open or shell.game.current == 2:
        shell.advance()
    # the next seat thinking apart is handed a move it cannot make (a tile it does not hold)
    seat = shell.game.current
    missing = next(tile for tile in range(27) if shell.game.counts[seat][tile] == 0)
    stale = Action(seat, ActionKind.DISCARD, missing)
    shell.thinking.pop(seat)
    shell.flow.thought(seat, len(shell.game.events), stale)
    before = len(shell.game.events)
    assert shell.advance() == "bot"
    move = shell.game.events[before]
    assert move["seat"] == seat and move["tile"] != tile_to_str(missing), move


def test_a_dropped_person_is_not_waited_for_in_natural_pace() -> None:
    """Issue 21 item 1: at a natural table the pause after a discard is the short beat unless
    a connected person may claim. Seat 2 may pong the dealer's 5p but its person has dropped:
    the table does not hold the claim window for them, and the pong is passed when it ends."""
    seats = seats_for(people=(0, 2))
    dropped = seats[2]
    assert dropped is not None
    dropped.client = None
    shell = Shell(stacked([DEALER, PLAIN1, PAIR, PLAIN3]), seats)
    shell.act(0, discard(0, "5p"))
    assert 2 in shell.game.to_act  # the pong was there to make
    assert shell.windows == [CONFIG.claim_beat]
    assert shell.advance() == "window"
    assert shell.game.melds[2] == [] and shell.game.current == 1


def test_a_person_who_never_answers_a_claim_is_passed_when_the_window_ends() -> None:
    """Issue 21 item 1: a connected person offered a claim is waited for up to the claim
    timer, no longer; an unanswered claim is a pass and the hand goes on."""
    shell = Shell(stacked([DEALER, PLAIN1, PAIR, PLAIN3]), seats_for(people=(0, 2)))
    shell.act(0, discard(0, "5p"))
    opened = shell.now
    assert shell.windows == [CONFIG.claim_window]
    assert shell.advance() == "window"
    assert shell.now >= opened + CONFIG.claim_window
    assert 2 not in shell.flow.prompts
    assert shell.game.melds[2] == [] and shell.game.current == 1
