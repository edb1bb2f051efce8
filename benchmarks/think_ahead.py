"""How much time 大師's searches get at a table with a person, and how often it runs out:
its search begun at the claim window before its turn on the hypothesis that a person asked to
claim passes (issue 35), beside the two ways it began before, in one run.

A table is the server's own hand flow (``duyun.server.tables.flow.HandFlow``, the pure state
machine) on a simulated clock: one person, three 大師 (``search``) bots, the DEFAULT config's
timing. The person answers every prompt ``--think`` seconds after it (1 s, as
``benchmarks/pace.py``): claims are passed, a turn discards the drawn tile. Each thought the
flow asks for (``Think``) is searched for real on this machine, with the real time the table
would give it: its deadline minus the moment (simulated) it was asked for, counted from now on
``time.monotonic``. A thought begun ahead runs on a twin of the bot that takes its seat when the
turn comes as foreseen, as at the server (``TableState.thought``). Only the thoughts the table
plays are measured.

The ways a search begins:

* ``ahead``: at the claim window before the turn, on the hypothesis that every person asked
  to claim passes (the server's flow now);
* ``ahead-unasked``: at the window only when no person was asked, else at the turn (the
  server's flow until 7 December 2026: after a window that asked a person the search had only
  THINK_FLOOR, 0.1 s, less its slack);
* ``at-turn``: always at the turn (before the think-ahead).

For each: the searched decisions, the median time given to them, how many ran out of time
(cut: the strong bot's choice then stands unless the samples already say otherwise), and the
rollouts a searched decision played, in all and after the windows that asked the person.

    PYTHONPATH=benchmarks python benchmarks/think_ahead.py --hands 4
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from duyun.bots.search import SearchBot
from duyun.engine import Action, ActionKind, Round, SeatView, deal_setup
from duyun.rules import RuleSet
from duyun.server.config import ServerConfig
from duyun.server.store import Account
from duyun.server.tables.flow import (
    CancelTimer,
    DropThought,
    Effect,
    FinishHand,
    HandFlow,
    SendPrompt,
    SetTimer,
    SettleUntil,
    Think,
)
from duyun.server.tables.inbox import TableRef
from duyun.server.tables.seats import Seat

MODES = ("ahead", "ahead-unasked", "at-turn")


class _UnaskedFlow(HandFlow):
    """The flow as it was until 7 December 2026: no thought ahead after a person was asked."""

    def _think_ahead(self, now: float) -> None:
        if not self.people_to_ask():
            super()._think_ahead(now)


class _AtTurnFlow(HandFlow):
    """Every search begins at its turn."""

    def _think_ahead(self, now: float) -> None:
        return None


FLOWS: dict[str, type[HandFlow]] = {
    "ahead": HandFlow,
    "ahead-unasked": _UnaskedFlow,
    "at-turn": _AtTurnFlow,
}


class _Person:
    """A connected client as the flow sees a seat's (the flow never sends: its shell does)."""

    account: Account | None = None
    table: TableRef | None = None
    spectating: TableRef | None = None
    address: str | None = None

    def send(self, message: dict[str, Any]) -> None:
        return None

    def send_text(self, text: str) -> None:
        return None

    def close(self, code: int, reason: str) -> None:
        return None


@dataclass
class Searched:
    """One thought the table played."""

    budget: float  # seconds it was given
    searched: bool
    cut: bool
    rollouts: int
    after_asked: bool  # the window before this turn asked the person to claim


@dataclass
class Table:
    """One hand: the flow, its timers on a simulated clock, and the person's answers."""

    flow: HandFlow
    bots: dict[int, SearchBot]
    think: float
    now: float = 100.0
    timers: dict[Any, tuple[float, tuple[Any, ...]]] = field(default_factory=dict)
    answers: dict[int, float] = field(default_factory=dict)  # seat -> when it answers
    thoughts: dict[int, tuple[Think, float, bool]] = field(default_factory=dict)
    asked: bool = False
    finished: bool = False
    played: list[Searched] = field(default_factory=list)

    def run(self, effects: list[Effect]) -> None:
        for effect in effects:
            match effect:
                case SetTimer(name=name, delay=delay, args=args, since=since):
                    if args[0] == "window" and name not in self.timers:
                        self.asked = False  # a new window
                    start = self.now if since is None else since
                    self.timers[name] = (max(self.now, start + delay), args)
                case CancelTimer(name=name):
                    self.timers.pop(name, None)
                case SettleUntil(at=at):
                    self.now = max(self.now, at)
                    self.run(self.flow.pump(self.now))
                case SendPrompt(seat=seat, prompt=prompt):
                    self.asked = self.asked or prompt.kind == "claim"
                    self.answers[seat] = self.now + self.think
                case Think(seat=seat):
                    self.thoughts[seat] = (effect, self.now, self.asked)
                case DropThought(seat=seat):
                    del self.thoughts[seat]  # for a turn that did not come: never searched
                case FinishHand():
                    self.finished = True
                case _:
                    pass

    def step(self) -> None:
        """The next thing to happen: the person's answer or a timer."""
        due = {("answer", seat): at for seat, at in self.answers.items()}
        due.update({("timer", name): at for name, (at, _) in self.timers.items()})
        (kind, key), at = min(due.items(), key=lambda item: item[1])
        self.now = max(self.now, at)
        if kind == "answer":
            del self.answers[key]
            if key in self.flow.prompts:
                self.run(self._answer(key))
            return
        _, args = self.timers.pop(key)
        if args[0] == "bot" and args[1] in self.thoughts:
            self._search(*self.thoughts.pop(args[1]))
        self.run(self.flow.on_timer(args[0], args[1] if len(args) > 1 else None, self.now))

    def _answer(self, seat: int) -> list[Effect]:
        prompt = self.flow.prompts[seat]
        game = self.flow.game
        legal = game.legal_actions(seat)
        if prompt.kind == "claim":
            action = Action(seat, ActionKind.PASS)
        else:
            discards = [a for a in legal if a.kind is ActionKind.DISCARD]
            action = next((a for a in discards if a.tile == game.drawn_tile), discards[-1])
        return self.flow.act(seat, action, prompt.id, playing=True, now=self.now)

    def _search(self, think: Think, asked_at: float, after_asked: bool) -> None:
        bot = self.bots[think.seat]
        thinker = bot.fork() if think.ahead else bot
        budget = think.deadline - asked_at
        searched, cut, rollouts = thinker.searched, thinker.cut, thinker.rollouts
        action = thinker.choose(think.game.view(think.seat), deadline=time.monotonic() + budget)
        if not self.flow.thought(think.seat, think.logged, action):
            return  # the hand moved on: this thought is not played
        if think.ahead:
            self.bots[think.seat] = thinker
        self.played.append(
            Searched(
                budget,
                thinker.searched > searched,
                thinker.cut > cut,
                thinker.rollouts - rollouts,
                after_asked,
            )
        )


def play_hand(mode: str, seed: int, think: float, config: ServerConfig) -> list[Searched]:
    bots = {index: SearchBot(seed * 10 + index) for index in (1, 2, 3)}
    seats: list[Seat | None] = [Seat("human", "person", "strong", account_id=1, client=_Person())]
    seats += [Seat("bot", f"大師{index}", "search", ready=True) for index in (1, 2, 3)]

    def decide(index: int, view: SeatView, claim: bool) -> Action:
        bot = bots[index]  # (a twin that took the seat is in it: Table._search)
        return bot.strong.choose(view) if claim else bot.choose(view)

    flow = FLOWS[mode](
        Round(deal_setup(seed), RuleSet()),
        seed,
        seats,
        config,
        "natural",
        decide,
        random.Random(seed),
        thinks_apart=lambda index: index != 0,
    )
    table = Table(flow, bots, think)
    table.run(flow.store_new())
    table.run(flow.start(table.now))
    for _ in range(5000):
        if table.finished:
            return table.played
        table.step()
    raise AssertionError(f"hand {seed} ({mode}) did not end")


def _row(name: str, rows: list[Searched]) -> str:
    searched = [r for r in rows if r.searched]
    if not searched:
        return f"  {name:<32} no searched decision"
    cut = sum(r.cut for r in searched)
    budget = statistics.median(r.budget for r in searched)
    rollouts = statistics.mean(r.rollouts for r in searched)
    return (
        f"  {name:<32} {len(searched):4d} searched, median time {budget:5.2f} s, "
        f"cut {cut:3d} ({cut / len(searched):4.0%}), {rollouts:5.1f} rollouts a search"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=4, help="hands per mode (default 4)")
    parser.add_argument("--seed", type=int, default=1, help="the first hand's seed")
    parser.add_argument("--think", type=float, default=1.0, help="the person's answer time")
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    config = ServerConfig()
    print(
        f"think_ahead: 1 person (answers after {args.think:g} s) + 3 大師, default config "
        f"(claim beat {config.claim_beat:g} s, claim window {config.claim_window:g} s, "
        f"bot delay {config.bot_delay:g}-{config.bot_delay_max:g} s), "
        f"hands {args.seed}..{args.seed + args.hands - 1}"
    )
    for mode in MODES:
        rows: list[Searched] = []
        for seed in range(args.seed, args.seed + args.hands):
            rows += play_hand(mode, seed, args.think, config)
        print(f"{mode}:")
        print(_row("all", rows))
        print(_row("after a window that asked", [r for r in rows if r.after_asked]))
        print(_row("after one that did not", [r for r in rows if not r.after_asked]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
